"""The handlers of the template-create workflow (`executor.workflows.template_create.table` is
its table; `executor.workflows.template_create.run` builds the run and drives it).

Each handler does one step's work with the template library (`executor.templates`),
keeps its results in the state's `phase_data` and returns an `Outcome`; it never picks
the next step and never saves. The two agent steps ask `architectural-reviewer` through
the `Agents` seam (bridge or `--agent-command`) with a brief under `.agent-briefs/`;
an error, a timeout or an unusable answer goes through the one retry policy, then the
step falls back to the heuristics: never a loop of requests.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel

from executor import fsutil
from executor.bridge.template_state import Step
from executor.datamodel import dump, validate
from executor.engine.agents import AgentCall, AgentResult, BridgeAgents, Waiting, supersede
from executor.engine.machine import Outcome
from executor.errors import AgentUnavailableError, CorruptStateError, DataError
from executor.templates import (
    AgentSpec,
    Analysis,
    Codebase,
    Manifest,
    QAAnswers,
    Settings,
    TemplateSet,
    agent_files,
    agents_prompt,
    analyse,
    analysis_prompt,
    answers,
    assemble_template,
    build_manifest,
    build_settings,
    claude_md,
    generate_templates,
    heuristic_analysis,
    parse_agents_answer,
    parse_analysis_answer,
    questions,
    scan_codebase,
    select_agents,
    template_files,
)
from executor.templates.assembly import check_destination
from executor.workflows.template_create.context import TemplateResult, TemplateRun
from executor.workflows.template_create.qa import ask_questions

O = Outcome  # noqa: E741 - the handlers read better with one letter
R = TypeVar("R", bound=BaseModel)
AGENT = "architectural-reviewer"
#: The agent steps: the phase and phase name their requests carry (seed 000's numbering).
AGENT_PHASES: dict[Step, tuple[int, str]] = {
    Step.ANALYSIS: (2, "ai_analysis"),
    Step.AGENTS: (6, "agent_generation"),
}


class TemplateSteps:
    """The handlers of one run (`executor.workflows.template_create.table` names them)."""

    def __init__(self, run: TemplateRun) -> None:
        self.r = run
        self.state = run.state
        self._codebase: Codebase | None = None

    # -- phase data ---------------------------------------------------------------------
    def _get(self, key: str, model: type[R]) -> R:
        try:
            return validate(model, self.state.phase_data[key])
        except (KeyError, DataError) as e:
            raise self._bad_state(key, e) from None

    def _put(self, key: str, value: BaseModel | Sequence[BaseModel] | str | dict[str, str]) -> None:
        if isinstance(value, BaseModel):
            self.state.phase_data[key] = dump(value)
        elif isinstance(value, (list, tuple)):
            self.state.phase_data[key] = [dump(v) for v in value]
        else:
            self.state.phase_data[key] = value

    def _bad_state(self, key: str, why: object) -> CorruptStateError:
        where = self.r.layout.state
        return CorruptStateError(
            f"{where}: phase_data.{key} is missing or invalid ({why}); the run cannot "
            f"continue from it. Run the command again without --resume to start afresh.",
            path=where,
        )

    def _say(self, message: str) -> None:
        self.r.report(f"[template-create] {message}")

    def codebase(self) -> Codebase:
        """The codebase as scanned by this process (its template destination left out)."""
        if self._codebase is None:
            qa = self.state.phase_data.get("qa_answers")
            exclude: list[Path] = []
            if isinstance(qa, dict):
                exclude.append(self.r.destination(str(qa.get("template_name"))))
            elif self.r.config.output:  # before the Q&A: only an explicit --output is known
                exclude.append(Path(self.r.config.output))
            self._codebase = scan_codebase(self.r.root, exclude=exclude)
        return self._codebase

    # -- the steps ----------------------------------------------------------------------
    def qa(self) -> Outcome:
        codebase = self.codebase()
        heuristic = heuristic_analysis(codebase)
        cfg = self.r.config
        self._say(
            f"scanned {len(codebase.files)} files in {codebase.root}: {heuristic.language}, "
            f"{heuristic.architecture}" + (" (first files only)" if codebase.truncated else "")
        )
        prompter = None if cfg.skip_qa else self.r.prompter
        why = "--skip-qa" if cfg.skip_qa else "no terminal to ask on"
        asked = questions(heuristic)
        given = ask_questions(
            asked, cfg.answers, prompter=prompter, report=self._say, why_not_asked=why
        )
        # an option is a choice; an answer is one when it is not the default offered
        chosen = [
            q.id for q in asked if q.id in cfg.answers or given.get(q.id, q.default) != q.default
        ]
        qa = answers(heuristic, given, chosen=chosen)
        if not qa.confirmed:
            return O.ABORT
        dest = self.r.destination(qa.template_name)
        # before anything is saved: a destination that cannot be written stops the run now
        check_destination(dest, codebase=self.r.root, force=cfg.force or self.r.dry_run)
        self._put("heuristic", heuristic)
        self._put("qa_answers", qa)
        self._say(f"template {qa.template_name!r} -> {dest}")
        return O.OK

    def analysis(self) -> Outcome:
        heuristic = self._get("heuristic", Analysis)
        qa = self._get("qa_answers", QAAnswers)
        text: str | None = None
        if self.r.config.no_agents:
            self._forget_pending()
            self._say("analysis: heuristics only (--no-agents)")
        else:
            got = self.ask_agent(
                Step.ANALYSIS,
                analysis_prompt(self.codebase(), heuristic),
                usable=lambda t: parse_analysis_answer(t) is not None,
                context={"template_name": qa.template_name, "language": heuristic.language},
            )
            if isinstance(got, Waiting):
                return O.WAIT
            text = got
        analysis = analyse(heuristic, text, qa)
        self._put("analysis", analysis)
        self._say(
            f"analysis ({', '.join(sorted(set(analysis.sources.values())) or ['heuristic'])}): "
            f"{analysis.language}, {analysis.architecture}, layers "
            f"{', '.join(layer.name for layer in analysis.layers) or '-'}, "
            f"entities {', '.join(analysis.entities) or '-'}"
        )
        return O.OK if text is not None else O.SKIP

    def generation(self) -> Outcome:
        analysis = self._get("analysis", Analysis)
        qa = self._get("qa_answers", QAAnswers)
        codebase = self.codebase()
        templates = generate_templates(
            codebase, analysis, include=qa.example_files, max_templates=self.r.config.max_templates
        )
        manifest = build_manifest(analysis, qa, templates, source_project=codebase.root)
        settings = build_settings(analysis, templates)
        self._put("templates", templates)
        self._put("manifest", manifest)
        self._put("settings", settings)
        self._say(
            f"generated {len(templates.entries)} templates, "
            f"{len(manifest.placeholders)} placeholders"
            + (f"; skipped {len(templates.skipped)} files" if templates.skipped else "")
        )
        return O.OK

    def agents(self) -> Outcome:
        analysis = self._get("analysis", Analysis)
        qa = self._get("qa_answers", QAAnswers)
        text: str | None = None
        if qa.agents != "ai" or self.r.config.no_agents:
            self._forget_pending()
            why = "--no-agents" if self.r.config.no_agents else f"--agents {qa.agents}"
            self._say(f"agents: no request ({why})")
        else:
            got = self.ask_agent(
                Step.AGENTS,
                agents_prompt(analysis, template_name=qa.template_name),
                usable=lambda t: parse_agents_answer(t) is not None,
                context={"template_name": qa.template_name, "architecture": analysis.architecture},
            )
            if isinstance(got, Waiting):
                return O.WAIT
            text = got
        specs = select_agents(analysis, qa, text)
        self._put("agents", specs)
        by = "recommended by the agent" if text is not None else "built in"
        self._say(f"agents ({by}): {', '.join(s.name for s in specs) or 'none'}")
        return O.OK if text is not None else O.SKIP

    def claude_md(self) -> Outcome:
        analysis = self._get("analysis", Analysis)
        manifest = self._get("manifest", Manifest)
        settings = self._get("settings", Settings)
        specs = [validate(AgentSpec, s) for s in self.state.phase_data.get("agents", [])]
        self._put("claude_md", claude_md(manifest, settings, analysis, specs))
        self._put(
            "agent_files", agent_files(specs, analysis, settings, template_name=manifest.name)
        )
        return O.OK

    def assembly(self) -> Outcome:
        manifest = self._get("manifest", Manifest)
        guide = self.state.phase_data.get("claude_md")
        specs = self.state.phase_data.get("agent_files")
        if not isinstance(guide, str) or not isinstance(specs, dict):
            raise self._bad_state("claude_md", "not written by the claude_md step")
        files = template_files(
            manifest=manifest,
            settings=self._get("settings", Settings),
            templates=self._get("templates", TemplateSet),
            agent_files={str(k): str(v) for k, v in specs.items()},
            claude_md=guide,
        )
        dest = self.r.destination(manifest.name)
        self.r.result = TemplateResult(name=manifest.name, destination=dest, files=sorted(files))
        if not self.r.dry_run:
            cfg = self.r.config
            self.r.result.written = assemble_template(
                dest, files, source=self.r.root, force=cfg.force, validate=cfg.validate_output
            )
        return O.OK

    # -- asking the agent -----------------------------------------------------------------
    def ask_agent(
        self, step: Step, prompt: str, *, usable: Callable[[str], bool], context: dict[str, Any]
    ) -> str | Waiting | None:
        """The agent's usable answer; None when the retry policy gave up (the caller
        falls back to the heuristics); a `Waiting` when a request went to the bridge."""
        while True:
            call = self._call(step, prompt, context)
            if not isinstance(self.r.agents, BridgeAgents):  # runs here: say so first
                self._say(f"{step.value}: asking {AGENT} (attempt {call.attempt})")
            try:
                result = self.r.agents.call(call, self.state.bridge)
            except AgentUnavailableError as e:  # asked max_emissions times, never answered
                self._forget_pending()
                self.state.agent_failures = 0
                self._say(f"{step.value}: falling back to the heuristics: {e}")
                return None
            if isinstance(result, Waiting):
                self._say(f"{step.value}: {AGENT} is asked through the bridge")
                return result
            if result.ok and usable(result.text):
                self.state.agent_failures = 0
                self._say(f"{step.value}: {AGENT} answered (attempt {call.attempt})")
                return result.text
            if result.ok:
                result = AgentResult(
                    status="error",
                    error_type="PARSE_ERROR",
                    error_message="the answer is not the JSON the brief asks for: "
                    + " ".join(result.text.split())[:160],
                )
            self.state.agent_failures += 1
            failures = self.state.agent_failures
            why = f"{AGENT} {result.status}: {result.error_message or result.error_type or ''}"
            if self.r.policy.should_retry(result.status, result.retry_type, failures):
                self._say(f"{step.value}: {why}; asking again")
                time.sleep(self.r.policy.delay(failures) * self.r.backoff)
                continue
            self.state.agent_failures = 0
            self._say(f"{step.value}: {why}; falling back to the heuristics")
            return None

    def _call(self, step: Step, prompt: str, context: dict[str, Any]) -> AgentCall:
        attempt = self.state.agent_failures + 1
        key = f"tc.{step.value}.a{attempt}"
        folder = self.r.layout.folder
        briefs = fsutil.ensure_private_dir(self.r.layout.briefs, inside=folder)
        brief = briefs / f"{key}.md"
        fsutil.atomic_write_text(brief, prompt, fault="brief")
        phase, phase_name = AGENT_PHASES[step]
        return AgentCall(
            key=key,
            agent_name=AGENT,
            prompt=(
                f"template-create {step.value}: read the brief at {brief} and answer with "
                f"exactly the JSON it asks for, nothing else."
            ),
            brief=brief,
            phase=phase,
            phase_name=phase_name,
            session=0,
            tdd_step=step.value,
            attempt=attempt,
            context={**context, "codebase": str(folder), "step": step.value},
            # a command or preset agent's transcript (removed with the briefs on success)
            log=fsutil.ensure_private_dir(self.r.layout.logs, inside=folder) / f"{key}.log",
        )

    def _forget_pending(self) -> None:
        """A request pending from an earlier run is not wanted any more (options changed)."""
        supersede(self.r.channel, self.state.bridge, self.r.durable)
