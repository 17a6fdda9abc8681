"""What a clone of a session's commit gets back is what its tests ran against (issue 29):
a `.gitattributes` that makes a checkout write other bytes is refused, and a repository
with a real submodule works, its entry kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from executor.vcs.attributes import checkout_change
from tests.conftest import git, run_cli
from tests.parallel.helpers import (
    PLAN,
    Spec,
    agent,
    make_project,
    make_solutions,
    simple,
    subjects,
)

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
        (b"x\n", {"filter": "lfs"}, "filter=lfs"),  # configured to smudge (below)
        (b"x\n", {"filter": "po"}, None),  # only a clean command: a checkout is as it is
        (b"x\n", {"eol": "lf", "text": "set"}, None),
    ],
)
def test_what_a_checkout_by_the_attributes_would_write(
    data: bytes, attrs: dict[str, str], changed: str | None
) -> None:
    why = checkout_change(data, attrs, smudging={"lfs"})
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


def add_submodule(repo: Path, tmp: Path) -> None:
    """A real submodule at vendor/greeting (a gitlink in HEAD), built from a local
    repository, and committed."""
    source = tmp / "greeting"
    source.mkdir()
    git(source, "init", "-q", "-b", "main")
    (source / "words.py").write_text("GREETING = 'hello'\n", encoding="utf-8")
    git(source, "add", "-A")
    git(source, "commit", "-q", "-m", "greeting")
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(source),
        "vendor/greeting")  # fmt: skip
    git(repo, "commit", "-q", "-m", "add the greeting submodule")


def greeter(number: int = 1) -> Spec:
    """A session whose module uses the submodule's code."""
    return Spec(
        number,
        "greet",
        test="from greet import greet\n\n\ndef test_greet() -> None:\n"
        "    assert greet() == 'hello'\n",
        code="from vendor.greeting.words import GREETING\n\n\ndef greet() -> str:\n"
        "    return GREETING\n",
    )


def louder() -> Spec:
    """A session whose GREEN changes a file inside the submodule too."""
    return Spec(
        2,
        "louder",
        test="from louder import louder\n\n\ndef test_louder() -> None:\n"
        "    assert louder() == 'HELLO!'\n",
        code="from vendor.greeting.words import GREETING\n\n\ndef louder() -> str:\n"
        "    return GREETING.upper() + '!'\n",
        extra={"vendor/greeting/words.py": "GREETING = 'hello'\nLOUD = True\n"},
    )


def test_a_repository_with_a_submodule_runs_a_plan(git_repo: Path, tmp_path: Path) -> None:
    """A session in a repository with a real submodule commits with the submodule's entry
    kept; one that changes files inside the submodule is told to commit there first, and
    once that is done, the same command goes on with the submodule's new commit."""
    add_submodule(git_repo, tmp_path)
    before = git(git_repo, "ls-tree", "HEAD", "vendor/greeting")
    specs = [greeter(), louder()]
    make_project(git_repo, specs)
    run = ["execute-plan", "--plan", PLAN, "--yes", "--max-retries", "0", "--agent-command",
           agent(make_solutions(tmp_path, specs))]  # fmt: skip
    stopped = run_cli(*run, cwd=git_repo)
    assert stopped.returncode == 16, stopped.stdout + stopped.stderr
    assert subjects(git_repo)[0] == "feat(tools): Greet"
    assert git(git_repo, "ls-tree", "HEAD", "vendor/greeting") == before  # its entry kept
    said = stopped.stdout + stopped.stderr
    assert "vendor/greeting: files changed inside the submodule (words.py)" in said
    assert "git -C vendor/greeting commit" in said
    # the person commits there; the same command goes on
    sub = git_repo / "vendor" / "greeting"
    git(sub, "commit", "-q", "-am", "loud")
    again = run_cli(*run, cwd=git_repo)
    assert again.returncode == 0, again.stdout + again.stderr
    assert subjects(git_repo)[0] == "feat(tools): Louder"
    assert git(sub, "rev-parse", "HEAD").strip() in git(
        git_repo, "ls-tree", "HEAD", "vendor/greeting"
    )
