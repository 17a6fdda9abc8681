"""Parsing inline plans: every variant of PLAN-FORMATS.md A and B, with lines checked."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from executor.errors import PathNotFoundError
from executor.plan import load_plan
from tests.plan.helpers import load, messages, session, write

FORMAT_A = """
# Phase 1: Backend Foundation

## Session 1: Ledger Models (TDD)

### Objectives
- [ ] Create the `ledger` package
- [x] Define Account and Entry models

### TDD Workflow (RED-GREEN-REFACTOR)

#### Step 1: Write Tests FIRST (RED)
Create `ledger/tests/test_models.py`:
- Test account creation
- Test that entries must balance

**Run tests**: `pytest ledger/tests/test_models.py`
**Expected**: All tests FAIL

#### Step 2: Implement Models (GREEN)
Create `ledger/models.py`:
- Implement models to make tests pass

**Run tests**: Should now PASS

#### Step 3: Refactor (REFACTOR)
- Add docstrings

**Run tests**: Should still PASS

### Files to Create/Modify
- `ledger/__init__.py`
- `config/settings.py` (add app to INSTALLED_APPS)

### Test Coverage Requirements
- Models: 95%

### Estimated Context Usage
~15,000 tokens

### Exit Criteria
- [ ] All model tests pass
- [ ] Coverage >= 90%

### Dependencies
None (first session)

### Next Session
Session 2: Ledger API (TDD)

---

## Session 2: Ledger API (TDD)

### Dependencies
- Session 1 (models)
"""


def test_format_a_session_is_read_completely(tmp_path: Path) -> None:
    plan = load(tmp_path, FORMAT_A, "PHASE_1_BACKEND_FOUNDATION.md")
    assert [(p.number, p.name, p.line) for p in plan.phases] == [(1, "Backend Foundation", 1)]
    s1 = plan.session(1)
    assert s1 is not None
    assert (s1.title, s1.phase, s1.tdd) == ("Ledger Models", 1, True)
    assert [(o.text, o.checked) for o in s1.objectives] == [
        ("Create the `ledger` package", False),
        ("Define Account and Entry models", True),
    ]
    assert s1.red is not None and s1.green is not None and s1.refactor is not None
    assert (s1.red.line, s1.green.line, s1.refactor.line) == (11, 19, 25)
    assert s1.red.heading == "Step 1: Write Tests FIRST (RED)"
    assert s1.red.tasks == ["Test account creation", "Test that entries must balance"]
    assert s1.red.files == ["ledger/tests/test_models.py"]
    assert s1.red.test_command == "pytest ledger/tests/test_models.py"
    assert s1.red.expected == "All tests FAIL"
    assert (s1.green.test_command, s1.green.inherits) == (None, True)
    assert s1.green.files == ["ledger/models.py"]
    assert s1.refactor.inherits
    for role in ("red", "green", "refactor"):
        assert s1.test_command(role) == "pytest ledger/tests/test_models.py"
    assert [(f.path, f.note, f.line) for f in s1.files] == [
        ("ledger/__init__.py", "", 31),
        ("config/settings.py", "add app to INSTALLED_APPS", 32),
        ("ledger/tests/test_models.py", "named in a step", 11),  # the list leaves them out
        ("ledger/models.py", "named in a step", 19),
    ]
    assert s1.coverage_requirements == ["Models: 95%"]
    assert s1.estimated_context_tokens == 15000
    assert [c.text for c in s1.exit_criteria] == ["All model tests pass", "Coverage >= 90%"]
    assert (s1.dependencies, s1.dependencies_line) == ([], 45)
    assert s1.next_session == 2
    assert (s1.line_start, s1.line_end) == (3, 48)  # the trailing --- is not the session's
    s2 = plan.session(2)
    assert s2 is not None and (s2.line_start, s2.line_end, s2.dependencies) == (52, 55, [1])
    assert s2.dependencies_line == 55


def test_source_text_and_hash_are_the_exact_lines(tmp_path: Path) -> None:
    path = write(tmp_path, "PHASE_1_X.md", FORMAT_A)
    s1 = load_plan(path).session(1)
    assert s1 is not None
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    exact = "".join(lines[s1.line_start - 1 : s1.line_end])
    assert s1.source_text == exact
    unticked = exact.replace("- [x] Define", "- [ ] Define")  # the hash is blind to ticks
    assert s1.source_hash == hashlib.sha256(unticked.encode()).hexdigest()
    assert s1.source_file == path.absolute()


def test_hash_changes_only_for_the_edited_session(tmp_path: Path) -> None:
    path = write(tmp_path, "PHASE_1_X.md", FORMAT_A)
    before = {s.number: s.source_hash for s in load_plan(path).sessions()}
    path.write_text(path.read_text().replace("- Session 1 (models)", "- Session 1"))
    after = {s.number: s.source_hash for s in load_plan(path).sessions()}
    assert before[1] == after[1] and before[2] != after[2]


def test_crlf_plan_parses_with_the_same_lines(tmp_path: Path) -> None:
    path = tmp_path / "PHASE_1_X.md"
    path.write_bytes(write(tmp_path, "a.md", FORMAT_A).read_bytes().replace(b"\n", b"\r\n"))
    s1 = load_plan(path).session(1)
    assert s1 is not None and (s1.line_start, s1.line_end) == (3, 48)
    assert s1.red is not None and s1.red.test_command == "pytest ledger/tests/test_models.py"


VARIANTS = """
# Phase 2: Backend API

