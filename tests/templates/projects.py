"""Small real codebases written into tmp_path: a Python web service, a React app, a C#
MVVM app. Each is a dict {relative path: content} so tests can also tweak one file."""

from __future__ import annotations

from pathlib import Path

PYTHON_SERVICE: dict[str, str] = {
    "pyproject.toml": """\
[project]
name = "library-service"
version = "0.1.0"
description = "Library Service: a small HTTP API for books"
requires-python = ">=3.10"
dependencies = []

[project.optional-dependencies]
test = ["pytest>=8"]

[tool.pytest.ini_options]
pythonpath = ["."]
testpaths = ["tests"]

[tool.ruff]
line-length = 88
""",
    "requirements.txt": "pytest>=8\n",
    "README.md": """\
# Library Service

An HTTP API to manage books: `GET /books`, `POST /books`, `GET /books/{id}`,
`PUT /books/{id}`, `DELETE /books/{id}`.

Run the tests with `python -m pytest`. Templates in docs use {{ braces }} literally.
""",
    "library_service/__init__.py": 'LIBRARY_SERVICE_VERSION = "0.1.0"\n',
    "library_service/app.py": """\
\"\"\"WSGI entry point of the library_service API.\"\"\"

import json

from library_service.repositories.book_repository import BookRepository
from library_service.routes.books import BookRoutes
from library_service.services.book_service import BookService


def create_app():
    routes = BookRoutes(BookService(BookRepository()))

    def app(environ, start_response):
        size = int(environ.get("CONTENT_LENGTH") or 0)
        body = json.loads(environ["wsgi.input"].read(size) or b"null") if size else None
        status, payload = routes.handle(environ["REQUEST_METHOD"], environ["PATH_INFO"], body)
        data = json.dumps(payload).encode()
        start_response(f"{status} OK", [("Content-Type", "application/json")])
        return [data]

    return app
""",
    "library_service/models/__init__.py": "",
    "library_service/models/book.py": """\
from dataclasses import asdict, dataclass


@dataclass
class Book:
    id: int
    title: str
    author: str

    def to_dict(self) -> dict:
        return asdict(self)
""",
    "library_service/repositories/__init__.py": "",
    "library_service/repositories/book_repository.py": """\
from library_service.models.book import Book


class BookRepository:
    \"\"\"Keeps books in memory, by id.\"\"\"

    def __init__(self) -> None:
        self._books: dict[int, Book] = {}
        self._next_id = 1

    def add(self, title: str, author: str) -> Book:
        book = Book(id=self._next_id, title=title, author=author)
        self._books[book.id] = book
        self._next_id += 1
        return book

    def get(self, book_id: int) -> Book | None:
        return self._books.get(book_id)

    def list(self) -> list[Book]:
        return list(self._books.values())

    def update(self, book: Book) -> None:
        self._books[book.id] = book

    def delete(self, book_id: int) -> bool:
        return self._books.pop(book_id, None) is not None
""",
    "library_service/services/__init__.py": "",
    "library_service/services/book_service.py": """\
from library_service.models.book import Book
from library_service.repositories.book_repository import BookRepository


class BookNotFound(Exception):
    pass


class BookService:
    def __init__(self, repository: BookRepository) -> None:
        self.repository = repository

    def create_book(self, title: str, author: str) -> Book:
        if not title.strip():
            raise ValueError("a book needs a title")
        return self.repository.add(title.strip(), author.strip())

    def get_book(self, book_id: int) -> Book:
        book = self.repository.get(book_id)
        if book is None:
            raise BookNotFound(book_id)
        return book

    def list_books(self) -> list[Book]:
        return self.repository.list()

    def update_book(self, book_id: int, title: str) -> Book:
        book = self.get_book(book_id)
        book.title = title
        self.repository.update(book)
        return book

    def delete_book(self, book_id: int) -> None:
        if not self.repository.delete(book_id):
            raise BookNotFound(book_id)
""",
    "library_service/routes/__init__.py": "",
    "library_service/routes/books.py": """\
from library_service.services.book_service import BookNotFound, BookService

PREFIX = "/books"


class BookRoutes:
    def __init__(self, service: BookService) -> None:
        self.service = service

    def handle(self, method: str, path: str, body: dict | None) -> tuple[int, object]:
        if path == PREFIX and method == "GET":
            return 200, [b.to_dict() for b in self.service.list_books()]
        if path == PREFIX and method == "POST":
            book = self.service.create_book(body["title"], body.get("author", ""))
            return 201, book.to_dict()
        book_id = int(path.rsplit("/", 1)[-1])
        try:
            if method == "GET":
                return 200, self.service.get_book(book_id).to_dict()
            if method == "PUT":
                return 200, self.service.update_book(book_id, body["title"]).to_dict()
            if method == "DELETE":
                self.service.delete_book(book_id)
                return 204, None
        except BookNotFound:
            return 404, {"error": f"no book {book_id}"}
        return 405, {"error": "method not allowed"}
""",
    "tests/conftest.py": """\
import pytest

from library_service.repositories.book_repository import BookRepository
from library_service.services.book_service import BookService


@pytest.fixture
def service() -> BookService:
    return BookService(BookRepository())
""",
    "tests/test_book_service.py": """\
import pytest

from library_service.services.book_service import BookNotFound


def test_create_and_get_book(service):
    book = service.create_book("Dune", "Frank Herbert")
    assert service.get_book(book.id) == book


def test_delete_book(service):
    book = service.create_book("Emma", "Jane Austen")
    service.delete_book(book.id)
    with pytest.raises(BookNotFound):
        service.get_book(book.id)


def test_title_is_required(service):
    with pytest.raises(ValueError):
        service.create_book("  ", "nobody")
""",
    "tests/test_books_api.py": """\
import io
import json

from library_service.app import create_app


def call(app, method, path, body=None):
    data = json.dumps(body).encode() if body is not None else b""
    environ = {
        "REQUEST_METHOD": method,
        "PATH_INFO": path,
        "CONTENT_LENGTH": str(len(data)),
        "wsgi.input": io.BytesIO(data),
    }
    seen = {}
    out = app(environ, lambda status, headers: seen.setdefault("status", status))
    return int(seen["status"].split()[0]), json.loads(b"".join(out))


def test_books_crud_over_http():
    app = create_app()
    status, created = call(app, "POST", "/books", {"title": "Dune", "author": "F. H."})
    assert status == 201
    assert call(app, "GET", "/books") == (200, [created])
    path = f"/books/{created['id']}"
    assert call(app, "PUT", path, {"title": "Dune II"})[1]["title"] == "Dune II"
    assert call(app, "DELETE", path)[0] == 204
    assert call(app, "GET", path)[0] == 404
""",
}

