"""Conventions read from the code: how names are spelled, how code is laid out.

Naming: per language, regexes pick declarations (classes, functions, ...) from the
source; each kind gets its majority style and up to three real examples. Single-word
lowercase names fit both snake_case and camelCase, so they only decide when nothing else
does. Code style: indentation, line length (a configured limit wins over the observed
one), quotes, line endings, final newline and, for JavaScript/TypeScript, semicolons.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import PurePosixPath

from executor.templates.detect import LANGUAGES, is_test_file
from executor.templates.models import CodeStyle, Indentation, NamingConvention, Quotes
from executor.templates.naming import style_of
from executor.templates.scan import Codebase, SourceFile

_M = re.MULTILINE
_JS = {
    "components": re.compile(
        r"^\s*(?:export\s+)?(?:default\s+)?(?:function|const)\s+([A-Z]\w*)", _M
    ),
    "functions": re.compile(r"^\s*(?:export\s+)?(?:async\s+)?function\s+([a-z]\w*)", _M),
    "interfaces": re.compile(r"^\s*(?:export\s+)?(?:interface|type)\s+([A-Z]\w*)", _M),
    "variables": re.compile(r"^\s*(?:export\s+)?(?:const|let|var)\s+([a-z]\w*)\s*[:=]", _M),
    "constants": re.compile(r"^\s*(?:export\s+)?const\s+([A-Z][A-Z0-9_]+)\s*[:=]", _M),
}
DECLARATIONS: dict[str, dict[str, re.Pattern[str]]] = {
    "Python": {
        "classes": re.compile(r"^\s*class\s+([A-Za-z_]\w*)", _M),
        "functions": re.compile(r"^\s*(?:async\s+)?def\s+([A-Za-z_]\w*)", _M),
        "constants": re.compile(r"^([A-Z][A-Z0-9_]+)\s*(?::[^=\n]+)?=", _M),
        "variables": re.compile(r"^\s+([a-z_][a-z0-9_A-Z]*)\s*(?::[^=\n]+)?=(?!=)", _M),
    },
    "TypeScript": _JS,
    "JavaScript": _JS,
    "C#": {
        "classes": re.compile(r"\b(?:class|record|struct)\s+([A-Za-z_]\w*)"),
        "interfaces": re.compile(r"\binterface\s+([A-Za-z_]\w*)"),
        "methods": re.compile(
            r"^\s*(?:public|private|protected|internal)\s+(?:static\s+|async\s+|override\s+"
            r"|virtual\s+|partial\s+)*[\w<>\[\],?]+\s+([A-Za-z_]\w*)\s*\(",
            _M,
        ),
        "properties": re.compile(
            r"^\s*public\s+(?:static\s+|virtual\s+|override\s+)*"
            r"(?!class\b|record\b|struct\b|interface\b|enum\b)[\w<>\[\],?]+\s+([A-Z]\w*)"
            r"[ \t]*\{",
            _M,
        ),
        "private_fields": re.compile(
            r"^\s*private\s+(?:readonly\s+|static\s+)*[\w<>\[\],?]+\s+(_?\w+)\s*[;=]", _M
        ),
    },
    "Go": {
        "functions": re.compile(r"^func\s+(?:\([^)]*\)\s*)?([A-Za-z_]\w*)", _M),
        "types": re.compile(r"^type\s+([A-Za-z_]\w*)", _M),
    },
    "Rust": {
        "functions": re.compile(r"\bfn\s+([A-Za-z_]\w*)"),
        "types": re.compile(r"\b(?:struct|enum|trait)\s+([A-Za-z_]\w*)"),
    },
    "Java": {
        "classes": re.compile(r"\b(?:class|interface|enum|record)\s+([A-Za-z_]\w*)"),
        "methods": re.compile(
            r"^\s*(?:public|private|protected)\s+(?:static\s+)?[\w<>\[\],]+\s+([a-zA-Z_]\w*)"
            r"\s*\(",
            _M,
        ),
    },
}


def _majority(names: list[str]) -> NamingConvention | None:
    styles = {n: style_of(n) for n in dict.fromkeys(names) if not n.startswith("__")}
    counted = Counter(s for s in styles.values() if s and s != "lowercase")
    if counted:
        style = counted.most_common(1)[0][0]
    elif "lowercase" in styles.values():
        style = "lowercase"
    else:
        return None
    examples = [n for n, s in styles.items() if s == style][:3]
    if all(n.startswith("_") for n, s in styles.items() if s == style):
        style = "_" + style  # C# private fields: _camelCase
    return NamingConvention(style=style, examples=examples, count=len(styles))


def naming_conventions(codebase: Codebase, language: str) -> dict[str, NamingConvention]:
    """Kind of name ('files', 'classes', 'functions', ...) -> its dominant convention."""
    code = [f for f in codebase.files if LANGUAGES.get(f.suffix) == language]
    found: dict[str, list[str]] = {"files": [], "test_files": []}
    for f in code:
        stem = PurePosixPath(f.name).stem.split(".")[0]
        found["test_files" if is_test_file(f) else "files"].append(stem)
        text = codebase.head(f.path)
        for kind, regex in DECLARATIONS.get(language, {}).items():
            if kind == "components" and f.suffix not in {".tsx", ".jsx"}:
                continue
            found.setdefault(kind, []).extend(regex.findall(text))
    if language in {"TypeScript", "JavaScript"}:
        names = found.get("functions", []) + found.get("variables", [])
        found["hooks"] = [n for n in names if re.match(r"use[A-Z]", n)]
    out: dict[str, NamingConvention] = {}
    for kind, names in found.items():
        convention = _majority(names)
        if convention is not None:
            out[kind] = convention
    return out


# -- code style ------------------------------------------------------------------------

#: lines read for the code style (from the first files of the language, in path order)
STYLE_LINES = 20_000
_FIRST_QUOTE = re.compile(r"[\"'`]")
_LIMITS = (
    ("pyproject.toml", re.compile(r"^\s*line[-_]length\s*=\s*(\d+)", _M)),
    ("setup.cfg", re.compile(r"^\s*max[-_]line[-_]length\s*=\s*(\d+)", _M)),
    ("tox.ini", re.compile(r"^\s*max[-_]line[-_]length\s*=\s*(\d+)", _M)),
    (".editorconfig", re.compile(r"^\s*max_line_length\s*=\s*(\d+)", _M)),
    (".prettierrc", re.compile(r"\"printWidth\"\s*:\s*(\d+)")),
    (".prettierrc.json", re.compile(r"\"printWidth\"\s*:\s*(\d+)")),
)


def _configured_limit(codebase: Codebase) -> tuple[int, str] | None:
    for name, regex in _LIMITS:
        if codebase.root.joinpath(name).is_file() and (text := codebase.text(name)):
            m = regex.search(text)
            if m:
                return int(m.group(1)), f"configured in {name}"
    return None


def _indent(lines: list[str]) -> tuple[Indentation, int]:
    tabs = sum(1 for ln in lines if ln.startswith("\t"))
    spaces = sum(1 for ln in lines if ln.startswith(" "))
    if not tabs and not spaces:
        return "unknown", 0
    if tabs > spaces:
        return "tabs", 1
    steps: Counter[int] = Counter()
    previous = 0
    for ln in lines:
        if not ln.strip():
            continue
        width = len(ln) - len(ln.lstrip(" "))
        if width > previous:
            steps[width - previous] += 1
        previous = width
    return "spaces", steps.most_common(1)[0][0] if steps else 4


def _quotes(lines: list[str]) -> Quotes:
    counted: Counter[str] = Counter()
    for ln in lines:
        stripped = ln.strip()
        if stripped.startswith(("#", "//", '"""', "'''", "*")):
            continue
        m = _FIRST_QUOTE.search(stripped)
        if m and m.group() != "`":
            counted["double" if m.group() == '"' else "single"] += 1
    if not counted:
        return "unknown"
    return "double" if counted["double"] >= counted["single"] else "single"