## Session 3 - Posts API (TDD)

### Step 1: RED Phase - Write Failing Tests

**Test Cases to Write**:
- List shows published posts only
- Editing another author's post returns 403

**Run tests**: `pytest tests/test_api.py`

### Step 2: GREEN Phase - Make Tests Pass
- Implement the viewset

**Run tests**: Should now PASS

### Step 3: REFACTOR Phase
- Extract filters

**Files to Create**:
- `posts/views.py` - the viewset
- posts/filters.py

### Exit Criteria
- [ ] Tests pass

**Requires Completion Of**: Session 1, Session 2
**Blocks**: Session 4

### Session 4: Comments (2-3 hours)

#### Step 1: Write the failing tests
**Run tests**:
```bash
$ pytest tests/test_comments.py -q
```

#### Step 2: Implement comments
No command here.

#### Files
- `comments/models.py`

#### Exit Criteria
- [ ] Done

#### Dependencies
Sessions 1, 3
"""


def test_variant_headings_labels_and_dependencies(tmp_path: Path) -> None:
    plan = load(tmp_path, VARIANTS, "PHASE_2_BACKEND_API.md")
    s3, s4 = plan.session(3), plan.session(4)
    assert s3 is not None and s4 is not None
    assert (s3.title, s3.tdd, s3.phase) == ("Posts API", True, 2)
    assert s3.red is not None and s3.red.line == 5
    assert s3.red.tasks == [
        "List shows published posts only",
        "Editing another author's post returns 403",
    ]
    assert s3.green is not None and s3.green.line == 13
    assert s3.refactor is not None and s3.refactor.tasks == ["Extract filters"]
    assert [(f.path, f.note, f.line) for f in s3.files] == [
        ("posts/views.py", "the viewset", 22),
        ("posts/filters.py", "", 23),
    ]
    assert (s3.dependencies, s3.dependencies_line) == ([1, 2], 28)
    assert s3.test_command("refactor") == "pytest tests/test_api.py"
    assert (s4.title, s4.estimated_hours, s4.tdd) == ("Comments", 2.5, True)
    assert s4.red is not None and s4.red.test_command == "pytest tests/test_comments.py -q"
    assert s4.green is not None and (s4.green.test_command, s4.green.inherits) == (None, False)
    assert s4.test_command("green") == "pytest tests/test_comments.py -q"
    assert [f.path for f in s4.files] == ["comments/models.py"]
    assert s4.dependencies == [1, 3]
    assert (s3.line_end, s4.line_start) == (29, 31)
    assert plan.diagnostics == []


def test_session_level_test_command_and_project_default(tmp_path: Path) -> None:
    plan = load(
        tmp_path,
        """
        ## Session 1: A
        **Run tests**: `make test`

        ### Step 1 (RED)
        - write tests
        ### Step 2 (GREEN)
        - implement
        """,
        "plan.md",
    )
    s = plan.session(1)
    assert s is not None and s.test_command("red") == "make test"
    bare = load(
        tmp_path / "b",
        """
        ## Session 1: A
        ### Step 1 (RED)
        ### Step 2 (GREEN)
        """,
        "plan.md",
    ).session(1)
    assert bare is not None and bare.test_command("green", "pytest -q") == "pytest -q"


FORMAT_B = """
# Ledger - Project Plan

## Phases

### Phase 1: Backend Foundation (Sessions 1-2)
**Goal**: A tested ledger API

#### Session 1: Ledger Models (TDD)
- Create `ledger` package
- Define Account and Entry models
- **Estimated Time**: 2.5 hours
- **Tests**: ~70 tests

#### Session 2: Ledger API (TDD)
- REST endpoints
- **Estimated Time**: 2-3 hours
- **Tests**: ~40 tests

### Phase 2: Reports (Week 2)

#### Session 3: Reports (TDD)
- Balance sheet
- **Estimated Time**: 1 hour

