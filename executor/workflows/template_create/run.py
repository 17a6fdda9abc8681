"""A template-create run: find the codebase, take its state (or start one), build the
agents, drive the workflow under the single-writer lock, and clean up after success.

Every file is in the analysed codebase folder, never found through the current
directory, so a run resumes the same wherever it is started. The destination is checked
before anything is analysed or saved, so a bad one costs nothing. Which files, what is
kept on which end, and `--dry-run`: docs/template-create.md, "State and resume".
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from executor.bridge.protocol import BridgeChannel
from executor.bridge.template_state import STATE_NAME, TemplateCreateState, template_store
from executor.datamodel import dump, validate
from executor.engine.agents import Agents, BridgeAgents, Durable
from executor.engine.driver import drive
from executor.engine.layout import Layout
from executor.engine.process import AgentProcess, ProcessAgents
from executor.engine.running import stop_leftover
from executor.errors import (
    CorruptStateError,
    DataError,
    Interrupted,
    NotARepositoryError,
    NothingToResumeError,
    PathNotFoundError,
    UserCancelled,
    UserError,
)
from executor.fsutil import quote
from executor.retry import RetryPolicy
from executor.store import StateStore
from executor.templates.assembly import check_destination
from executor.templates.qa import TEMPLATE_NAME
from executor.workflows.template_create.context import (
    Cursor,
    TemplateConfig,
    TemplateResult,
    TemplateRun,
    new_state,
)
from executor.workflows.template_create.steps import TemplateSteps
from executor.workflows.template_create.table import TEMPLATE_CREATE

if TYPE_CHECKING:
    from executor.prompts import FormPrompter


@dataclass
class TemplateOptions:
    """What this command line asked for (None / False: not given)."""

    path: Path
    resume: bool = False
    dry_run: bool = False
    output_location: Literal["global", "repo"] | None = None
    output: Path | None = None
    skip_qa: bool = False
    max_templates: int | None = None
    no_agents: bool = False
    validate: bool = False
    force: bool = False
    agent_command: str | None = None
    #: An agent preset (`executor agents`): claude, codex, gemini, aider.
    agent: str | None = None
    #: Q&A answers given as options, by question id (`executor.templates.questions`).
    answers: dict[str, Any] = field(default_factory=dict)
    #: Where `repo` and a relative `--output` resolve (default: the current folder).
    cwd: Path | None = None
    #: None: a terminal prompter when stdin and stdout are terminals.
    prompter: FormPrompter | None = None
    #: Multiplier for retry backoff sleeps (0 in tests).
    backoff: float = 1.0

    def config(self, root: Path, saved: TemplateConfig | None) -> TemplateConfig:
        """The saved options (a new run: the defaults), overridden by the ones given."""
        cwd = Path(self.cwd or Path.cwd()).absolute()
        base = saved or TemplateConfig(codebase_path=str(root), cwd=str(cwd))
        output = self.output if self.output is None else cwd / self.output
        return TemplateConfig(
            codebase_path=str(root),
            cwd=base.cwd,
            output_location=self.output_location or base.output_location,
            output=str(output) if output is not None else base.output,
            skip_qa=self.skip_qa or base.skip_qa,
            max_templates=self.max_templates or base.max_templates,
            no_agents=self.no_agents or self.dry_run or base.no_agents,
            validate_output=self.validate or base.validate_output,
            force=self.force or base.force,
            # a command or preset given now replaces the saved one (never both)
            agent_command=self.agent_command
            if self.agent_command or self.agent
            else base.agent_command,
            agent=self.agent if self.agent_command or self.agent else base.agent,
            answers={**base.answers, **self.answers},
        )


def template_agents(
    config: TemplateConfig, *, root: Path, channel: BridgeChannel, durable: Durable
) -> Agents:
    """Who answers the agent requests: `--agent-command` or an `--agent` preset run as a
    process in the codebase, else the exit-42 bridge."""
    how = AgentProcess.from_options(config.agent_command, config.agent)
    if how is None:
        return BridgeAgents(channel, durable)
    return ProcessAgents(
        how, repo=root, channel=channel, durable=durable, exclude=partial(_hide, root)
    )


def _hide(root: Path, patterns: Sequence[str], *, run_folder: bool = False) -> None:
    """Files a preset's tool writes in the codebase (aider's .aider*), or (`run_folder`)
    the bridge's `.agent-*` files and the run's state, `.bak` and lock, as a plan run
    hides its own: hidden from git when the codebase is in a repository (the `.agent-*`
    line also names the run folder to the Claude Code hooks); a plain folder has nothing
    to hide them from."""
    from executor.vcs import GitRepo

    try:
        repo = GitRepo.discover(root)
    except NotARepositoryError:
        return
    if run_folder:
        repo.exclude_run_folder(root, state_name=STATE_NAME)
    if patterns:
        repo.exclude(patterns)


def codebase_root(path: Path) -> Path:
    root = Path(path).expanduser().absolute()
    if not root.is_dir():
        raise PathNotFoundError(f"codebase not found (not a folder): {root}", path=root)
    return root.resolve()


def create_template(opts: TemplateOptions, *, report: Callable[[str], None]) -> TemplateResult:
    """Run template-create for `opts`; raises the errors that carry its exit codes."""
    root = codebase_root(opts.path)
    layout = Layout(root, state_name=STATE_NAME)
    if opts.dry_run:
        config = opts.config(root, None)
        check_known_destination(config, root, config.answers.get("template_name"), dry_run=True)
        try:
            result = _drive(opts, new_state(config), layout, report, save=_nothing)
        except KeyboardInterrupt:
            raise Interrupted(state=None) from None  # a dry run saves nothing
    else:
        result = _run(opts, root, layout, report)
    if result is None:
        raise UserCancelled(f"template-create cancelled: nothing was written for {root}.")
    return result


def _run(
    opts: TemplateOptions, root: Path, layout: Layout, report: Callable[[str], None]
) -> TemplateResult | None:
    store = template_store(layout.state)
    if not layout.lock.exists():  # first run here: hide our files before creating any
        _hide(root, [], run_folder=True)
    with store.locked():
        # whether the state on disk is this run's (resumed, or saved by this process):
        # only then does a failure say how to continue it
        ours = False

        def save() -> None:
            nonlocal ours
            _save(store, state)
            ours = True

        try:
            left = stop_leftover(layout.folder)  # an agent a killed run left
            if left is not None:
                report(f"[template-create] {left}")
            saved = store.load()
            resumed = _resumed(opts, saved, layout, root) if opts.resume else None
            ours = resumed is not None
            state = _start(opts, resumed, saved, layout, root, report)
            result = _drive(opts, state, layout, report, save=save)
            store.remove()
            for folder in (layout.briefs, layout.logs):
                for made in folder.glob("tc.*"):
                    made.unlink()
                if folder.is_dir() and not any(folder.iterdir()):
                    folder.rmdir()
        except UserError:
            if ours and layout.state.exists():
                report(
                    f"[template-create] the run is saved in {layout.state}; continue it with: "
                    f"executor template-create --path {quote(root)} --resume"
                )
            raise
        except KeyboardInterrupt:  # the CLI says what is saved and how to continue it
            kept = layout.state if ours and layout.state.exists() else None
            raise Interrupted(state=kept) from None
        finally:
            if not layout.state.exists():  # nothing to resume: leave nothing behind
                store.drop_lock_file()
    return result


def check_known_destination(
    config: TemplateConfig, root: Path, name: object, *, dry_run: bool = False
) -> None:
    """Refuse the destination now if it is known without the Q&A: an `--output`, a valid
    `--name`, or the name a resumed run's Q&A gave (`name`). A dry run writes nothing,
    so an existing template of ours is only noted, not refused."""
    valid = isinstance(name, str) and TEMPLATE_NAME.match(name) is not None
    if config.output is None and not valid:
        return
    dest = config.destination(name if isinstance(name, str) and valid else "")
    check_destination(dest, codebase=root, force=config.force or dry_run)


def _save(store: StateStore[TemplateCreateState], state: TemplateCreateState) -> None:
    state.derive()
    store.save(state)


def _nothing() -> None:
    """--dry-run's save: there is no state to save."""


