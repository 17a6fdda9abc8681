"""What a clone of a session's commit gets back is what its tests ran against (issue 29):
a `.gitattributes` that makes a checkout write other bytes is refused, and a repository
with a real submodule works, its entry kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from executor.vcs.attributes import checkout_change
from tests.conftest import run_cli
from tests.parallel.helpers import PLAN, agent, make_project, make_solutions, simple, subjects

pytestmark = pytest.mark.slow


@pytest.mark.parametrize(
    ("data", "attrs", "changed"),
    [
        (b"x = 1\n", {"working-tree-encoding": "UTF-16"}, "working-tree-encoding=UTF-16"),
        (b"x = 1\n", {"working-tree-encoding": "latin-1"}, None),  # ASCII: the same bytes
        (b"x = 1\n", {"eol": "crlf"}, "eol=crlf"),
        (b"x = 1\r\n", {"eol": "crlf"}, None),
        (b"x = 1\n", {"eol": "crlf", "text": "unset"}, None),
        (b"\0x\n", {"eol": "crlf", "text": "auto"}, None),  # binary: left alone
        (b"# $Id$\n", {"ident": "set"}, "ident"),
        (b"# no id\n", {"ident": "set"}, None),
        (b"x\n", {"filter": "lfs"}, "filter=lfs"),
        (b"x\n", {"eol": "lf", "text": "set"}, None),
    ],
)
def test_what_a_checkout_by_the_attributes_would_write(
    data: bytes, attrs: dict[str, str], changed: str | None
) -> None:
    why = checkout_change(data, attrs)
    assert (why is None) if changed is None else (why is not None and changed in why)


def test_attributes_a_session_commits_may_not_change_what_a_checkout_writes(
    git_repo: Path, tmp_path: Path
) -> None:
    """GREEN writes a `.gitattributes` that re-encodes every Python file on checkout: its
    tests pass on the UTF-8 bytes, a clone would get UTF-16 and fail them. Refused."""
    one = simple(1, "alpha")
    one.extra = {".gitattributes": "*.py working-tree-encoding=UTF-16\n"}
    make_project(git_repo, [one])
    proc = run_cli("execute-plan", "--plan", PLAN, "--yes", "--max-retries", "0",
                   "--agent-command", agent(make_solutions(tmp_path, [one])),
                   cwd=git_repo)  # fmt: skip
    assert proc.returncode == 16, proc.stdout + proc.stderr
    said = proc.stdout + proc.stderr
    assert "alpha.py: working-tree-encoding=UTF-16: a checkout re-encodes it" in said
    assert "a clone would not get the bytes its tests ran against" in said
    assert subjects(git_repo)[0] == "add plan"  # nothing committed
