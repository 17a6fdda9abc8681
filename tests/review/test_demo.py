"""`executor demo` ends with the run's summary and names its report, through the real CLI."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import run_cli


def test_the_demo_ends_with_its_summary_and_names_its_report(tmp_path: Path) -> None:
    target = tmp_path / "ledger"
    proc = run_cli("demo", "--dir", str(target), cwd=tmp_path, timeout=600)
    assert proc.returncode == 0, proc.stderr
    tail = proc.stdout.rstrip().splitlines()[-5:]
    assert tail[0].startswith("Summary: 4 of 4 sessions done, 0 waiting, 0 stopped;")
    assert tail[2] == "  agents: 12 calls, 0 retries; cost not reported, tokens not reported"
    assert tail[3] == "  not verified: 19 checkpoints approved by --yes"
    reports = target / "project-plans" / "ledger" / ".agent-reports"
    assert tail[4] == f"Report: {reports / 'report.html'} and {reports / 'report.md'}"
    page = (reports / "report.html").read_text("utf-8")
    assert all(f"Session {n}: " in page for n in range(1, 5))
    assert f"executor show 2 --plan {target / 'project-plans' / 'ledger'}" in proc.stdout
