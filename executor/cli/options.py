"""The run options, declared once.

`execute-phase`, `execute-session`, `execute-plan` and `resume-session` share these.
The typer commands get them through `run.with_run_options` (their signatures are built
from this table), and `executor config` lists the saved ones from `RunOptions`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

CHECKPOINT_CHOICES = ("all", "session", "none")
SANDBOX_CHOICES = ("auto", "off")


@dataclass(frozen=True)
class RunOpt:
    name: str
    flags: tuple[str, ...]
    kind: type  # bool, int, float, str or Path; every non-bool option defaults to None
    help: str
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    #: what `--help` shows for the value ("" for a flag)
    metavar: str = ""
    #: an environment variable that gives the option when the command line does not
    envvar: str | None = None


RUN_OPTIONS: tuple[RunOpt, ...] = (
    RunOpt(
        "plan",
        ("--plan",),
        Path,
        "Plan folder (PHASE_*.md, PROJECT_PLAN.md, tasks.md, tasks.json, ...) or file. "
        "Default: the one plan found in the current folder, project-plans/, docs/plans/, "
        "docs/superpowers/plans/, specs/*/, .kiro/specs/*/ or .taskmaster/tasks/.",
        metavar="PLAN",
    ),
    RunOpt(
        "repo",
        ("--repo",),
        Path,
        "Git repository (default: the one holding the plan).",
        metavar="DIR",
    ),
    RunOpt(
        "resume",
        ("--resume",),
        bool,
        "Continue after exit 42: apply the answer written for the pending request.",
    ),
    RunOpt(
        "yes",
        ("--yes", "-y"),
        bool,
        "Approve every checkpoint (CI). A failure that needs a person then stops with exit 16.",
    ),
    RunOpt(
        "checkpoints",
        ("--checkpoints",),
        str,
        "Where to stop for a person: all, session (only between sessions) or none. "
        "Saved with the run.",
        choices=CHECKPOINT_CHOICES,
        metavar="[all|session|none]",
    ),
    RunOpt(
        "agent_command",
        ("--agent-command",),
        str,
        "Run each agent request with this command instead of the exit-42 bridge "
        "(docs/agent-command.md). Saved with the run (--agent bridge drops it).",
        metavar="CMD",
    ),
    RunOpt(
        "agent",
        ("--agent",),
        str,
        "Run each agent request with a ready-made command line for this CLI: claude, "
        "codex, gemini, aider (`executor agents` shows each), or replay with --solutions; "
        "bridge: no agent process, the exit-42 bridge (the default; use it to drop a saved "
        "--agent or --agent-command). Saved with the run.",
        metavar="NAME",
    ),
    RunOpt(
        "solutions",
        ("--solutions",),
        Path,
        "With --agent replay: the folder of prepared files (docs/replay-agent.md).",
        metavar="DIR",
    ),
    RunOpt(
        "agent_timeout",
        ("--agent-timeout",),
        int,
        "Seconds one agent call may take before it is killed (default 1200). Saved.",
        minimum=1,
        metavar="SECONDS",
    ),
    RunOpt(
        "test_timeout",
        ("--test-timeout",),
        int,
        "Seconds one test run may take before it is killed (default 3600); a run killed "
        "in RED is not a RED. Saved with the run.",
        minimum=1,
        metavar="SECONDS",
    ),
    RunOpt(
        "no_verify",
        ("--no-verify",),
        bool,
        "Do not run the repository's own commit hooks (pre-commit) before a session's "
        "commit. Saved with the run; --verify turns them back on.",
    ),
    RunOpt("verify", ("--verify",), bool, "Run the repository's commit hooks again (the default)."),
    RunOpt(
        "sandbox",
        ("--sandbox",),
        str,
        "auto (the default): run tests in a bubblewrap sandbox when bwrap works here "
        "(git, the plan and the executor's files read-only; nothing outlives the run); "
        "off: without. Saved with the run.",
        choices=SANDBOX_CHOICES,
        metavar="[auto|off]",
    ),
    RunOpt(
        "budget_usd",
        ("--budget-usd",),
        float,
        "Stop before the next agent call once agents have cost this much (as their CLIs "
        "report it). Saved with the run.",
        minimum=0,
        metavar="USD",
    ),
    RunOpt(
        "budget_tokens",
        ("--budget-tokens",),
        int,
        "Stop before the next agent call once agents have used this many tokens. Saved.",
        minimum=0,
        metavar="N",
    ),
    RunOpt(
        "budget_minutes",
        ("--budget-minutes",),
        float,
        "Stop before the next agent call once agents have run this many minutes. Saved.",
        minimum=0,
        metavar="MINUTES",
    ),
    RunOpt(
        "test_command",
        ("--test-command",),
        str,
        "Project test command: the fallback for sessions without one, and the whole-suite "
        "check. Saved with the run.",
        metavar="CMD",
    ),
    RunOpt(
        "max_retries",
        ("--max-retries",),
        int,
        "Automatic GREEN/REFACTOR retries before asking a person (default 2). Saved with the run.",
        minimum=0,
        metavar="N",
    ),
    RunOpt(
        "min_mutation_score",
        ("--min-mutation-score",),
        int,
        "Stop for a person (exit 16 with --yes) when fewer than this percent of the mutants "
        "of a session's changed lines are killed by its tests; with an agent, first retry "
        "GREEN/REFACTOR with the survivors (docs/test-strength.md). Off by default. Saved.",
        minimum=0,
        metavar="PERCENT",
    ),
    RunOpt(
        "mutation_budget",
        ("--mutation-budget",),
        int,
        "Seconds one mutation step may take (default: twice the session's verification, 30 "
        "to 300); past it the score is partial. 0: no mutation step. Saved with the run.",
        minimum=0,
        metavar="SECONDS",
        envvar="EXECUTOR_MUTATION_BUDGET",
    ),
    RunOpt(
        "tag",
        ("--tag",),
        str,
        "A Task Master plan: the tag whose tasks to run (default: master). Saved with the run.",
        metavar="TAG",
    ),
    RunOpt(
        "notify",
        ("--notify",),
        str,
        "When the run waits for a person, stops on a budget or ends: on (the default: a "
        "terminal bell, and a desktop notification where there is a display), off, or a "
        "URL to POST JSON to as well (Slack-compatible `text`). Saved with the run.",
        metavar="on|off|URL",
    ),
    RunOpt(
        "parallel",
        ("--parallel",),
        int,
        "Run sessions whose dependencies are complete side by side, each in a git worktree "
        "of its own, at most N at once (capped at the machine's cores unless "
        "--force-parallel); 0: one at a time in this checkout. Saved with the run "
        "(docs/parallel.md).",
        minimum=0,
        metavar="N",
    ),
    RunOpt(
        "pr",
        ("--pr",),
        bool,
        "At the end of each phase, push its commits to a branch of their own (never forced) "
        "and open a pull request with gh, the phase's report as its body (docs/report.md). "
        "Saved with the run; --no-pr turns it off.",
    ),
    RunOpt("no_pr", ("--no-pr",), bool, "Open no pull request at the end of a phase."),
    RunOpt(
        "force_parallel",
        ("--force-parallel",),
        bool,
        "With --parallel: run N sessions at once even when N is more than the machine's "
        "cores (agents that mostly wait). Not saved.",
    ),
    RunOpt("json_output", ("--json",), bool, "Machine-readable output on stdout."),
)
