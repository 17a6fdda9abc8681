"""What two maintained mutation-testing libraries cost when limited to a session's lines.

For every unit of the replay ranges (`../shared/replay/ranges.json`) that changes both
tests and Python code, in a fresh clone at the real commit:

- the session's own test runs, typed by hand: its test command (the test files it
  changed) once and the whole suite twice (what the executor runs at RED, GREEN and
  REFACTOR);
- **cosmic-ray**: `cosmic-ray init` on each changed module, `cr-filter-git` against the
  commit's parent (only mutants on the changed lines remain), `cosmic-ray exec` with the
  session's test command (`-x`), stopped after `EXEC_SECONDS` (its whole time is then
  its setup plus the seconds per mutant it measured times the mutants it has);
- **mutmut 3**: `mutmut run` limited by mutant names to the functions holding a changed
  line (mutmut has no line filter: a mutant is named by its function), with the
  session's test files as its test selection.

Run: `python benchmarks/mutation_libraries.py --venv V --mirrors M [--only NAME]`, where
V is a virtual environment holding `pytest`, `mutmut` and `cosmic-ray`
(`python -m venv V && V/bin/pip install pytest mutmut cosmic-ray`) and M the folder of
snapshots `<owner>+<name>/repo`. It prints one line per session and a JSON summary.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

RANGES = Path(__file__).resolve().parents[1].parent / "shared" / "replay" / "ranges.json"
#: cosmic-ray runs one test process per mutant: its `exec` is timed for this long per
#: module, and the rest extrapolated from the seconds per mutant it measured.
EXEC_SECONDS = 90.0
_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@", re.M)


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True
    ).stdout


def is_test(path: str, test_dir: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    return (
        path.startswith(test_dir + "/")
        or name.startswith("test_")
        or name.endswith("_test.py")
        or name == "conftest.py"
    )


def changed_lines(repo: Path, parent: str, commit: str, path: str) -> set[int]:
    diff = git(repo, "diff", "-U0", parent, commit, "--", path)
    lines: set[int] = set()
    for m in _HUNK.finditer(diff):
        start, count = int(m.group(1)), int(m.group(2) or 1)
        lines.update(range(start, start + count))
    return lines


def functions_at(source: str, lines: set[int]) -> list[tuple[str | None, str]]:
    """(class, function) of every top-level function or method holding a changed line."""
    found: list[tuple[str | None, str]] = []
    for node in ast.parse(source).body:
        members: list[tuple[str | None, ast.stmt]] = [(None, node)]
        if isinstance(node, ast.ClassDef):
            members = [(node.name, m) for m in node.body]
        for owner, fn in members:
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                span = set(range(fn.lineno, (fn.end_lineno or fn.lineno) + 1))
                if span & lines:
                    found.append((owner, fn.name))
    return found


def timed(argv: list[str], cwd: Path, timeout: float = 1800) -> tuple[float, str]:
    start = time.monotonic()
    proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    return time.monotonic() - start, proc.stdout + proc.stderr


def cosmic_ray(
    venv: Path, work: Path, parent: str, modules: list[str], test_cmd: str
) -> dict[str, Any]:
    config = work.parent / "cr.toml"
    db = work.parent / "cr.sqlite"
    setup = executed = 0.0
    counts = {"mutants": 0, "run": 0, "killed": 0, "survived": 0}
    for module in modules:
        db.unlink(missing_ok=True)
        config.write_text(
            "[cosmic-ray]\n"
            f'module-path = "{module}"\ntimeout = 60.0\nexcluded-modules = []\n'
            f'test-command = "{test_cmd}"\n'
            '[cosmic-ray.distributor]\nname = "local"\n'
            f'[cosmic-ray.filters.git-filter]\nbranch = "{parent}"\n'
        )
        for step in (
            ["cosmic-ray", "init", str(config), str(db)],
            ["cr-filter-git", "--config", str(config), str(db)],
        ):
            took, _ = timed([str(venv / "bin" / step[0]), *step[1:]], work)
            setup += took
        took, _ = _exec_for(venv, config, db, work, EXEC_SECONDS)
        executed += took
        _, dump = timed([str(venv / "bin" / "cosmic-ray"), "dump", str(db)], work)
        for line in dump.splitlines():
            _, result = json.loads(line)
            if result is not None and result.get("worker_outcome") == "skipped":
                continue
            counts["mutants"] += 1
            if result is None:
                continue
            counts["run"] += 1
            counts["killed" if result.get("test_outcome") == "killed" else "survived"] += 1
    # an interrupted `exec` leaves its mutant in the source file: put the clone back
    left = git(work, "status", "--porcelain", "--untracked-files=no").strip()
    subprocess.run(["git", "-C", str(work), "checkout", "-q", "--", "."], check=True)
    per = executed / counts["run"] if counts["run"] else 0.0
    whole = setup + per * counts["mutants"]
    return {"seconds": round(whole, 2), "setup": round(setup, 2), "per_mutant": round(per, 2),
            "measured_all": counts["run"] == counts["mutants"], "left_mutated": bool(left),
            **counts}  # fmt: skip


def _exec_for(venv: Path, config: Path, db: Path, work: Path, limit: float) -> tuple[float, bool]:
    """`cosmic-ray exec` for at most `limit` seconds (then stopped): its time, and
    whether it finished."""
    start = time.monotonic()
    proc = subprocess.Popen(
        [str(venv / "bin" / "cosmic-ray"), "exec", str(config), str(db)], cwd=work,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        proc.wait(timeout=limit)
        return time.monotonic() - start, True
    except subprocess.TimeoutExpired:
        proc.terminate()
        proc.wait()
        return time.monotonic() - start, False


def mutmut(
    venv: Path, work: Path, sources: list[str], tests: list[str], names: list[str]
) -> dict[str, Any]:
    if not names:
        return {"seconds": 0.0, "mutants": 0, "killed": 0, "survived": 0, "generation": 0.0}
    cfg = work / "setup.cfg"
    text = cfg.read_text() if cfg.exists() else ""
    cfg.write_text(
        text + "\n[mutmut]\nsource_paths = " + "\n    ".join(sources)
        + "\npytest_add_cli_args_test_selection = " + "\n    ".join(tests) + "\n"
    )  # fmt: skip
    took, out = timed([str(venv / "bin" / "mutmut"), "run", *names], work)
    gen = re.search(r"done in (\d+)ms", out)
    _, results = timed([str(venv / "bin" / "mutmut"), "results", "--all", "true"], work)
    statuses = re.findall(r"^\s*(\S+__mutmut_\d+): (\w[\w ]*)$", results, re.M)
    wanted = [s for n, s in statuses if any(re.fullmatch(p.replace("*", ".*"), n) for p in names)]
    killed = sum(s in {"killed", "timeout"} for s in wanted)
    return {
        "seconds": round(took, 2),
        "generation": round(int(gen.group(1)) / 1000, 2) if gen else None,
        "mutants": len(wanted),
        "killed": killed,
        "survived": len(wanted) - killed,
    }


def measure(lib: dict[str, Any], mirrors: Path, venv: Path, scratch: Path) -> list[dict[str, Any]]:
    mirror = mirrors / lib["repo"].replace("/", "+") / "repo"
    base, tip = lib["range"].split("..")
    commits = git(mirror, "rev-list", "--first-parent", "--reverse", f"{base}..{tip}").split()
    python = str(venv / "bin" / "python")
    out = []
    for commit in commits:
        parent = f"{commit}^1"
        paths = git(mirror, "diff", "--name-only", parent, commit).split()
        tests = [p for p in paths if p.endswith(".py") and is_test(p, lib["test_dir"])]
        code = [p for p in paths if p.endswith(".py") and not is_test(p, lib["test_dir"])]
        code = [p for p in code if p != "setup.py" and not p.startswith("docs/")]
        if not tests or not code:
            continue
        work = scratch / lib["name"] / commit[:10] / "repo"
        shutil.rmtree(work.parent, ignore_errors=True)
        work.parent.mkdir(parents=True)
        subprocess.run(["git", "clone", "-q", str(mirror), str(work)], check=True)
        git(work, "checkout", "-q", commit)
        pytest = [python, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
        own = 0.0
        for argv in ([*pytest, *tests], pytest, pytest):
            own += timed(argv, work)[0]
        lines = {p: changed_lines(work, parent, commit, p) for p in code}
        names = []
        for p, changed in lines.items():
            module = p.removesuffix(".py").replace("/", ".")
            for owner, fn in functions_at((work / p).read_text(), changed):
                mid = f"xǁ{owner}ǁ{fn}" if owner else f"x_{fn}"
                names.append(f"{module}.{mid}__mutmut_*")
        test_cmd = " ".join([*pytest, "-x", *tests])
        cr = cosmic_ray(venv, work, parent, code, test_cmd)
        top = sorted({p.split("/")[0] + ("/" if "/" in p else "") for p in code})
        mm = mutmut(venv, work, top, tests, names)
        row = {
            "library": lib["name"],
            "commit": commit[:10],
            "changed_code_lines": sum(map(len, lines.values())),
            "functions": len(names),
            "own_tests_s": round(own, 2),
            "cosmic_ray": cr,
            "mutmut": mm,
        }
        print(
            f"{lib['name']} {commit[:10]}: own tests {own:.1f} s; cosmic-ray "
            f"{cr['killed']}/{cr['mutants']} in {cr['seconds']:.1f} s; mutmut "
            f"{mm['killed']}/{mm['mutants']} in {mm['seconds']:.1f} s",
            flush=True,
        )
        out.append(row)
    return out


def parse(description: str, tool: str, kind: type = str) -> argparse.Namespace:
    """The replay benchmarks' options: `tool` (what runs the tests), the snapshots, the
    ranges, `--only NAME` and `--json FILE`."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument(tool, type=kind, required=True)
    ap.add_argument("--mirrors", type=Path, required=True)
    ap.add_argument("--ranges", type=Path, default=RANGES)
    ap.add_argument("--only", default="")
    ap.add_argument("--json", type=Path)
    return ap.parse_args()


def over_ranges(
    args: argparse.Namespace,
    prefix: str,
    each: Callable[[dict[str, Any], Path], list[dict[str, Any]]],
) -> list[dict[str, Any]]:
    """`each(library, scratch folder)` for every library of the ranges; the rows."""
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        for lib in json.loads(args.ranges.read_text())["libraries"]:
            if not args.only or lib["name"] == args.only:
                rows += each(lib, Path(tmp))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return rows


def main() -> int:
    args = parse(__doc__.split("\n")[0], "--venv", Path)

    def each(lib: dict[str, Any], tmp: Path) -> list[dict[str, Any]]:
        return measure(lib, args.mirrors, args.venv, tmp)

    rows = over_ranges(args, "mutation-libs-", each)
    own = sum(r["own_tests_s"] for r in rows)
    for name in ("cosmic_ray", "mutmut"):
        spent = sum(r[name]["seconds"] for r in rows)
        print(f"{name}: {spent:.1f} s for {len(rows)} sessions, {spent / own:.1f}x their own "
              f"test runs ({own:.1f} s)")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
