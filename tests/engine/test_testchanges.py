"""How a change to a test is judged (executor.workflows.tdd.trust.testchanges): by what changed.

Each weakening docs/engine.md names has its example here; so do the honest changes seen in
real history (a case added to a parametrisation, an expected value updated, an import or a
docstring changed, assertions folded into a loop), which are never weakenings.
"""

from __future__ import annotations

import textwrap

import pytest

from executor.workflows.tdd.trust.testchanges import Judged, definitions, judge


def _judge(
    before: str, after: str, *, after_red: bool = False, failed: bool = False
) -> list[Judged]:
    old = definitions("tests/test_x.py", textwrap.dedent(before).encode())
    new = definitions("tests/test_x.py", textwrap.dedent(after).encode())
    keys = sorted(k for k in set(old) | set(new) if repr(old.get(k)) != repr(new.get(k)))
    keys = [k for k in keys if _dump(old.get(k)) != _dump(new.get(k))]
    failing = frozenset(keys) if failed else frozenset()
    return judge(old, new, keys, after_red=after_red, failed_in_red=failing)


def _dump(node: object) -> str:
    import ast

    if isinstance(node, list):
        return "".join(ast.dump(n) for n in node)
    return ast.dump(node) if isinstance(node, ast.AST) else repr(node)


def _why(before: str, after: str, **kw: bool) -> dict[str, list[str]]:
    fails = kw.pop("fails_now", False)
    out = {}
    for j in _judge(before, after, **kw):
        why = j.weakenings(fails_now=fails)
        if why:
            out[j.key.split("::", 1)[1]] = why
    return out


BASE = """
import pytest
from lib import add

def test_add():
    assert add(1, 2) == 3
    assert add(0, 0) == 0

@pytest.mark.parametrize("a,b,c", [(1, 1, 2), (2, 2, 4)])
def test_cases(a, b, c):
    assert add(a, b) == c
"""


# -- honest changes seen in real history: never a weakening --------------------------------


@pytest.mark.parametrize(
    "after",
    [
        # a case added to a parametrisation (tabulate, more-itertools)
        BASE.replace("(2, 2, 4)]", "(2, 2, 4), (3, 3, 6)]"),
        # an expected value updated with the behaviour
        BASE.replace("assert add(0, 0) == 0", "assert add(0, 0) == 1"),
        # imports added (more-itertools `c11195abbc`)
        "import random\n" + BASE,
        # a new test beside the old ones
        BASE + "\ndef test_new():\n    assert add(2, 2) == 4\n",
        # an assertion added
        BASE.replace("== 0\n", "== 0\n    assert add(1, 0) == 1\n"),
    ],
)
def test_honest_changes_in_red_are_not_weakenings(after: str) -> None:
    assert _why(BASE, after) == {}


def test_a_class_docstring_removed_is_no_weakening() -> None:
    before = 'class BucketTests:\n    """Tests."""\n    def test_basic(self):\n        assert 1\n'
    after = "class BucketTests:\n    def test_basic(self):\n        assert 1\n"
    assert _why(before, after) == {}


def test_assertions_folded_into_a_loop_that_now_fails_are_stronger() -> None:
    """more-itertools `e08fff0833`: two assertRaises became one assertRaisesRegex in a
    loop over both cases, which fails in RED (the message is new behaviour)."""
    before = (
        "class T:\n    def test_arg_count(self):\n"
        "        self.assertRaises(TypeError, f)\n        self.assertRaises(TypeError, g)\n"
    )
    after = (
        "class T:\n    def test_arg_count(self):\n        for h in (f, g):\n"
        "            with self.assertRaisesRegex(TypeError, 'x'):\n                h()\n"
    )
    assert _why(before, after, fails_now=True) == {}
    assert _why(before, after, fails_now=False) == {"T::test_arg_count": ["fewer-assertions"]}


# -- weakenings: each kind docs/engine.md names ----------------------------------------------


