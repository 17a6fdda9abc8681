"""The run options are declared once (executor/runoptions.py): the flags, the config keys,
the saved options and `executor config`'s rows all come from that declaration, and a
value it refuses is refused wherever it comes from."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from executor.errors import DataError
from executor.runoptions import RunOptions
from tests.conftest import git, run_cli
from tests.engine.helpers import make_project, state

NAMES = [o.name for o in RunOptions.OPTIONS]


def _commit(repo: Path, config: str) -> None:
    (repo / ".executor.toml").write_text(config, "utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "config")


def test_config_lists_saves_and_reads_every_declared_option(git_repo: Path) -> None:
    plan = make_project(git_repo)
    # every option set in the config, each to a value other than its default
    _commit(git_repo, "\n".join([
        'agent_command = "true"', 'agent_timeout = 7', 'test_timeout = 9',
        'checkpoints = "none"', 'sandbox = "off"', "no_verify = true", "max_retries = 4",
        'test_command = "python -m pytest -q"', "budget_usd = 5", "budget_tokens = 1000",
        "budget_minutes = 2.5", 'tag = "feature"', 'notify = "off"',
        "min_mutation_score = 50", "mutation_budget = 0", "parallel = 0", "pr = true",
    ]) + "\n")  # fmt: skip
    shown = run_cli("config", "--plan", str(plan), "--json", cwd=git_repo)
    assert shown.returncode == 0, shown.stderr
    rows = json.loads(shown.stdout)["options"]
    assert list(rows) == NAMES
    sources = {k: v["from"] for k, v in rows.items()}
    # naming an agent command replaces the preset below it (none here: the default)
    assert sources == {**dict.fromkeys(NAMES, ".executor.toml"), "agent": "default"}
    assert rows["budget_usd"]["value"] == 5.0 and rows["no_verify"]["value"] is True

    # a run saves every option, each from where it came (the flag beats the config)
    run = run_cli("execute-session", "1", "--plan", str(plan), "--agent-command", "false",
                  "--max-retries", "1", "--budget-usd", "0", cwd=git_repo)  # fmt: skip
    assert run.returncode == 23, run.stderr  # the budget stops it before any agent call
    saved = state(plan)["run"]["options"]
    assert list(saved) == NAMES
    assert saved["agent_command"] == "false" and saved["max_retries"] == 1
    assert saved["budget_usd"] == 0.0 and saved["checkpoints"] == "none"


def test_unset_newer_options_are_left_out_of_the_saved_ones(git_repo: Path) -> None:
    plan = make_project(git_repo)
    first = run_cli("execute-session", "1", "--plan", str(plan), cwd=git_repo,
                    env={"EXECUTOR_MUTATION_BUDGET": ""})  # fmt: skip
    assert first.returncode == 42, first.stderr
    saved = state(plan)["run"]["options"]
    compact = {o.name for o in RunOptions.OPTIONS if o.compact}
    assert set(saved) == set(NAMES) - compact


@pytest.mark.parametrize(
    ("option", "flag_value", "toml", "flag_said", "config_said"),
    [
        ("sandbox", "always", '"always"', "'always' is not one of 'auto', 'off'",
         "sandbox: expected one of auto, off, got 'always'"),
        ("max_retries", "-1", "-1", "--max-retries: must be at least 0, got -1",
         "max_retries: must be at least 0, got -1"),
        ("notify", "ftp://x", '"ftp://x"',
         "--notify: expected on, off or an http:// or https:// URL",
         "notify: expected on, off or an http:// or https:// URL"),
        ("budget_tokens", "lots", '"lots"', "--budget-tokens: expected an integer, got 'lots'",
         "budget_tokens: expected an integer, got str"),
    ],
)  # fmt: skip
def test_a_refused_value_is_refused_from_the_flag_and_from_the_config(
    git_repo: Path, option: str, flag_value: str, toml: str, flag_said: str, config_said: str
) -> None:
    plan = make_project(git_repo)
    flag = "--" + option.replace("_", "-")
    given = run_cli("execute-session", "1", "--plan", str(plan), flag, flag_value, cwd=git_repo)
    assert given.returncode == 64 and flag_said in given.stderr, given.stderr
    _commit(git_repo, f"{option} = {toml}\n")
    configured = run_cli("execute-session", "1", "--plan", str(plan), cwd=git_repo)
    assert configured.returncode == 64, configured.stderr
    assert f".executor.toml: {config_said}" in configured.stderr
    assert not (plan / ".agent-state.json").exists()


def test_saved_options_are_checked_as_they_are_read() -> None:
    with pytest.raises(DataError, match="checkpoints: expected one of all, session, none"):
        RunOptions(checkpoints="sometimes")
    with pytest.raises(DataError, match="colour: unknown field"):
        RunOptions(colour="red")
    options = RunOptions(parallel=2)
    assert options.saved()["parallel"] == 2 and "parallel" not in RunOptions().saved()
    assert options.replace(parallel=None) == RunOptions()
    with pytest.raises(AttributeError):
        options.parallel = 3
