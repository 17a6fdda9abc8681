"""The README keeps its promises: the two commands first, and the real exit-code table."""

from __future__ import annotations

import re

from executor.exitcodes import table_markdown
from tests.conftest import REPO_ROOT


def test_readme_starts_with_demo_and_test_commands() -> None:
    text = (REPO_ROOT / "README.md").read_text("utf-8")
    blocks = re.findall(r"```bash\n(.*?)\n```", text, flags=re.S)
    assert blocks[0].endswith("pip install . && executor demo")
    assert blocks[1].endswith('pip install ".[test]" && python -m pytest')
    ci = (REPO_ROOT / ".ci" / "run").read_text("utf-8")
    assert 'pip install --quiet ".[test]"' in ci and "python -m pytest" in ci


def test_readme_exit_code_table_is_the_code_table() -> None:
    assert table_markdown() in (REPO_ROOT / "README.md").read_text("utf-8")