## Dependency Graph

```mermaid
graph TD
    S1[Session 1: Models] --> S2[Session 2: API]
    S2 --> S3 & S4
    %% S9 --> S1 is a comment
```
"""


def test_project_plan_alone(tmp_path: Path) -> None:
    plan = load(tmp_path, FORMAT_B, "PROJECT_PLAN.md")
    assert plan.name == "Ledger"
    assert [(p.number, p.name, p.line) for p in plan.phases] == [
        (1, "Backend Foundation", 5),
        (2, "Reports", 19),
    ]
    s1, s2, s3 = plan.sessions()
    assert [o.text for o in s1.objectives] == [
        "Create `ledger` package",
        "Define Account and Entry models",
    ]
    assert (s1.estimated_hours, s1.estimated_tests) == (2.5, 70)
    assert (s2.estimated_hours, s2.estimated_tests, s2.dependencies) == (2.5, 40, [1])
    assert s3.dependencies == [2]
    assert (s1.line_start, s1.line_end) == (8, 12)
    assert (s3.line_start, s3.line_end) == (21, 23)


def test_folder_phase_files_win_and_project_plan_fills_gaps(tmp_path: Path) -> None:
    write(tmp_path, "PROJECT_PLAN.md", FORMAT_B)
    write(
        tmp_path,
        "PHASE_1_BACKEND.md",
        "# Phase 1: Backend\n" + session(1) + session(2, "Session 1"),
    )
    write(tmp_path, "PHASE_2_REPORTS.md", "# Phase 2: Reports\n" + session(3, ""))
    plan = load_plan(tmp_path)
    assert [(p.number, p.name, [s.number for s in p.sessions]) for p in plan.phases] == [
        (1, "Backend", [1, 2]),
        (2, "Reports", [3]),
    ]
    s1, s2, s3 = plan.sessions()
    assert s1.title == "Thing 1" and s1.source_file.name == "PHASE_1_BACKEND.md"
    assert (s1.estimated_hours, s1.estimated_tests) == (2.5, 70)  # from PROJECT_PLAN.md
    assert s2.dependencies == [1]
    assert (s3.dependencies, s3.estimated_hours) == ([2], 1.0)  # from the Mermaid graph
    assert plan.diagnostics == []


def test_disagreeing_dependencies_are_reported_not_merged(tmp_path: Path) -> None:
    write(tmp_path, "PROJECT_PLAN.md", FORMAT_B)
    write(tmp_path, "PHASE_1_BACKEND.md", session(1) + session(2, "None"))
    plan = load_plan(tmp_path)
    s2 = plan.session(2)
    assert s2 is not None and s2.dependencies == []
    assert messages(plan.diagnostics) == [
        (
            "PROJECT_PLAN.md",
            29,
            "Session 2 dependencies differ: PHASE_1_BACKEND.md says none, this file says 1; "
            "using PHASE_1_BACKEND.md",
        )
    ]


def test_phase_number_from_file_name_and_heading_mismatch(tmp_path: Path) -> None:
    plan = load(tmp_path, "# Phase 3: Wrong\n" + session(1), "PHASE_2_API.md")
    assert [(p.number, p.name) for p in plan.phases] == [(2, "Wrong")]
    assert messages(plan.diagnostics) == [
        ("PHASE_2_API.md", 1, "heading says Phase 3 but the file name says Phase 2; using 2")
    ]
    nameless = load(tmp_path / "n", session(1), "PHASE_4_FRONTEND_APP.md")
    assert [(p.number, p.name) for p in nameless.phases] == [(4, "Frontend App")]


def test_sessions_end_at_a_same_level_heading(tmp_path: Path) -> None:
    plan = load(tmp_path, session(1) + "\n## Summary\n- [ ] not an objective\n", "plan.md")
    s1 = plan.session(1)
    assert s1 is not None and s1.line_end == 24
    assert [o.text for o in s1.objectives] == ["Build thing 1"]


def test_missing_path_raises_path_not_found(tmp_path: Path) -> None:
    with pytest.raises(PathNotFoundError) as info:
        load_plan(tmp_path / "nope")
    assert info.value.exit_code == 2 and "nope" in str(info.value)


def test_non_utf8_file_is_a_diagnostic(tmp_path: Path) -> None:
    (tmp_path / "PHASE_1_X.md").write_bytes(b"# Phase 1: X\n\n\xff\xfe bad\n")
    plan = load_plan(tmp_path)
    assert messages(plan.errors) == [  # one error: not also "no sessions found"
        ("PHASE_1_X.md", 3, "not UTF-8 text (byte 14); save the plan as UTF-8")
    ]