@pytest.mark.parametrize(
    ("after", "kind"),
    [
        (BASE.replace("def test_add", "@pytest.mark.skip\ndef test_add"), "skip"),
        (BASE.replace("def test_add", "@pytest.mark.xfail\ndef test_add"), "skip"),
        (
            BASE.replace("def test_add():\n", "def test_add():\n    pytest.skip('later')\n"),
            "runtime-skip",
        ),
        (BASE.replace("def test_add():\n", "def test_add():\n    return\n"), "emptied"),
        (BASE.replace("    assert add(0, 0) == 0\n", ""), "fewer-assertions"),
        (BASE.replace(", (2, 2, 4)]", "]"), "fewer-cases"),
    ],
)
def test_weakenings_of_a_test(after: str, kind: str) -> None:
    found = _why(BASE, after)
    assert any(kind in why for why in found.values()), found


def test_a_skip_always_weakens_even_when_the_test_fails() -> None:
    after = BASE.replace("def test_add", "@pytest.mark.skip\ndef test_add")
    assert _why(BASE, after, fails_now=True) == {"test_add": ["skip"]}


def test_a_test_deleted_or_renamed_away_is_gone() -> None:
    assert _why(BASE, BASE.replace("def test_add()", "def check_add()")) == {"test_add": ["gone"]}
    deleted = BASE.replace(
        "def test_add():\n    assert add(1, 2) == 3\n    assert add(0, 0) == 0\n", ""
    )
    assert _why(BASE, deleted) == {"test_add": ["gone"]}


@pytest.mark.parametrize(
    "setting",
    [
        "__test__ = False",
        "pytestmark = pytest.mark.skip",
        "pytest.skip('x', allow_module_level=True)",
    ],
)
def test_a_module_switched_off_for_collection(setting: str) -> None:
    assert _why(BASE, BASE + "\n" + setting + "\n") == {"<module>": ["collection"]}


@pytest.mark.parametrize(
    "setting",
    [
        "__test__ = False",
        "pytestmark = pytest.mark.skip",
        "if sys.version_info < (3, 8):\n    pytest.skip('old', allow_module_level=True)",
        "collect_ignore = ['test_old.py']",
    ],
)
def test_a_module_switched_on_again_is_no_weakening(setting: str) -> None:
    """Taken away, what turned tests off makes the suite run more (a module-level skip
    dropped with an old Python)."""
    assert _why(BASE + "\n" + setting + "\n", BASE) == {}


def test_a_plugin_taken_away_is_a_change_of_collection() -> None:
    before = BASE + "\npytest_plugins = ['tests.timeouts']\n"
    assert _why(before, BASE) == {"<module>": ["collection"]}


def test_a_name_the_tests_use_taken_from_a_fake_is_rebound() -> None:
    after = BASE.replace("from lib import add", "from tests.fakes import add")
    assert _why(BASE, after) == {"<module>": ["rebound"]}


def test_a_test_class_that_loses_its_base_may_not_be_collected() -> None:
    before = "class Tests(TestCase):\n    def test_a(self):\n        assert 1\n"
    after = "class Tests:\n    def test_a(self):\n        assert 1\n"
    assert _why(before, after) == {"Tests": ["base-removed"]}
    # a helper class that drops `object` is no test class
    assert _why("class Tmp(object):\n    x = 1\n", "class Tmp:\n    x = 1\n") == {}


# -- after RED: the session's tests are fixed ------------------------------------------------


def test_after_red_a_test_that_failed_may_not_change_at_all() -> None:
    after = BASE.replace("assert add(0, 0) == 0", "assert add(0, 0) == add(0, 0)")
    assert _why(BASE, after, after_red=True, failed=True) == {"test_add": ["changed-after-red"]}


def test_after_red_a_fixture_or_helper_may_not_change() -> None:
    before = BASE + "\n@pytest.fixture\ndef value():\n    return 3\n"
    after = before.replace("return 3", "return None")
    assert _why(before, after, after_red=True) == {"value": ["helper-after-red"]}
    assert _why(before, after) == {}  # in RED it is the session's own test code


