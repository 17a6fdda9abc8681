"""`executor docs [TOPIC]`: the documentation from the installed tool, through the real
CLI, and the wheel carrying it (a pip user has no docs/ folder)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

from executor.cli.catalog import root
from executor.cli.spec import Command, Commands
from tests.conftest import run_cli

REPO = Path(__file__).resolve().parents[2]
PAGES = sorted((REPO / "docs").glob("*.md"))
TOPICS = [p.stem for p in PAGES]


def _title(page: Path) -> str:
    return next(line[2:].strip() for line in page.read_text("utf-8").splitlines()
                if line.startswith("# "))  # fmt: skip


def test_without_a_topic_each_page_is_one_line_its_topic_and_title(tmp_path: Path) -> None:
    proc = run_cli("docs", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    rows = [line.split(None, 1) for line in proc.stdout.splitlines()]
    assert rows == [[p.stem, _title(p)] for p in PAGES]


def test_a_topic_its_file_name_or_a_unique_prefix_prints_the_page(tmp_path: Path) -> None:
    page = (REPO / "docs" / "reliability.md").read_text("utf-8")
    for name in ("reliability", "docs/reliability.md", "reliability.md", "Reli"):
        proc = run_cli("docs", name, cwd=tmp_path)
        assert proc.returncode == 0, (name, proc.stderr)
        assert proc.stdout == page.rstrip("\n") + "\n", name
    codes = run_cli("docs", "exit-codes", cwd=tmp_path)
    assert codes.stdout.startswith("# Exit codes\n")


def test_an_unknown_or_ambiguous_topic_is_one_line_exit_64(tmp_path: Path) -> None:
    unknown = run_cli("docs", "nope", cwd=tmp_path)
    assert unknown.returncode == 64 and unknown.stdout == ""
    assert unknown.stderr.count("\n") == 1 and "Traceback" not in unknown.stderr
    assert "no docs topic 'nope'" in unknown.stderr
    assert all(t in unknown.stderr for t in TOPICS)
    both = run_cli("docs", "rep", cwd=tmp_path)
    assert both.returncode == 64 and both.stderr.count("\n") == 1
    assert "could be any of: replay-agent, report" in both.stderr
    extra = run_cli("docs", "engine", "bridge", cwd=tmp_path)
    assert extra.returncode == 64 and extra.stderr.count("\n") == 1


def _commands(table: Commands, words: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    out: list[tuple[str, ...]] = []
    for name, entry in table.entries.items():
        if isinstance(entry, Command):
            out.append((*words, name))
        else:
            out.extend(_commands(entry, (*words, name)))
    return out


def test_help_cites_pages_by_the_docs_command_and_each_one_it_names_exists(
    tmp_path: Path,
) -> None:
    """A pip user has no docs/*.md: every `--help` names a page as `executor docs
    TOPIC`, and that topic is a page `executor docs` prints. Help never cuts a word at
    its hyphen (`--no-` / `verify`), even narrow."""
    cited: set[str] = set()
    for words in [(), *_commands(root())]:
        proc = run_cli(*words, "--help", cwd=tmp_path, env={"COLUMNS": "60"})
        assert proc.returncode == 0, (words, proc.stderr)
        assert not re.search(r"\w-\n", proc.stdout), (words, proc.stdout)
        text = " ".join(proc.stdout.split())
        assert not re.search(r"docs/[a-z-]+\.md", text), (words, text)
        cited.update(re.findall(r"`executor docs ([a-z-]+)`", text))
    assert cited >= {"agent-command", "test-strength", "report", "parallel", "replay-agent"}
    assert cited <= set(TOPICS)
    agents = run_cli("agents", cwd=tmp_path)
    assert "source: executor docs bridge" in agents.stdout
    assert "docs/bridge.md" not in agents.stdout


def test_the_wheel_carries_the_pages_and_its_executor_prints_them(tmp_path: Path) -> None:
    """The wheel as pip builds it, unpacked and run from another folder: its pages are
    the checkout's, read from the package (no docs/ beside it)."""
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(REPO), "--no-deps", "-q", "-w",
         str(tmp_path / "dist")],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr
    (wheel,) = (tmp_path / "dist").glob("plan_executor-*.whl")
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        archive.extractall(site)
    assert {f"executor/_data/docs/{p.name}" for p in PAGES} <= names
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {**os.environ, "PYTHONPATH": str(site)}
    proc = subprocess.run(
        [sys.executable, "-c", "import sys, executor.cli as c, executor as e; "
         "print(e.__file__, file=sys.stderr); sys.exit(c.main(['docs', 'reliability']))"],
        cwd=elsewhere, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip() == str(site / "executor" / "__init__.py")
    assert proc.stdout == (REPO / "docs" / "reliability.md").read_text("utf-8").rstrip() + "\n"
