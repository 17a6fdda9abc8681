"""`executor template-apply`: exit codes and exact messages, as a real subprocess (and,
for the many user-mistake cases, through the same `main()` in-process: faster)."""

from __future__ import annotations

from pathlib import Path

import pytest

from executor.cli import main
from tests.conftest import run_cli
from tests.templates.helpers import create_template, tree_bytes


@pytest.fixture
def template(python_service: Path, tmp_path: Path) -> Path:
    return Path(create_template(python_service, tmp_path / "templates" / "lib").path)


def test_apply_by_name_with_values(template: Path, tmp_path: Path) -> None:
    r = run_cli("template-apply", "lib", "shop", "--set", "ProjectName=Shop",
                "--set", "EntityName=Gadget", "--yes", cwd=tmp_path)  # fmt: skip
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == f"template-apply writes 16 files into {tmp_path / 'shop'} (0 executable):"
    assert "  shop/services/gadget_service.py" in lines
    assert lines[-1] == f"Rendered {template} into {tmp_path / 'shop'}: 16 files"
    assert (tmp_path / "shop/shop/services/gadget_service.py").is_file()


def test_apply_from_the_user_templates_folder(python_service: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    create_template(python_service, data / "plan-executor" / "templates" / "lib")
    r = run_cli("template-apply", "lib", "copy", "-y", cwd=tmp_path,
                env={"XDG_DATA_HOME": str(data)})  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert tree_bytes(tmp_path / "copy") == tree_bytes(python_service)


def test_existing_files_exit_6_and_force_overwrites(template: Path, tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "README.md").write_text("mine\n", "utf-8")
    r = run_cli("template-apply", str(template), "out", "--yes", cwd=tmp_path)
    assert r.returncode == 6
    assert r.stderr == (
        f"error: {tmp_path / 'out'}: 1 file(s) exist already (README.md); "
        "use --force to overwrite them\n"
    )
    forced = run_cli("template-apply", str(template), "out", "--force", "--yes", cwd=tmp_path)
    assert forced.returncode == 0, forced.stderr
    assert (tmp_path / "out" / "README.md").read_text("utf-8").startswith("# Library Service")


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["nope", "out"], 2, "error: template not found: nope (looked in "),
        (["lib", "out", "--set", "ProjectName"], 64, "error: --set expects NAME=VALUE, got "
         "'ProjectName'\n"),
        (["lib", "out", "--set", "Owner=x"], 64, "error: unknown placeholder 'Owner': this "
         "template declares ProjectName, "),
        (["lib", "out", "--set", "ProjectNameSnake=a/b"], 64, "error: ProjectNameSnake='a/b' "
         "does not match ^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$ (the default is 'library_service')\n"),
    ],
)  # fmt: skip
def test_user_mistakes_are_one_line_without_traceback(
    template: Path,
    tmp_path: Path,
    args: list[str],
    code: int,
    message: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["template-apply", *args]) == code
    err = capsys.readouterr().err
    assert err.startswith(message)
    assert "Traceback" not in err and len(err.splitlines()) == 1
    assert not (tmp_path / "out").exists()


def test_a_broken_template_exits_5(
    template: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (template / "manifest.json").write_text("{", "utf-8")
    assert main(["template-apply", str(template), str(tmp_path / "out")]) == 5
    err = capsys.readouterr().err
    assert err.startswith(f"error: cannot read {template / 'manifest.json'}: ")
