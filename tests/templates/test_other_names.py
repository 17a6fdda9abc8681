"""A template applied with OTHER names than its source's gives a project that works.

The round trip (rendering with the defaults) cannot see a name of the language caught
by a placeholder: `except {{EntityName}}Error:` renders back to `except KeyError:`.
Here the Python sample projects are rendered with other names through the real CLI and
their own tests run in a subprocess; `verify_template` checks the same for every
template (the Python compiles and keeps its built-ins)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from executor.errors import TemplateValidationError
from executor.templates import verify_template
from executor.templates.placeholders import Substitution, concepts
from executor.templates.reserved import reserved_names
from tests.conftest import run_cli
from tests.templates.helpers import create_template
from tests.templates.projects import ATTRIBUTES, KEY_STORE, PYTHON_SERVICE, write_project

PROJECTS = {"library-service": PYTHON_SERVICE, "keystore": KEY_STORE, "attrkit": ATTRIBUTES}


def _template(tmp_path: Path, files: dict[str, str], *, validate: bool = False) -> Path:
    source = write_project(tmp_path / "source", files)
    dest = tmp_path / "template"
    create_template(source, dest, validate=validate)
    return dest


@pytest.mark.parametrize("project", list(PROJECTS))
def test_rendered_with_other_names_the_project_imports_and_its_tests_pass(
    tmp_path: Path, project: str
) -> None:
    template = _template(tmp_path, PROJECTS[project])
    sets = ["--set", "ProjectName=Zeta", "--set", "EntityName=Gadget"]
    applied = run_cli("template-apply", str(template), "zeta", *sets, "--yes", cwd=tmp_path)
    assert applied.returncode == 0, applied.stderr
    assert (tmp_path / "zeta" / "zeta").is_dir()
    tests = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=tmp_path / "zeta", capture_output=True, text=True, timeout=120,
        env={"PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1"},
    )  # fmt: skip
    assert tests.returncode == 0, tests.stdout + tests.stderr
    assert " passed" in tests.stdout and "failed" not in tests.stdout


def test_names_of_python_stay_as_they_are(tmp_path: Path) -> None:
    template = _template(tmp_path, KEY_STORE)
    store = (template / "templates/project/keystore/key_store.py.template").read_text("utf-8")
    assert "class {{EntityName}}Store:" in store
    assert "        except KeyError:\n" in store  # a built-in
    assert "sorted(self._{{EntityNamePluralSnake}}.keys())" in store  # dict.keys
    assert "import keyword\n" in store and "keyword.iskeyword(" in store  # standard library
    attrs = _template(tmp_path / "attrs", ATTRIBUTES)
    text = (attrs / "templates/project/attrkit/attribute.py.template").read_text("utf-8")
    assert "class FrozenError(AttributeError):" in text
    assert "class {{EntityName}}:" in text


def test_names_of_csharp_and_typescript_stay_as_they_are() -> None:
    csharp = Substitution(concepts("notes-app", "Task"), reserved_names(["C#"]))
    text, _ = csharp.apply("public async Task<TaskItem> GetTaskAsync(Task task) { }\n", "a.cs")
    assert text == (
        "public async Task<{{EntityName}}Item> Get{{EntityName}}Async(Task "
        "{{EntityNameCamel}}) { }\n"
    )
    typescript = Substitution(concepts("task-board", "State"), reserved_names(["TypeScript"]))
    text, _ = typescript.apply("const [state, setState] = useState<State>(null);\n", "a.tsx")
    assert text == (
        "const [{{EntityNameCamel}}, set{{EntityName}}] = useState<{{EntityName}}>(null);\n"
    )


def test_validation_renders_other_names_and_fails_a_lost_builtin(tmp_path: Path) -> None:
    """A template whose Python turns `KeyError` into `{{EntityName}}Error` reproduces
    its source (the round trip passes) but not a working project: validation fails."""
    template = _template(tmp_path, KEY_STORE, validate=True)
    report = (template / "validation-report.md").read_text("utf-8")
    assert "| renders with other names: Python compiles, keeps its built-ins | pass |" in report
    path = template / "templates/project/keystore/key_store.py.template"
    text = path.read_text("utf-8")
    path.write_text(text.replace("except KeyError:", "except {{EntityName}}Error:"), "utf-8")
    with pytest.raises(TemplateValidationError) as failed:
        verify_template(template)
    assert failed.value.problems == [
        "templates/project/keystore/key_store.py.template: rendered with ProjectName=Zeta, "
        "EntityName=Gadget it no longer uses the built-in KeyError (a NameError when it runs)"
    ]


def test_validation_fails_python_that_no_longer_compiles_with_other_names(
    tmp_path: Path,
) -> None:
    """`EntityName=Class` spells `class` in snake case: a keyword where `key` was a
    parameter name. (template-apply lets a person choose that; the check reports it.)"""
    template = _template(tmp_path, KEY_STORE)
    with pytest.raises(TemplateValidationError) as failed:
        verify_template(template, other_names={"EntityName": ("Class",)})
    assert (
        "templates/project/keystore/key_store.py.template: rendered with EntityName=Class it "
        "is not valid Python (line 3: invalid syntax)"
    ) in failed.value.problems


WIDGETS = {
    "pyproject.toml": (
        '[project]\nname = "widgets"\nversion = "1.0"\n\n[project.urls]\n'
        'Source = "https://github.com/acme/widgets/"\n\n'
        '[build-system]\nrequires = ["flit_core<4"]\nbuild-backend = "flit_core.buildapi"\n\n'
        '[tool.flit.module]\nname = "widgets"\n\n[tool.coverage.run]\n'
        'source = ["widgets", "tests"]\n\n[tool.mypy]\nfiles = ["src/widgets"]\n'
    ),
    "src/widgets/__init__.py": '"""Widgets."""\n\nNAME = "widgets"\n',
    "src/widgets/py.typed": "",
    "tests/test_widgets.py": "import widgets\n\n\ndef test_name():\n    assert widgets.NAME\n",
}


def test_a_one_word_package_renamed_keeps_module_and_distribution_spellings_apart(
    tmp_path: Path,
) -> None:
    """`widgets` spells the same in every case; renamed to two words, the package folder
    (and `py.typed` in it) and the module settings are snake, the distribution and its
    links kebab. A renamed flit project built a wheel without its code."""
    template = _template(tmp_path, WIDGETS)
    applied = run_cli("template-apply", str(template), "out", "--yes", "--set",
                      "ProjectName=TokenKit", cwd=tmp_path)  # fmt: skip
    assert applied.returncode == 0, applied.stderr
    out = tmp_path / "out"
    assert (out / "src" / "token_kit" / "py.typed").is_file()
    assert not (out / "src" / "token-kit").exists()
    toml = (out / "pyproject.toml").read_text("utf-8")
    for line in ('[project]\nname = "token-kit"', "https://github.com/acme/token-kit/",
                 '[tool.flit.module]\nname = "token_kit"', 'source = ["token_kit", "tests"]',
                 'files = ["src/token_kit"]'):  # fmt: skip
        assert line in toml, line
