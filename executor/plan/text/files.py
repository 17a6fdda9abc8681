"""File lists in plans: list items, directory trees, task-plan `**Files:**` items, and
the paths prose names (Kiro, Task Master, spec-kit task text).

What counts as a file: a path with a folder (`ledger/models.py`), a file name with an
extension (`Cargo.toml`, `.env.example`), a well-known name (`Makefile`), or a folder
(`crates/core/`; a glob `ui/*` is its folder). Not a file: commands, identifiers
(`useState`), URLs and routes (`/api/tree?path=x`), prose (`Manual (will add tests)`).
"""

from __future__ import annotations

import re

from executor.plan.models import FileSpec
from executor.plan.text import words
from executor.plan.text.inline import code_spans, code_spans_at, plain

_FILE_PREFIX = re.compile(r"^(?:create|modify|update|test|add|edit|new)\s*:\s*", re.I)
_FILE_ITEM = re.compile(
    rf"^({words.FILE_CHANGES}|{words.FILE_READS})(?:\s*/\s*\w+|(?:\s+[a-z]+){{1,2}})?\s*[:：]"
    r"\s*(.*)$",
    re.I,
)
#: An item with no `Kind:` label that starts with its change (`Move or rewrite existing
#: `guide/workflow/*``, `Split `guide/getting-started``).
_VERB_ITEM = re.compile(
    rf"^((?:{words.FILE_CHANGES}|split|rewrite)(?:\s+[a-z]+){{0,3}})\s+(`.*)$", re.I
)
_FILE_READ = re.compile(rf"^(?:{words.FILE_READS})$", re.I)
_LINE_SUFFIX = re.compile(r":\d[\d,\-– ]*$")
#: Dotfiles by name (`.env.local`, `.gitkeep`, `.eslintrc`), not an extension (`.map`).
_DOTFILE = re.compile(
    r"^\.(?:env(?:\.[\w-]+)*|git(?:ignore|keep|attributes|modules)|dockerignore|editorconfig"
    r"|npmrc|nvmrc|yarnrc|envrc|htaccess|mailmap|flake8|pylintrc|coveragerc|tool-versions"
    r"|(?:python|node|ruby|java)-version|clang-format|[a-z]+rc)$"
)
_BARE_NAME = re.compile(r"^[A-Za-z][\w-]*$")
#: Path characters, Next.js route folders included (`app/(auth)/login/[id]/page.tsx`).
_PATH_CHARS = re.compile(r"^[\w.@~+\-/\\*\[\]()]+$")
_NAME = re.compile(r"^\.?[\w\-@+]+(?:\.[\w\-@+]+)*\.[A-Za-z][A-Za-z0-9]{0,9}$")
_WELL_KNOWN = frozenset(
    {"Makefile", "Dockerfile", "LICENSE", "README", "Procfile", "Gemfile", "Rakefile",
     "Justfile", "Containerfile", "CODEOWNERS", ".gitignore", ".dockerignore", ".env"}
)  # fmt: skip
#: Extensions a bare word in prose must have to be read as a file (`in Dashboard.vue`).
_SOURCE_EXT = frozenset(
    [
        "py",
        "pyi",
        "js",
        "mjs",
        "cjs",
        "jsx",
        "ts",
        "tsx",
        "vue",
        "svelte",
        "php",
        "rb",
        "go",
        "rs",
        "java",
        "kt",
        "kts",
        "swift",
        "c",
        "h",
        "cc",
        "cpp",
        "hpp",
        "cs",
        "fs",
        "scala",
        "sh",
        "bash",
        "zsh",
        "ps1",
        "sql",
        "html",
        "htm",
        "css",
        "scss",
        "sass",
        "less",
        "json",
        "yaml",
        "yml",
        "toml",
        "ini",
        "cfg",
        "conf",
        "template",
        "md",
        "mdx",
        "rst",
        "txt",
        "xml",
        "graphql",
        "proto",
        "tf",
        "lock",
        "env",
        "example",
        "tscn",
        "tres",
        "gd",
        "gdshader",
        "sln",
        "csproj",
        "fsproj",
        "vbproj",
        "xaml",
        "axaml",
        "razor",
        "cshtml",
        "resx",
        "props",
        "targets",
        "gradle",
        "mod",
        "sum",
        "plist",
        "storyboard",
        "xib",
        "dart",
        "ex",
        "exs",
        "erl",
        "hs",
        "ml",
        "lua",
        "r",
        "jl",
        "zig",
        "nim",
        "prisma",
        "dockerfile",
    ]
)
#: Names of tools and libraries that look like files.
_NOT_FILES = frozenset(
    [
        "node.js",
        "vue.js",
        "next.js",
        "nuxt.js",
        "express.js",
        "react.js",
        "d3.js",
        "three.js",
        "chart.js",
        "socket.io",
        "deck.gl",
        "mapbox.gl",
        "fly.io",
        "bun.sh",
        "llama.cpp",
        "whisper.cpp",
    ]
)
#: A file name in prose; letters of other scripts may touch it (`requirements.txt에`).
_BARE_WORD = re.compile(
    r"(?<![A-Za-z0-9_/.`@:~-])(\.?[\w-]+(?:[/.][\w-]+)*(?:\.([A-Za-z]{1,10})|/))"
    r"(?![A-Za-z0-9_/`(-])"
)
#: `Read mode from pipeline.yaml`: a file the work reads, not one it changes.
_SOURCE_OF = re.compile(r"\bread(?:s|ing)?\b[^.\n]{0,40}?\bfrom\s+$|\breads?\s+$", re.I)
#: Well-known files a bare word or an example's header names (`# Dockerfile`).
_KNOWN_NAMES = r"LICENSE|Makefile|Dockerfile|Procfile|Containerfile|Justfile|Gemfile|Rakefile"
_KNOWN_WORD = re.compile(rf"(?<![\w/.])(?:{_KNOWN_NAMES})(?:\.[a-z]+)?(?![\w/.])")
_FENCED = re.compile(r"```[^\n]*\n(.*?)(?:```|\Z)", re.S)
_HEADER_COMMENT = re.compile(
    r"^[ \t]*(?://|#|<!--)[ \t]*(?:file:[ \t]*)?([\w./-]+\.\w+|(?:[\w./-]+/)?(?:Dockerfile|Makefile"
    r"|Procfile|Containerfile|Justfile))[ \t]*(?:-->)?[ \t]*$",
    re.M,
)
_IN_FOLDER = re.compile(r"`([^`]+)`\s+in\s+`([^`]+/)`")
#: `` `infra/x/main.tf`, `outputs.tf`, `variables.tf` ``: the names after a path share its folder.
_SIBLINGS = re.compile(r"`([^`\s]+/)[^`/\s]+`((?:\s*(?:,|and|&|、|和|及|및)\s*`[^`/\s]+`)+)")
#: `` `internal/` 及其子目录：`auth/`, `flower/` ``: sub-folders listed after their folder.
_SUBFOLDERS = re.compile(r"`([^`\s]+/)`[^`\n]{0,16}?[:：]\s*((?:`[^`/\s]+/`\s*[,、，]?\s*)+)")
#: A path the task compares against or follows, not one it changes.
_REFERENCE = re.compile(
    r"\b(?:matching|per|see|mirroring|following|based\s+on|compared?\s+(?:to|with)"
    r"|refer(?:ring)?\s+to|as\s+in)\s+(?:the\s+)?$",
    re.I,
)
#: `.env`, `.gitignore` in prose (a dotfile by name, as `_DOTFILE` knows them).
_BARE_DOTFILE = re.compile(r"(?<![A-Za-z0-9_/.`-])(\.[A-Za-z][\w.-]*)(?![A-Za-z0-9_/`-])")
#: The same in Chinese, Japanese and Korean: `在 `dir/` 下创建 `x``, `` `dir/` に `x` を ``.
_FOLDER_THEN_FILE = re.compile(
    r"`([^`\s]+/)`\s*(?:下|中|里|内|配下)?\s*(?:创建|新建|新增|添加|に|の|에|아래에|안에)\s*`([^`/\s]+)`"
)


