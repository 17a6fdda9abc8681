"""32 real plans by other people (/work/realplans, not in the repository) read field by
field as a careful person read them (tests/plan/real/expected/<id>.json, our own work;
sources in tests/plan/real/SOURCES.md). CI has no /work/realplans: there the test is
skipped, and tests/plan/test_constructs.py covers each construct on our own fixtures.

Where we read a field differently, the difference is listed below with why; a
difference that is not listed fails, and so does a listed one that went away.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from executor.plan import lint, load_plan
from executor.plan.markdown import source_lines
from tests.plan.reading import differences

REAL = Path("/work/realplans")
EXPECTED = Path(__file__).parent / "real" / "expected"

_TM_FILES = (
    "Task Master details are free prose: the reading names some paths and not others "
    "without a rule we could state (folders in a directory tree, examples in code)"
)
#: (plan id, session number, field) -> why our reading differs
KNOWN: dict[tuple[str, int, str], str] = {
    ("kr-rpidns-user-auth", 32, "files"): (
        "10.2 'Add auth.php to allowed PHP locations' names auth.php as its subject; the "
        "reading knows the edit is in the nginx config (semantics, not text)"
    ),
    ("ph-djvurn-session8", 1, "test_commands"): (
        "GREEN says 'Run tests, ensure GREEN': we run the command RED named (the same as "
        "before); the reading takes the file's ground rule `npm run test:run`"
    ),
    ("ph-famapp-invitation", 9, "tdd"): (
        "'Write test:' items before 'Implement:' items read as TDD; the reading knows "
        "phase I only points back to tests written in phases C-E"
    ),
    ("ph-famapp-invitation", 10, "tdd"): "as phase I: retrospective, judged from the prose",
    ("sk-greenhouse-vpn-config", 6, "files"): (
        "disagree with the reading: 'run `terraform validate` in `deploy/terraform/`' names "
        "where a command runs, not a file changed (sk-harness T023 line 109 reads it so)"
    ),
    ("sk-greenhouse-vpn-config", 14, "test_commands"): (
        "disagree: T014 (line 90) writes no command ('`terraform plan` with "
        "`enable_vpn=true`'); the reading borrows the phase's Independent Test line"
    ),
    ("sk-harness-live-sync", 8, "files"): (
        "'(mirroring the existing helper in `frontend/lib/storage/paths.ts`)' is a "
        "reference, told apart from a target only by meaning"
    ),
    ("sk-harness-live-sync", 20, "files"): (
        "T020 confirms `frontend/app/files/[[...path]]/` is a sibling: a reference"
    ),
    ("sk-passcli-vault-metadata", 45, "files"): (
        "'Verify test coverage for `internal/vault/metadata.go`': the coverage target, a "
        "code-span path in a check"
    ),
    ("sk-passcli-vault-metadata", 55, "files"): (
        "'Final code review ... (validated in plan.md)': read as work, so plan.md counts"
    ),
    ("tm-edu-parser", 1, "files"): _TM_FILES,
    ("tm-edu-parser", 8, "files"): _TM_FILES,
    ("tm-edu-parser", 10, "files"): _TM_FILES,
    ("tm-edu-parser", 11, "test_commands"): (
        "an inline `python -c` is taken for a check; this one exports to Google Sheets, an "
        "effect only its code shows"
    ),
    ("tm-prompt-enhancer", 2, "files"): _TM_FILES,
    ("tm-prompt-enhancer", 4, "files"): _TM_FILES,
    ("tm-prompt-enhancer", 9, "files"): _TM_FILES,
    ("tm-resourcer", 1, "files"): _TM_FILES,
    ("tm-resourcer", 7, "files"): (
        "disagree: 'Add new module `output.rs` in `crates/core/src/`' is "
        "crates/core/src/output.rs (issue 20: '`env.example` in `apps/api/`')"
    ),
    ("tm-scrumpoker", 2, "files"): _TM_FILES,
    ("tm-scrumpoker", 6, "files"): _TM_FILES,
    ("tm-scrumpoker", 9, "files"): _TM_FILES,
}

pytestmark = pytest.mark.skipif(
    not REAL.is_dir(), reason=f"{REAL} (real plans beside the repository) is not here"
)


def _expected() -> list[str]:
    return sorted(p.stem for p in EXPECTED.glob("*.json"))


@pytest.mark.parametrize("plan_id", _expected())
def test_real_plan_reads_as_a_careful_person_reads_it(plan_id: str) -> None:
    expected = json.loads((EXPECTED / f"{plan_id}.json").read_text(encoding="utf-8"))
    plan = load_plan(REAL / expected["plan_path"])
    found = {(number, field): (ours, theirs) for number, field, ours, theirs in
             differences(plan, expected)}  # fmt: skip
    known = {(n, f) for (i, n, f) in KNOWN if i == plan_id}
    unexplained = {k: v for k, v in found.items() if k not in known}
    assert unexplained == {}
    assert set(found) == known, "a known difference went away: remove it from KNOWN"


def test_every_expected_reading_has_its_plan_and_source() -> None:
    sources = (EXPECTED.parent / "SOURCES.md").read_text(encoding="utf-8")
    for plan_id in _expected():
        expected = json.loads((EXPECTED / f"{plan_id}.json").read_text(encoding="utf-8"))
        assert (REAL / expected["plan_path"]).is_file()
        assert f"| {plan_id} |" in sources


@pytest.mark.parametrize("plan_id", _expected())
def test_a_real_plan_never_breaks_the_reader(plan_id: str) -> None:
    """Every diagnostic names a line of the file it is about."""
    expected = json.loads((EXPECTED / f"{plan_id}.json").read_text(encoding="utf-8"))
    plan = load_plan(REAL / expected["plan_path"])
    for d in lint(plan):
        if d.path.is_file():
            count = len(source_lines(d.path.read_text(encoding="utf-8"))) or 1
            assert 1 <= d.line <= count, str(d)
