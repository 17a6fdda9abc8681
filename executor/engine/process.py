"""Agents run here as a subprocess: `--agent-command CMD`, or an `--agent` preset.

A preset builds the argv (`executor.agent_presets`) and its output is parsed
(`executor.agent_output`); a plain command gets the short prompt on stdin and the brief's
path in `EXECUTOR_PROMPT_FILE`. Both get the same `EXECUTOR_*` environment
(docs/agent-command.md). The output goes whole to a transcript under `.agent-logs/`, only
its head and tail stay in memory (`executor.capture`), and the agent's whole process group
dies when it ends or the executor does; while it runs it is recorded in the run folder
(`executor.engine.running`) so that the next run stops one that outlived a killed executor.
"""

from __future__ import annotations

import contextlib
import os
import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING

from executor import fsutil
from executor.bridge.models import AgentRequest, Ledger
from executor.bridge.protocol import BridgeChannel
from executor.bridge.reading import MAX_OWN_BYTES
from executor.capture import end_transcript, run_captured, transcript
from executor.datamodel import dump
from executor.engine.agents import BRIDGE_AGENT, AgentCall, AgentResult, Durable, supersede
from executor.engine.layout import RUNNING_NAME
from executor.engine.running import forget, record
from executor.errors import DataError, UserError
from executor.safe_read import read_bounded
from executor.stamps import utc_now

if TYPE_CHECKING:
    from executor.sandbox import Sandbox


@dataclass(frozen=True)
class AgentProcess:
    """What to run for each agent step: a fixed command, or a preset by name."""

    command: tuple[str, ...] = ()
    preset: str | None = None

    @staticmethod
    def from_options(
        agent_command: str | None, preset: str | None, *, others: Sequence[str] = ()
    ) -> AgentProcess | None:
        """None: no process (the bridge: no option, or `--agent bridge`). UserError (usage)
        when the options are unusable; an unknown preset's message lists the presets,
        `bridge` and `others` (names the caller handles itself, such as `replay`)."""
        if agent_command is not None and preset is not None:
            raise UserError("give --agent or --agent-command, not both")
        if preset == BRIDGE_AGENT:
            return None
        if preset is not None:
            from executor.agent_presets import PRESETS

            if preset not in PRESETS:
                known = ", ".join(sorted({*PRESETS, BRIDGE_AGENT, *others}))
                raise UserError(f"--agent {preset!r} is not a preset; known: {known}")
            return AgentProcess(preset=preset)
        if agent_command is None:
            return None
        try:
            argv = shlex.split(agent_command)
        except ValueError as e:
            raise UserError(f"--agent-command {agent_command!r} cannot be split: {e}") from None
        if not argv:
            raise UserError(
                "--agent-command is empty; give a command, or --agent bridge to answer "
                "agent requests through the exit-42 bridge"
            )
        return AgentProcess(command=tuple(argv))


class ProcessAgents:
    """Fulfil agent requests by running a process in the repository."""

    def __init__(
        self,
        how: AgentProcess,
        *,
        repo: Path,
        channel: BridgeChannel,
        durable: Durable,
        exclude: Callable[[Sequence[str]], None],
        own_files: OwnFiles | None = None,
        sandbox: Sandbox | None = None,
    ) -> None:
        self.how = how
        #: where the agent runs, when it runs in one (a parallel run's session)
        self.sandbox = sandbox
        self.repo = repo
        self.channel = channel
        self.durable = durable
        self.exclude = exclude
        self.own_files = own_files

    def call(self, call: AgentCall, ledger: Ledger) -> AgentResult:
        supersede(self.channel, ledger, self.durable)
        request_file = call.brief.with_suffix(".request.json")
        request = AgentRequest(
            request_id=call.key,
            phase=call.phase,
            phase_name=call.phase_name,
            agent_name=call.agent_name,
            prompt=call.prompt,
            timeout_seconds=call.timeout,
            created_at=utc_now(),
            context=call.request_context(),
            attempt=call.attempt,
        )
        fsutil.atomic_write_json(request_file, dump(request), fault="request")
        env = {
            **os.environ,
            "EXECUTOR_PROMPT_FILE": str(call.brief),
            "EXECUTOR_REQUEST_FILE": str(request_file),
            "EXECUTOR_AGENT_NAME": call.agent_name,
            "EXECUTOR_PHASE": str(call.phase),
            "EXECUTOR_SESSION": str(call.session),
            "EXECUTOR_TDD_STEP": call.tdd_step,
            "EXECUTOR_ATTEMPT": str(call.attempt),
        }
        argv, stdin_text = list(self.how.command), call.prompt
        if self.how.preset is not None:
            from executor.agent_presets import preset_argv

            built = preset_argv(
                self.how.preset,
                prompt_file=call.brief,
                prompt=call.brief.read_text("utf-8"),
                repo=self.repo,
                test_command=call.test_command,
                test_commands=call.test_commands,
            )
            argv, stdin_text = list(built.argv), built.stdin_text
            env.update(built.env_additions)
            if built.git_excludes:
                self.exclude(built.git_excludes)
        kept = self.own_files.keep() if self.own_files else None
        result = run_agent(
            self.sandbox.wrap(argv) if self.sandbox is not None else argv,
            preset=self.how.preset,
            cwd=self.repo,
            env=env,
            stdin_text=stdin_text,
            timeout=call.timeout,
            log=call.log,
            running=self.channel.folder / RUNNING_NAME,
        )
        if self.own_files is not None and kept is not None:
            result.tampered = self.own_files.put_back(kept)
        return result


