"""The person's own commit hooks through the CLI: a real `pre-commit` framework config and
a real `.git/hooks/pre-commit`, real pytest, the replay agent (issue 22)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import git, run_cli
from tests.engine.helpers import commits, make_project, replay_cmd
from tests.engine.test_sandbox import needs_bwrap
from tests.engine.test_sealed import UNSANDBOXED, hostile

pytestmark = pytest.mark.slow

NO_PRINT = """repos:
- repo: local
  hooks:
  - id: no-print
    name: no print calls
    language: pygrep
    entry: '\\bprint\\('
    types: [python]
"""


def session(plan: Path, repo: Path, *extra: str) -> tuple[int, str]:
    proc = run_cli("execute-session", "1", "--plan", str(plan), "--yes", *extra, cwd=repo,
                   timeout=300)  # fmt: skip
    return proc.returncode, proc.stdout + proc.stderr


def with_config(repo: Path) -> Path:
    plan = make_project(repo)
    (repo / ".pre-commit-config.yaml").write_text(NO_PRINT, encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "hooks")
    return plan


needs_pre_commit = pytest.mark.skipif(
    shutil.which("pre-commit") is None, reason="pre-commit is not installed"
)


@needs_pre_commit
def test_pre_commit_hooks_as_configured_at_the_start_run_before_the_commit(
    git_repo: Path, tmp_path: Path
) -> None:
    plan = with_config(git_repo)
    # REFACTOR also empties the config and leaves a print: the hook that runs is the one
    # the repository had when the session started
    sneaky = (
        "pathlib.Path('.pre-commit-config.yaml').write_text('repos: []\\n')\n"
        "p = pathlib.Path('ledger/models.py')\n"
        "p.write_text(p.read_text() + '\\nprint(\"debug\")\\n')\n"
    )
    code, out = session(plan, git_repo, "--agent-command", hostile(tmp_path, "refactor", sneaky),
                        "--max-retries", "0")  # fmt: skip
    assert code == 16, out
    assert "your commit hooks failed (pre-commit run)" in out
    assert "no print calls" in out
    assert commits(git_repo) == ["hooks", "add plan", "initial"]


@needs_pre_commit
def test_passing_pre_commit_hooks_let_the_session_commit(git_repo: Path) -> None:
    plan = with_config(git_repo)
    code, out = session(plan, git_repo, "--agent-command", replay_cmd())
    assert code == 0, out
    assert "your commit hooks passed (pre-commit run)" in out
    assert commits(git_repo)[0].startswith("feat(")


def test_a_git_hook_file_runs_and_no_verify_skips_it(git_repo: Path) -> None:
    plan = make_project(git_repo)
    hook = git_repo / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\necho 'refusing: company policy'\nexit 1\n", encoding="utf-8")
    hook.chmod(0o755)
    code, out = session(plan, git_repo, "--agent-command", replay_cmd(), "--max-retries", "0")
    assert code == 16, out
    assert "your commit hooks failed" in out and "refusing: company policy" in out
    assert "--no-verify skips them" in out
    code, out = session(plan, git_repo, "--no-verify")  # checks again, without them
    assert code == 0, out
    assert commits(git_repo)[0].startswith("feat(")


def test_a_config_without_pre_commit_installed_is_said(git_repo: Path) -> None:
    plan = with_config(git_repo)
    env_path = "/usr/bin:/bin"  # git and sh; not the virtual environment's pre-commit
    proc = run_cli("execute-session", "1", "--plan", str(plan), "--yes", "--agent-command",
                   replay_cmd(), cwd=git_repo, env={"PATH": env_path},
                   timeout=300)  # fmt: skip
    out = proc.stdout + proc.stderr
    if shutil.which("pre-commit", path=env_path) is not None:
        pytest.skip("pre-commit is installed system-wide")
    assert proc.returncode == 0, out
    assert "pre-commit is not installed, so its hooks do not run" in out


LINT = """repos:
- repo: local
  hooks:
  - id: lint
    name: the project's lint script
    language: script
    entry: scripts/lint.sh
    pass_filenames: false
    always_run: true
"""
#: What the agent makes of the lint script the hook config (as committed) runs: it edits
#: the plan, maps the test command away in the executor's settings, forges the plan
#: cache, tries to commit, then passes.
FORGED_LINT = """#!/bin/sh
printf '\\n- [ ] an injected task\\n' >> project-plans/ledger/PHASE_1_LEDGER_CORE.md
printf '[tool.executor]\\ntest_command_map = {pytest = "sh -c true"}\\n' > .executor.toml
echo '{}' > project-plans/ledger/.agent-plan-cache.json
git add -A && git commit -qm 'from the hook' 2>/dev/null
exit 0
"""


@needs_pre_commit
@pytest.mark.parametrize(
    "sandbox",
    [pytest.param((), marks=needs_bwrap, id="sandbox"), pytest.param(UNSANDBOXED, id="no-sandbox")],
)
def test_29_07_a_hook_runs_guarded_like_a_test_run(
    git_repo: Path, tmp_path: Path, sandbox: tuple[str, ...]
) -> None:
    """Issue 29, finding 7: the person's pre-commit config (as committed) runs a lint
    script the agent rewrote; it ran outside the sandbox, after the tests, and its edits
    to the plan and the settings were taken in: the next session ran an injected test
    command. A hook run is guarded as a test run is: what it changed of the plan, the
    executor's settings and files is put back, its commit undone, the step fails."""
    plan = make_project(git_repo)
    (git_repo / ".pre-commit-config.yaml").write_text(LINT, encoding="utf-8")
    lint = git_repo / "scripts" / "lint.sh"
    lint.parent.mkdir()
    lint.write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    lint.chmod(0o755)
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-q", "-m", "hooks")
    rewrite = (
        f"p = pathlib.Path('scripts/lint.sh')\np.write_text({FORGED_LINT!r})\np.chmod(0o755)\n"
    )
    phase = plan / "PHASE_1_LEDGER_CORE.md"
    before = phase.read_bytes()
    code, out = session(plan, git_repo, "--agent-command",
                        hostile(tmp_path, "refactor", rewrite), "--max-retries", "0",
                        *sandbox)  # fmt: skip
    assert code == 16, out
    assert "tampering during your commit hooks" in out, out
    assert ".executor.toml" in out
    assert not (git_repo / ".executor.toml").exists()
    assert phase.read_bytes() == before
    assert commits(git_repo) == ["hooks", "add plan", "initial"]
    if sandbox == ():  # read-only there: the hook could not even write them
        assert "PHASE_1_LEDGER_CORE.md" not in out.split("tampering during your commit hooks")[1]
