"""template-create's core: a codebase in, a verified template folder out. Pure library
code: no prompting, no bridge, no state; the workflow driver calls one function per step.

    step            call (module)                                   result
    ----            -------------                                   ------
    scan            scan_codebase(root, exclude=[dest])   (scan)    Codebase
    heuristic       heuristic_analysis(codebase)          (analysis) Analysis
    1 Q&A           questions(heuristic) -> prompt/flags  (qa)      list[Question]
                    answers(heuristic, given)                       QAAnswers
    2 analysis      analysis_prompt(codebase, heuristic)  -> bridge (architectural-reviewer)
                    analyse(heuristic, answer_text|None, qa)        Analysis
    3-5 generation  generate_templates(codebase, analysis, include=qa.example_files)
                                                                    TemplateSet
                    build_manifest(analysis, qa, templates, source_project=root)
                    build_settings(analysis, templates)             Manifest, Settings
    6 agents        agents_prompt(analysis)               -> bridge (architectural-reviewer)
                    select_agents(analysis, qa, answer_text|None)   list[AgentSpec]
                    agent_files(specs, analysis, settings, template_name=...)
    7 CLAUDE.md     claude_md(manifest, settings, analysis, specs)  str
    8 assembly      template_files(...) ; assemble_template(dest, files, source=root,
                    force=..., validate=...)                        Written (+ VerifyReport)

`verify_template(dir)` is the round trip (run by `assemble_template` before anything is
moved into place); `apply_template(dir, dest, values)` renders a template into a project.
Every record (Analysis, QAAnswers, TemplateSet, Manifest, Settings, AgentSpec) has
`to_json`/`from_json` for the workflow's state.
"""

from executor.templates.agents import (
    agent_files,
    agent_markdown,
    agents_prompt,
    fallback_agents,
    parse_agents_answer,
    select_agents,
)
from executor.templates.analysis import heuristic_analysis
from executor.templates.analysis_agent import (
    analyse,
    analysis_prompt,
    merge_analysis,
    parse_analysis_answer,
)
from executor.templates.apply import apply_template, locate_template
from executor.templates.assembly import assemble_template, template_files
from executor.templates.claude_md import claude_md
from executor.templates.generate import generate_templates
from executor.templates.manifest import build_manifest, build_settings
from executor.templates.models import (
    AgentSpec,
    Analysis,
    Manifest,
    Placeholder,
    QAAnswers,
    Question,
    Settings,
    TemplateFile,
    TemplateSet,
    VerifyReport,
    Written,
)
from executor.templates.paths import default_destination
from executor.templates.qa import answers, apply_answers, questions
from executor.templates.scan import Codebase, scan_codebase
from executor.templates.values import resolve_values
from executor.templates.verify import validation_report, verify_template

__all__ = [
    "AgentSpec",
    "Analysis",
    "Codebase",
    "Manifest",
    "Placeholder",
    "QAAnswers",
    "Question",
    "Settings",
    "TemplateFile",
    "TemplateSet",
    "VerifyReport",
    "Written",
    "agent_files",
    "agent_markdown",
    "agents_prompt",
    "analyse",
    "analysis_prompt",
    "answers",
    "apply_answers",
    "apply_template",
    "assemble_template",
    "build_manifest",
    "build_settings",
    "claude_md",
    "default_destination",
    "fallback_agents",
    "generate_templates",
    "heuristic_analysis",
    "locate_template",
    "merge_analysis",
    "parse_agents_answer",
    "parse_analysis_answer",
    "questions",
    "resolve_values",
    "scan_codebase",
    "select_agents",
    "template_files",
    "validation_report",
    "verify_template",
]