def as_file(text: str, *, listed: bool = False) -> str | None:
    """`text` as a file or folder path (a glob as its folder), or None. A dotfile
    (`.env.local`, `.gitkeep`) is a file; in a files list (`listed`) so is a path with a
    folder and no extension (`scripts/pre-commit`, `bin/harness`)."""
    raw = text.strip()
    if "://" in raw or raw.lower() in _NOT_FILES:
        return None
    if raw.endswith("/*") or raw.endswith("/**"):
        folder = raw.rstrip("*").rstrip("/")
        return folder + "/" if folder and _PATH_CHARS.match(folder) else None
    path = raw if raw.endswith("/") else raw.rstrip(".,;:")
    if not path or not _PATH_CHARS.match(path) or "*" in path or path.startswith("@"):
        return None  # `@/schemas/x.ts`, `@scope/pkg`: an import alias or a package
    if path.endswith("/"):
        return path if path.strip("./") else None
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    if name in _WELL_KNOWN or _NAME.match(name) or _DOTFILE.match(name):
        return path
    if path.startswith("/"):
        return None  # `/cli-utilities/config`: a route or a page id, not a file
    return path if listed and "/" in path and _BARE_NAME.match(name) else None


_TEST_NAME = re.compile(
    r"^test_.+\.py$|_test\.(?:py|go|dart|exs|cpp|cc|c)$|\.(?:test|spec)\.[cm]?[jt]sx?$"
    r"|(?:Test|Tests|Spec|IT)\.(?:java|kt|cs|swift|php|scala|groovy)$|_(?:spec|test)\.rb$"
)


