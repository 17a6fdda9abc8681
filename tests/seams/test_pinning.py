"""The pin's parts (`executor.pinning`) against real files, a real git repository and
worktree, real bytecode and real pytest runs: what each finds, and what it lets pass."""

from __future__ import annotations

import importlib.util
import marshal
import os
import py_compile
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from executor.pinning import environment, gitfiles, stats
from executor.projectenv import Interpreter
from executor.testrun import run_tests
from tests.conftest import git


def test_a_change_with_its_times_set_back_is_found(tmp_path: Path) -> None:
    """`os.utime` sets a file's modification time back, never its change time."""
    hook = tmp_path / "hook"
    hook.write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    os.utime(hook, (1_000_000_000, 1_000_000_000))
    pinned = stats.walk([str(tmp_path)], pinning=False)
    before = os.stat(hook)
    hook.write_text("#!/bin/sh\nexit 1\n", encoding="utf-8")  # same size
    os.utime(hook, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert stats.changed(pinned, stats.walk([str(tmp_path)])) == {str(hook): "changed"}


def test_a_file_pinned_a_moment_after_its_change_is_compared_by_content(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the clock is coarse, a file written just before it was pinned may keep its
    times through another write: it is pinned by its content, and a touch alone is no
    change."""
    monkeypatch.setattr(stats, "RACY_SECONDS", 3600.0)  # "a moment", on a busy machine
    path = tmp_path / "fresh.py"
    path.write_text("X = 1\n", encoding="utf-8")
    pinned = stats.walk([str(tmp_path)])
    assert ":#" in pinned[str(path)]
    os.utime(path)
    assert stats.changed(pinned, stats.walk([str(tmp_path)], pinning=False)) == {}
    path.write_text("X = 2\n", encoding="utf-8")
    assert stats.changed(pinned, stats.walk([str(tmp_path)], pinning=False)) == {
        str(path): "changed"
    }


def test_added_removed_and_missing_roots(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("", encoding="utf-8")
    missing = str(tmp_path / "venv" / "pyvenv.cfg")
    pinned = stats.walk([str(tmp_path / "a.py"), missing])
    assert pinned[missing] == "-"
    (tmp_path / "venv").mkdir()
    Path(missing).write_text("home = /usr\n", encoding="utf-8")
    (tmp_path / "a.py").unlink()
    now = stats.walk([str(tmp_path / "a.py"), missing], pinning=False)
    assert stats.changed(pinned, now) == {missing: "added", str(tmp_path / "a.py"): "removed"}


def test_bytecode_the_interpreter_writes_itself_passes_and_a_forged_one_does_not(
    tmp_path: Path,
) -> None:
    """An import by the agent's own test run writes `__pycache__/*.pyc`: the same code as
    the source beside it. Bytecode of other code under the source's header does not."""
    source = tmp_path / "mod.py"
    source.write_text("def f():\n    return 1\n", encoding="utf-8")
    honest = str(py_compile.compile(str(source), doraise=True))
    other = tmp_path / "other.py"
    other.write_text("def f():\n    return 2\n", encoding="utf-8")
    forged_code = Path(str(py_compile.compile(str(other), doraise=True))).read_bytes()[16:]
    forged = tmp_path / "__pycache__" / f"forged.{sys.implementation.cache_tag}.pyc"
    (tmp_path / "forged.py").write_bytes(source.read_bytes())
    forged.write_bytes(Path(honest).read_bytes()[:16] + forged_code)
    assert Path(honest).read_bytes()[:4] == importlib.util.MAGIC_NUMBER
    assert stats.interpreter_wrote(sys.executable, [honest, str(forged)]) == {honest}


def test_what_no_interpreter_loads_from_pycache_is_no_change(tmp_path: Path) -> None:
    """Another process importing as the run compares leaves its temporary bytecode file
    (`x.pyc.<id>`) for a moment, or a `.pyc` goes: neither runs anything. Bytecode of
    other code under a source's name still counts."""
    source = tmp_path / "mod.py"
    source.write_text("def f():\n    return 1\n", encoding="utf-8")
    gone = Path(str(py_compile.compile(str(source), doraise=True)))
    pinned = stats.walk([str(tmp_path)])
    gone.unlink()
    (gone.parent / f"{gone.name}.140321").write_bytes(b"half written")
    forged = gone.parent / f"other.{sys.implementation.cache_tag}.pyc"
    (tmp_path / "other.py").write_text("def f():\n    return 2\n", encoding="utf-8")
    forged.write_bytes(importlib.util.MAGIC_NUMBER + b"\0" * 12 + b"not code")
    now = stats.walk([str(tmp_path)], pinning=False)
    assert stats.code_changed(pinned, now, sys.executable) == {
        str(tmp_path / "other.py"): "added", str(forged): "added",
    }  # fmt: skip


def test_bytecode_pytest_writes_for_rewritten_asserts_passes_and_a_forged_one_does_not(
    tmp_path: Path,
) -> None:
    """A first test run writes `x.cpython-3NN-pytest-V.pyc` for each module whose asserts
    pytest rewrites (its plugins, the test files): the source, rewritten. Other code under
    that name, which pytest would load as surely, does not pass."""
    test = tmp_path / "test_x.py"
    test.write_text("def test_x():\n    assert 1 + 1 == 2\n", encoding="utf-8")
    pinned = stats.walk([str(tmp_path)])
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test)]
    ran = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    (written,) = (tmp_path / "__pycache__").glob("test_x.*-pytest-*.pyc")
    now = stats.walk([str(tmp_path)], pinning=False)
    assert stats.code_changed(pinned, now, sys.executable) == {}
    data = written.read_bytes()
    written.write_bytes(data[:16] + marshal.dumps(compile("import os", "x", "exec")))
    now = stats.walk([str(tmp_path)], pinning=False)
    assert stats.code_changed(pinned, now, sys.executable) == {str(written): "added"}


