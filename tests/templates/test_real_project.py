"""The round trip on a project we did not write: the attrs sdist from the package index."""

from __future__ import annotations

import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from executor.templates import apply_template, verify_template
from tests.templates.helpers import create_template, tree_bytes

ATTRS = "attrs==23.2.0"


@pytest.fixture(scope="module")
def attrs_source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("attrs")
    try:
        done = subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
             "--quiet", "--dest", str(folder), ATTRS],
            capture_output=True, text=True, timeout=180,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        pytest.skip(f"package index unreachable: `pip download {ATTRS}` timed out")
    archives = list(folder.glob("attrs-*.tar.gz"))
    if done.returncode != 0 or not archives:
        pytest.skip(
            f"package index unreachable: `pip download {ATTRS}` failed: {done.stderr[-300:]}"
        )
    with tarfile.open(archives[0]) as tar:
        if hasattr(tarfile, "data_filter"):
            tar.extractall(folder, filter="data")
        else:  # pragma: no cover - Python without extraction filters
            tar.extractall(folder)
    return next(p for p in folder.iterdir() if p.is_dir())


def test_attrs_round_trip(attrs_source: Path, tmp_path: Path) -> None:
    written = create_template(attrs_source, tmp_path / "attrs-template", validate=True)
    template = Path(written.path)
    report = verify_template(template, source=attrs_source)
    assert report.ok and report.score == 10.0
    copy = tmp_path / "copy"
    apply_template(template, copy, {})
    source = tree_bytes(attrs_source)
    binaries = {p for p, data in source.items() if b"\0" in data or p.endswith(".png")}
    assert binaries  # the logos: listed as skipped, not templated
    assert tree_bytes(copy) == {p: d for p, d in source.items() if p not in binaries}
    renamed = tmp_path / "renamed"
    apply_template(template, renamed, {"ProjectName": "Widgets"})
    assert (renamed / "src" / "widgets" / "__init__.py").is_file()
