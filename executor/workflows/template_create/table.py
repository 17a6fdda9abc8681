"""The template-create workflow, declared as one table (handlers: `steps.py`; the run
around it: `run.py`).

    qa ──ok──► analysis ──ok / skip──► generation ──ok──► agents ──ok / skip──► claude_md
     │            │ exit 42 while the                       │ exit 42 while the      │
     │            │ architectural-reviewer                  │ architectural-reviewer ok
     │            ▼ analyses (seed: phase 2)                ▼ recommends agents      ▼
     └─abort─► cancelled                                      (seed: phase 6)      assembly
                                                                                     │ ok
                                                                                     ▼
                                                                                    done

 qa          scan, heuristics, the questions (terminal, flags or defaults); abort: the
             person said no to "Create the template?"
 analysis    ok: the agent's analysis is merged over the heuristics; skip: heuristics
             only (--no-agents, or the agent failed after the retry policy)
 generation  templates, manifest.json, settings.json
 agents      ok: the agent's recommendations; skip: the built-in set, or none
 claude_md   CLAUDE.md and agents/*.md
 assembly    write, verify the round trip, move into place (--validate: the report)

Failures are not outcomes: a handler raises the error that carries its exit code
(AnalysisFailedError 3, TemplateGenerationError 4, TemplateValidationError 5,
TemplateSaveError 6) and the state stays at the step that failed. Seed 000's checkpoint
and phase are derived from the step (and whether its request is pending), never stored
beside it as a second truth.
"""

from __future__ import annotations

import enum

from executor.engine.machine import Outcome, Workflow


class Step(str, enum.Enum):
    QA = "qa"
    ANALYSIS = "analysis"
    GENERATION = "generation"
    AGENTS = "agents"
    CLAUDE_MD = "claude_md"
    ASSEMBLY = "assembly"
    DONE = "done"
    CANCELLED = "cancelled"


O = Outcome  # noqa: E741 - the table reads better with one letter
S = Step

TEMPLATE_CREATE: Workflow[Step] = Workflow(
    name="template-create",
    start=S.QA,
    table={
        (S.QA, O.OK): S.ANALYSIS,
        (S.QA, O.ABORT): S.CANCELLED,
        (S.ANALYSIS, O.OK): S.GENERATION,
        (S.ANALYSIS, O.SKIP): S.GENERATION,
        (S.GENERATION, O.OK): S.AGENTS,
        (S.AGENTS, O.OK): S.CLAUDE_MD,
        (S.AGENTS, O.SKIP): S.CLAUDE_MD,
        (S.CLAUDE_MD, O.OK): S.ASSEMBLY,
        (S.ASSEMBLY, O.OK): S.DONE,
    },
    final={S.DONE: "done", S.CANCELLED: "cancelled"},
    decisions=frozenset(),
)

#: step -> (seed 000 phase, checkpoint): what is complete when the cursor is there.
_PROGRESS: dict[Step, tuple[int, str]] = {
    S.QA: (1, "started"),
    S.ANALYSIS: (1, "qa_complete"),
    S.GENERATION: (2, "analysis_complete"),
    S.AGENTS: (5, "templates_generated"),
    S.CLAUDE_MD: (6, "agents_generated"),
    S.ASSEMBLY: (7, "claude_md_generated"),
    S.DONE: (8, "complete"),
    S.CANCELLED: (1, "cancelled"),
}
#: step whose agent request is pending -> (phase, checkpoint)
_WAITING: dict[Step, tuple[int, str]] = {
    S.ANALYSIS: (2, "analysis_pending"),
    S.AGENTS: (6, "agent_generation_pending"),
}
#: The agent steps: the phase and phase name their requests carry (seed 000's numbering).
AGENT_PHASES: dict[Step, tuple[int, str]] = {
    S.ANALYSIS: (2, "ai_analysis"),
    S.AGENTS: (6, "agent_generation"),
}


def progress_of(step: Step, *, waiting: bool) -> tuple[int, str]:
    """Seed 000's `(phase, checkpoint)` for a step; `waiting`: its request is pending."""
    if waiting and step in _WAITING:
        return _WAITING[step]
    return _PROGRESS[step]