def test_git_files_are_kept_whole_and_put_back_a_linked_worktree_shares_them(
    git_repo: Path, tmp_path: Path
) -> None:
    linked = tmp_path / "linked"
    git(git_repo, "worktree", "add", "-q", "-b", "side", str(linked))
    linked_git = Path(git(linked, "rev-parse", "--absolute-git-dir").strip())
    places = gitfiles.places(linked_git, linked, {"HOME": str(tmp_path)})
    assert str(git_repo / ".git" / "hooks") in places
    assert str(git_repo / ".git" / "config") in places
    pinned = gitfiles.keep(places)
    assert not any(p.endswith(".sample") for p in pinned)
    hook = git_repo / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\ntouch /tmp/x\n", encoding="utf-8")
    hook.chmod(0o755)
    os.utime(hook, (1_000_000_000, 1_000_000_000))
    config = git_repo / ".git" / "config"
    original = config.read_bytes()
    config.write_bytes(original + b"[core]\n\tfsmonitor = /tmp/evil\n")
    changed = gitfiles.changed(pinned, gitfiles.keep(places))
    assert changed == {str(hook): "added", str(config): "changed"}
    gitfiles.put_back(pinned, list(changed))
    assert not hook.exists() and config.read_bytes() == original
    assert gitfiles.changed(pinned, gitfiles.keep(places)) == {}