def test_after_red_an_import_removed_is_a_weakening_and_one_added_is_not() -> None:
    assert _why(BASE, BASE.replace("from lib import add\n", ""), after_red=True)["<module>"] == [
        "import-after-red"
    ]
    assert _why(BASE, "import os\n" + BASE, after_red=True) == {}


def test_text_test_files_are_judged_by_their_expectations() -> None:
    old = definitions("web/a.test.js", b"test('a', () => { expect(f()).toBe(1) })\n")
    skipped = definitions("web/a.test.js", b"test.skip('a', () => { expect(f()).toBe(1) })\n")
    grown = definitions(
        "web/a.test.js",
        b"test('a', () => { expect(f()).toBe(1) })\ntest('b', () => { expect(g()).toBe(2) })\n",
    )
    key = ["web/a.test.js::<file>"]
    assert judge(old, skipped, key, after_red=False)[0].weakenings(False) == ["skip"]
    assert judge(old, grown, key, after_red=False)[0].weakenings(False) == []
    assert judge(old, grown, key, after_red=True)[0].weakenings(False) == ["changed-file"]


def test_a_test_renamed_with_the_same_body_is_no_loss() -> None:
    """tabulate `9a0e89b136`: `test_py27orlater_list_of_ordereddicts` became
    `test_list_of_ordereddicts`, its body unchanged."""
    renamed = BASE.replace("def test_add():", "def test_add_numbers():")
    judged = {j.key.split("::", 1)[1]: j for j in _judge(BASE, renamed)}
    assert judged["test_add"].kind == "renamed" and judged["test_add"].weakenings(False) == []


@pytest.mark.parametrize(
    ("path", "test"),
    [
        ("tests/test_x.py", True), ("pkg/x_test.py", True), ("test/common.py", True),
        ("web/src/cart.test.ts", True), ("web/src/cart.spec.jsx", True),
        ("web/__tests__/cart.js", True), ("a/b/tests/helpers.py", True),
        ("django/test/client.py", False), ("web/src/cart.ts", False), ("pkg/tester.py", False),
    ],
)  # fmt: skip
def test_test_files_by_the_runners_conventions(path: str, test: bool) -> None:
    """A JavaScript session's tests are its own too: without them every GREEN ran the
    session's command beside a suite that collects it."""
    from executor.workflows.tdd.trust.testfiles import is_test_file

    assert is_test_file(path) is test


@pytest.mark.parametrize(
    ("new", "lives"),
    [
        # moved and renamed with the code it tests (cachetools `86352aed2b`)
        ("def test_typed(self):\n    c = Cached()\n    self.assertEqual(c.get_typed(0), 1)\n"
         "    assert Cached.get_typed(1.0) == 3\n", True),
        ("def test_typed(self):\n    self.assertEqual(c.get_typed(0), 1)\n", False),
        ("def test_typed(self):\n    self.assertEqual(c.get_typed(0), 2)\n"
         "    assert Cached.get_typed(1.0) == 3\n", False),
    ],
    ids=["same-assertions", "one-fewer", "another-value"],
)  # fmt: skip
def test_a_deleted_tests_assertions_live_on_in_a_test_with_the_same_ones(
    new: str, lives: bool
) -> None:
    from executor.workflows.tdd.trust.testchanges import lives_on

    old = (
        "def test_typedmethod(self):\n    cached = Cached(None)\n"
        "    self.assertEqual(cached.get_typedclassmethod(0), 1)\n"
        "    assert Cached.get_typedclassmethod(1.0) == 3\n"
    )
    before = definitions("tests/test_x.py", old.encode())["tests/test_x.py::test_typedmethod"]
    after = definitions("tests/test_y.py", new.encode())["tests/test_y.py::test_typed"]
    assert lives_on(before, after) is lives
    empty = definitions("tests/test_z.py", b"def test_z():\n    f()\n")["tests/test_z.py::test_z"]
    assert not lives_on(empty, empty)  # no assertion lives on anywhere
