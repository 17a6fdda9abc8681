"""The markdown scanner: every block with its exact source line; inline helpers."""

from __future__ import annotations

from executor.plan.markdown import code_spans, plain, read_label, scan

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


def _shape(text: str) -> list[tuple[str, int, int, str]]:
    return [(b.kind, b.line, b.level, b.text) for b in scan(text)]


def test_blocks_carry_their_first_line_level_and_text() -> None:
    assert _shape(TEXT) == [
        ("heading", 1, 1, "Title"),
        ("text", 3, 0, "Some paragraph"),
        ("heading", 4, 2, "over two lines"),  # a line underlined with --- is a setext heading
        ("heading", 7, 2, "Session 1: X (TDD)"),
        ("item", 8, 0, "a"),
        ("item", 9, 1, "b"),
        ("item", 10, 0, "c continued"),
        ("item", 12, 0, "d"),
        ("code", 14, 0, "- not an item\n## not a heading"),
        ("rule", 19, 0, "***"),
        ("heading", 21, 1, "Setext heading"),
        ("text", 23, 0, "**Run tests**: `pytest`"),
        ("text", 24, 0, "**Expected**: FAIL"),
        ("quote", 25, 0, "quoted"),
    ]


def test_checkboxes_and_item_ends() -> None:
    items = [(b.line, b.end, b.checked) for b in scan(TEXT) if b.kind == "item"]
    assert items == [(8, 8, None), (9, 9, None), (10, 11, True), (12, 12, False)]
    upper = scan("- [X] done\n- [ ]\n- [y] no box\n")
    assert [(b.checked, b.text) for b in upper] == [
        (True, "done"),
        (False, ""),
        (None, "[y] no box"),
    ]


def test_crlf_and_cr_text_keep_the_same_lines() -> None:
    assert _shape(TEXT.replace("\n", "\r\n")) == _shape(TEXT)
    assert _shape(TEXT.replace("\n", "\r")) == _shape(TEXT)


def test_fences_end_where_they_close_and_unclosed_fences_run_to_the_end() -> None:
    blocks = scan("~~~mermaid\nS1 --> S2\n~~~\n````\n```\ninner\n````\n```\nopen\n")
    assert [(b.kind, b.line, b.end, b.info, b.text) for b in blocks] == [
        ("code", 1, 3, "mermaid", "S1 --> S2"),
        ("code", 4, 7, "", "```\ninner"),
        ("code", 8, 9, "", "open"),
    ]


def test_blocks_inside_a_list_item_name_their_item() -> None:
    text = (
        "- [ ] **Step 1: Write**\n\n  Indented paragraph\n\n  ```py\n  x = 1\n  ```\n\nTop again\n"
    )
    blocks = scan(text)
    assert [(b.kind, b.line, b.item) for b in blocks] == [
        ("item", 1, 0),
        ("text", 3, 1),
        ("code", 5, 1),
        ("text", 9, 0),
    ]
    assert blocks[2].text == "x = 1"


def test_item_markers_need_a_space_and_bold_is_not_a_bullet() -> None:
    kinds = [b.kind for b in scan("**Bold**: x\n-not\n1.5 hours\n* star\n+ plus\n2) two\n")]
    assert kinds == ["text", "text", "text", "item", "item", "item"]


def test_plain_text_drops_marks_and_keeps_code_spans() -> None:
    assert plain("**Create** the `ledger_x` _package_ [docs](http://x) a\\*b &gt; c") == (
        "Create the `ledger_x` package docs a*b > c"
    )
    assert plain("keep `**this**` and init_db_now", ticks=False) == "keep **this** and init_db_now"
    assert code_spans("run `pytest -q` then ``a ` b``") == ["pytest -q", "a ` b"]


def test_labels_with_the_colon_outside_or_inside_the_bold() -> None:
    run = read_label("**Run tests**: `pytest`")
    assert run is not None and (run.label, run.rest) == ("Run tests", "`pytest`")
    files = read_label("**Files to Create:** `a.py`")
    assert files is not None and (files.label, files.rest) == ("Files to Create", "`a.py`")
    empty = read_label("**Files:**")
    assert empty is not None and (empty.label, empty.rest) == ("Files", "")
    assert read_label("**Important** read this") is None
    assert read_label("plain: text") is None
