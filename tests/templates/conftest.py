"""Fixtures: the sample codebases, written fresh into tmp_path for each test."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.templates.projects import CSHARP_MVVM, PYTHON_SERVICE, REACT_APP, write_project


@pytest.fixture
def python_service(tmp_path: Path) -> Path:
    return write_project(tmp_path / "library-service", PYTHON_SERVICE)


@pytest.fixture
def react_app(tmp_path: Path) -> Path:
    return write_project(tmp_path / "task-board", REACT_APP)


@pytest.fixture
def csharp_app(tmp_path: Path) -> Path:
    return write_project(tmp_path / "NotesApp", CSHARP_MVVM)
