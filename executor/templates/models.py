"""template-create's persisted structures: pydantic models (`executor.datamodel`).

The workflow stores them in its state between phases, and the
template folder holds three of them: `manifest.json` (`Manifest`), `settings.json`
(`Settings`) and, per agent, the `AgentSpec` it was written from.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from executor.datamodel import Strict

SCHEMA_VERSION = 1

#: Who said what in an `Analysis`: the deterministic scan, the agent, or the user (Q&A).
Source = Literal["heuristic", "agent", "user"]
Indentation = Literal["spaces", "tabs", "unknown"]
Quotes = Literal["double", "single", "unknown"]


class Layer(Strict):
    """An architectural layer and the folders that hold it (relative posix paths)."""

    name: str
    folders: list[str] = Field(default_factory=list)
    description: str = ""
    file_count: int = 0


class NamingConvention(Strict):
    """The dominant style of one kind of name, with real examples from the code."""

    style: str
    examples: list[str] = Field(default_factory=list)
    count: int = Field(default=0, description="names of this kind that were read")


class CodeStyle(Strict):
    indentation: Indentation = "unknown"
    indent_size: int = 0
    line_length: int = 0
    line_length_source: str = ""
    quotes: Quotes = "unknown"
    line_endings: Literal["lf", "crlf"] = "lf"
    final_newline: bool = True
    semicolons: bool | None = Field(default=None, description="JavaScript/TypeScript")


class Analysis(Strict):
    """What the codebase is. `sources` says, per field, who decided it."""

    schema_version: int = SCHEMA_VERSION
    project_name: str
    language: str
    languages: dict[str, int] = Field(default_factory=dict)
    frameworks: list[str] = Field(default_factory=list)
    testing_frameworks: list[str] = Field(default_factory=list)
    build_tools: list[str] = Field(default_factory=list)
    architecture: str = "Modular"
    layers: list[Layer] = Field(default_factory=list)
    patterns: list[str] = Field(default_factory=list)
    entities: list[str] = Field(default_factory=list)
    naming: dict[str, NamingConvention] = Field(default_factory=dict)
    code_style: CodeStyle = Field(default_factory=CodeStyle)
    example_files: list[str] = Field(default_factory=list)
    confidence: float = 0.5
    sources: dict[str, Source] = Field(default_factory=dict)
    notes: list[str] = Field(default_factory=list)
    agent_answer: dict[str, Any] | None = None


class Choice(Strict):
    value: str
    label: str


class Question(Strict):
    """One Q&A question as data; the CLI decides how to prompt for it."""

    id: str
    text: str
    kind: Literal["text", "select", "confirm"]
    choices: list[Choice] = Field(default_factory=list)
    default: str | bool
    flag: str = Field(description="the template-create option that answers it")
    help: str = ""


class QAAnswers(Strict):
    template_name: str
    language: str
    purpose: str
    architecture: str
    example_files: list[str] = Field(default_factory=list)
    agents: Literal["ai", "builtin", "none"] = "ai"
    confirmed: bool = True
    given: list[str] | None = Field(
        default=None,
        description=(
            "question ids the person chose (an option, or an answer other than the default "
            "offered); the others took their default, which the agent's analysis overrides. null "
            "(an older state): an answer other than the default counts"
        ),
    )


class Placeholder(Strict):
    """A value the template leaves open. `name` is spelled as in templates: `{{Name}}`."""

    name: str
    description: str
    required: bool = True
    pattern: str
    default: str
    derived_from: str | None = Field(
        default=None, description="placeholder whose value this one is computed from"
    )
    case: str | None = Field(default=None, description="spelling of the derived value")


class TemplateFile(Strict):
    """One template: where it came from, where it is stored, where it renders to."""

    source_path: str
    template_path: str
    output_path: str = Field(description="source_path with placeholders")
    layer: str
    sha256: str = Field(description="of the source file; the round trip must match it")
    executable: bool = False
    placeholders: list[str] = Field(default_factory=list)


class TemplateEntry(Strict):
    file: TemplateFile
    text: str


class TemplateSet(Strict):
    """Phase 5's output: the templates with the placeholders they use."""

    placeholders: dict[str, Placeholder] = Field(default_factory=dict)
    entries: list[TemplateEntry] = Field(default_factory=list)
    skipped: list[str] = Field(default_factory=list)
    completeness: list[str] = Field(default_factory=list)


class Manifest(Strict):
    schema_version: int = SCHEMA_VERSION
    name: str
    version: str = "1.0.0"
    description: str = ""
    language: str
    frameworks: list[str] = Field(default_factory=list)
    testing_frameworks: list[str] = Field(
        default_factory=list, description="the test runners detected (pytest, jest, ...)"
    )
    build_tools: list[str] = Field(default_factory=list)
    architecture: str
    patterns: list[str] = Field(default_factory=list)
    layers: list[str] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)
    complexity: int = Field(default=1, ge=1, description="1 (trivial) to 10")
    source_project: str
    confidence: float
    sources: dict[str, Source] = Field(default_factory=dict)
    created_at: str
    placeholders: dict[str, Placeholder] = Field(default_factory=dict)
    templates: list[TemplateFile] = Field(default_factory=list)


class FileOrganization(Strict):
    source_root: str
    test_location: str
    test_file_pattern: str
    by_layer: bool
    config_files: list[str] = Field(default_factory=list)


class LayerMapping(Strict):
    folders: list[str]
    template_folder: str
    examples: list[str] = Field(default_factory=list)


class Settings(Strict):
    schema_version: int = SCHEMA_VERSION
    naming_conventions: dict[str, NamingConvention] = Field(default_factory=dict)
    file_organization: FileOrganization
    layer_mappings: dict[str, LayerMapping] = Field(default_factory=dict)
    code_style: CodeStyle


class AgentSpec(Strict):
    """A specialist subagent for the template (seed 000's recommendation shape)."""

    name: str
    description: str
    reason: str = ""
    technologies: list[str] = Field(default_factory=list)
    example_files: list[str] = Field(default_factory=list)
    priority: int = Field(default=5, description="1 (low) to 10 (high)")
    tools: list[str] = Field(default_factory=list)
    source: Literal["agent", "builtin"] = "builtin"


class Check(Strict):
    name: str
    passed: bool
    detail: str = ""


class VerifyReport(Strict):
    """`verify_template`'s findings: `problems` fail validation, `warnings` do not."""

    template_dir: str
    checks: list[Check] = Field(default_factory=list)
    problems: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def score(self) -> float:
        """Passed checks out of all, on a 0-10 scale (one decimal)."""
        if not self.checks:
            return 0.0
        return round(10 * sum(c.passed for c in self.checks) / len(self.checks), 1)


class Written(Strict):
    """What `assemble_template` or `apply_template` wrote."""

    path: str
    files: list[str] = Field(default_factory=list)
    report: VerifyReport | None = None
