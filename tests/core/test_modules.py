"""Module expressions, static package location and relative import resolution."""

from __future__ import annotations

import pytest

from domain_fence.core.source.modules import (
    ModuleExpression,
    ModuleNotFound,
    discover_modules,
    locate_package,
    module_expression_error,
    resolve_relative,
)


@pytest.mark.parametrize(
    ("expression", "module", "expected"),
    [
        ("a.b", "a.b", True),
        ("a.b", "a.b.c", True),  # a plain name covers its descendants
        ("a.b", "a.bc", False),
        ("a.*", "a.b", True),
        ("a.*", "a.b.c", False),
        ("a.*", "a", False),
        ("a.**", "a.b.c", True),
        ("a.**", "a", False),
        ("a.*.c", "a.b.c", True),
        ("a.**.d", "a.b.c.d", True),
    ],
)
def test_expression_matching(expression, module, expected):
    assert ModuleExpression(expression).matches(module) is expected


def test_exact_expression_without_descendants():
    assert not ModuleExpression("a.b", with_descendants=False).matches("a.b.c")


@pytest.mark.parametrize("text", ["", "a..b", "a.b-c", "a.***", "1a"])
def test_invalid_expressions(text):
    assert module_expression_error(text)


@pytest.mark.parametrize(
    ("module", "is_package", "level", "target", "expected"),
    [
        ("a.b.c", False, 1, "d", "a.b.d"),
        ("a.b.c", False, 2, None, "a"),
        ("a.b", True, 1, "c", "a.b.c"),
        ("a.b", False, 3, "x", None),  # above the top-level package
        ("a", True, 2, None, None),
    ],
)
def test_resolve_relative(module, is_package, level, target, expected):
    assert resolve_relative(module, is_package, level, target) == expected


def test_namespace_root_is_located_and_walked(tmp_path):
    package = tmp_path / "src" / "tbp" / "monty"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("")
    (package / "sub" / "mod.py").write_text("")
    (package / "not_a_package").mkdir()
    (package / "not_a_package" / "skipped.py").write_text("")
    directories = locate_package("tbp.monty", [str(tmp_path / "src")])
    assert directories == [package]
    assert list(discover_modules("tbp.monty", directories)) == ["tbp.monty", "tbp.monty.sub", "tbp.monty.sub.mod"]


def test_missing_package(tmp_path):
    with pytest.raises(ModuleNotFound, match="root package 'nowhere_to_be_found' not found"):
        locate_package("nowhere_to_be_found", [str(tmp_path)])


def test_symlink_loop_does_not_hang(tmp_path):
    package = tmp_path / "loopy"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "again").symlink_to(package)
    assert list(discover_modules("loopy", [package])) == ["loopy"]