def is_test_name(path: str) -> bool:
    """A test file by its name, in the conventions of the common languages (`test_x.py`,
    `x_test.go`, `x.test.ts`, `XTest.java`, `x_spec.rb`); a helper under `tests/` is not."""
    return _TEST_NAME.search(path.replace("\\", "/").rsplit("/", 1)[-1]) is not None


def is_source_name(path: str) -> bool:
    """A path whose extension is a source or config file's (`package.json`, `go.mod`,
    not `activities.list`), or a well-known name (`Makefile`)."""
    name = path.rsplit("/", 1)[-1]
    return (
        path.endswith("/") or name in _WELL_KNOWN or name.rsplit(".", 1)[-1].lower() in _SOURCE_EXT
    )


def list_item_files(item: str, line: int) -> list[FileSpec]:
    r"""A files-section item: `- \`path\` (note)`, `- \`path\` - note`, `- path note`,
    `- Create: \`path\``, or several paths in code spans; [] when no path is readable."""
    spans = code_spans(item)
    text = plain(item, ticks=False)
    files = [f for s in spans if (f := as_file(s))]
    if len(spans) > 1 and len(files) == len(spans):
        return [FileSpec(path=path, line=line) for path in files]
    if spans:
        path = spans[0]
        after = plain(item)
        note = after.split(f"`{path}`", 1)[1] if f"`{path}`" in after else ""
    else:
        body = _FILE_PREFIX.sub("", text)
        path, _, note = body.partition(" ")
    path = as_file(_FILE_PREFIX.sub("", path).strip().strip("*"), listed=bool(spans)) or ""
    note = note.strip().strip("-–—:").strip()
    if note.startswith("(") and note.endswith(")"):
        note = note[1:-1].strip()
    return [FileSpec(path=path, note=note, line=line)] if path else []


def task_file_spec(item: str, line: int) -> FileSpec | None:
    """A `**Files:**` item of a task plan: `Create: `path`` (Read items and items that
    name no path, such as `Test: Manual`, give None)."""
    text = plain(item)
    m = _FILE_ITEM.match(text.lstrip("*_ ")) or _VERB_ITEM.match(text.lstrip("*_ "))
    if m is None:
        return None
    kind, rest = m.group(1).lower(), m.group(2).strip()
    if _FILE_READ.match(kind):  # Read / Verify / Commit items change nothing
        return None
    spans = code_spans(rest)
    raw = spans[0] if spans else rest.split(" ")[0]
    path = as_file(_LINE_SUFFIX.sub("", raw.strip()), listed=True)
    if path is None:
        return None
    note = rest.split(f"`{raw}`", 1)[1] if spans else rest[len(raw) :]
    if (inside := _IN_FOLDER.match(rest)) and "/" not in path:  # `x` in `dir/`
        path, note = inside.group(2) + path, rest[inside.end() :]
    note = " ".join(p for p in (kind, note.strip(" -–—:")) if p)
    return FileSpec(path=path, note=note, line=line)


