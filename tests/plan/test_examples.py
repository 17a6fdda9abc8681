"""The plans shipped in plans/examples parse cleanly and say what they mean."""

from __future__ import annotations

import pytest

from executor.plan import lint, load_plan
from executor.plan.linting.report import schedule
from tests.conftest import REPO_ROOT

EXAMPLES = REPO_ROOT / "plans" / "examples"


def test_blog_platform_plan() -> None:
    plan = load_plan(EXAMPLES / "blog-platform")
    assert lint(plan) == []
    assert plan.name == "Blog Platform"
    assert [(p.number, p.name, [s.number for s in p.sessions]) for p in plan.phases] == [
        (1, "Backend Foundation", [1, 2, 3]),
        (2, "Backend API", [4, 5, 6]),
        (3, "Frontend Foundation", [7, 8, 9]),
        (4, "Frontend Features", [10, 11]),
    ]
    deps = {s.number: s.dependencies for s in plan.sessions()}
    assert deps == {
        1: [],
        2: [1],
        3: [2],
        4: [1],
        5: [2, 4],
        6: [3, 5],
        7: [4],
        8: [7, 4],
        9: [5, 8],
        10: [9],
        11: [6, 9],
    }
    s10 = plan.session(10)
    assert s10 is not None and s10.dependencies_line is None  # from the Mermaid graph
    assert all(s.tdd and s.red and s.green and s.refactor for s in plan.sessions())
    assert all(s.estimated_hours and s.estimated_tests for s in plan.sessions())
    s5 = plan.session(5)
    assert s5 is not None and s5.title == "Posts API" and s5.estimated_hours == 3.5
    assert s5.test_command("refactor") == "pytest backend/posts/tests/test_api.py"
    assert [f.path for f in s5.files][:2] == [
        "backend/posts/serializers.py",
        "backend/posts/views.py",
    ]
    path, groups, weighed = schedule(plan)
    assert weighed and path == [1, 4, 7, 8, 9, 11]
    assert groups[1] == [2, 4]


def test_ledger_demo_plan() -> None:
    folder = EXAMPLES / "ledger"
    if not folder.exists():
        pytest.skip("plans/examples/ledger not written yet")
    plan = load_plan(folder)
    assert [d for d in lint(plan) if d.severity == "error"] == []
    assert len(plan.phases) == 2 and 3 <= len(plan.sessions()) <= 4
    for s in plan.sessions():
        assert s.red is not None and s.green is not None
        assert s.test_command("red") and s.test_command("green")


def test_importing_the_models_loads_no_parser() -> None:
    """The resume path loads a cached plan: models only, no readers, no regex tables."""
    import subprocess
    import sys

    code = (
        "import sys, executor.plan.models, executor.plan;"
        "print(sorted(m for m in sys.modules if m.startswith('executor.plan.')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['executor.plan.models']"
