"""Words and cases, the template syntax, and source -> template substitution."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from executor.templates.naming import pluralize, singularize, spell, split_words, style_of
from executor.templates.placeholders import Substitution, concepts, declare, derive
from executor.templates.render import ESCAPED_BRACES, placeholders_in, render, stray_braces


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("TodoAPIService", ["todo", "api", "service"]),
        ("library-service", ["library", "service"]),
        ("library_service", ["library", "service"]),
        ("NotesApp", ["notes", "app"]),
        ("useTasks", ["use", "tasks"]),
        ("api2Client", ["api2", "client"]),
    ],
)
def test_split_words(name: str, words: list[str]) -> None:
    assert split_words(name) == words


def test_every_case_spelling() -> None:
    words = ["library", "service"]
    assert {case: spell(words, case) for case in ("pascal", "camel", "snake", "kebab")} == {
        "pascal": "LibraryService",
        "camel": "libraryService",
        "snake": "library_service",
        "kebab": "library-service",
    }
    assert spell(words, "upper") == "LIBRARY_SERVICE"
    assert spell(words, "lower") == "libraryservice"
    assert spell(words, "title") == "Library Service"


@pytest.mark.parametrize(
    ("one", "many"), [("Book", "Books"), ("Category", "Categories"), ("Box", "Boxes"),
                      ("day", "days"), ("Match", "Matches")],
)  # fmt: skip
def test_plural_and_back(one: str, many: str) -> None:
    assert pluralize(one) == many
    assert singularize(many) == one


@pytest.mark.parametrize(
    ("name", "style"),
    [("book_id", "snake_case"), ("BookService", "PascalCase"), ("createBook", "camelCase"),
     ("MAX_SIZE", "UPPER_SNAKE_CASE"), ("task-board", "kebab-case"), ("book", "lowercase"),
     ("_noteService", "camelCase"), ("1abc", None)],
)  # fmt: skip
def test_style_of(name: str, style: str | None) -> None:
    assert style_of(name) == style


def test_render_substitutes_and_unescapes() -> None:
    text = "{{A}} {{ '{{' }}x}} {{{A}}"
    assert render(text, {"A": "1"}) == "1 {{x}} {1"
    assert placeholders_in(text) == ["A"]
    assert stray_braces(text) == []


def test_render_names_an_undeclared_placeholder() -> None:
    with pytest.raises(KeyError, match="B"):
        render("{{B}}", {"A": "1"})


def test_stray_braces_are_reported_by_line() -> None:
    assert stray_braces("ok\n{{ name }}\n{{A}}") == [2]


def test_substitution_chooses_the_case_from_the_neighbours() -> None:
    subst = Substitution(concepts("library-service", "Book"))
    source = (
        "from library_service.models.book import Book\n"
        "def get_book(book_id): return getBook(IBook, BOOK_ID, 'books', Facebook)\n"
    )
    text, used = subst.apply(source, "library_service/x.py")
    assert text == (
        "from {{ProjectNameSnake}}.models.{{EntityNameSnake}} import {{EntityName}}\n"
        "def get_{{EntityNameSnake}}({{EntityNameSnake}}_id): return "
        "get{{EntityName}}(I{{EntityName}}, {{EntityNameUpper}}_ID, "
        "'{{EntityNamePluralSnake}}', Facebook)\n"
    )
    assert "ProjectNameSnake" in used
    ts_text, _ = subst.apply("const book = bookStore; // book-shelf", "src/a.ts")
    assert ts_text == (
        "const {{EntityNameCamel}} = {{EntityNameCamel}}Store; // {{EntityNameKebab}}-shelf"
    )


def test_declared_placeholders_and_derivation() -> None:
    subst = Substitution(concepts("library-service", "Category"))
    declared = declare(subst, {"EntityNamePluralSnake", "ProjectNameKebab"})
    assert list(declared) == [
        "ProjectName", "ProjectNameKebab", "EntityName", "EntityNamePlural",
        "EntityNamePluralSnake",
    ]  # fmt: skip
    plural_snake = declared["EntityNamePluralSnake"]
    assert (plural_snake.default, plural_snake.derived_from, plural_snake.case) == (
        "categories", "EntityNamePlural", "snake",
    )  # fmt: skip
    assert declared["ProjectName"].required and not plural_snake.required
    assert derive(declared["EntityNamePlural"], "ShoppingItem") == "ShoppingItems"
    assert derive(declared["ProjectNameKebab"], "InventoryHub") == "inventory-hub"


def test_entity_equal_to_the_project_name_is_not_a_second_concept() -> None:
    assert [c.base for c in concepts("books", "Book")] == ["ProjectName"]


SUBST = Substitution(concepts("library-service", "Book"))
names = st.sampled_from(["Book", "book", "BOOK", "books", "Books", "library_service",
                         "LibraryService", "library-service", "Library Service"])  # fmt: skip
noise = st.text(alphabet="{}_- \n'aIbB0", max_size=6)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(names, noise), max_size=25))
def test_round_trip_holds_for_any_text(parts: list[str]) -> None:
    """Rendering a template with the defaults gives back the source, whatever it holds:
    braces next to names, escapes, partial words."""
    source = "".join(parts)
    for path in ("a.py", "a.ts", "a.md"):
        text, used = SUBST.apply(source, path)
        declared = declare(SUBST, set(used))
        defaults = {name: p.default for name, p in declared.items()}
        assert render(text, defaults) == source
        assert stray_braces(text) == []
        assert text.count(ESCAPED_BRACES) >= source.count("{{")


def test_names_start_with_a_letter() -> None:
    assert [c.words for c in concepts("2048-game", "2Model")] == [
        ("game",), ("model",), ("models",),
    ]  # fmt: skip
    assert concepts("2048", None)[0].words == ("project",)