def test_in_the_repository_only_what_installs_register_is_pinned(tmp_path: Path) -> None:
    """The repository's root is on the import path of `python -m pytest`: an `.egg-info`
    appearing there registers plugins; the session's own code is the tree's business.
    In a checkout a `.pth` names, what `import` reaches is pinned, not `.git` or `.venv`."""
    repo, other = tmp_path / "repo", tmp_path / "other"
    (repo / "pkg").mkdir(parents=True)
    (other / "lib").mkdir(parents=True)
    (other / ".git").mkdir()
    (other / "lib" / "__init__.py").write_text("", encoding="utf-8")
    specs = environment.roots([], None, [], [str(repo), str(other)], [repo])
    assert environment.TOP + str(repo.resolve()) in specs
    assert environment.MODULES + str(other.resolve()) in specs
    assert environment.expand([environment.MODULES + str(other.resolve())]) == [
        str(other.resolve() / "lib")
    ]
    top = [environment.TOP + str(repo.resolve())]
    assert environment.expand(top) == []
    (repo / "evil.egg-info").mkdir()
    assert environment.expand(top) == [str(repo.resolve() / "evil.egg-info")]


def _venv_with_plugins(where: Path, names: list[str]) -> Path:
    """A real venv that sees this suite's pytest, with an `.egg-info` plugin for each
    of `names`, each printing its name when pytest loads it."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True)
    site = next(where.glob("lib/python*/site-packages"))
    (site / "suite.pth").write_text(sysconfig.get_path("purelib") + "\n", encoding="utf-8")
    for name in names:
        egg = site / f"{name}-1.0.egg-info"
        egg.mkdir()
        (egg / "PKG-INFO").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
        (egg / "entry_points.txt").write_text(f"[pytest11]\n{name} = {name}_plugin\n")
        (site / f"{name}_plugin.py").write_text(
            f"def pytest_configure(config):\n    print('LOADED {name}')\n", encoding="utf-8"
        )
    return where


def test_a_test_run_loads_the_pinned_plugins_by_name_and_no_other(tmp_path: Path) -> None:
    """pytest's autoload goes off and each pinned plugin is named with `-p`: one that
    appeared since does not load at all."""
    venv = _venv_with_plugins(tmp_path / "venv", ["kept", "late"])
    project = tmp_path / "project"
    (project / "tests").mkdir(parents=True)
    (project / "tests" / "test_x.py").write_text("def test_x():\n    pass\n", encoding="utf-8")
    python = Interpreter(str(venv / "bin" / "python"), "test", str(venv), plugins=("kept",))
    env = {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": ""}  # a person's shell: pytest autoloads
    run = run_tests("python -m pytest -s tests", cwd=project, interpreter=python, env=env)
    assert run.verdict == "green", run.output_tail
    assert "LOADED kept" in run.output_tail and "LOADED late" not in run.output_tail
    found = Interpreter(python.python, "test", python.prefix)  # as pytest finds them
    run = run_tests("python -m pytest -s tests", cwd=project, interpreter=found, env=env)
    assert "LOADED kept" in run.output_tail and "LOADED late" in run.output_tail


def test_an_honest_projects_plugins_work_when_named(tmp_path: Path) -> None:
    """With autoload off, the plugins pinned by name still do their work: xdist's `-n 2`
    and pytest-cov's coverage, as in a project that uses both."""
    project = tmp_path / "project"
    (project / "tests").mkdir(parents=True)
    (project / "mod.py").write_text("def f():\n    return 1\n", encoding="utf-8")
    (project / "tests" / "test_x.py").write_text(
        "import pytest\n\nfrom mod import f\n\n\n@pytest.mark.parametrize('n', range(4))\n"
        "def test_x(n):\n    assert f() == 1\n",
        encoding="utf-8",
    )
    names = ("xdist", "xdist.looponfail", "pytest_cov", "hypothesispytest")
    python = Interpreter(sys.executable, "test", sys.prefix, plugins=names)
    run = run_tests("python -m pytest -n 2 tests", cwd=project, interpreter=python,
                    coverage=True, env={"PYTHONPATH": str(project)})  # fmt: skip
    assert run.verdict == "green" and run.passed == 4, run.output_tail
    assert "gw0" in run.output_tail or "2 workers" in run.output_tail, run.output_tail
    assert run.coverage is not None and run.coverage > 0
