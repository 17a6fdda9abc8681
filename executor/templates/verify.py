"""The verified round trip: a template folder is valid only if it gives back its source.

`verify_template(dir)` fails (TemplateValidationError, exit 5) unless rendering with
the defaults reproduces every source file byte for byte, every placeholder used is
declared, and rendering with OTHER names (`OTHER_NAMES`) keeps paths distinct and
Python compiling with the names it used: the defaults alone cannot see a language's
name caught by a placeholder. Completeness findings are warnings; each check is listed
in the report (docs/template-create.md, "The round trip").
"""

from __future__ import annotations

import ast
import builtins
import hashlib
import re
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePosixPath

from executor.claude.frontmatter import parse_frontmatter
from executor.errors import DataError, FrontmatterError, TemplateValidationError, TemplateValueError
from executor.templates import completeness
from executor.templates.loading import read_json_record
from executor.templates.models import (
    Check,
    Layer,
    Manifest,
    Settings,
    TemplateFile,
    VerifyReport,
)
from executor.templates.paths import safe_relative
from executor.templates.render import placeholders_in, render, stray_braces
from executor.templates.reserved import is_stdlib, python_parse
from executor.templates.values import resolve_values

SHOWN_PROBLEMS = 5
#: What the other-names check sets (the first value that is not the default).
OTHER_NAMES: dict[str, tuple[str, ...]] = {
    "ProjectName": ("Zeta", "Omega"),
    "EntityName": ("Gadget", "Widget"),
}
_BUILTINS = frozenset(dir(builtins))


def _first_difference(got: bytes, want: bytes) -> str:
    a, b = got.splitlines(keepends=True), want.splitlines(keepends=True)
    for i, (x, y) in enumerate(zip(a, b, strict=False), start=1):
        if x != y:
            shown = (x[:60].decode("utf-8", "replace"), y[:60].decode("utf-8", "replace"))
            return f"line {i}: rendered {shown[0]!r}, source has {shown[1]!r}"
    return f"rendered {len(a)} lines, source has {len(b)}"


class _Checks:
    def __init__(self, report: VerifyReport) -> None:
        self.report = report

    def record(self, name: str, problems: list[str], *, warning: bool = False) -> None:
        detail = f"{len(problems)} finding(s)" if problems else ""
        self.report.checks.append(Check(name=name, passed=not problems, detail=detail))
        (self.report.warnings if warning else self.report.problems).extend(problems)


def _check_templates(
    root: Path,
    manifest: Manifest,
    source: Path | None,
    checks: _Checks,
    other_names: Mapping[str, Sequence[str]],
) -> set[str]:
    """Run the per-template checks; return the placeholder names the templates use."""
    declared = set(manifest.placeholders)
    defaults = {name: p.default for name, p in manifest.placeholders.items()}
    missing, undeclared, stray, round_trip, paths = [], [], [], [], []
    outputs: dict[str, str] = {}
    texts = []
    renderable: list[tuple[TemplateFile, str]] = []
    used: set[str] = set()
    for t in manifest.templates:
        where = root / t.template_path
        if not safe_relative(t.template_path) or not where.is_file():
            missing.append(f"{t.template_path}: template file missing")
            continue
        try:
            text = where.read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError) as e:
            missing.append(f"{t.template_path}: unreadable ({e})")
            continue
        texts.append((t, text))
        names = placeholders_in(t.output_path) + placeholders_in(text)
        used.update(names)
        unknown = [n for n in names if n not in declared]
        if unknown:
            listed = ", ".join("{{" + n + "}}" for n in dict.fromkeys(unknown))
            undeclared.append(f"{t.template_path}: uses {listed}, not declared in manifest.json")
            continue
        renderable.append((t, text))
        stray += [f"{t.template_path}:{line}: unescaped '{{{{'" for line in stray_braces(text)]
        rendered = render(text, defaults).encode("utf-8")
        out_path = render(t.output_path, defaults)
        if hashlib.sha256(rendered).hexdigest() != t.sha256:
            round_trip.append(
                f"{t.template_path}: rendered with the defaults it does not reproduce "
                f"{t.source_path} (sha256 differs)"
            )
        elif source is not None and (source / t.source_path).is_file():
            original = (source / t.source_path).read_bytes()
            if original != rendered:
                round_trip.append(
                    f"{t.template_path}: differs from {source / t.source_path} "
                    f"({_first_difference(rendered, original)})"
                )
        if out_path != t.source_path:
            round_trip.append(
                f"{t.template_path}: output path renders to {out_path!r}, not {t.source_path!r}"
            )
        if not safe_relative(t.output_path):
            paths.append(f"{t.template_path}: output path {t.output_path!r} is not relative")
        if outputs.setdefault(out_path, t.template_path) != t.template_path:
            paths.append(f"{t.template_path}: renders to {out_path}, like {outputs[out_path]}")
    checks.record("every template file exists", missing)
    checks.record("every placeholder used is declared", undeclared)
    checks.record("round trip reproduces every source file", round_trip)
    checks.record("no unescaped '{{'", stray)
    checks.record("output paths are relative and unique", paths)
    checks.record(
        "renders with other names: Python compiles, keeps its built-ins",
        _other_names_problems(manifest, renderable, other_names),
    )
    crud = []
    if "EntityName" in manifest.placeholders:
        crud = completeness.crud_gaps(manifest.placeholders["EntityName"].default, texts)
    checks.record("CRUD operations are symmetric", crud, warning=True)
    return used


