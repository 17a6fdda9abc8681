"""Programs a command carries in its own words (`python -c CODE`, `node -e CODE`), judged
by what their code does, since the executor would run that code as a check.

A Python program is parsed (`ast`) and refused when it does not parse, runs code it
builds (`exec`, `eval`, `__import__`), imports a module that runs programs or reaches
the network (`subprocess`, `socket`, `urllib`, `requests`), opens a file for writing,
or calls a function whose name changes files, data or the outside world (`os.remove`,
`shutil.rmtree`, `Path.write_text`, `db.drop_all`, `client.post`). What is left (imports,
asserts, reads, prints) is a check: `python -c "import app; assert app.VERSION"`.
JavaScript has no parser here, so its words are read for the same effects (`child_process`,
`writeFileSync`, `fetch`); a language read neither way is refused.
"""

from __future__ import annotations

import ast
import re

#: Modules that exist to run programs or to reach the network.
_RUNS_OR_REACHES = frozenset(
    {"subprocess", "multiprocessing", "pty", "pexpect", "sh", "plumbum", "socket", "ssl",
     "urllib", "urllib2", "urllib3", "http", "httplib", "ftplib", "smtplib", "poplib",
     "imaplib", "telnetlib", "xmlrpc", "webbrowser", "requests", "httpx", "aiohttp",
     "paramiko", "boto3", "botocore", "ctypes", "importlib", "runpy", "code", "codeop"}
)  # fmt: skip
#: Builtins that run code the program builds (what they run cannot be read).
_DYNAMIC = frozenset({"exec", "eval", "compile", "__import__", "breakpoint", "getattr"})
#: Functions and methods that change files, data or the outside world, whatever they are
#: called on (`os.unlink`, `Path.write_text`, `db.drop_all`).
_CHANGES = frozenset(
    {"system", "popen", "spawnl", "spawnv", "spawnlp", "spawnvp", "execv", "execve", "execl",
     "execlp", "execvp", "fork", "kill", "killpg", "startfile", "unlink", "rmdir",
     "removedirs", "rmtree", "mkdir", "makedirs", "mkfifo", "rename", "renames", "chmod",
     "chown", "lchown", "symlink", "truncate", "touch", "write_text", "write_bytes",
     "copyfile", "copytree", "urlopen", "urlretrieve", "sendmail", "putenv", "chdir", "save",
     "commit", "drop", "delete", "purge", "migrate", "seed", "publish", "deploy", "upload",
     "export", "insert", "upsert", "destroy", "wipe", "setattr", "delattr"}
)  # fmt: skip
#: The first word of a compound name that changes things (`drop_all`, `send_mail`).
_VERBS = frozenset(
    {"drop", "delete", "remove", "write", "save", "send", "upload", "download", "export",
     "insert", "upsert", "update", "reset", "purge", "migrate", "seed", "push", "publish",
     "deploy", "install", "create", "commit", "flush", "clear", "truncate", "destroy",
     "wipe", "post", "put", "patch", "move", "copy", "replace", "run", "exec", "spawn"}
)  # fmt: skip
#: What the file-changing modules offer that only reads.
_READS = {
    "os": frozenset({"getcwd", "listdir", "scandir", "stat", "lstat", "getenv", "walk",
                     "access", "cpu_count", "getpid", "uname", "fspath", "get_terminal_size"}),
    "shutil": frozenset({"which", "disk_usage", "get_terminal_size"}),
}  # fmt: skip
_WRITE_MODE = re.compile(r"[wax+]")


def python_effect(code: str) -> str | None:
    """Why a `python -c` program is no check (None: it only reads and checks)."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return "its Python program does not parse"
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module:
                names.append(node.module)
            for name in names:
                if name.split(".")[0] in _RUNS_OR_REACHES:
                    return f"its Python program imports {name.split('.')[0]}"
        elif isinstance(node, ast.Call) and (why := _call_effect(node)) is not None:
            return why
    return None


def _call_effect(call: ast.Call) -> str | None:
    func = call.func
    if isinstance(func, ast.Name):
        name, owner = func.id, ""
    elif isinstance(func, ast.Attribute):
        name = func.attr
        owner = func.value.id if isinstance(func.value, ast.Name) else ""
    else:
        return None
    if isinstance(func, ast.Name) and name in _DYNAMIC:
        return f"its Python program runs code it builds ({name})"
    if name == "open":
        mode = call.args[1] if len(call.args) > 1 else next(
            (k.value for k in call.keywords if k.arg == "mode"), None)  # fmt: skip
        if mode is not None and not (
            isinstance(mode, ast.Constant)
            and isinstance(mode.value, str)
            and not _WRITE_MODE.search(mode.value)
        ):
            return "its Python program opens a file for writing"
        return None
    changes = (
        name in _CHANGES
        or ("_" in name.strip("_") and name.split("_", 1)[0].lower() in _VERBS)
        or (owner in _READS and name not in _READS[owner])
    )
    if changes:
        called = f"{owner}.{name}" if owner else name
        return f"its Python program calls {called}(), which changes things"
    return None


#: JavaScript words that run programs, change files, reach the network or run built code.
_JS_EFFECT = re.compile(
    r"\b(?:child_process|execSync|execFileSync|spawnSync|exec|execFile|spawn|fork"
    r"|writeFile\w*|appendFile\w*|createWriteStream|unlink\w*|rmSync|rmdir\w*|rm|mkdir\w*"
    r"|rename\w*|copyFile\w*|cpSync|symlink\w*|chmod\w*|chown\w*|truncate\w*|fetch"
    r"|XMLHttpRequest|WebSocket|require\(\s*['\"](?:node:)?(?:https?|net|dgram|tls|dns)"
    r"['\"]\s*\)|eval|Function|process\.kill|process\.chdir)\b"
)


def javascript_effect(code: str) -> str | None:
    """Why a `node -e` program is no check (None: its words name no effect)."""
    if m := _JS_EFFECT.search(code):
        return f"its JavaScript program uses {m.group(0).split('(')[0]}"
    return None