REACT_APP: dict[str, str] = {
    "package.json": """\
{
  "name": "task-board",
  "version": "1.0.0",
  "private": true,
  "type": "module",
  "scripts": {"dev": "vite", "build": "tsc && vite build", "test": "vitest"},
  "dependencies": {"react": "^18.2.0", "react-dom": "^18.2.0"},
  "devDependencies": {
    "@testing-library/react": "^14.0.0",
    "typescript": "^5.3.0",
    "vite": "^5.0.0",
    "vitest": "^1.0.0"
  }
}
""",
    "tsconfig.json": '{\n  "compilerOptions": {"jsx": "react-jsx", "strict": true}\n}\n',
    "src/main.tsx": """\
import { createRoot } from 'react-dom/client';
import { TaskBoard } from './components/TaskBoard';

createRoot(document.getElementById('root')!).render(<TaskBoard />);
""",
    "src/types/task.ts": """\
export interface Task {
  id: number;
  title: string;
  done: boolean;
}
""",
    "src/components/TaskBoard.tsx": """\
import { TaskList } from './TaskList';
import { useTasks } from '../hooks/useTasks';

export function TaskBoard() {
  const { tasks, addTask, toggleTask } = useTasks();
  return (
    <main>
      <h1>Task Board</h1>
      <button onClick={() => addTask('New task')}>Add</button>
      <TaskList tasks={tasks} onToggle={toggleTask} />
    </main>
  );
}
""",
    "src/components/TaskList.tsx": """\
import type { Task } from '../types/task';

interface TaskListProps {
  tasks: Task[];
  onToggle: (id: number) => void;
}

export function TaskList({ tasks, onToggle }: TaskListProps) {
  return (
    <ul>
      {tasks.map((task) => (
        <li key={task.id} onClick={() => onToggle(task.id)}>
          {task.done ? '✓' : '○'} {task.title}
        </li>
      ))}
    </ul>
  );
}
""",
    "src/hooks/useTasks.ts": """\
import { useState } from 'react';
import type { Task } from '../types/task';
import { taskService } from '../services/taskService';

export function useTasks() {
  const [tasks, setTasks] = useState<Task[]>(taskService.loadTasks());
  const addTask = (title: string) => {
    const next = [...tasks, taskService.createTask(title, tasks.length + 1)];
    setTasks(next);
  };
  const toggleTask = (id: number) => {
    setTasks(tasks.map((t) => (t.id === id ? { ...t, done: !t.done } : t)));
  };
  return { tasks, addTask, toggleTask };
}
""",
    "src/services/taskService.ts": """\
import type { Task } from '../types/task';

const STORAGE_KEY = 'task-board.tasks';

export const taskService = {
  loadTasks(): Task[] {
    return JSON.parse(localStorage.getItem(STORAGE_KEY) ?? '[]');
  },
  createTask(title: string, id: number): Task {
    return { id, title, done: false };
  },
};
""",
    "src/components/TaskList.test.tsx": """\
import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { TaskList } from './TaskList';

describe('TaskList', () => {
  it('shows every task', () => {
    render(<TaskList tasks={[{ id: 1, title: 'Write', done: false }]} onToggle={() => {}} />);
    expect(screen.getByText(/Write/)).toBeTruthy();
  });
});
""",
}