def _resumed(
    opts: TemplateOptions, saved: TemplateCreateState | None, layout: Layout, root: Path
) -> TemplateCreateState:
    """The saved run `--resume` continues, with the options given now over its own."""
    if saved is None or saved.step is None:
        what = "nothing is saved" if saved is None else "it was written by the seed API"
        raise NothingToResumeError(
            f"--resume: no template-create run to continue in {layout.state} ({what}); "
            f"run the command without --resume to start one."
        )
    try:
        previous = validate(TemplateConfig, saved.config)
    except DataError as e:
        raise CorruptStateError(
            f"{layout.state}: config is invalid ({'; '.join(e.problems)}); run the "
            f"command without --resume to start afresh.",
            path=layout.state,
        ) from None
    saved.config = dump(opts.config(root, previous))
    return saved


def _start(
    opts: TemplateOptions,
    resumed: TemplateCreateState | None,
    saved: TemplateCreateState | None,
    layout: Layout,
    root: Path,
    report: Callable[[str], None],
) -> TemplateCreateState:
    """The state to drive: the `resumed` one, or a new one (replacing `saved`), once the
    destination known so far is checked."""
    if resumed is not None:
        qa = resumed.phase_data.get("qa_answers")
        name = qa.get("template_name") if isinstance(qa, dict) else None
        check_known_destination(validate(TemplateConfig, resumed.config), root, name)
        report(f"[template-create] resuming at {resumed.checkpoint} ({layout.state})")
        return resumed
    config = opts.config(root, None)
    check_known_destination(config, root, config.answers.get("template_name"))
    if saved is not None:
        report(
            f"[template-create] starting afresh: the unfinished run in {layout.state} "
            f"({saved.checkpoint}) is discarded; `--resume` continues one instead."
        )
        if saved.bridge.pending is not None:
            BridgeChannel(root).drop_request(saved.bridge.pending.request_id)
    state = new_state(config)
    if saved is not None:
        state.bridge.consumed = saved.bridge.consumed  # an old answer is never applied again
    return state


