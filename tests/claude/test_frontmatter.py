"""The frontmatter reader accepts exactly the flat subset we write, with file:line errors."""

from __future__ import annotations

import pytest

from executor.claude import FrontmatterError, parse_frontmatter


def test_reads_plain_and_quoted_values_and_the_body() -> None:
    text = (
        "---\n"
        "name: backend-builder\n"
        'description: "Run phase 1: the backend"\n'
        "argument-hint: '[N] it''s fine'\n"
        "# a comment\n"
        "tools: Read, Write, Bash(executor:*)\n"
        "---\n"
        "\n# Body\n"
    )
    fields, body = parse_frontmatter(text, source="a.md")
    assert fields == {
        "name": "backend-builder",
        "description": "Run phase 1: the backend",
        "argument-hint": "[N] it's fine",
        "tools": "Read, Write, Bash(executor:*)",
    }
    assert body == "\n# Body\n"


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("# no frontmatter\n", 1, "expected '---' on the first line"),
        ("---\nname: x\n", 2, "not closed with '---'"),
        ("---\nname: x\njust words\n---\n", 3, "expected 'key: value', got 'just words'"),
        ("---\nname: x\nname: y\n---\n", 3, "duplicate key 'name'"),
        ("---\ndescription: Run phase 1: backend\n---\n", 2, "must not contain ': '"),
        ("---\nargument-hint: [N]\n---\n", 2, "quote this value: '[N]'"),
        ('---\ndescription: "say \\"hi\\""\n---\n', 2, "escapes and inner quotes"),
    ],
)
def test_rejects_what_yaml_could_read_differently(text: str, line: int, message: str) -> None:
    with pytest.raises(FrontmatterError) as info:
        parse_frontmatter(text, source="x/cmd.md")
    assert info.value.line == line
    assert str(info.value).startswith(f"x/cmd.md:{line}: ")
    assert message in str(info.value)
