"""Which environment the project's tests run in (executor.projectenv): the person's shell's
choice, in order, with real virtual environments, real git worktrees and stand-in
`poetry` / `hatch` programs (the tools are not installed here; only what they print
matters)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from executor import projectenv
from executor.errors import ProjectEnvError
from tests.conftest import git


def _venv(where: Path) -> Path:
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True)
    return where


def _tool(bin_dir: Path, name: str, prints: str) -> None:
    bin_dir.mkdir(exist_ok=True)
    script = bin_dir / name
    script.write_text(f"#!/bin/sh\necho '{prints}'\n", encoding="utf-8")
    script.chmod(0o755)


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """A shell with no environment active and only the system's programs (and `tools/`)."""
    return {"PATH": f"{tmp_path / 'tools'}:/usr/bin:/bin", **extra}


def test_the_active_environment_comes_first(tmp_path: Path) -> None:
    active = _venv(tmp_path / "active")
    repo = tmp_path / "repo"
    _venv(repo / ".venv")
    found = projectenv.find(repo, _env(tmp_path, VIRTUAL_ENV=str(active)))
    assert (found.python, found.prefix) == (str(active / "bin" / "python"), str(active))
    assert found.source == "the active virtual environment, $VIRTUAL_ENV"


def test_then_the_repositorys_venv_and_a_lane_finds_the_main_checkouts(git_repo: Path) -> None:
    _venv(git_repo / ".venv")
    (git_repo / ".gitignore").write_text(".venv/\n", encoding="utf-8")
    found = projectenv.find(git_repo, _env(git_repo))
    assert found.source == "the repository's .venv" and found.prefix == str(git_repo / ".venv")
    lane = git_repo.parent / "lane"
    git(git_repo, "worktree", "add", "-q", str(lane), "-b", "lane")
    assert projectenv.find(lane, _env(git_repo)).prefix == str(git_repo / ".venv")


def test_uv_poetry_and_hatch_name_their_environment(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "uv.lock").write_text("version = 1\n", encoding="utf-8")
    uv_env = _venv(tmp_path / "uv-env")
    found = projectenv.find(repo, _env(tmp_path, UV_PROJECT_ENVIRONMENT=str(uv_env)))
    assert found.prefix == str(uv_env) and "uv.lock" in found.source
    (repo / "uv.lock").unlink()

    (repo / "poetry.lock").write_text("", encoding="utf-8")
    poetry_env = _venv(tmp_path / "poetry-env")
    _tool(tmp_path / "tools", "poetry", str(poetry_env))
    assert projectenv.find(repo, _env(tmp_path)).prefix == str(poetry_env)
    (repo / "poetry.lock").unlink()

    (repo / "hatch.toml").write_text("[envs.default]\n", encoding="utf-8")
    hatch_env = _venv(tmp_path / "hatch-env")
    _tool(tmp_path / "tools", "hatch", str(hatch_env))
    assert projectenv.find(repo, _env(tmp_path)).prefix == str(hatch_env)


@pytest.mark.parametrize(("lock", "make"), [("uv.lock", "uv sync"), ("pdm.lock", "pdm install")])
def test_an_environment_not_made_yet_is_named_with_what_makes_it(
    tmp_path: Path, lock: str, make: str
) -> None:
    (tmp_path / lock).write_text("", encoding="utf-8")
    with pytest.raises(ProjectEnvError, match=f"run `{make}` in the repository first"):
        projectenv.find(tmp_path, _env(tmp_path))


def test_with_nothing_declared_the_python3_on_path(tmp_path: Path) -> None:
    found = projectenv.find(tmp_path, _env(tmp_path))
    assert found.source == "python3 on PATH" and found.prefix is None
    assert found.environ({"PATH": "/x"}) == {"PATH": "/x"}


def test_the_environment_goes_first_on_path_and_names_itself(tmp_path: Path) -> None:
    venv = _venv(tmp_path / "v")
    found = projectenv.find(tmp_path, _env(tmp_path, VIRTUAL_ENV=str(venv)))
    env = found.environ({"PATH": "/usr/bin", "PYTHONHOME": "/nope"})
    assert env["PATH"] == f"{venv / 'bin'}:/usr/bin" and env["VIRTUAL_ENV"] == str(venv)
    assert "PYTHONHOME" not in env
