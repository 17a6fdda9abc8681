"""template-create's persisted structures: typed JSON records (see `executor.records`).

The workflow stores them in its state between phases (`to_json` / `from_json`), and the
template folder holds three of them: `manifest.json` (`Manifest`), `settings.json`
(`Settings`) and, per agent, the `AgentSpec` it was written from.
"""

from __future__ import annotations

from typing import Any, Literal

from executor.records import Record, field

SCHEMA_VERSION = 1

#: Who said what in an `Analysis`: the deterministic scan, the agent, or the user (Q&A).
Source = Literal["heuristic", "agent", "user"]
Indentation = Literal["spaces", "tabs", "unknown"]
Quotes = Literal["double", "single", "unknown"]


class Layer(Record):
    """An architectural layer and the folders that hold it (relative posix paths)."""

    name: str
    folders: list[str] = field(default_factory=list)
    description: str = ""
    file_count: int = 0


class NamingConvention(Record):
    """The dominant style of one kind of name, with real examples from the code."""

    style: str
    examples: list[str] = field(default_factory=list)
    count: int = field(default=0, metadata={"doc": "names of this kind that were read"})


class CodeStyle(Record):
    indentation: Indentation = "unknown"
    indent_size: int = 0
    line_length: int = 0
    line_length_source: str = ""
    quotes: Quotes = "unknown"
    line_endings: Literal["lf", "crlf"] = "lf"
    final_newline: bool = True
    semicolons: bool | None = field(default=None, metadata={"doc": "JavaScript/TypeScript"})


class Analysis(Record):
    """What the codebase is. `sources` says, per field, who decided it."""

    schema_version: int = SCHEMA_VERSION
    project_name: str
    language: str
    languages: dict[str, int] = field(default_factory=dict)
    frameworks: list[str] = field(default_factory=list)
    testing_frameworks: list[str] = field(default_factory=list)
    build_tools: list[str] = field(default_factory=list)
    architecture: str = "Modular"
    layers: list[Layer] = field(default_factory=list)
    patterns: list[str] = field(default_factory=list)
    entities: list[str] = field(default_factory=list)
    naming: dict[str, NamingConvention] = field(default_factory=dict)
    code_style: CodeStyle = field(default_factory=CodeStyle)
    example_files: list[str] = field(default_factory=list)
    confidence: float = 0.5
    sources: dict[str, Source] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    agent_answer: dict[str, Any] | None = None


class Choice(Record):
    value: str
    label: str


class Question(Record):
    """One Q&A question as data; the CLI decides how to prompt for it."""

    id: str
    text: str
    kind: Literal["text", "select", "confirm"]
    choices: list[Choice] = field(default_factory=list)
    default: str | bool
    flag: str = field(metadata={"doc": "the template-create option that answers it"})
    help: str = ""


class QAAnswers(Record):
    template_name: str
    language: str
    purpose: str
    architecture: str
    example_files: list[str] = field(default_factory=list)
    agents: Literal["ai", "builtin", "none"] = "ai"
    confirmed: bool = True
    given: list[str] | None = field(
        default=None,
        metadata={
            "doc": "question ids the person chose (an option, or an answer other than the "
            "default offered); the others took their default, which the agent's analysis "
            "overrides. null (an older state): an answer other than the default counts"
        },
    )


class Placeholder(Record):
    """A value the template leaves open. `name` is spelled as in templates: `{{Name}}`."""

    name: str
    description: str
    required: bool = True
    pattern: str
    default: str
    derived_from: str | None = field(
        default=None, metadata={"doc": "placeholder whose value this one is computed from"}
    )
    case: str | None = field(default=None, metadata={"doc": "spelling of the derived value"})


class TemplateFile(Record):
    """One template: where it came from, where it is stored, where it renders to."""

    source_path: str
    template_path: str
    output_path: str = field(metadata={"doc": "source_path with placeholders"})
    layer: str
    sha256: str = field(metadata={"doc": "of the source file; the round trip must match it"})
    executable: bool = False
    placeholders: list[str] = field(default_factory=list)


class TemplateEntry(Record):
    file: TemplateFile
    text: str


class TemplateSet(Record):
    """Phase 5's output: the templates with the placeholders they use."""

    placeholders: dict[str, Placeholder] = field(default_factory=dict)
    entries: list[TemplateEntry] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    completeness: list[str] = field(default_factory=list)


class Manifest(Record):
    schema_version: int = SCHEMA_VERSION
    name: str
    version: str = "1.0.0"
    description: str = ""
    language: str
    frameworks: list[str] = field(default_factory=list)
    architecture: str
    patterns: list[str] = field(default_factory=list)
    layers: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    complexity: int = field(default=1, metadata={"ge": 1, "doc": "1 (trivial) to 10"})
    source_project: str
    confidence: float
    sources: dict[str, Source] = field(default_factory=dict)
    created_at: str
    placeholders: dict[str, Placeholder] = field(default_factory=dict)
    templates: list[TemplateFile] = field(default_factory=list)


class FileOrganization(Record):
    source_root: str
    test_location: str
    test_file_pattern: str
    by_layer: bool
    config_files: list[str] = field(default_factory=list)


class LayerMapping(Record):
    folders: list[str]
    template_folder: str
    examples: list[str] = field(default_factory=list)


class Settings(Record):
    schema_version: int = SCHEMA_VERSION
    naming_conventions: dict[str, NamingConvention] = field(default_factory=dict)
    file_organization: FileOrganization
    layer_mappings: dict[str, LayerMapping] = field(default_factory=dict)
    code_style: CodeStyle


class AgentSpec(Record):
    """A specialist subagent for the template (seed 000's recommendation shape)."""

    name: str
    description: str
    reason: str = ""
    technologies: list[str] = field(default_factory=list)
    example_files: list[str] = field(default_factory=list)
    priority: int = field(default=5, metadata={"doc": "1 (low) to 10 (high)"})
    tools: list[str] = field(default_factory=list)
    source: Literal["agent", "builtin"] = "builtin"


class Check(Record):
    name: str
    passed: bool
    detail: str = ""


class VerifyReport(Record):
    """`verify_template`'s findings: `problems` fail validation, `warnings` do not."""

    template_dir: str
    checks: list[Check] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def score(self) -> float:
        """Passed checks out of all, on a 0-10 scale (one decimal)."""
        if not self.checks:
            return 0.0
        return round(10 * sum(c.passed for c in self.checks) / len(self.checks), 1)


class Written(Record):
    """What `assemble_template` or `apply_template` wrote."""

    path: str
    files: list[str] = field(default_factory=list)
    report: VerifyReport | None = None