CSHARP_MVVM: dict[str, str] = {
    "NotesApp.csproj": """\
<Project Sdk="Microsoft.NET.Sdk">
  <PropertyGroup>
    <TargetFramework>net8.0-android</TargetFramework>
    <UseMaui>true</UseMaui>
    <RootNamespace>NotesApp</RootNamespace>
  </PropertyGroup>
  <ItemGroup>
    <PackageReference Include="CommunityToolkit.Mvvm" Version="8.2.2" />
    <PackageReference Include="Microsoft.Maui.Controls" Version="8.0.3" />
  </ItemGroup>
</Project>
""",
    "Models/Note.cs": """\
namespace NotesApp.Models;

public class Note
{
    public int Id { get; set; }
    public string Title { get; set; } = "";
    public string Body { get; set; } = "";
}
""",
    "Services/INoteService.cs": """\
using NotesApp.Models;

namespace NotesApp.Services;

public interface INoteService
{
    Task<IReadOnlyList<Note>> GetNotesAsync();
    Task SaveNoteAsync(Note note);
    Task DeleteNoteAsync(int id);
}
""",
    "Services/NoteService.cs": """\
using NotesApp.Models;

namespace NotesApp.Services;

public class NoteService : INoteService
{
    private readonly List<Note> _notes = new();

    public Task<IReadOnlyList<Note>> GetNotesAsync() =>
        Task.FromResult<IReadOnlyList<Note>>(_notes.ToList());

    public Task SaveNoteAsync(Note note)
    {
        _notes.RemoveAll(n => n.Id == note.Id);
        _notes.Add(note);
        return Task.CompletedTask;
    }

    public Task DeleteNoteAsync(int id)
    {
        _notes.RemoveAll(n => n.Id == id);
        return Task.CompletedTask;
    }
}
""",
    "ViewModels/NoteViewModel.cs": """\
using CommunityToolkit.Mvvm.ComponentModel;
using CommunityToolkit.Mvvm.Input;
using NotesApp.Models;
using NotesApp.Services;

namespace NotesApp.ViewModels;

public partial class NoteViewModel : ObservableObject
{
    private readonly INoteService _noteService;

    [ObservableProperty]
    private string _title = "";

    public NoteViewModel(INoteService noteService)
    {
        _noteService = noteService;
    }

    [RelayCommand]
    private async Task SaveAsync()
    {
        await _noteService.SaveNoteAsync(new Note { Title = Title });
    }

    [RelayCommand]
    private async Task DeleteAsync(int id)
    {
        await _noteService.DeleteNoteAsync(id);
    }
}
""",
    "Views/NotePage.xaml": """\
<?xml version="1.0" encoding="utf-8" ?>
<ContentPage xmlns="http://schemas.microsoft.com/dotnet/2021/maui"
             xmlns:x="http://schemas.microsoft.com/winfx/2009/xaml"
             x:Class="NotesApp.Views.NotePage">
    <VerticalStackLayout>
        <Entry Text="{Binding Title}" />
        <Button Text="Save" Command="{Binding SaveCommand}" />
    </VerticalStackLayout>
</ContentPage>
""",
    "Views/NotePage.xaml.cs": """\
using NotesApp.ViewModels;

namespace NotesApp.Views;

public partial class NotePage : ContentPage
{
    public NotePage(NoteViewModel viewModel)
    {
        InitializeComponent();
        BindingContext = viewModel;
    }
}
""",
    "MauiProgram.cs": """\
using NotesApp.Services;
using NotesApp.ViewModels;
using NotesApp.Views;

namespace NotesApp;

public static class MauiProgram
{
    public static MauiApp CreateMauiApp()
    {
        var builder = MauiApp.CreateBuilder();
        builder.Services.AddSingleton<INoteService, NoteService>();
        builder.Services.AddTransient<NoteViewModel>();
        builder.Services.AddTransient<NotePage>();
        return builder.Build();
    }
}
""",
}

