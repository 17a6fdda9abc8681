"""template-create's core: a codebase in, a verified template folder out.

Pure library code (no prompting, no bridge, no state), so the workflow driver calls one
or two functions per step and keeps every record in its own state; which step calls
what: docs/template-create.md, "The library behind each step".
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
