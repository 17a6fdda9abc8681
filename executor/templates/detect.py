"""What the files say: languages by extension, dependencies by manifest, layers by folder.

Each table maps something found on disk to a name shown in the analysis. Dependencies
are read per ecosystem by small readers (no TOML/XML parser: we only need package names,
and `tomllib` does not exist on Python 3.10).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import PurePosixPath

from executor.templates.scan import Codebase, SourceFile

LANGUAGES: dict[str, str] = {
    ".py": "Python", ".pyi": "Python", ".ts": "TypeScript", ".tsx": "TypeScript",
    ".js": "JavaScript", ".jsx": "JavaScript", ".mjs": "JavaScript", ".cjs": "JavaScript",
    ".vue": "JavaScript", ".cs": "C#", ".go": "Go", ".rs": "Rust", ".java": "Java",
    ".kt": "Kotlin", ".swift": "Swift", ".rb": "Ruby", ".php": "PHP", ".c": "C", ".h": "C",
    ".cpp": "C++", ".cc": "C++", ".hpp": "C++", ".dart": "Dart", ".scala": "Scala",
    ".fs": "F#",
}  # fmt: skip

#: dependency name (lowercase; a trailing `*` matches the name and its sub-packages)
#: -> (display name, kind)
DEPENDENCIES: dict[str, tuple[str, str]] = {
    # Python
    "fastapi": ("FastAPI", "framework"), "flask": ("Flask", "framework"),
    "django": ("Django", "framework"), "starlette": ("Starlette", "framework"),
    "pydantic": ("Pydantic", "framework"), "sqlalchemy": ("SQLAlchemy", "framework"),
    "aiohttp": ("aiohttp", "framework"), "tornado": ("Tornado", "framework"),
    "celery": ("Celery", "framework"), "typer": ("Typer", "framework"),
    "click": ("Click", "framework"), "pytest": ("pytest", "testing"),
    "hypothesis": ("Hypothesis", "testing"),
    # JavaScript / TypeScript
    "react": ("React", "framework"), "next": ("Next.js", "framework"),
    "vue": ("Vue", "framework"), "@angular/core": ("Angular", "framework"),
    "svelte": ("Svelte", "framework"), "express": ("Express", "framework"),
    "@nestjs/core": ("NestJS", "framework"), "redux": ("Redux", "framework"),
    "@reduxjs/toolkit": ("Redux Toolkit", "framework"), "zustand": ("Zustand", "framework"),
    "react-router-dom": ("React Router", "framework"),
    "@tanstack/react-query": ("TanStack Query", "framework"),
    "axios": ("Axios", "framework"), "tailwindcss": ("Tailwind CSS", "framework"),
    "vitest": ("Vitest", "testing"), "jest": ("Jest", "testing"), "mocha": ("Mocha", "testing"),
    "@testing-library/react": ("React Testing Library", "testing"),
    "cypress": ("Cypress", "testing"), "@playwright/test": ("Playwright", "testing"),
    "vite": ("Vite", "build"), "webpack": ("webpack", "build"), "esbuild": ("esbuild", "build"),
    "typescript": ("tsc", "build"),
    # .NET
    "microsoft.maui.controls": (".NET MAUI", "framework"),
    "communitytoolkit.mvvm": ("CommunityToolkit.Mvvm", "framework"),
    "microsoft.entityframeworkcore*": ("Entity Framework Core", "framework"),
    "microsoft.net.sdk.web": ("ASP.NET Core", "framework"),
    "avalonia": ("Avalonia", "framework"), "wpf": ("WPF", "framework"),
    "maui": (".NET MAUI", "framework"), "xunit": ("xUnit", "testing"),
    "nunit": ("NUnit", "testing"), "mstest.testframework": ("MSTest", "testing"),
    "moq": ("Moq", "testing"), "fluentassertions": ("FluentAssertions", "testing"),
    # Go, Rust, Java
    "github.com/gin-gonic/gin": ("Gin", "framework"),
    "github.com/labstack/echo*": ("Echo", "framework"),
    "github.com/gofiber/fiber*": ("Fiber", "framework"),
    "github.com/stretchr/testify": ("testify", "testing"),
    "tokio": ("Tokio", "framework"), "actix-web": ("Actix Web", "framework"),
    "axum": ("Axum", "framework"), "serde": ("Serde", "framework"),
    "spring-boot*": ("Spring Boot", "framework"), "junit*": ("JUnit", "testing"),
}  # fmt: skip

#: folder name (lowercase) -> layer name
LAYER_FOLDERS: dict[str, str] = {
    "models": "models", "model": "models", "entities": "models", "domain": "domain",
    "repositories": "repositories", "repository": "repositories", "repos": "repositories",
    "data": "data", "dal": "data", "persistence": "data", "infrastructure": "infrastructure",
    "services": "services", "service": "services", "application": "application",
    "usecases": "application", "use_cases": "application", "routes": "api", "routers": "api",
    "api": "api", "endpoints": "api", "controllers": "controllers", "handlers": "handlers",
    "views": "views", "pages": "views", "screens": "views", "viewmodels": "viewmodels",
    "components": "components", "hooks": "hooks", "store": "state", "stores": "state",
    "state": "state", "schemas": "schemas", "dto": "schemas", "dtos": "schemas",
    "utils": "utils", "helpers": "utils", "config": "config", "middleware": "middleware",
    "middlewares": "middleware", "converters": "converters", "ports": "ports",
    "adapters": "adapters", "migrations": "migrations", "tests": "tests", "test": "tests",
    "__tests__": "tests", "spec": "tests", "specs": "tests",
}  # fmt: skip

LAYER_DESCRIPTIONS: dict[str, str] = {
    "models": "Domain models and entities",
    "domain": "Domain entities and business rules",
    "repositories": "Data access behind repository interfaces",
    "data": "Data access and persistence",
    "infrastructure": "Infrastructure: persistence, external services",
    "services": "Business logic in services",
    "application": "Application use cases",
    "api": "HTTP routes and endpoints",
    "controllers": "Controllers handling requests",
    "handlers": "Request or message handlers",
    "views": "Views, pages and screens",
    "viewmodels": "ViewModels binding views to models",
    "components": "UI components",
    "hooks": "Reusable hooks",
    "state": "Application state and stores",
    "schemas": "Schemas and data transfer objects",
    "utils": "Shared helpers",
    "config": "Configuration",
    "middleware": "Middleware",
    "converters": "Value converters",
    "ports": "Ports (interfaces to the outside)",
    "adapters": "Adapters implementing ports",
    "migrations": "Database migrations",
    "tests": "Tests",
}

#: last word of a class or file name -> pattern
SUFFIX_PATTERNS: dict[str, str] = {
    "repository": "Repository", "service": "Service Layer", "viewmodel": "MVVM",
    "controller": "Controller", "handler": "Handler", "factory": "Factory",
    "builder": "Builder", "adapter": "Adapter", "strategy": "Strategy",
    "middleware": "Middleware", "provider": "Provider", "validator": "Validator",
    "mapper": "Mapper", "dto": "DTO", "command": "Command", "query": "Query",
    "schema": "Schema", "store": "Store", "converter": "Converter", "unitofwork": "Unit of Work",
}  # fmt: skip

#: content regex -> pattern (for what names alone do not show)
CONTENT_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\bDepends\(|\bAdd(?:Singleton|Scoped|Transient)\b|@Injectable\b"),
     "Dependency Injection"),
    (re.compile(r"\bINotifyPropertyChanged\b|\bObservableObject\b|\[ObservableProperty\]"),
     "Observable properties"),
    (re.compile(r"\bRelayCommand\b|\bICommand\b"), "Command"),
    (re.compile(r"\bexport\s+(?:default\s+)?function\s+use[A-Z]\w*|\bconst\s+use[A-Z]\w*\s*="),
     "Custom Hooks"),
)  # fmt: skip

_TEST_NAME = re.compile(
    r"^(?:test_.*\.py|.*_test\.(?:py|go)|.*\.(?:test|spec)\.[jt]sx?|.*Tests?\.(?:cs|java|kt))$"
)
LOCK_FILES = frozenset(
    {
        "package-lock.json", "yarn.lock", "pnpm-lock.yaml", "poetry.lock", "pipfile.lock",
        "cargo.lock", "uv.lock", "composer.lock", "go.sum", "gemfile.lock", "pdm.lock",
    }
)  # fmt: skip


def is_test_file(f: SourceFile) -> bool:
    if any(LAYER_FOLDERS.get(p.lower()) == "tests" for p in f.parts[:-1]):
        return True
    return bool(_TEST_NAME.match(f.name)) or f.name == "conftest.py"


def layer_folder(f: SourceFile) -> str | None:
    """The folder (relative path) giving `f` its layer: the deepest one in LAYER_FOLDERS."""
    parts = f.parts[:-1]
    for i in range(len(parts), 0, -1):
        if parts[i - 1].lower() in LAYER_FOLDERS:
            return "/".join(parts[:i])
    return None


def layer_of(f: SourceFile) -> str | None:
    if is_test_file(f):
        return "tests"
    folder = layer_folder(f)
    return LAYER_FOLDERS[PurePosixPath(folder).name.lower()] if folder else None


# -- dependencies ----------------------------------------------------------------------

_REQ_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
_QUOTED = re.compile(r"[\"']([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*(?:[<>=!~;@ ]|[\"'])")
_CSPROJ = re.compile(r"(?:PackageReference\s+Include|Sdk)\s*=\s*\"([^\"]+)\"")
_CSPROJ_FLAG = re.compile(r"<Use(WPF|Maui)>\s*true\s*</Use\1>", re.IGNORECASE)
_GO_REQ = re.compile(r"^\s*(?:require\s+)?([a-z0-9.-]+\.[a-z]{2,}/[^\s]+)\s+v", re.MULTILINE)
_TOML_KEY = re.compile(r"^([A-Za-z0-9_-]+)\s*=", re.MULTILINE)
_MAVEN = re.compile(r"<artifactId>([^<]+)</artifactId>|[\"']([\w.-]+):([\w.-]+)(?::[^\"']*)?[\"']")


def _package_json(text: str) -> Iterator[str]:
    try:
        data = json.loads(text)
    except ValueError:
        return
    if not isinstance(data, dict):
        return
    for key in ("dependencies", "devDependencies", "peerDependencies"):
        section = data.get(key)
        if isinstance(section, dict):
            yield from (str(k) for k in section)


def _cargo(text: str) -> Iterator[str]:
    for section in re.split(r"^\[", text, flags=re.MULTILINE):
        if "dependencies" in section.split("]", 1)[0]:
            yield from _TOML_KEY.findall(section.split("]", 1)[-1])


def _maven(text: str) -> Iterator[str]:
    for artifact, _group, name in _MAVEN.findall(text):
        yield artifact or name


def dependency_names(codebase: Codebase) -> dict[str, list[str]]:
    """Dependency file (relative path) -> the package names it declares (lowercase)."""
    found: dict[str, list[str]] = {}
    for f in codebase.files:
        name = f.name.lower()
        text = codebase.text(f.path)
        if text is None:
            continue
        names: list[str] = []
        if name.startswith("requirements") and name.endswith(".txt"):
            names = [m.group(1) for line in text.splitlines() if (m := _REQ_NAME.match(line))]
        elif name in {"pyproject.toml", "setup.py", "setup.cfg", "pipfile"}:
            names = _QUOTED.findall(text)
            if name == "setup.cfg":
                names += [m.group(1) for line in text.splitlines() if (m := _REQ_NAME.match(line))]
        elif name == "package.json":
            names = list(_package_json(text))
        elif f.suffix in {".csproj", ".fsproj", ".vbproj"}:
            names = _CSPROJ.findall(text) + [m.lower() for m in _CSPROJ_FLAG.findall(text)]
        elif name == "go.mod":
            names = _GO_REQ.findall(text)
        elif name == "cargo.toml":
            names = list(_cargo(text))
        elif name in {"pom.xml", "build.gradle", "build.gradle.kts"}:
            names = list(_maven(text))
        if names:
            found[f.path] = sorted({n.lower() for n in names})
    return found


def classify_dependency(name: str) -> tuple[str, str] | None:
    """(display name, kind) of a dependency, or None when the table does not know it."""
    if name in DEPENDENCIES:
        return DEPENDENCIES[name]
    for key, value in DEPENDENCIES.items():
        if key.endswith("*") and (name == key[:-1] or name.startswith(key[:-1])):
            return value
    return None