def code_style(codebase: Codebase, language: str) -> CodeStyle:
    files: list[SourceFile] = [f for f in codebase.files if LANGUAGES.get(f.suffix) == language]
    texts = [t for f in files if (t := codebase.head(f.path))]
    lines: list[str] = []
    for t in texts:
        lines += t.splitlines()
        if len(lines) >= STYLE_LINES:
            break
    indentation, size = _indent(lines)
    limit = _configured_limit(codebase)
    if limit is None:
        lengths = sorted(len(ln) for ln in lines if ln.strip())
        observed = lengths[min(len(lengths) - 1, int(len(lengths) * 0.99))] if lengths else 0
        limit = (observed, "observed: 99th percentile of line lengths")
    crlf = sum(t.count("\r\n") for t in texts)
    final = sum(1 for t in texts if t.endswith("\n"))
    semicolons = None
    if language in {"TypeScript", "JavaScript"}:
        code = [ln.rstrip() for ln in lines if ln.strip() and not ln.strip().startswith("//")]
        ending = sum(1 for ln in code if ln.endswith(";"))
        semicolons = ending * 4 >= len(code) if code else None
    return CodeStyle(
        indentation=indentation,
        indent_size=size,
        line_length=limit[0],
        line_length_source=limit[1],
        quotes="double" if language == "C#" else _quotes(lines),
        line_endings="crlf" if crlf * 2 > sum(t.count("\n") for t in texts) else "lf",
        final_newline=final * 2 >= len(texts),
        semicolons=semicolons,
    )