def prose_paths(text: str, *, bare: bool = False) -> list[str]:
    """The files a piece of prose names: code spans that are paths (`` `x.py` in
    `app/` `` is `app/x.py`), and with `bare` also plain words with a source extension
    (`Import it in Dashboard.vue`). URLs and routes are not files."""
    found: list[str] = []
    joined: dict[str, str] = {}
    where: set[str] = set()  # `npm install` in `frontend/`: where a command runs
    for m in _IN_FOLDER.finditer(text):
        if as_file(m.group(1)) is not None and "/" not in m.group(1):
            joined[m.group(1)] = m.group(2) + m.group(1)
        elif " " in m.group(1):
            where.add(m.group(2))
    for m in _FOLDER_THEN_FILE.finditer(text):
        if as_file(m.group(2)) is not None:
            joined[m.group(2)] = m.group(1) + m.group(2)
    made: set[str] = set()  # a folder made with the sub-folders listed after it
    for m in _SUBFOLDERS.finditer(text):
        made.add(m.group(1))
        for name in code_spans(m.group(2)):
            joined.setdefault(name, m.group(1) + name)
    for m in _SIBLINGS.finditer(text):
        for name in code_spans(m.group(2)):
            if as_file(name) is not None:
                joined.setdefault(name, m.group(1) + name)
    spans = [
        s for at, s in code_spans_at(text) if not _REFERENCE.search(text[max(0, at - 30) : at])
    ]
    for span in spans:
        if span in joined:
            span = joined[span]
        elif span not in made and (span in where or span in joined.values() or span in {
            v[: -len(k)] for k, v in joined.items()
        }):  # fmt: skip
            continue
        path = as_file(span)
        if path is not None and not path.startswith(("http", "/api", "//")):
            found.append(path)
    if bare:
        for block in _FENCED.findall(text):  # examples headed `// HomePage.tsx`
            for m in _HEADER_COMMENT.finditer(block):
                if path := as_file(m.group(1)):
                    found.append(path)
        flat = re.sub(r"`[^`\n]*`|https?://\S+", " ", _FENCED.sub(" ", text))
        for m in _BARE_WORD.finditer(flat):
            name = m.group(1)
            if _SOURCE_OF.search(flat[max(0, m.start() - 60) : m.start()]):
                continue
            folder = name.endswith("/") and "/" in name[:-1] and name.isascii()  # not `venv/`
            if name.endswith("/") and not name.isascii():
                continue  # `로그인/로그아웃` (log in / log out): words with a slash, no folder
            if (is_source_name(name) or folder) and as_file(name) and not name[0].isdigit():
                found.append(name)
        found += _KNOWN_WORD.findall(flat)
        found += [m.group(1) for m in _BARE_DOTFILE.finditer(flat) if _DOTFILE.match(m.group(1))]
    unique = list(dict.fromkeys(found))
    return [p for p in unique if "/" in p or not any(q.endswith("/" + p) for q in unique)]


_TREE_MARKS = re.compile(r"[│├└┣┗┃|`]|──|--|─")
_TREE_COMMENT = re.compile(r"\s+(?:#|//|<--|←)\s*(.*)$")


def tree_paths(text: str) -> list[tuple[str, str, int]]:
    """File paths drawn as a directory tree (indentation and/or `├──` marks, `# notes`)
    -> `(path, note, line offset)`; folders end with `/` or hold deeper lines."""
    rows: list[tuple[int, str, str, int]] = []
    for offset, raw in enumerate(text.split("\n")):
        comment = _TREE_COMMENT.search(raw)
        body = raw[: comment.start()] if comment else raw
        if body.lstrip().startswith("#"):
            continue
        flat = _TREE_MARKS.sub(lambda m: " " * len(m.group(0)), body)
        name = flat.strip()
        if not name or " " in name or not name.strip(".…"):  # `...`: more not drawn
            continue
        rows.append(
            (len(flat) - len(flat.lstrip()), name, comment.group(1) if comment else "", offset)
        )
    out: list[tuple[str, str, int]] = []
    stack: list[tuple[int, str]] = []
    for i, (depth, name, note, offset) in enumerate(rows):
        while stack and stack[-1][0] >= depth:
            stack.pop()
        deeper = i + 1 < len(rows) and rows[i + 1][0] > depth
        if name.endswith("/") or deeper:
            stack.append((depth, name.rstrip("/")))
            continue
        path = "/".join([*(d for _, d in stack), name])
        if as_file(path) is not None:
            out.append((path, note.strip(), offset))
    return out


def is_tree(text: str) -> bool:
    """A code block that draws files (every line a single name, some with tree marks or
    indentation), not code or commands."""
    lines = [ln for ln in text.split("\n") if ln.strip()]
    names = [ln for ln in lines if " " not in _TREE_COMMENT.sub("", ln).strip(" │├└─|`")]
    return bool(lines) and len(names) == len(lines)
