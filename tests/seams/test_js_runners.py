"""run_tests with the real JavaScript runners: node --test, vitest and jest.

node is on the machine; vitest and jest are installed from the npm registry once into a
cache folder shared by test sessions (keyed by their versions, guarded by a lock so
parallel workers install once). Without npm or the registry these tests are skipped.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from executor.testrun import run_tests
from executor.testsummary import Said, said_by

VERSIONS = {"vitest": "3.2.7", "jest": "30.5.2"}
CACHE = Path(tempfile.gettempdir()) / ("executor-js-runners-" + "-".join(VERSIONS.values()))

ADD_TEST_ESM = """import { describe, test, expect } from 'vitest';
import { add } from '../src/add.js';
describe('add', () => { test('adds', () => expect(add(1, 2)).toBe(3)); });
"""
ADD_TEST_CJS = """const { add } = require('../src/add.js');
describe('add', () => { test('adds', () => expect(add(1, 2)).toBe(3)); });
"""
NODE_TEST = """const test = require('node:test');
const assert = require('node:assert');
const { add } = require('../src/add.js');
test.describe('add', () => { test.it('adds', () => assert.strictEqual(add(1, 2), 3)); });
"""
OTHER_TEST = "test('other', () => expect(1).toBe(1));\n"


@contextlib.contextmanager
def _lock(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@pytest.fixture(scope="session")
def node_modules() -> Path:
    """node_modules holding vitest and jest (installed once, then reused)."""
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        pytest.skip("npm/node are not installed")
    done = CACHE / "installed"
    with _lock(CACHE.with_suffix(".lock")):
        if not done.exists():
            CACHE.mkdir(parents=True, exist_ok=True)
            specs = [f"{name}@{version}" for name, version in VERSIONS.items()]
            proc = subprocess.run(
                [
                    npm,
                    "install",
                    "--no-audit",
                    "--no-fund",
                    "--loglevel=error",
                    "--prefix",
                    str(CACHE),
                    *specs,
                ],
                capture_output=True,
                text=True,
                timeout=300,
                env={**os.environ, "npm_config_update_notifier": "false"},
            )
            if proc.returncode != 0:
                pytest.skip(
                    f"cannot install {', '.join(specs)} from the npm registry: "
                    f"{proc.stderr.strip().splitlines()[-1:]}"
                )
            done.write_text("ok\n", encoding="utf-8")
    return CACHE / "node_modules"


def _project(tmp_path: Path, files: dict[str, str], modules: Path | None = None) -> Path:
    root = tmp_path / "proj"
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    if modules is not None:
        (root / "node_modules").symlink_to(modules, target_is_directory=True)
    return root


def test_node_test_red_then_green_with_cases(tmp_path: Path) -> None:
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    root = _project(tmp_path, {"tests/add.test.js": NODE_TEST})
    red = run_tests("node --test tests/add.test.js", cwd=root)
    assert (red.runner, red.structured, red.verdict) == ("node", True, "red")
    assert red.collection_error and red.errors == 1
    assert [(c.id, c.outcome, c.file) for c in red.cases] == [
        ("tests/add.test.js", "error", "tests/add.test.js")
    ]
    (root / "src").mkdir()
    (root / "src" / "add.js").write_text("exports.add = (a, b) => a + b;\n", encoding="utf-8")
    green = run_tests("node --test tests/add.test.js", cwd=root)
    assert green.verdict == "green", green.output_tail
    assert [(c.id, c.outcome, c.file) for c in green.cases] == [
        ("tests/add.test.js::add > adds", "passed", "tests/add.test.js")
    ]
    assert "✔ adds" in green.output_tail  # the spec reporter still writes the console
    assert green.summary() == "0 failed, 1 passed"
    assert red.disagreement is None and green.disagreement is None
    assert said_by("node", red.output_tail) == Said(passed=0, failing=1)


SHOP_TEST = """const { test, describe, it } = require('node:test');
const assert = require('node:assert');
test('adds the prices', () => assert.strictEqual(1 + 2, 3));
describe('a cart', () => {
  describe('when empty', () => {
    it('is zero', () => assert.strictEqual(0, 0));
    it('has a total', () => assert.strictEqual(1, 2));
  });
  it.skip('ships abroad', () => {});
  it.todo('takes coupons', () => { throw new Error('not yet'); });
});
"""
PRICES_TEST = """const { test } = require('node:test');
test('adds the prices', () => { throw new Error('two\\nlines'); });
"""


def test_node_test_names_each_case_by_its_file(tmp_path: Path) -> None:
    """The whole suite's cases name their files, nested suites, a skipped and a todo
    test, the same name in two files, and a file that cannot load (with its error)."""
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    files = {
        "test/shop.test.js": SHOP_TEST,
        "test/more/prices.test.js": PRICES_TEST,
        "test/broken.test.js": "require('./missing');\n",
    }
    root = _project(tmp_path, files)
    run = run_tests("node --test", cwd=root)
    assert [(c.id, c.outcome, c.file, c.message) for c in run.cases] == [
        ("test/broken.test.js", "error", "test/broken.test.js",
         "Error: Cannot find module './missing'"),
        ("test/more/prices.test.js::adds the prices", "failed", "test/more/prices.test.js",
         "two lines"),
        ("test/shop.test.js::adds the prices", "passed", "test/shop.test.js", ""),
        ("test/shop.test.js::a cart > when empty > is zero", "passed", "test/shop.test.js", ""),
        ("test/shop.test.js::a cart > when empty > has a total", "failed", "test/shop.test.js",
         "Expected values to be strictly equal: 1 !== 2"),
        ("test/shop.test.js::a cart > ships abroad", "skipped", "test/shop.test.js", ""),
        # a todo test that fails fails no run: skipped, as node counts it
        ("test/shop.test.js::a cart > takes coupons", "skipped", "test/shop.test.js", "not yet"),
    ]  # fmt: skip
    assert (run.verdict, run.passed, run.failed, run.errors, run.skipped) == ("red", 2, 2, 1, 2)
    assert run.collection_error and run.disagreement is None
    assert "MaxListenersExceededWarning" not in run.output_tail
    assert "✖ failing tests:" in run.output_tail  # the spec reporter still writes the console
    assert said_by("node", run.output_tail) == Said(passed=2, failing=3)


def test_vitest_red_then_green_with_files_per_case(tmp_path: Path, node_modules: Path) -> None:
    files = {
        "package.json": '{"type": "module"}\n',
        "tests/add.test.js": ADD_TEST_ESM,
        "tests/other.test.js": "import { test, expect } from 'vitest';\n" + OTHER_TEST,
    }
    root = _project(tmp_path, files, node_modules)
    red = run_tests("node_modules/.bin/vitest tests/add.test.js", cwd=root)
    assert (red.runner, red.verdict, red.collection_error) == ("vitest", "red", True)
    assert "Cannot find module '../src/add.js'" in red.cases[0].message
    (root / "src").mkdir()
    (root / "src" / "add.js").write_text("export const add = (a, b) => a + b;\n", encoding="utf-8")
    green = run_tests("node_modules/.bin/vitest", cwd=root)
    assert green.verdict == "green", green.output_tail
    assert sorted((c.id, c.file) for c in green.cases) == [
        ("tests/add.test.js::add > adds", "tests/add.test.js"),
        ("tests/other.test.js::other", "tests/other.test.js"),
    ]
    empty = run_tests("node_modules/.bin/vitest run tests/none", cwd=root)
    assert empty.verdict == "empty"
    assert red.disagreement is None and green.disagreement is None
    assert said_by("vitest", green.output_tail) == Said(passed=2, failing=0)


def test_jest_red_then_green_with_files_per_case(tmp_path: Path, node_modules: Path) -> None:
    files = {
        "package.json": '{"name": "proj"}\n',
        "tests/add.test.js": ADD_TEST_CJS,
        "tests/other.test.js": OTHER_TEST + "test('broken', () => expect(1).toBe(2));\n",
    }
    root = _project(tmp_path, files, node_modules)
    red = run_tests("node_modules/.bin/jest", cwd=root)
    assert (red.runner, red.verdict, red.collection_error) == ("jest", "red", True)
    by_id = {c.id: (c.outcome, c.file) for c in red.cases}
    assert by_id == {
        "tests/add.test.js": ("error", "tests/add.test.js"),
        "tests/other.test.js::other": ("passed", "tests/other.test.js"),
        "tests/other.test.js::broken": ("failed", "tests/other.test.js"),
    }
    assert red.collection_message() == "Cannot find module '../src/add.js' from 'tests/add.test.js'"
    (root / "src").mkdir()
    (root / "src" / "add.js").write_text("exports.add = (a, b) => a + b;\n", encoding="utf-8")
    green = run_tests("node_modules/.bin/jest tests/add.test.js", cwd=root)
    assert green.verdict == "green", green.output_tail
    assert [(c.id, c.file) for c in green.cases] == [
        ("tests/add.test.js::add adds", "tests/add.test.js")
    ]
    assert red.disagreement is None and green.disagreement is None
    assert said_by("jest", red.output_tail) == Said(passed=1, failing=1)