def _drive(
    opts: TemplateOptions,
    state: TemplateCreateState,
    layout: Layout,
    report: Callable[[str], None],
    *,
    save: Callable[[], None],
) -> TemplateResult | None:
    """Drive the workflow to its end: the result, or None when the person cancelled."""
    config = validate(TemplateConfig, state.config)
    policy = RetryPolicy()
    # its saved options carry the rest: the codebase and --resume continue it
    resume = ["template-create", "--path", str(layout.folder), "--resume"]
    channel = BridgeChannel(layout.folder, policy=policy, resume=resume)
    if not opts.dry_run:
        channel.sweep()
    durable = Durable(save)
    steps = TemplateSteps(
        TemplateRun(
            root=layout.folder,
            state=state,
            config=config,
            layout=layout,
            agents=template_agents(config, root=layout.folder, channel=channel, durable=durable),
            channel=channel,
            durable=durable,
            policy=policy,
            report=report,
            prompter=opts.prompter if opts.prompter is not None else _terminal_prompter(),
            dry_run=opts.dry_run,
            backoff=opts.backoff,
        )
    )
    if drive(TEMPLATE_CREATE, steps, Cursor(state), durable) == "cancelled":
        return None
    assert steps.r.result is not None, "the assembly step always leaves a result"
    return steps.r.result


def _terminal_prompter() -> FormPrompter | None:
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        return None
    from executor.prompts import TerminalPrompter

    return TerminalPrompter()
