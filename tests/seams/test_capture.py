"""`executor.capture`: a child's output in bounded head/tail buffers, whole in its sink."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from executor.capture import LINE_BYTES, Captured, Finished, run_captured

CHATTY = """\
import sys
sys.stdout.write("first line\\n")
sys.stdout.write("x" * 3_000_000 + "\\n")
sys.stderr.write("a warning\\n")
sys.stdout.write(sys.stdin.read() + "\\n")
sys.stdout.write("the report at the end\\n")
"""


def test_a_stream_keeps_its_head_and_tail_and_counts_the_rest() -> None:
    kept = Captured(head=10, tail=20)
    for i in range(100):
        kept.add(f"{i:04d}\n".encode())
    assert kept.total == 500
    text = kept.text()
    assert text.startswith("0000\n0001\n")
    assert "[... 470 bytes of output left out ...]" in text
    assert text.endswith("0096\n0097\n0098\n0099\n")
    small = Captured()
    small.add(b"all of it")
    assert small.text() == "all of it"


def test_a_command_is_read_bounded_and_copied_whole(tmp_path: Path) -> None:
    sink = io.BytesIO()
    lines: list[str] = []
    done = run_captured(
        [sys.executable, "-c", CHATTY],
        cwd=tmp_path,
        env=dict(os.environ),
        timeout=60,
        stdin=b"what it was told",
        sink=sink,
        on_line=lines.append,
    )
    assert (done.returncode, done.timed_out) == (0, False)
    assert done.out.total > 3_000_000 and len(done.out.text()) < 1_500_000
    assert done.out.text().startswith("first line\n")
    assert done.out.text().endswith("what it was told\nthe report at the end\n")
    assert done.err.text() == "a warning\n"
    assert len(sink.getvalue()) == done.out.total + done.err.total
    assert lines[0] == "first line" and len(lines[1]) == LINE_BYTES
    assert lines[-2:] == ["what it was told", "the report at the end"]


def test_past_its_timeout_the_group_is_killed(tmp_path: Path) -> None:
    done = run_captured(
        [sys.executable, "-c", "import time; print('begun', flush=True); time.sleep(60)"],
        cwd=tmp_path,
        env=dict(os.environ),
        timeout=0.5,
        merge=True,
    )
    assert done.timed_out and done.returncode == -9
    assert done.out.text() == "begun\n"


def test_a_sink_that_fails_ends_the_copy_not_the_run(tmp_path: Path) -> None:
    closed = io.BytesIO()
    closed.close()
    done = run_captured(
        [sys.executable, "-c", "print('still read')"],
        cwd=tmp_path,
        env=dict(os.environ),
        timeout=60,
        sink=closed,
    )
    assert done.returncode == 0 and done.out.text() == "still read\n"


def test_two_commands_side_by_side_end_only_what_each_left(tmp_path: Path) -> None:
    """GREEN's mutation run goes on beside its verification: the command that ends first
    kills what it left outside its group (a `setsid` process re-parented to us), but not
    a command another thread started meanwhile, nor a process of our own group another
    thread started (a git command), whose exit status only that thread may read."""
    if not sys.platform.startswith("linux"):
        pytest.skip("orphans are found through Linux's child subreaper")
    later: list[Finished] = []
    git_like: list[subprocess.Popen[bytes]] = []

    def start_others() -> None:
        time.sleep(0.3)  # once the first command runs
        git_like.append(subprocess.Popen(["sleep", "30"]))  # our group, as git commands
        later.append(run_captured(["sleep", "2"], cwd=tmp_path, env=dict(os.environ), timeout=30))

    beside = threading.Thread(target=start_others)
    beside.start()
    try:
        first = run_captured(["sh", "-c", "setsid sleep 30 & sleep 1; echo started"],
                             cwd=tmp_path, env=dict(os.environ), timeout=30)  # fmt: skip
        assert first.out.text().strip() == "started"
        assert len(first.left) == 1  # its own orphan: found and killed
        assert git_like[0].poll() is None  # another thread's child: left alone
        beside.join(10)
        assert later and later[0].returncode == 0 and not later[0].timed_out
    finally:
        beside.join(10)
        for proc in git_like:
            proc.kill()
            proc.wait()
