"""The mistune seam: top-level blocks carry the right source lines."""

from __future__ import annotations

import mistune

from executor.plan.markdown import (
    LINE,
    inline_text,
    list_items,
    parse_blocks,
    read_label,
    split_lines,
)


def test_mistune_minor_version_is_the_one_the_line_stamping_was_built_for() -> None:
    assert mistune.__version__.startswith("3.1."), (
        "executor/plan/markdown.py hooks BlockParser.parse_method and BlockState."
        "add_paragraph; re-check them before moving off mistune 3.1"
    )


TEXT = """# Title

Some paragraph
over two lines
---

## Session 1: X (TDD)
- a
  - b
- [x] c

```
- not an item
```

***

Setext heading
==============
**Run tests**: `pytest`
**Expected**: FAIL
"""


def test_top_level_blocks_are_stamped_with_their_first_line() -> None:
    blocks = [(t["type"], t[LINE]) for t in parse_blocks(TEXT) if t["type"] != "blank_line"]
    assert blocks == [
        ("heading", 1),
        ("heading", 3),  # a paragraph underlined with --- is a setext heading
        ("heading", 7),
        ("list", 8),
        ("block_code", 12),
        ("thematic_break", 16),
        ("heading", 18),
        ("paragraph", 20),
    ]


def test_crlf_text_keeps_the_same_lines() -> None:
    lines = [t[LINE] for t in parse_blocks(TEXT.replace("\n", "\r\n")) if t["type"] != "blank_line"]
    assert lines == [1, 3, 7, 8, 12, 16, 18, 20]


def test_list_items_get_their_own_lines_depths_and_checkboxes() -> None:
    tokens = parse_blocks(TEXT)
    lines = TEXT.splitlines()
    i, tok = next((i, t) for i, t in enumerate(tokens) if t["type"] == "list")
    items = list(list_items(tok, lines, tokens[i + 1][LINE]))
    assert [(inline_text(it.children), it.line, it.depth, it.checked) for it in items] == [
        ("a", 8, 0, None),
        ("b", 9, 1, None),
        ("c", 10, 0, True),
    ]


def test_paragraph_lines_split_at_soft_breaks_and_labels_are_read() -> None:
    para = next(t for t in parse_blocks(TEXT) if t["type"] == "paragraph")
    first, second = split_lines(para["children"])
    run = read_label(first)
    expected = read_label(second)
    assert run is not None and run.label == "Run tests" and inline_text(run.rest) == "`pytest`"
    assert expected is not None and expected.label == "Expected"
    assert inline_text(expected.rest) == "FAIL"


def test_label_with_colon_inside_the_bold() -> None:
    para = parse_blocks("**Files to Create:** `a.py`\n")[0]
    label = read_label(split_lines(para["children"])[0])
    assert label is not None and label.label == "Files to Create"
    assert inline_text(label.rest) == "`a.py`"


def test_bold_without_colon_is_not_a_label() -> None:
    para = parse_blocks("**Important** read this\n")[0]
    assert read_label(split_lines(para["children"])[0]) is None
