"""Issue 29's hostile templates: a template is other people's files, and template-apply
runs with the person's rights in the person's folders (findings 8 and 12), through the
real CLI and real git."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests import forkserver
from tests.conftest import git, run_cli
from tests.templates.helpers import create_template


@pytest.fixture
def template(tmp_path: Path) -> Path:
    """A small real template: a README and an executable script."""
    source = tmp_path / "tiny-tool"
    source.mkdir()
    (source / "README.md").write_text("# Tiny Tool\n", "utf-8")
    script = source / "run.sh"
    script.write_text("#!/bin/sh\necho tiny_tool\n", "utf-8")
    script.chmod(0o755)
    return Path(create_template(source, tmp_path / "t").path)


def _manifest(template: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((template / "manifest.json").read_text("utf-8"))
    return data


def _add(template: Path, *, template_path: str, output_path: str, executable: bool) -> None:
    manifest = _manifest(template)
    entry = dict(manifest["templates"][0])
    entry.update(template_path=template_path, output_path=output_path, executable=executable,
                 source_path=output_path)  # fmt: skip
    manifest["templates"].append(entry)
    (template / "manifest.json").write_text(json.dumps(manifest), "utf-8")


@pytest.fixture
def repo(git_repo: Path) -> Path:
    return git_repo


# -- finding 8: nothing is written through .git ------------------------------------------


@pytest.mark.parametrize(
    "output",
    [
        ".git/hooks/post-checkout",
        ".GIT/hooks/post-checkout",
        "lib/.Git/config",
        "a/.git",
        ".git./hooks/post-checkout",
        ".git /hooks/post-checkout",
        "git~1/hooks/post-checkout",
        ".g\u200cit/hooks/post-checkout",
    ],
)
def test_29_08_no_output_path_goes_through_git(template: Path, repo: Path, output: str) -> None:
    """template-apply wrote `output_path: .git/hooks/post-checkout` as an executable; the
    person's next checkout ran it. Any path through a `.git` (any case, any depth, as
    the file systems that fold names spell it) is refused, and nothing is written."""
    hook = template / "templates" / "hook.template"
    hook.write_text("#!/bin/sh\ntouch pwned\n", "utf-8")
    _add(template, template_path="templates/hook.template", output_path=output,
         executable=True)  # fmt: skip
    before = git(repo, "status", "--porcelain", "--ignored")
    r = run_cli("template-apply", str(template), str(repo), "--yes", cwd=repo)
    assert r.returncode == 5, r.stdout + r.stderr
    assert f"renders to {output!r}: a path through .git" in r.stderr
    assert not list((repo / ".git" / "hooks").glob("post-checkout"))
    assert git(repo, "status", "--porcelain", "--ignored") == before  # nothing written


def test_29_08_no_output_goes_through_a_link_into_git(template: Path, repo: Path) -> None:
    """A link already in the destination (`hooks -> .git/hooks`) is no way into .git
    either, nor out of the destination."""
    (repo / "hooks").symlink_to(".git/hooks")
    (repo / "away").symlink_to("/tmp")
    for output in ("hooks/post-checkout", "away/x.sh"):
        _add(template, template_path="templates/project/README.md.template", output_path=output,
             executable=True)  # fmt: skip
    r = run_cli("template-apply", str(template), str(repo), "--yes", cwd=repo)
    assert r.returncode == 5, r.stdout + r.stderr
    assert "'hooks/post-checkout': a path through .git" in r.stderr
    assert not (repo / ".git" / "hooks" / "post-checkout").exists()
    assert not (repo / "README.md").read_text("utf-8").startswith("# Tiny")


def test_29_08_what_will_be_written_is_shown_first(template: Path, tmp_path: Path) -> None:
    """Before anything is written the person sees every file and which are executable;
    without a terminal to confirm on, only `--yes` writes."""
    dest = tmp_path / "new"
    r = run_cli("template-apply", str(template), str(dest), cwd=tmp_path)
    assert r.returncode == 64, r.stdout + r.stderr
    assert r.stdout == (
        f"template-apply would write 2 files into {dest} (1 executable):\n"
        "  README.md\n"
        "  run.sh  (executable)\n"
    )
    assert "nothing was written" in r.stderr and "--yes" in r.stderr
    assert not dest.exists()
    r = run_cli("template-apply", str(template), str(dest), "--yes", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(f"template-apply writes 2 files into {dest} (1 executable):\n")
    assert "  run.sh  (executable)\n" in r.stdout
    assert os.access(dest / "run.sh", os.X_OK)


# -- finding 12: every path read stays inside the template -------------------------------


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    path = tmp_path / "home" / ".aws" / "credentials"
    path.parent.mkdir(parents=True)
    path.write_text("aws_secret_access_key = SECRET\n", "utf-8")
    return path


@pytest.mark.parametrize("how", ["absolute", "dotdot", "link-file", "link-folder"])
def test_29_12_no_template_path_leaves_the_template(
    template: Path, tmp_path: Path, secret: Path, how: str
) -> None:
    """A `template_path` that is absolute, `../`, or a link leading out of the template
    copied `~/.aws/credentials` into the new project. Each is refused by name."""
    inside = "templates/creds.template"
    if how == "absolute":
        path = str(secret)
    elif how == "dotdot":
        path = os.path.relpath(secret, template)
    elif how == "link-file":
        (template / inside).symlink_to(secret)
        path = inside
    else:
        (template / "templates" / "aws").symlink_to(secret.parent)
        path = "templates/aws/credentials"
    _add(template, template_path=path, output_path="creds.txt", executable=False)
    dest = tmp_path / "new"
    r = run_cli("template-apply", str(template), str(dest), "--yes", cwd=tmp_path)
    assert r.returncode == 5, r.stdout + r.stderr
    assert f"template_path {path!r}" in r.stderr
    assert "outside the template" in r.stderr
    assert not dest.exists()


@pytest.mark.parametrize("what", ["big", "fifo", "device"])
def test_29_12_template_files_are_capped_and_never_block(
    template: Path, tmp_path: Path, what: str
) -> None:
    """A template file is read only as a regular file of a bounded size: a FIFO never
    blocks, a device is never read, a giant is refused by name."""
    path = template / "templates" / "odd.template"
    if what == "big":
        with path.open("wb") as f:
            f.truncate(64 << 20)  # sparse: costs no disk
    elif what == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")
    _add(template, template_path="templates/odd.template", output_path="odd.txt",
         executable=False)  # fmt: skip
    dest = tmp_path / "new"
    r = run_cli("template-apply", str(template), str(dest), "--yes", cwd=tmp_path, timeout=30)
    assert r.returncode == 5, r.stdout + r.stderr
    assert "templates/odd.template" in r.stderr
    said = {"big": "over the", "fifo": "not a regular file", "device": "outside the template"}
    assert said[what] in r.stderr, r.stderr
    assert not dest.exists()


def _on_a_terminal(args: list[str], answer: str, cwd: Path) -> tuple[int, str]:
    """Run the CLI on a real pseudo-terminal, answer its question with `answer`."""
    import pty
    import select
    import sys
    import time

    leader, follower = pty.openpty()
    proc = forkserver.popen(
        [sys.executable, "-m", "executor", *args], cwd=cwd, stdin=follower, stdout=follower,
        stderr=follower, env={**os.environ, "TERM": "xterm", "COLUMNS": "120", "LINES": "40"},
        close_fds=True,
    )  # fmt: skip
    os.close(follower)
    seen, sent = b"", False
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        ready, _, _ = select.select([leader], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(leader, 4096)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
        if not sent and b"Write these" in seen:
            os.write(leader, answer.encode())
            sent = True
        if proc.poll() is not None and not ready:
            break
    os.close(leader)
    return proc.wait(timeout=10), seen.decode("utf-8", "replace")


def test_29_08_at_a_terminal_the_person_confirms_first(template: Path, tmp_path: Path) -> None:
    dest = tmp_path / "new"
    code, seen = _on_a_terminal(["template-apply", str(template), str(dest)], "n", tmp_path)
    assert code == 1, seen
    assert "run.sh  (executable)" in seen and "Nothing was written." in seen
    assert not dest.exists()
    code, seen = _on_a_terminal(["template-apply", str(template), str(dest)], "y", tmp_path)
    assert code == 0, seen
    assert os.access(dest / "run.sh", os.X_OK)
