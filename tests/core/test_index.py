"""The project index maps the paths flake8 hands the plugin back to modules, however
they are spelled."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from domain_fence.core.index.project import ProjectIndex


@pytest.fixture
def project(tmp_path: Path) -> Path:
    for name in ("app/__init__.py", "app/runtime/__init__.py", "app/runtime/loop.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("", encoding="utf-8")
    (tmp_path / "outside.py").write_text("", encoding="utf-8")
    return tmp_path


def index_of(root: Path) -> ProjectIndex:
    return ProjectIndex.build(root, ["app"], search_paths=[str(root)], cache_dir=None)


def test_a_file_is_found_however_its_path_is_spelled(project, monkeypatch):
    index = index_of(project)
    monkeypatch.chdir(project)
    assert index.module_for_path(project / "app/runtime/loop.py") == "app.runtime.loop"
    assert index.module_for_path("app/runtime/loop.py") == "app.runtime.loop"
    assert index.module_for_path("./app/runtime/../runtime/loop.py") == "app.runtime.loop"
    assert index.module_for_path("app/__init__.py") == "app"
    assert index.module_for_path("outside.py") is None
    assert index.module_for_path("app/runtime/missing.py") is None


def test_a_file_reached_through_a_symbolic_link_is_found(project, tmp_path_factory):
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    link = elsewhere / "checkout"
    os.symlink(project, link, target_is_directory=True)
    # the index was built through the link; flake8 names the real file, and the other way round
    assert index_of(link).module_for_path(project / "app/runtime/loop.py") == "app.runtime.loop"
    assert index_of(project).module_for_path(link / "app/runtime/loop.py") == "app.runtime.loop"
    assert index_of(project).module_for_path(link / "outside.py") is None


def test_the_index_built_looks_files_up_by_the_paths_abspath_gives(project, monkeypatch):
    monkeypatch.chdir(project)
    index = ProjectIndex.build(Path("."), ["app"], search_paths=["."], cache_dir=None)
    expected = {os.path.abspath(path): module for module, path in index.modules.items()}
    assert list(index.absolute_paths().items()) == list(expected.items())  # in module order too


def test_the_index_tells_whether_any_module_is_checked_from_a_buffer(project):
    index = index_of(project)
    assert not index.has_any_buffer()
    assert not index.use_buffer("app.runtime.loop", "")  # the saved file: no buffer
    assert not index.has_any_buffer()
    assert index.use_buffer("app.runtime.loop", "x = 1\n")
    assert index.has_any_buffer() and index.has_buffer("app.runtime.loop")
    assert index.drop_buffer("app.runtime.loop")
    assert not index.has_any_buffer()
