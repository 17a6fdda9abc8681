"""The report page in a real browser: headless Chromium loads it (no network: the page
asks for nothing), its DOM holds every session and every hostile text as text (no
element came out of one), and it draws a screenshot."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from executor.workflows.tdd.review.page import page
from tests.review.test_views import run_of, session

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def chromium(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM is not None
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--no-first-run",
             f"--user-data-dir={tmp / 'profile'}"]  # fmt: skip
    return subprocess.run([CHROMIUM, *flags, *args], capture_output=True, text=True, timeout=180)


@pytest.mark.skipif(
    CHROMIUM is None,
    reason="chromium is not installed (apt-get install chromium): the report page is not "
    "loaded in a browser here",
)
def test_headless_chromium_loads_the_report_and_shows_hostile_text_as_text(
    tmp_path: Path,
) -> None:
    report = tmp_path / "report.html"
    report.write_text(page(run_of(session(1), session(2))), "utf-8")
    dom = chromium(tmp_path, "--dump-dom", report.as_uri())
    assert dom.returncode == 0, dom.stderr
    text = dom.stdout
    assert "Session 1: Title" in text and "Session 2: Title" in text
    assert not re.search(r"<script|<img", text, flags=re.I)  # no element made of the text
    assert '&lt;script&gt;alert("x")&lt;/script&gt;' in text
    assert text.count("<rect ") == 4  # the timeline: two steps of each session

    shot = tmp_path / "report.png"
    drawn = chromium(tmp_path, f"--screenshot={shot}", "--window-size=1280,1600", report.as_uri())
    assert drawn.returncode == 0, drawn.stderr
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000