class OwnFiles:
    """The executor's own files something it runs could rewrite while it runs (a command
    agent, a test run: this process holds the run): `paths` (the state, its `.bak`, the
    archive of finished sessions) are put back byte for byte, the plan `cache` is dropped
    (the next read parses the plan), and the state store is told the file on disk is its
    own again. Whatever marks sessions done, or forges the parsed plan, gets its step
    failed as tampering instead of a run that trusts it."""

    def __init__(self, paths: Sequence[Path], *, cache: Path, reclaim: Callable[[], None]):
        self.paths = (*paths, cache)
        self.cache = cache
        self.reclaim = reclaim

    def keep(self) -> dict[Path, bytes | None]:
        """What each file holds now (None: absent); one that is not a regular file of
        ours, or too large, is not watched (and never read)."""
        kept: dict[Path, bytes | None] = {}
        for path in self.paths:
            try:
                kept[path] = read_bounded(path, MAX_OWN_BYTES)
            except FileNotFoundError:
                kept[path] = None
            except DataError:
                continue
        return kept

    def put_back(self, kept: dict[Path, bytes | None]) -> list[str]:
        changed = [p for p, data in kept.items() if not _holds(p, data)]
        for path in changed:
            data = kept[path]
            if path == self.cache or data is None:
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()
            else:
                fsutil.atomic_write_bytes(path, data, fault="put_back")
        if changed:
            self.reclaim()
        return [p.name for p in changed]


def _holds(path: Path, data: bytes | None) -> bool:
    """Whether `path` still holds `data` (None: no file), read no further than its length:
    a FIFO, a link or a larger file the agent put there is a change, never a wait."""
    if data is None:
        return not os.path.lexists(path)
    try:
        return read_bounded(path, len(data)) == data
    except (FileNotFoundError, DataError):
        return False


def run_agent(
    argv: Sequence[str],
    *,
    preset: str | None,
    cwd: Path,
    env: dict[str, str],
    stdin_text: str,
    timeout: float,
    log: Path | None,
    running: Path | None = None,
) -> AgentResult:
    """Run an agent process and read what it reports (exit 0 and a good report: success).

    It dies with the executor (`run_captured`'s warden); with `running`, it is recorded
    there while it runs, for the next run to stop should it outlive this one anyway
    (`executor.engine.running`)."""
    from executor.agent_output import parse_agent_output

    def started(pid: int) -> None:
        if running is not None:
            record(running, pid, argv)

    with _transcript(log, argv) as sink:
        log = log if sink is not None else None
        try:
            done = run_captured(
                argv, cwd=cwd, env=env, timeout=timeout, stdin=stdin_text.encode(), sink=sink,
                warden=True, on_start=started,
            )  # fmt: skip
        except OSError as e:
            error = f"cannot run agent command {shlex.join(argv)}: {e}"
            _end(sink, error)
            return AgentResult(status="error", error_type="AGENT_NOT_FOUND", error_message=error)
        finally:
            if running is not None:
                forget(running)
        seconds = done.seconds
        printed = f"{done.out.total + done.err.total} bytes of output"
        if done.timed_out:
            _end(sink, f"killed after {seconds:.0f} s (timeout {timeout:.0f} s); {printed}"
                 + _left(done.left))  # fmt: skip
            return AgentResult(
                status="timeout",
                error_type="TIMEOUT",
                error_message=f"the agent ran past {timeout:.0f} s and was killed",
                seconds=seconds,
                log=log,
            )
        _end(sink, f"exit {done.returncode} after {seconds:.1f} s; {printed}" + _left(done.left))
    report = parse_agent_output(preset, done.out.text(), done.err.text(), done.returncode, seconds)
    return AgentResult(
        status="success" if report.ok else "error",
        text=report.final_message,
        error_type=None if report.ok else "INVOCATION_FAILED",
        error_message=None
        if report.ok
        else f"{report.error_message or 'failed'} (exit {done.returncode} after {seconds:.1f}s)",
        seconds=seconds,
        cost_usd=report.cost_usd,
        input_tokens=report.input_tokens,
        output_tokens=report.output_tokens,
        turns=report.turns,
        log=log,
    )


def _transcript(
    log: Path | None, argv: Sequence[str]
) -> contextlib.AbstractContextManager[IO[bytes] | None]:
    """The call's transcript: the command, then stdout and stderr as they arrive, then
    how it ended (`executor.capture.transcript`)."""
    return transcript(log, f"$ {shlex.join(argv)[:2000]}\n# stdout and stderr as they came\n")


def _left(pids: tuple[int, ...]) -> str:
    if not pids:
        return ""
    return (f"; it left {len(pids)} process(es) running outside its process group "
            f"({', '.join(map(str, pids))}): killed")  # fmt: skip


def _end(sink: IO[bytes] | None, how: str) -> None:
    end_transcript(sink, how)
