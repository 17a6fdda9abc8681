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

from executor.bridge.template_state import Step
from executor.engine.machine import Node, Outcome, Workflow
from executor.workflows.template_create.steps import TemplateSteps

O = Outcome  # noqa: E741 - the table reads better with one letter
S = Step

TEMPLATE_CREATE: Workflow[Step, TemplateSteps] = Workflow(
    name="template-create",
    start=S.QA,
    nodes=(
        Node(S.QA, TemplateSteps.qa, {O.OK: S.ANALYSIS, O.ABORT: S.CANCELLED}),
        Node(S.ANALYSIS, TemplateSteps.analysis, {O.OK: S.GENERATION, O.SKIP: S.GENERATION}),
        Node(S.GENERATION, TemplateSteps.generation, {O.OK: S.AGENTS}),
        Node(S.AGENTS, TemplateSteps.agents, {O.OK: S.CLAUDE_MD, O.SKIP: S.CLAUDE_MD}),
        Node(S.CLAUDE_MD, TemplateSteps.claude_md, {O.OK: S.ASSEMBLY}),
        Node(S.ASSEMBLY, TemplateSteps.assembly, {O.OK: S.DONE}),
        Node(S.DONE, None, final="done"),
        Node(S.CANCELLED, None, final="cancelled"),
    ),
)