def _stdlib_imports(tree: ast.Module) -> set[str]:
    """What a module imports from the standard library (`keyword`, `dataclasses.field`)."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if is_stdlib(a.name))
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and is_stdlib(node.module):
            out.update(f"{node.module}.{a.name}" for a in node.names)
    return out


def _builtins_used(tree: ast.Module) -> set[str]:
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id in _BUILTINS}


def _other_values(manifest: Manifest, other_names: Mapping[str, Sequence[str]]) -> dict[str, str]:
    """For each name in `other_names` the template declares: its first candidate that is
    not the default (nor, in any case, a spelling of it)."""
    out: dict[str, str] = {}
    for name, candidates in other_names.items():
        p = manifest.placeholders.get(name)
        if p is None:
            continue
        value = next((c for c in candidates if c.lower() != p.default.lower()), None)
        if value is not None:
            out[name] = value
    return out


def _other_names_problems(
    manifest: Manifest,
    templates: list[tuple[TemplateFile, str]],
    other_names: Mapping[str, Sequence[str]],
) -> list[str]:
    """The check with OTHER names: what breaks when the template is rendered with
    other names than its source's."""

    chosen = _other_values(manifest, other_names)
    try:
        values = resolve_values(manifest, chosen)
    except TemplateValueError as e:
        return [f"cannot render with other names: {e}"]
    except (TemplateValidationError, re.error):
        return []  # a derivation cycle, a pattern that is no regex: the placeholders check says so
    defaults = {name: p.default for name, p in manifest.placeholders.items()}
    shown = ", ".join(f"{k}={v}" for k, v in chosen.items()) or "its defaults"
    problems: list[str] = []
    outputs: dict[str, str] = {}
    for t, text in templates:
        out_path = render(t.output_path, values)
        if outputs.setdefault(out_path, t.template_path) != t.template_path:
            problems.append(
                f"{t.template_path}: rendered with {shown} it goes to {out_path}, "
                f"like {outputs[out_path]}"
            )
        if PurePosixPath(out_path).suffix not in {".py", ".pyi"}:
            continue
        before = python_parse(render(text, defaults))
        if before is None:
            continue  # the source itself is not Python this interpreter compiles
        rendered = render(text, values)
        after = python_parse(rendered)
        where = f"{t.template_path}: rendered with {shown} it"
        if after is None:
            try:
                compile(rendered, t.output_path, "exec", flags=ast.PyCF_ONLY_AST)
            except SyntaxError as e:
                problems.append(f"{where} is not valid Python (line {e.lineno}: {e.msg})")
            except ValueError as e:
                problems.append(f"{where} is not valid Python ({e})")
            continue
        names = {n.id for n in ast.walk(after) if isinstance(n, ast.Name)}
        lost = sorted(_builtins_used(before) - names)
        if lost:
            problems.append(
                f"{where} no longer uses the built-in {', '.join(lost)} (a NameError when it runs)"
            )
        gone = sorted(_stdlib_imports(before) - _stdlib_imports(after))
        if gone:
            problems.append(
                f"{where} no longer imports {', '.join(gone)} from the standard library"
            )
    return problems


def _derivation_problem(manifest: Manifest, name: str) -> str | None:
    seen = [name]
    while (base := manifest.placeholders[seen[-1]].derived_from) is not None:
        if base not in manifest.placeholders:
            return f"placeholder {name}: derived from undeclared {base}"
        if base in seen:
            return f"placeholder {name}: derivation cycle {' -> '.join([*seen, base])}"
        seen.append(base)
    return None