#: An entity whose name is inside Python's own names: `Key` in `KeyError` and `keys()`,
#: `key` beside the standard library's `keyword`.
KEY_STORE: dict[str, str] = {
    "pyproject.toml": """\
[project]
name = "keystore"
version = "0.1.0"

[tool.pytest.ini_options]
pythonpath = ["."]
""",
    "keystore/__init__.py": "",
    "keystore/key.py": """\
from dataclasses import dataclass, field


@dataclass
class Key:
    name: str
    tags: list[str] = field(default_factory=list)
""",
    "keystore/key_store.py": """\
import keyword

from keystore.key import Key


class KeyStore:
    def __init__(self) -> None:
        self._keys: dict[str, Key] = {}

    def add(self, key: Key) -> None:
        if keyword.iskeyword(key.name):
            raise ValueError(f"{key.name!r} is a Python keyword")
        self._keys[key.name] = key

    def get(self, name: str) -> Key | None:
        try:
            return self._keys[name]
        except KeyError:
            return None

    def names(self) -> list[str]:
        return sorted(self._keys.keys())
""",
    "tests/test_key_store.py": """\
import pytest

from keystore.key import Key
from keystore.key_store import KeyStore


def test_add_get_and_list():
    store = KeyStore()
    store.add(Key("b"))
    store.add(Key("a"))
    assert store.get("a") == Key("a")
    assert store.names() == ["a", "b"]


def test_a_missing_key_is_none():
    assert KeyStore().get("nope") is None


def test_keywords_are_refused():
    with pytest.raises(ValueError):
        KeyStore().add(Key("class"))


def test_a_dict_raises_key_error():
    with pytest.raises(KeyError):
        {}["x"]
""",
}

#: attrs' shape: an entity `Attribute`, an exception deriving from `AttributeError`.
ATTRIBUTES: dict[str, str] = {
    "pyproject.toml": """\
[project]
name = "attrkit"
version = "0.1.0"

[tool.pytest.ini_options]
pythonpath = ["."]
""",
    "attrkit/__init__.py": "",
    "attrkit/attribute.py": """\
class FrozenError(AttributeError):
    \"\"\"Raised when a frozen attribute is set.\"\"\"


class Attribute:
    def __init__(self, name: str, *, frozen: bool = False) -> None:
        self.name = name
        self.frozen = frozen
        self._value: object = None

    def set(self, value: object) -> None:
        if self.frozen:
            raise FrozenError(self.name)
        self._value = value

    def get(self) -> object:
        if self._value is None:
            raise AttributeError(self.name)
        return self._value
""",
    "attrkit/attribute_set.py": """\
from attrkit.attribute import Attribute


class AttributeSet:
    def __init__(self, *attributes: Attribute) -> None:
        self.attributes = {a.name: a for a in attributes}

    def __getattr__(self, name: str) -> object:
        try:
            return self.attributes[name].get()
        except KeyError:
            raise AttributeError(name) from None
""",
    "tests/test_attribute.py": """\
import pytest

from attrkit.attribute import Attribute, FrozenError
from attrkit.attribute_set import AttributeSet


def test_set_and_get():
    attribute = Attribute("x")
    attribute.set(1)
    assert attribute.get() == 1


def test_frozen_is_an_attribute_error():
    with pytest.raises(AttributeError):
        Attribute("x", frozen=True).set(1)
    assert issubclass(FrozenError, AttributeError)


def test_a_set_reads_its_attributes():
    attribute = Attribute("x")
    attribute.set(2)
    values = AttributeSet(attribute)
    assert values.x == 2
    with pytest.raises(AttributeError):
        values.y
""",
}


def write_project(root: Path, files: dict[str, str]) -> Path:
    """Write `files` under `root` (created) and return it."""
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
    return root
