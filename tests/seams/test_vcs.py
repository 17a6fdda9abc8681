"""GitRepo against real repositories (the `git_repo` fixture: one commit on main)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from executor import errors
from executor.vcs import BACKUP_REF_PREFIX, GitRepo
from tests.conftest import git

PLAN = Path("project-plans/app")
OWN = [
    PLAN / ".agent-state.json",
    PLAN / ".agent-request.json",
    PLAN / ".agent-response.json",
    PLAN / ".agent-briefs",
]


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def add_executor_files(repo: Path) -> None:
    write(repo / PLAN / ".agent-state.json", '{"state": 1}\n')
    write(repo / PLAN / ".agent-request.json", '{"req": 1}\n')
    write(repo / PLAN / ".agent-briefs" / "s1-red.md", "brief\n")


# ---------------------------------------------------------------- discover / reads


def test_discover_from_subfolder_and_file(git_repo: Path) -> None:
    sub = write(git_repo / "pkg" / "mod.py", "x = 1\n")
    assert GitRepo.discover(sub.parent).root == git_repo.resolve()
    assert GitRepo.discover(sub).root == git_repo.resolve()


def test_discover_outside_a_repo(tmp_path: Path) -> None:
    lonely = tmp_path / "lonely"
    lonely.mkdir()
    with pytest.raises(errors.NotARepositoryError, match="is not inside a git repository"):
        GitRepo.discover(lonely)
    with pytest.raises(errors.PathNotFoundError, match="does not exist"):
        GitRepo.discover(tmp_path / "missing")


def test_head_branch_and_detached(git_repo: Path) -> None:
    repo = GitRepo(git_repo)
    sha = git(git_repo, "rev-parse", "HEAD").strip()
    assert repo.head() == sha
    assert repo.resolve("HEAD") == sha
    assert repo.resolve("no-such-rev") is None
    assert repo.branch() == "main"
    git(git_repo, "checkout", "-q", "--detach")
    assert repo.branch() is None


def test_head_follows_every_way_git_moves_it(git_repo: Path, tmp_path: Path) -> None:
    """HEAD is read from git's files once git has named the commit: a commit, a packed
    ref, a detached HEAD, a branch switch, a linked worktree, a reset by another process
    and a ref pointing at no commit are each seen as `git rev-parse` sees them."""
    repo = GitRepo(git_repo)

    def agrees() -> None:
        proc = subprocess.run(["git", "rev-parse", "--verify", "-q", "HEAD^{commit}"],
                              cwd=git_repo, capture_output=True, text=True)  # fmt: skip
        assert repo.resolve("HEAD") == (proc.stdout.strip() or None)

    first = repo.head()
    agrees()
    git(git_repo, "commit", "-q", "--allow-empty", "-m", "two")
    agrees()
    git(git_repo, "pack-refs", "--all")  # the branch now lives in packed-refs only
    assert not (git_repo / ".git" / "refs" / "heads" / "main").exists()
    agrees()
    git(git_repo, "checkout", "-q", "--detach", first)
    agrees()
    git(git_repo, "checkout", "-q", "-b", "other")
    agrees()
    git(git_repo, "commit", "-q", "--allow-empty", "-m", "three")
    agrees()
    git(git_repo, "reset", "-q", "--hard", first)
    agrees()
    (git_repo / ".git" / "refs" / "heads" / "other").write_text("0" * 40 + "\n")
    agrees()  # names no commit: git says so, not the file
    git(git_repo, "update-ref", "refs/heads/other", first)
    git(git_repo, "worktree", "add", "-q", str(tmp_path / "wt"), "-b", "lane")
    lane = GitRepo(tmp_path / "wt")
    assert lane.resolve("HEAD") == first
    git(tmp_path / "wt", "commit", "-q", "--allow-empty", "-m", "in the lane")
    assert lane.resolve("HEAD") == git(tmp_path / "wt", "rev-parse", "HEAD").strip() != first
    agrees()


def test_a_file_rewritten_at_once_with_the_same_size_is_recorded_as_it_is(
    git_repo: Path,
) -> None:
    """The blob cache trusts a file's stat only once its last change is older than the
    file system's tick can hide: a rewrite of the same size, right after a record or a
    moment later, is always recorded with its new content."""
    repo = GitRepo(git_repo)
    path = git_repo / "value.txt"
    for i in range(30):
        path.write_text(f"value {i % 10}\n", encoding="utf-8")  # the same size each time
        if i % 3 == 2:
            time.sleep(0.12)  # past the 100 ms: the stat is trusted from here on
        tree = repo.record_tree().tree
        blob = git(git_repo, "rev-parse", f"{tree}:value.txt").strip()
        assert git(git_repo, "cat-file", "blob", blob) == f"value {i % 10}\n"


def test_head_of_repo_without_commits(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    repo = GitRepo(tmp_path)
    with pytest.raises(errors.UserError, match="no commits yet"):
        repo.head()
    assert repo.log_oneline() == []


def test_dirty_files_ignores_executor_files_and_gitignored(git_repo: Path) -> None:
    repo = GitRepo(git_repo)
    assert repo.dirty_files() == []
    add_executor_files(git_repo)
    assert repo.dirty_files(ignore=OWN) == []
    # absolute ignore paths work too
    assert repo.dirty_files(ignore=[git_repo / p for p in OWN]) == []
    write(git_repo / ".gitignore", "*.log\n")
    write(git_repo / "debug.log", "noise\n")
    write(git_repo / "README.md", "changed\n")
    write(git_repo / "src" / "deep" / "new.py", "new\n")
    assert repo.dirty_files(ignore=OWN) == [".gitignore", "README.md", "src/deep/new.py"]
    assert ".agent-state.json" in " ".join(repo.dirty_files())


def test_changed_since_includes_untracked_and_deleted(git_repo: Path) -> None:
    repo = GitRepo(git_repo)
    base = repo.head()
    write(git_repo / "a.py", "a\n")
    git(git_repo, "add", "a.py")
    git(git_repo, "commit", "-q", "-m", "a")
    write(git_repo / "b.py", "b\n")
    (git_repo / "README.md").unlink()
    add_executor_files(git_repo)
    assert repo.changed_since(base, ignore=OWN) == ["README.md", "a.py", "b.py"]


def test_is_ancestor(git_repo: Path) -> None:
    repo = GitRepo(git_repo)
    first = repo.head()
    write(git_repo / "x", "x\n")
    git(git_repo, "add", "x")
    git(git_repo, "commit", "-q", "-m", "x")
    assert repo.is_ancestor(first)
    assert repo.is_ancestor(repo.head())
    assert not repo.is_ancestor(repo.head(), of=first)
    assert not repo.is_ancestor("0" * 40)


def test_diff_and_commit_with_ignored_executor_files(git_repo: Path) -> None:
    """Naming an ignored path to git add, even to exclude it, fails ("paths are ignored
    by one of your .gitignore files"): show diff crashed on it at every checkpoint."""
    write(git_repo / ".git" / "info" / "exclude", "/plan/.agent-*\n")
    write(git_repo / "plan" / ".agent-state.json", "{}\n")
    write(git_repo / "src" / "m.py", "x = 1\n")
    repo = GitRepo(git_repo)
    base = repo.head()
    keep = [git_repo / "plan" / ".agent-state.json", git_repo / "plan" / ".agent-briefs"]
    text = repo.diff_text(base, ignore=keep)
    assert "+x = 1" in text and ".agent-state" not in text
    repo.commit_session(repo.record_tree(exclude=keep).tree, "add m", trailers={})
    assert git(git_repo, "show", "--name-only", "--format=").split() == ["src/m.py"]


def test_diff_text_includes_new_files_and_truncates(git_repo: Path) -> None:
    repo = GitRepo(git_repo)
    base = repo.head()
    write(git_repo / "README.md", "# changed\n")
    write(git_repo / "new.py", "print('hi')\n")
    add_executor_files(git_repo)
    text = repo.diff_text(base, ignore=OWN)
    assert "+# changed" in text and "+print('hi')" in text
    assert ".agent-state" not in text
    # the real index was not touched: new.py is still untracked
    assert "?? new.py" in git(git_repo, "status", "--porcelain")
    short = repo.diff_text(base, ignore=OWN, max_chars=40)
    assert short.startswith(text[:40]) and "diff truncated" in short


def test_log_oneline(git_repo: Path) -> None:
    lines = GitRepo(git_repo).log_oneline(5)
    assert len(lines) == 1 and lines[0].endswith("initial")


# ---------------------------------------------------------------- commits


def commit(repo: GitRepo, message: str, trailers: dict[str, str], ignore: list[Path]) -> str:
    """Record the worktree and commit exactly that tree (what a session does)."""
    return repo.commit_session(repo.record_tree(exclude=ignore).tree, message, trailers=trailers)


def test_commit_session_with_trailers_and_adoption_lookup(git_repo: Path) -> None:
    repo = GitRepo(git_repo)
    base = repo.head()
    add_executor_files(git_repo)
    write(git_repo / "src" / "ledger.py", "LEDGER = 1\n")
    write(git_repo / "README.md", "# ledger\n")
    trailers = {"Agent-Run": "run-123", "Agent-Step": "p1-s2", "Agent-Plan": "app"}
    sha = commit(repo, "feat(app): ledger\n\nBuilt it.", trailers, OWN)
    assert sha == repo.head() and sha != base
    files = git(git_repo, "show", "--name-only", "--format=", sha).split()
    assert sorted(files) == ["README.md", "src/ledger.py"]
    message = git(git_repo, "log", "-1", "--format=%B").strip()
    assert message.endswith("Agent-Run: run-123\nAgent-Step: p1-s2\nAgent-Plan: app")
    parsed = git(git_repo, "log", "-1", "--format=%(trailers:key=Agent-Step,valueonly)")
    assert parsed.strip() == "p1-s2"  # git itself sees our trailers
    # the executor's files are still there, untracked
    assert (git_repo / PLAN / ".agent-state.json").exists()
    assert repo.dirty_files(ignore=OWN) == []

    assert repo.find_commit_by_trailers({"Agent-Run": "run-123"}, since=base) == sha
    both = {"Agent-Run": "run-123", "Agent-Step": "p1-s2"}
    assert repo.find_commit_by_trailers(both, since=base) == sha
    other = {"Agent-Run": "run-123", "Agent-Step": "p1-s3"}
    assert repo.find_commit_by_trailers(other, since=base) is None
    assert repo.find_commit_by_trailers(both, since=sha) is None


def test_trailer_lookup_ignores_lookalikes_outside_the_trailer_block(git_repo: Path) -> None:
    repo = GitRepo(git_repo)
    base = repo.head()
    write(git_repo / "f", "1\n")
    git(git_repo, "add", "f")
    git(git_repo, "commit", "-q", "-m", "subject\n\nAgent-Run: r1\n\nnot a trailer block")
    assert repo.find_commit_by_trailers({"Agent-Run": "r1"}, since=base) is None


def test_a_commit_ignores_what_the_persons_index_holds(git_repo: Path) -> None:
    repo = GitRepo(git_repo)
    add_executor_files(git_repo)
    git(git_repo, "add", "-A")  # someone staged everything, our state file included
    write(git_repo / "code.py", "1\n")
    sha = commit(repo, "feat: code", {}, OWN)
    assert git(git_repo, "show", "--name-only", "--format=", sha).split() == ["code.py"]


def test_a_commit_with_nothing_to_commit(git_repo: Path) -> None:
    repo = GitRepo(git_repo)
    add_executor_files(git_repo)
    head = repo.head()
    with pytest.raises(errors.VerificationFailedError, match="nothing to commit"):
        commit(repo, "feat: nothing", {"Agent-Run": "r"}, OWN)
    assert repo.head() == head


def test_a_commit_rejects_bad_trailers(git_repo: Path) -> None:
    write(git_repo / "f", "1\n")
    with pytest.raises(ValueError, match="invalid commit trailer"):
        commit(GitRepo(git_repo), "x", {"Bad Key": "v"}, [])


def test_commit_message_lines_starting_with_hash_survive(git_repo: Path) -> None:
    repo = GitRepo(git_repo)
    write(git_repo / "f", "1\n")
    commit(repo, "feat: x\n\n# Heading kept\nbody", {"Agent-Run": "r"}, [])
    assert "# Heading kept" in git(git_repo, "log", "-1", "--format=%B")


# ---------------------------------------------------------------- busy


def test_index_lock_is_reported_and_never_removed(git_repo: Path) -> None:
    repo = GitRepo(git_repo)
    lock = git_repo / ".git" / "index.lock"
    lock.write_text("", encoding="utf-8")
    write(git_repo / "f", "1\n")
    with pytest.raises(errors.GitBusyError, match=r"index\.lock exists") as info:
        repo.ensure_not_busy()
    assert info.value.exit_code == 18
    with pytest.raises(errors.GitBusyError):
        commit(repo, "feat: f", {}, [])
    with pytest.raises(errors.GitBusyError):
        repo.snapshot("x")
    with pytest.raises(errors.GitBusyError):
        repo.roll_back("HEAD", ["f"], flags={})
    assert lock.exists()
    assert repo.dirty_files() == ["f"]  # reads still work and took no lock


def test_a_linked_worktrees_own_index_lock_is_found(git_repo: Path, tmp_path: Path) -> None:
    """`.git` is a file in a linked worktree: its git dir is asked of git, not guessed."""
    linked = tmp_path / "linked"
    git(git_repo, "worktree", "add", "-q", "-b", "side", str(linked))
    assert GitRepo(git_repo).git_dir == git_repo / ".git"
    repo = GitRepo(linked)
    assert repo.git_dir == git_repo / ".git" / "worktrees" / "linked"
    (repo.git_dir / "index.lock").write_text("", encoding="utf-8")
    with pytest.raises(errors.GitBusyError, match=r"worktrees/linked/index\.lock"):
        repo.ensure_not_busy()
    GitRepo(git_repo).ensure_not_busy()  # the main worktree is not busy


# ---------------------------------------------------------------- snapshot / reset


def _tree_bytes(repo: Path, ref: str, path: str) -> bytes:
    return subprocess.run(
        ["git", "show", f"{ref}:{path}"], cwd=repo, check=True, capture_output=True
    ).stdout


def test_snapshot_captures_untracked_byte_for_byte_and_touches_nothing(git_repo: Path) -> None:
    repo = GitRepo(git_repo)
    head = repo.head()
    blob = bytes(range(256)) * 4
    (git_repo / "data.bin").write_bytes(blob)
    write(git_repo / "README.md", "modified\n")
    write(git_repo / "notes" / "todo.txt", "user work\n")
    write(git_repo / ".gitignore", "*.log\n")
    write(git_repo / "skip.log", "ignored\n")
    git(git_repo, "add", "README.md")  # something staged in the real index
    status_before = git(git_repo, "status", "--porcelain", "-uall")
    index_before = (git_repo / ".git" / "index").read_bytes()

    ref = repo.snapshot("before abort/1")
    assert ref.startswith(BACKUP_REF_PREFIX + "before-abort-1-")
    assert _tree_bytes(git_repo, ref, "data.bin") == blob
    assert _tree_bytes(git_repo, ref, "notes/todo.txt") == b"user work\n"
    assert _tree_bytes(git_repo, ref, "README.md") == b"modified\n"
    tree = git(git_repo, "ls-tree", "-r", "--name-only", ref).split()
    assert "skip.log" not in tree
    assert git(git_repo, "rev-parse", f"{ref}^").strip() == head
    assert repo.head() == head
    assert git(git_repo, "status", "--porcelain", "-uall") == status_before
    assert (git_repo / ".git" / "index").read_bytes() == index_before
    assert not list((git_repo / ".git").glob("executor-*.index"))
    assert repo.snapshot("before abort/1") != ref  # a second snapshot never overwrites


def test_roll_back_undoes_the_session_and_keeps_the_persons_work(git_repo: Path) -> None:
    repo = GitRepo(git_repo)
    base = repo.head()
    # the session committed something, then the person kept working on top
    write(git_repo / "session.py", "session\n")
    write(git_repo / PLAN / "plan.md", "# plan\n")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-q", "-m", "session")
    write(git_repo / "README.md", "user edit\n")
    write(git_repo / "scratch" / "idea.txt", "precious\n")
    add_executor_files(git_repo)
    state_before = (git_repo / PLAN / ".agent-state.json").read_bytes()

    ref = repo.roll_back(base, ["session.py", "project-plans/app/plan.md"], flags={})

    assert repo.head() == base
    assert not (git_repo / "session.py").exists()
    # what the person made stays where it is
    assert (git_repo / "scratch" / "idea.txt").read_text(encoding="utf-8") == "precious\n"
    assert (git_repo / "README.md").read_text(encoding="utf-8") == "user edit\n"
    assert (git_repo / PLAN / ".agent-state.json").read_bytes() == state_before
    assert (git_repo / PLAN / ".agent-briefs" / "s1-red.md").exists()
    # the backup holds everything byte for byte
    assert _tree_bytes(git_repo, ref, "scratch/idea.txt") == b"precious\n"
    assert _tree_bytes(git_repo, ref, "session.py") == b"session\n"


def test_roll_back_keeps_a_file_the_index_marks_assume_unchanged(git_repo: Path) -> None:
    """The backup is recorded from the files, not from an index that says a file did not
    change; and the rollback does not touch a file the session did not change."""
    repo = GitRepo(git_repo)
    base = repo.head()
    git(git_repo, "update-index", "--assume-unchanged", "README.md")
    write(git_repo / "README.md", "the person's change\n")
    write(git_repo / "work.py", "w\n")
    ref = repo.roll_back(base, ["work.py"], flags=repo.index_flags())
    assert (git_repo / "README.md").read_text("utf-8") == "the person's change\n"
    assert _tree_bytes(git_repo, ref, "README.md") == b"the person's change\n"
    assert not (git_repo / "work.py").exists()
    assert "h README.md" in git(git_repo, "ls-files", "-v")  # the flag is kept


def test_roll_back_refuses_a_commit_off_the_current_history(git_repo: Path) -> None:
    repo = GitRepo(git_repo)
    git(git_repo, "checkout", "-q", "-b", "side")
    write(git_repo / "side.txt", "s\n")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-q", "-m", "side")
    side = repo.head()
    git(git_repo, "checkout", "-q", "main")
    write(git_repo / "mine.txt", "keep me\n")
    with pytest.raises(errors.StaleWorkspaceError, match="refusing to roll back"):
        repo.roll_back(side, [], flags={})
    with pytest.raises(errors.StaleWorkspaceError):
        repo.roll_back("not-a-commit", [], flags={})
    assert (git_repo / "mine.txt").exists()
    assert git(git_repo, "for-each-ref", BACKUP_REF_PREFIX) == ""


def test_resume_path_does_not_import_gitpython(git_repo: Path) -> None:
    code = (
        "import sys; from pathlib import Path; from executor.vcs import GitRepo\n"
        f"r = GitRepo.discover(Path({str(git_repo)!r}))\n"
        "r.head(); r.branch(); r.dirty_files(); r.is_ancestor(r.head()); r.ensure_not_busy()\n"
        "print('git' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=os.environ
    )
    assert out.stdout.strip() == "False"


def test_a_vanished_base_commit_is_a_stale_workspace(git_repo: Path) -> None:
    repo = GitRepo(git_repo)
    gone = "1" * 40
    with pytest.raises(errors.StaleWorkspaceError, match="not in the repository"):
        repo.changed_since(gone)
    with pytest.raises(errors.StaleWorkspaceError):
        repo.find_commit_by_trailers({"Agent-Run": "r"}, since=gone)
    with pytest.raises(errors.StaleWorkspaceError):
        repo.diff_text(gone)


def test_is_merge_and_is_pushed(git_repo: Path, tmp_path: Path) -> None:
    repo = GitRepo(git_repo)
    first = repo.head()
    git(git_repo, "checkout", "-q", "-b", "side")
    write(git_repo / "side.txt", "s\n")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-q", "-m", "side")
    git(git_repo, "checkout", "-q", "main")
    write(git_repo / "main.txt", "m\n")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-q", "-m", "main")
    git(git_repo, "merge", "-q", "--no-edit", "side")
    assert repo.droppable(first, {})[0].endswith("is a merge commit")

    assert not repo.is_pushed(first)
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(git_repo, "remote", "add", "origin", str(remote))
    git(git_repo, "push", "-q", "origin", f"{first}:refs/heads/main")
    git(git_repo, "fetch", "-q", "origin")
    assert repo.is_pushed(first) and not repo.is_pushed("HEAD")


def test_a_file_name_that_is_not_utf8_is_a_clear_error(git_repo: Path) -> None:
    os.close(os.open(os.fsencode(git_repo) + b"/bad\xff.txt", os.O_CREAT | os.O_WRONLY))
    with pytest.raises(errors.UserError, match=r"not UTF-8 .*bad\\xff\.txt"):
        GitRepo(git_repo).dirty_files()


def test_a_recorded_tree_refuses_what_a_clone_would_not_get_back(
    git_repo: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.py"
    outside.write_text("X = 1\n", encoding="utf-8")
    (git_repo / "out.py").symlink_to(outside)
    (git_repo / "in.py").symlink_to("README.md")
    (git_repo / "nested").mkdir()
    git(git_repo / "nested", "init", "-q")
    write(git_repo / "nested" / "lib.py", "Y = 2\n")
    recorded = GitRepo(git_repo).record_tree()
    assert [p.split(":")[0] for p in recorded.problems] == ["nested/", "out.py"]
    held = git(git_repo, "ls-tree", "-r", "--name-only", recorded.tree).split()
    assert held == ["README.md", "in.py"]


def test_code_git_newly_ignores_is_found_and_caches_are_not(tmp_path: Path) -> None:
    from executor.workflows.tdd.trust.tampering import hidden_code

    def put(rel: str, text: str = "") -> None:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")

    put("hidden.py")
    put("shadow/impl.py")
    put("pkg/__pycache__/m.cpython-311.pyc")
    put(".venv/pyvenv.cfg")
    put(".venv/lib/x.py")
    put("src/pkg/_version.py")
    put("notes/todo.txt")
    before = ["old.py"]
    now = ["old.py", "hidden.py", "shadow/", "pkg/__pycache__/", ".venv/", "src/pkg/_version.py",
           "notes/"]  # fmt: skip
    assert hidden_code(tmp_path, before, now) == ["hidden.py", "shadow/"]


def test_files_that_shadow_or_configure_the_runner_are_test_infrastructure() -> None:
    from executor.workflows.tdd.trust.tampering import is_infra

    for path in ("pytest.toml", ".pytest.ini", "pytest.py", "src/pytest/__init__.py",
                 "_pytest/x.py", "sitecustomize.py", "x.pth", "conftest.py"):  # fmt: skip
        assert is_infra(path), path
    for path in ("pkg/models.py", "tests/test_pytest_usage.py", "docs/pytest.md"):
        assert not is_infra(path), path


def test_a_file_an_eol_crlf_checkout_wrote_is_no_change(git_repo: Path) -> None:
    """`eol=crlf` (git's own conversion, no program): HEAD stores LF, the checkout holds
    CRLF. Recording the worktree must give HEAD's tree back, and a changed file must be
    stored with LF as `git add` would, or every session commits CRLF bytes."""
    (git_repo / ".gitattributes").write_text("*.bat text eol=crlf\n", encoding="utf-8")
    (git_repo / "run.bat").write_bytes(b"echo one\r\necho two\r\n")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-qm", "windows script")
    repo = GitRepo(git_repo)
    head_tree = repo.tree_of("HEAD")
    assert repo.record_tree().tree == head_tree
    (git_repo / "run.bat").write_bytes(b"echo one\r\necho three\r\n")
    recorded = repo.record_tree().tree
    assert repo.tree_diff(head_tree, recorded) == ["run.bat"]
    stored = subprocess.run(["git", "cat-file", "-p", f"{recorded}:run.bat"], cwd=git_repo,
                            capture_output=True, check=True).stdout  # fmt: skip
    assert stored == b"echo one\necho three\n"
