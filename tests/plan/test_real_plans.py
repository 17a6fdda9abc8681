"""67 real plans by other people read field by field as a careful person read them
(tests/plan/real/expected/<id>.json, our own work, written from the file before the
parser read it; sources and licences in tests/plan/real/SOURCES.md). A plan whose
repository has a permissive licence is kept in tests/plan/real/files/ byte for byte, with
that licence, so CI proves its reading; the others stay beside the repository (in the
folder PE_TESTS_REAL_PLANS names, by default `realplans` beside the repository's folder)
and their test is skipped where they are absent.

Where we read a field differently, the difference is listed below with why; a
difference that is not listed fails, and so does a listed one that went away.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from executor.plan import lint, load_plan
from executor.plan.text.markdown import source_lines
from tests.plan.corpus import OUTSIDE, real_plan
from tests.plan.reading import differences

EXPECTED = Path(__file__).parent / "real" / "expected"

_TM_FILES = (
    "Task Master details are free prose: the reading names some paths and not others "
    "without a rule we could state (folders in a directory tree, examples in code)"
)
_SAME_FILE = "'同ファイル' (the same file) names the file of the task before: meaning, not text"
_TALKS_ABOUT = (
    "a bare file name the task talks about (pipeline.yaml removed, dp.yaml as the example) "
    "beside the path it changes: told apart only by meaning"
)
_EARLIER_FILE = (
    "a bare name for a file an earlier task created in a folder: the reader keeps it bare"
)
_RUNTIME_OUTPUT = "a path the built thing writes when it runs (an output), not one the task changes"
_READS = "a check task naming the files it compares or checks: read, not changed"
_SWAGGER = (
    "the exit criterion names a check a person makes ('via Swagger UI testbar', 'DevTools "
    "zeigen State', 'in UI durchspielbar', 'Neuer Entwickler kann Setup ...'): told by meaning"
)
_TIDY = (
    "each cycle's fourth step '🧹 Tidy: TestFixture 정리' creates the test fixture; 'Tidy' "
    "is no TDD role we read, so its file is left out"
)
#: (plan id, session number, field) -> why our reading differs
KNOWN: dict[tuple[str, int, str], str] = {
    **{("de-flownav-devmodul", n, "human_check"): _SWAGGER for n in (19, 27, 30, 52, 53)},
    ("ja-stockanalyzer-trend", 2, "files"): (
        "`touch tests/__init__.py` after `cd <checkout>/batch` in a shell block: a path "
        "relative to the folder a command enters"
    ),
    **{("ko-fileflow-session-domain", n, "files"): _TIDY for n in (1, 2, 3, 4, 8, 13, 18)},
    ("ph-twilio-plan", 1, "files"): (
        "'Create CLAUDE.md and PLAN.md documentation', 'Create setup.py ...', '... with "
        ".gitignore': bare names in a phase's prose checklist (no code span), which the "
        "PHASE reader does not take for files"
    ),
    ("pt-tibau-frontend", 5, "human_check"): (
        "'acessibilidade: contraste AA, foco por teclado', 'responsividade: 360px, ...', "
        "'checklist final de consistencia de interface': what a person looks at, named "
        "with no verb that says check"
    ),
    ("kr-taskmgr-ui", 1, "files"): _RUNTIME_OUTPUT,
    ("kr-taskmgr-ui", 12, "files"): (
        "'serve Vite build output from dist/', 'serve index.html': what the server serves, "
        "not files the task changes (server.ts is)"
    ),
    ("sp-uspto-cli", 1, "test_commands"): (
        "the block creates the venv and installs before its `python -c` check: we do not "
        "split a block (its check needs the setup before it), so it is no check"
    ),
    ("sp-oat-docs-reorg", 4, "files"): "`guide/ideas*` is a glob of names, no path we keep",
    ("sp-oat-docs-reorg", 9, "files"): (
        "the five sub-folders it removes are listed in prose; the Files list names "
        "`apps/oat-docs/docs/guide/`, which holds them"
    ),
    **{
        ("zh-arb-mexc-assets", 12, f): (
            "T012 checks the rows a running service writes each hour: a person's by what it "
            "needs, no word says so"
        )
        for f in ("checkpoint", "human_check")
    },
    **{("ja-gwt-735cbc5d", n, "files"): _SAME_FILE for n in (7, 8, 9, 10, 14)},
    **{
        ("sk-datakit-manifest", n, "files"): _TALKS_ABOUT
        for n in (10, 14, 16, 24, 35, 36, 37, 38, 40, 41, 42)
    },
    ("sk-datakit-pipeline-modes", 16, "files"): (
        "'Extract batch-specific logic from docker.go' changes sdk/runner/docker.go; the "
        "detail names it bare"
    ),
    ("sk-pay2slay-separate", 3, "files"): (
        "sibling names after a path, each followed by a note in parentheses "
        "(`variables.tf` (includes ...), `outputs.tf` (...)): only the first is joined"
    ),
    ("sk-pay2slay-separate", 6, "files"): (
        "'`scripts/infra/` with placeholder `discover_banano_endpoint.sh`' puts the file in "
        "the folder by meaning"
    ),
    ("sk-pay2slay-separate", 11, "files"): _EARLIER_FILE,
    ("sk-pay2slay-separate", 13, "files"): _RUNTIME_OUTPUT,
    ("sk-pay2slay-separate", 15, "files"): _EARLIER_FILE,
    ("sk-pay2slay-separate", 25, "files"): "quickstart.md is the feature's (its Input line)",
    **{("sk-wishlist-dbinit", n, "files"): _READS for n in (1, 14, 15, 16, 17, 18)},
    ("sp-pikota-followups", 1, "test_commands"): (
        "the task ends on its failing gate; its first run ('see current shortfall') reads "
        "as a GREEN check"
    ),
    ("sp-pikota-followups", 9, "tdd"): (
        "'(red first)' / '(red -> green)' in the step titles: the words say TDD, the order of "
        "the tasks (the code came in tasks 7-8) says the test passes at once"
    ),
    ("sp-pikota-followups", 9, "test_commands"): "as session 9's tdd",
    ("zh-ccdevflow-upgrade", 3, "files"): "'确认模板目录存在' (confirm the folder exists): a check",
    ("zh-ccdevflow-upgrade", 4, "files"): (
        "the backup is written by the `cp` command in the task (a command, no file list)"
    ),
    **{("zh-ccdevflow-upgrade", n, "files"): _RUNTIME_OUTPUT for n in (12, 13, 14, 21)},
    ("zh-ccdevflow-upgrade", 31, "files"): _EARLIER_FILE,
    (
        "zh-ccdevflow-upgrade",
        32,
        "files",
    ): "the .md it checks is read; the scripts it updates are not named",
    ("zh-ccdevflow-upgrade", 33, "files"): _EARLIER_FILE,
    ("zh-ccdevflow-upgrade", 41, "checkpoint"): (
        "an end-to-end walk through slash commands (/flow-init ...) is a person's; no "
        "manual word says so"
    ),
    ("zh-fastoj-oj", 61, "files"): (
        "'Update docker-compose.yml with health checks': 'checks' reads the task as a check"
    ),
    ("zh-javaharness-hooks", 9, "files"): (
        "IMPLEMENTATION_SUMMARY.md is written by a heredoc (`cat > ... << 'EOF'`) in a step"
    ),
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


def _expected() -> list[str]:
    return sorted(p.stem for p in EXPECTED.glob("*.json"))


def _plan(plan_id: str) -> tuple[dict[str, Any], Path]:
    expected = json.loads((EXPECTED / f"{plan_id}.json").read_text(encoding="utf-8"))
    path = real_plan(expected["plan_path"])
    if path is None:
        pytest.skip(
            f"{expected['plan_path']}: kept beside the repository (its licence), not in "
            f"{OUTSIDE}: PE_TESTS_REAL_PLANS names the folder that holds it"
        )
    return expected, path


@pytest.mark.parametrize("plan_id", _expected())
def test_real_plan_reads_as_a_careful_person_reads_it(plan_id: str) -> None:
    expected, path = _plan(plan_id)
    plan = load_plan(path)
    found = {(number, field): (ours, theirs) for number, field, ours, theirs in
             differences(plan, expected)}  # fmt: skip
    known = {(n, f) for (i, n, f) in KNOWN if i == plan_id}
    unexplained = {k: v for k, v in found.items() if k not in known}
    assert unexplained == {}
    assert set(found) == known, "a known difference went away: remove it from KNOWN"


def test_every_expected_reading_has_its_source_and_the_kept_plans_their_licence() -> None:
    sources = (EXPECTED.parent / "SOURCES.md").read_text(encoding="utf-8")
    files = EXPECTED.parent / "files"
    for plan_id in _expected():
        expected = json.loads((EXPECTED / f"{plan_id}.json").read_text(encoding="utf-8"))
        row = next(r for r in sources.splitlines() if r.startswith(f"| {plan_id} |"))
        kept = (files / expected["plan_path"]).is_file()
        assert kept == ("| in repository |" in row), plan_id
        if kept:
            fmt, folder = expected["plan_path"].split("/")[:2]
            assert (files / fmt / folder / "LICENSE").is_file(), plan_id


@pytest.mark.parametrize("plan_id", _expected())
def test_a_real_plan_never_breaks_the_reader(plan_id: str) -> None:
    """Every diagnostic names a line of the file it is about."""
    _, path = _plan(plan_id)
    plan = load_plan(path)
    for d in lint(plan):
        if d.path.is_file():
            count = len(source_lines(d.path.read_text(encoding="utf-8"))) or 1
            assert 1 <= d.line <= count, str(d)
