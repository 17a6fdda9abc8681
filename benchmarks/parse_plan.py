"""Parse-time benchmark: generated plans of 100, 1,000 and 5,000 sessions.

Run: `python benchmarks/parse_plan.py`. Each plan is written in a temp dir as PHASE
files of 50 sessions (format A, the shape real plans have) and parsed with
`load_plan`; the best of three runs (CPU) is printed with the time per session, so a
non-linear parser shows up as a growing per-session cost, and the share of it
markdown-it-py's block parse takes. Then the whole CLI, `executor plan validate` on the
1,000-session plan, is measured as a process: CPU seconds (user + system of the child,
best of three) beside a bare `python -c pass` in the same run, and the import cost of
`executor.plan.models` (what the resume path pays) is printed.
Budget: the CLI validates 1,000 sessions in 1 s of CPU or less (exit code 1 if not).
"""

from __future__ import annotations

import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from executor.plan import lint, load_plan

SESSION = """## Session {n}: Feature {n} (TDD)

### Objectives
- [ ] Build feature {n} in `app/feature_{n}.py`
- [ ] Achieve >90% test coverage

### TDD Workflow (RED-GREEN-REFACTOR)

#### Step 1: Write Tests FIRST (RED)
Create `tests/test_feature_{n}.py`:
- Test the happy path
- Test invalid input is refused

**Run tests**: `pytest tests/test_feature_{n}.py`
**Expected**: All tests FAIL

#### Step 2: Implement Feature (GREEN)
Create `app/feature_{n}.py`:
- Implement the feature to make tests pass

**Run tests**: Should now PASS

#### Step 3: Refactor (REFACTOR)
- Add docstrings

**Run tests**: Should still PASS

### Files to Create/Modify
- `app/feature_{n}.py`
- `tests/test_feature_{n}.py`

### Estimated Context Usage
~8,000 tokens

### Exit Criteria
- [ ] All tests pass

### Dependencies
{deps}

---

"""

PER_FILE = 50
BUDGET_1000 = 1.0


def generate(folder: Path, sessions: int) -> None:
    for start in range(1, sessions + 1, PER_FILE):
        phase = (start - 1) // PER_FILE + 1
        body = [f"# Phase {phase}: Part {phase}\n\n"]
        for n in range(start, min(start + PER_FILE, sessions + 1)):
            body.append(SESSION.format(n=n, deps=f"- Session {n - 1}" if n > 1 else "None"))
        (folder / f"PHASE_{phase}_PART_{phase}.md").write_text("".join(body), encoding="utf-8")


def best_of(folder: Path, runs: int = 3) -> float:
    times = []
    for _ in range(runs):
        start = time.process_time()  # CPU: a busy machine does not bend the ratio
        plan = load_plan(folder)
        times.append(time.process_time() - start)
    assert not [d for d in lint(plan) if d.severity == "error"], "generated plan must be valid"
    return min(times)


def markdown_share(folder: Path, runs: int = 3) -> float:
    """Best CPU seconds of markdown-it-py's parse of the plan's files alone."""
    from executor.plan.text.markdown import parse

    texts = [p.read_text(encoding="utf-8") for p in sorted(folder.glob("*.md"))]
    best = float("inf")
    for _ in range(runs):
        start = time.process_time()
        for text in texts:
            parse(text)
        best = min(best, time.process_time() - start)
    return best


def process_cpu(args: list[str], runs: int = 3) -> float:
    """Best CPU seconds (user + system) of a child process running `args`."""
    best = float("inf")
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        proc = subprocess.run(args, capture_output=True, text=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if proc.returncode != 0:
            raise SystemExit(f"{' '.join(args)} failed: {proc.stdout}{proc.stderr}")
        used = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        best = min(best, used)
    return best


def models_import_ms(runs: int = 5) -> float:
    """Best wall time of `import executor.plan.models` in a fresh interpreter, in ms."""
    code = (
        "import time; t = time.perf_counter(); import executor.plan.models; "
        "print((time.perf_counter() - t) * 1000)"
    )
    return min(
        float(
            subprocess.run(
                [sys.executable, "-c", code], capture_output=True, text=True, check=True
            ).stdout
        )
        for _ in range(runs)
    )


def main() -> int:
    results: dict[int, float] = {}
    cli = markdown = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for sessions in (100, 1000, 5000):
            folder = Path(tmp) / f"plan_{sessions}"
            folder.mkdir()
            generate(folder, sessions)
            size = sum(p.stat().st_size for p in folder.iterdir())
            results[sessions] = best_of(folder)
            per = results[sessions] / sessions * 1000
            print(
                f"{sessions:>5} sessions ({size / 1e6:5.1f} MB): {results[sessions]:6.3f} s CPU "
                f"({per:.3f} ms/session)"
            )
            if sessions == 1000:
                markdown = markdown_share(folder)
                validate = ["-m", "executor", "plan", "validate", str(folder)]
                cli = process_cpu([sys.executable, *validate])
    bare = process_cpu([sys.executable, "-c", "pass"])
    ratio = results[5000] / results[1000]
    print(f"5,000 / 1,000 CPU ratio: {ratio:.1f} (linear = 5.0)")
    print(f"markdown-it-py block parse of the 1,000 sessions: {markdown:.3f} s CPU")
    print(
        f"executor plan validate, 1,000 sessions: {cli:.3f} s CPU as a process "
        f"(python -c pass: {bare:.3f} s; budget {BUDGET_1000} s)"
    )
    print(f"import executor.plan.models: {models_import_ms():.1f} ms")
    if cli > BUDGET_1000:
        print(f"FAIL: the CLI took {cli:.3f} s CPU for 1,000 sessions (budget {BUDGET_1000} s)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
