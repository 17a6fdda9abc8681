"""The template-create workflow, declared as one table (handlers: `steps.py`; the run
around it: `run.py`); drawn, with each step's work, in docs/template-create.md, "The
workflow".

Failures are not outcomes: a handler raises the error that carries its exit code and
the state stays at the step that failed. Seed 000's checkpoint and phase are derived
from the step, never stored beside it as a second truth.
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
