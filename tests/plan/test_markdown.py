"""The markdown layer: CommonMark blocks with their exact lines, the heading-section
tree, the two careful-reader repairs, and the inline helpers."""

from __future__ import annotations

import sys
import textwrap

from executor.plan.text.inline import code_spans, plain, read_label
from executor.plan.text.markdown import Block, parse, source_lines

TEXT = """# Title

Some paragraph
over two lines
---

## Session 1: X (TDD)
- a
  - b
- [x] c
  continued
1. [ ] d

```
- not an item
## not a heading
```

***

Setext heading
==============
**Run tests**: `pytest`
**Expected**: FAIL
> quoted
"""


def _shape(blocks: list[Block]) -> list[tuple[str, int, int, int, str]]:
    return [(b.kind, b.line, b.end, b.level, b.text) for b in blocks]


def test_blocks_carry_their_lines_level_and_text() -> None:
    assert _shape(parse(TEXT).blocks) == [
        ("heading", 1, 1, 1, "Title"),
        ("heading", 3, 5, 2, "Some paragraph\nover two lines"),  # `---` under text: setext
        ("heading", 7, 7, 2, "Session 1: X (TDD)"),
        ("item", 8, 9, 0, "a"),
        ("item", 9, 9, 1, "b"),
        ("item", 10, 11, 0, "c\ncontinued"),
        ("item", 12, 12, 0, "d"),
        ("code", 14, 17, 0, "- not an item\n## not a heading"),
        ("rule", 19, 19, 0, ""),
        ("heading", 21, 22, 1, "Setext heading"),
        ("paragraph", 23, 24, 0, "**Run tests**: `pytest`\n**Expected**: FAIL"),
        ("paragraph", 25, 25, 0, "quoted"),
    ]


def test_checkboxes_kiro_marks_and_what_holds_a_block() -> None:
    doc = parse("- [x] 1. Done\n  - [ ]* 1.1 Optional\n  - [-] 1.2 Going\n    detail\n- plain\n")
    items = [(b.line, b.checked, b.mark, b.star, b.item, b.top) for b in doc.blocks]
    assert items == [
        (1, True, "x", False, 0, 0),
        (2, False, " ", True, 1, 1),
        (3, False, "-", False, 1, 1),
        (5, None, "", False, 0, 0),
    ]
    assert doc.blocks[2].lines() == [(3, "1.2 Going"), (4, "detail")]


def test_an_html_comment_holding_a_heading_is_not_a_heading() -> None:
    doc = parse("<!--\n## Session 3: Fake\n-->\n\n## Session 1: Real\n")
    headings = [(b.line, b.text) for b in doc.blocks if b.kind == "heading"]
    assert headings == [(5, "Session 1: Real")]
    assert doc.blocks[0].kind == "html"


def test_an_indented_code_block_is_code_prose_and_tree_alike() -> None:
    doc = parse("Intro:\n\n    The app holds:\n    app/\n      alpha.py\n\nAfter\n")
    assert _shape(doc.blocks) == [
        ("paragraph", 1, 1, 0, "Intro:"),
        ("code", 3, 5, 0, "The app holds:\napp/\n  alpha.py"),
        ("paragraph", 7, 7, 0, "After"),
    ]


def test_a_heading_after_a_quote_line_is_a_heading_and_a_quoted_one_is_content() -> None:
    doc = parse("> Note\n## Session 2: B\n\n> ## Inside\n")
    heads = [(b.line, b.text, b.quote) for b in doc.blocks if b.kind == "heading"]
    assert heads == [(2, "Session 2: B", False), (4, "Inside", True)]
    assert [s.title for s in doc.root.children] == ["Session 2: B"]


def test_sections_nest_by_level_and_end_before_the_next_of_their_level() -> None:
    doc = parse("# A\nx\n## B\ny\n### C\nz\n## D\n- [ ] w\n")
    (a,) = doc.root.children
    assert [(s.title, s.line, s.end) for s in a.walk()] == [
        ("A", 1, 8),
        ("B", 3, 6),
        ("C", 5, 6),
        ("D", 7, 8),
    ]
    assert [b.text for b in a.children[0].all_blocks()] == ["y", "C", "z"]


def test_a_markdown_block_with_fences_inside_closes_where_its_author_closed_it() -> None:
    text = textwrap.dedent(
        """\
        **Step 1: README**

        ```markdown
        ## Install

        ```bash
        pi install x
        ```
        ```

        **Step 2: Run typecheck**

        Run: `npm run typecheck`
        """
    )
    doc = parse(text)
    assert _shape(doc.blocks) == [
        ("paragraph", 1, 1, 0, "**Step 1: README**"),
        ("code", 3, 9, 0, "## Install\n\n```bash\npi install x\n```"),
        ("paragraph", 11, 11, 0, "**Step 2: Run typecheck**"),
        ("paragraph", 13, 13, 0, "Run: `npm run typecheck`"),
    ]


def test_a_markdown_block_opening_a_bare_inner_fence_ends_before_the_next_step() -> None:
    text = "```markdown\n# Doc\n\n```\nGET /x\n```\n\n## Errors\n```\n\n**Step 2: Next**\n"
    doc = parse(text)
    assert [(b.kind, b.line) for b in doc.blocks] == [("code", 1), ("paragraph", 11)]
    # an info fence right after such a bare fence also says the block ended there
    text = "```markdown\n# Doc\n```bash\nx\n```\n```\n\n```python\ny = 1\n```\n"
    assert [(b.kind, b.line, b.end) for b in parse(text).blocks] == [
        ("code", 1, 6),
        ("code", 8, 10),
    ]


def test_a_markdown_block_without_inner_fences_stays_as_commonmark_reads_it() -> None:
    doc = parse("```markdown\n# Doc\n```\n\n## After\n")
    assert [(b.kind, b.line) for b in doc.blocks] == [("code", 1), ("heading", 5)]


def test_front_matter_is_not_a_rule_and_a_heading() -> None:
    doc = parse("---\ndescription: tasks\n---\n\n# Tasks: X\n")
    assert _shape(doc.blocks) == [("heading", 5, 5, 1, "Tasks: X")]


def test_crlf_cr_and_separators_splitlines_would_break_on_keep_the_lines() -> None:
    text = "# A\r\n\r\npara a\u2028b\x0cc\r## H\n"
    assert source_lines(text) == ["# A", "", "para a\u2028b\x0cc", "## H"]
    assert [(b.kind, b.line) for b in parse(text).blocks] == [
        ("heading", 1),
        ("paragraph", 3),
        ("heading", 4),
    ]


def test_markdown_it_is_imported_only_to_parse() -> None:
    import subprocess

    code = "import executor.plan, executor.plan.models, executor.plan.cache, sys; " \
           "print('markdown_it' in sys.modules)"  # fmt: skip
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_code_spans_and_plain_text() -> None:
    assert code_spans("Run `pytest -q` then ``a ` b``") == ["pytest -q", "a ` b"]
    assert plain("**Bold** and *em* with `code` and [link](http://x)") == (
        "Bold and em with `code` and link"
    )
    assert plain("snake_case_name and __init__.py stay") == "snake_case_name and __init__.py stay"
    assert plain("`code`", ticks=False) == "code"
    assert plain(r"a \* b &amp; c") == "a * b & c"


def test_bold_labels() -> None:
    label = read_label("**Run tests**: `pytest`")
    assert label is not None and (label.label, label.rest) == ("Run tests", "`pytest`")
    label = read_label("**Files:**")
    assert label is not None and (label.label, label.rest) == ("Files", "")
    assert read_label("**Bold** without colon") is None
    assert read_label("plain: text") is None