def _check_placeholders(manifest: Manifest, used: set[str], checks: _Checks) -> None:
    problems, unused = [], []
    bases = {p.derived_from for p in manifest.placeholders.values() if p.derived_from}
    for name, p in manifest.placeholders.items():
        if p.name != "{{" + name + "}}":
            problems.append(f"placeholder {name}: name is {p.name!r}, expected '{{{{{name}}}}}'")
        try:
            fits = re.fullmatch(p.pattern, p.default) is not None
        except re.error as e:
            problems.append(f"placeholder {name}: pattern {p.pattern!r} is not a regex ({e})")
        else:
            if not fits:
                problems.append(
                    f"placeholder {name}: default {p.default!r} does not match {p.pattern}"
                )
        if problem := _derivation_problem(manifest, name):
            problems.append(problem)
        if name not in used and name not in bases and name != "ProjectName":
            unused.append(f"placeholder {name} is declared but no template uses it")
    checks.record("placeholders are well formed", problems)
    checks.record("every declared placeholder is used", unused, warning=True)


def _check_agents(root: Path, checks: _Checks) -> None:
    problems = []
    for path in sorted((root / "agents").glob("*.md")) if (root / "agents").is_dir() else []:
        try:
            fields, _ = parse_frontmatter(path.read_text("utf-8"), source=str(path))
        except (FrontmatterError, OSError, UnicodeDecodeError) as e:
            problems.append(f"agents/{path.name}: {e}")
            continue
        if fields.get("name") != path.stem or not fields.get("description"):
            problems.append(
                f"agents/{path.name}: frontmatter needs name: {path.stem} and a description"
            )
    checks.record("agent files have valid frontmatter", problems)


def verify_template(
    template_dir: Path,
    *,
    source: Path | None = None,
    raise_on_failure: bool = True,
    shown_as: Path | None = None,
    other_names: Mapping[str, Sequence[str]] = OTHER_NAMES,
) -> VerifyReport:
    """Check `template_dir` (see the module docstring). Returns the report; raises
    TemplateValidationError listing the problems unless `raise_on_failure` is False.
    `shown_as`: the folder the error names (a template verified before it is moved
    into place is named by its destination, and nothing is installed).
    `other_names`: placeholder -> candidate values for check (c)."""
    root = Path(template_dir)
    report = VerifyReport(template_dir=str(root))
    checks = _Checks(report)
    try:
        manifest = read_json_record(root / "manifest.json", Manifest)
    except (OSError, ValueError, DataError) as e:
        checks.record("manifest.json is valid", [f"manifest.json: {e}"])
        manifest = None
    else:
        checks.record("manifest.json is valid", [])
    try:
        read_json_record(root / "settings.json", Settings)
        checks.record("settings.json is valid", [])
    except (OSError, ValueError, DataError) as e:
        checks.record("settings.json is valid", [f"settings.json: {e}"])
    if manifest is not None:
        used = _check_templates(root, manifest, source, checks, other_names)
        _check_placeholders(manifest, used, checks)
        layers = [Layer(name=n) for n in manifest.layers]
        checks.record(
            "every layer has a template",
            completeness.empty_layers(layers, manifest.templates),
            warning=True,
        )
    _check_agents(root, checks)
    missing_guide = [] if (root / "CLAUDE.md").is_file() else ["CLAUDE.md is missing"]
    checks.record("CLAUDE.md present", missing_guide, warning=True)
    if raise_on_failure and report.problems:
        shown = "\n  ".join(report.problems[:SHOWN_PROBLEMS])
        more = len(report.problems) - SHOWN_PROBLEMS
        where = f"{shown_as} (not installed)" if shown_as is not None else str(root)
        raise TemplateValidationError(
            f"template {where} failed validation ({len(report.problems)} problem(s)):\n  {shown}"
            + (f"\n  ... and {more} more" if more > 0 else ""),
            path=root,
            problems=report.problems,
        )
    return report


def validation_report(report: VerifyReport, *, name: str) -> str:
    """`validation-report.md`: the score, every check, problems and warnings."""
    passed = sum(c.passed for c in report.checks)
    rows = [
        f"| {c.name} | {'pass' if c.passed else 'FAIL'} | {c.detail or '-'} |"
        for c in report.checks
    ]
    lines = [
        f"# Validation report: {name}",
        "",
        f"Score: {report.score}/10 ({passed} of {len(report.checks)} checks passed)",
        "",
        "| Check | Result | Detail |",
        "|---|---|---|",
        *rows,
        "",
        "## Problems",
        "",
        *([f"- {p}" for p in report.problems] or ["None."]),
        "",
        "## Warnings",
        "",
        *([f"- {w}" for w in report.warnings] or ["None."]),
        "",
    ]
    return "\n".join(lines)
