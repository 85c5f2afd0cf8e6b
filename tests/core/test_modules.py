"""Module expressions, static package location and relative import resolution."""

from __future__ import annotations

import contextlib
import copy
import importlib
import os
from pathlib import Path
from types import SimpleNamespace

import grimp
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain_fence.core.source.listing import listing, shared_listings
from domain_fence.core.source.modules import (
    Discovery,
    ModuleExpression,
    ModuleFiles,
    ModuleNotFound,
    discover_modules,
    locate_package,
    matches_any,
    module_expression_error,
    package_init,
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


_SEGMENTS = st.sampled_from(["a", "b", "c", "*", "**"])


@settings(deadline=None)
@given(
    expression=st.lists(_SEGMENTS, min_size=1, max_size=4).map(".".join),
    module=st.lists(st.sampled_from(["a", "b", "c"]), min_size=1, max_size=6).map(".".join),
    with_descendants=st.booleans(),
)
def test_matches_or_below_is_a_match_of_the_module_or_of_a_package_above_it(expression, module, with_descendants):
    """One regular expression stands for the walk up the module's packages."""
    pattern = ModuleExpression(expression, with_descendants=with_descendants)
    parts = module.split(".")
    walked = any(pattern.matches(".".join(parts[:end])) for end in range(len(parts), 0, -1))
    assert pattern.matches_or_below(module) is walked


@pytest.mark.parametrize("text", ["", "a..b", "a.***", "a.b*", "a.b c", "a -> b", ".a"])
def test_invalid_expressions(text):
    assert module_expression_error(text)


@pytest.mark.parametrize("text", ["a.b-c", "a.1a", "a.b_c", "a.*.d", "a.**"])
def test_a_module_grimp_finds_can_be_named_though_no_import_can(text):
    # ``b-c.py`` is a module of the graph (grimp's rule, is_module_stem): a list may name it.
    assert module_expression_error(text) is None


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


def test_a_namespace_root_s_plain_directories_are_namespace_packages_as_grimp_finds_them(tmp_path, monkeypatch):
    files = {
        "nsp/top.py": "",
        "nsp/run/__init__.py": "",
        "nsp/run/plain/p.py": "",  # inside a regular package: grimp goes no further
        "nsp/sub/evil.py": "",
        "nsp/sub/deeper/d.py": "",
        "nsp/sub/pkg/__init__.py": "",
        "nsp/empty/inner/notes.txt": "",  # no module below: no package
        "nsp/__pycache__/c.py": "",
        "nsp/shadowed.py": "",  # what Python imports as nsp.shadowed; grimp lists what is below too
        "nsp/shadowed/s.py": "",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    monkeypatch.syspath_prepend(str(tmp_path))
    found = discover_modules("nsp", [tmp_path / "nsp"])
    assert list(found) == sorted(grimp.build_graph("nsp", cache_dir=None).modules)
    assert found.texts["nsp.sub"] == str(tmp_path / "nsp" / "sub")
    assert found.texts["nsp.shadowed"] == str(tmp_path / "nsp" / "shadowed.py")


def test_a_package_is_located_once_within_the_shared_listings(tmp_path):
    # As each directory is listed once there: the walks of one run see one tree.
    (tmp_path / "a" / "ns").mkdir(parents=True)
    (tmp_path / "b").mkdir()
    search = [str(tmp_path / "a"), str(tmp_path / "b")]
    with shared_listings():
        locate_package("ns", search).append(tmp_path / "the caller's own list")
        (tmp_path / "b" / "ns").mkdir()
        importlib.invalidate_caches()  # importlib's own listings, refreshed when a time changes
        assert locate_package("ns", search) == [tmp_path / "a" / "ns"]
    assert locate_package("ns", search) == [tmp_path / "a" / "ns", tmp_path / "b" / "ns"]


def test_missing_package(tmp_path):
    with pytest.raises(ModuleNotFound, match="root package 'nowhere_to_be_found' not found"):
        locate_package("nowhere_to_be_found", [str(tmp_path)])


def test_symlink_loop_does_not_hang(tmp_path):
    package = tmp_path / "loopy"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "again").symlink_to(package)
    assert list(discover_modules("loopy", [package])) == ["loopy"]


class _EntryWithoutInode:
    """A directory entry as Windows gives one: its stat has no inode."""

    def __init__(self, entry: os.DirEntry[str]) -> None:
        self._entry = entry

    def __getattr__(self, name: str) -> object:
        return getattr(self._entry, name)

    def stat(self, *, follow_symlinks: bool = True) -> SimpleNamespace:
        status = self._entry.stat(follow_symlinks=follow_symlinks)
        fields = ("st_mode", "st_size", "st_mtime_ns", "st_ctime_ns")
        return SimpleNamespace(st_ino=0, **{name: getattr(status, name) for name in fields})


def test_discovery_stamps_each_module_file_it_stats_unless_the_entry_has_no_inode(tmp_path, monkeypatch):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "mod.py").write_text("x = 1\n")
    found = Discovery()
    discover_modules("pkg", [package], found)
    assert found.stamps == {"pkg": _stamp(package / "__init__.py"), "pkg.mod": _stamp(package / "mod.py")}
    real = os.scandir
    monkeypatch.setattr(os, "scandir", lambda path: contextlib.nullcontext([_EntryWithoutInode(e) for e in real(path)]))
    on_windows = Discovery()
    assert discover_modules("pkg", [package], on_windows) == found.modules
    assert "pkg.mod" not in on_windows.stamps  # the run's snapshot stats the file itself


def _stamp(path: Path) -> tuple[int, int, int, int]:
    status = os.stat(path)
    return (status.st_size, status.st_mtime_ns, status.st_ctime_ns, status.st_ino)


def _package_inits(tmp_path: Path) -> Path:
    """Directories whose ``__init__.py`` is a file, a link to one, missing, a directory,
    a link to nothing."""
    for name in ("plain", "linked", "missing", "directory", "dangling"):
        (tmp_path / name).mkdir()
    (tmp_path / "plain" / "__init__.py").write_text("")
    (tmp_path / "linked" / "__init__.py").symlink_to(tmp_path / "plain" / "__init__.py")
    (tmp_path / "directory" / "__init__.py").mkdir()
    (tmp_path / "dangling" / "__init__.py").symlink_to(tmp_path / "nowhere.py")
    return tmp_path


@pytest.mark.parametrize("shared", [False, True])
def test_a_directory_is_a_package_when_its_init_is_a_file_as_isfile_says(tmp_path, shared):
    top = _package_inits(tmp_path)
    with shared_listings() if shared else contextlib.nullcontext():
        for directory in top.iterdir():
            listing(directory)
            init = package_init(str(directory))
            assert (init is not None) == os.path.isfile(directory / "__init__.py"), directory.name
            if init is not None:
                assert init.st_ino == os.stat(directory / "__init__.py").st_ino


def test_within_shared_listings_a_package_s_init_is_the_one_its_listing_saw(tmp_path):
    """The status a walk of the run took of the entry (the run cache's), not a new one:
    discovery finds packages, and stamps their files, as the run's first walk saw them."""
    init = tmp_path / "__init__.py"
    init.write_text("")
    with shared_listings():
        [entry] = listing(tmp_path)
        taken = entry.stat()
        init.write_text("x = 1\n")  # another size since
        assert package_init(str(tmp_path)) is taken
    assert package_init(str(tmp_path)).st_size == len("x = 1\n")


def test_discovery_gives_each_module_the_absolute_path_abspath_gives(tmp_path):
    """From a relative directory, through a symlinked subpackage, for a namespace root
    and a package: the path the index looks files up by, joined rather than made whole."""
    (tmp_path / "src" / "ns" / "pkg" / "sub").mkdir(parents=True)
    (tmp_path / "src" / "ns" / "pkg" / "__init__.py").write_text("")
    (tmp_path / "src" / "ns" / "pkg" / "mod.py").write_text("")
    (tmp_path / "src" / "ns" / "pkg" / "sub" / "__init__.py").write_text("")
    (tmp_path / "src" / "ns" / "pkg" / "sub" / "leaf.py").write_text("")
    (tmp_path / "src" / "ns" / "pkg" / "linked").symlink_to(tmp_path / "src" / "ns" / "pkg" / "sub")
    (tmp_path / "work").mkdir()
    with contextlib.chdir(tmp_path / "work"):
        for root, directories in (
            ("ns", locate_package("ns", ["../src"])),
            ("ns.pkg", [Path("../src/ns/pkg")]),
            ("ns.pkg", [tmp_path / "src" / "ns" / "pkg"]),  # listed from its absolute path
        ):
            found = Discovery()
            modules = discover_modules(root, directories, found)
            assert len(modules) >= 5
            assert found.absolute == {module: os.path.abspath(path) for module, path in modules.items()}


def _tree(top: Path) -> dict[str, Path]:
    """A package with a subpackage, a symlinked one, a module beside a package of its name
    and a namespace directory inside it; what the discovery finds there, made by hand."""
    package = top / "pkg"
    (package / "sub" / "inner").mkdir(parents=True)
    (package / "plain").mkdir()
    for path in ("__init__.py", "b.py", "a.py", "sub/__init__.py", "sub/leaf.py", "sub/inner/__init__.py"):
        (package / path).write_text("")
    (package / "sub.py").write_text("")
    (package / "plain" / "hidden.py").write_text("")
    (package / "linked").symlink_to(package / "sub" / "inner")
    return {
        "pkg": package / "__init__.py",
        "pkg.a": package / "a.py",
        "pkg.b": package / "b.py",
        "pkg.linked": package / "linked" / "__init__.py",
        "pkg.sub": package / "sub" / "__init__.py",
        "pkg.sub.inner": package / "sub" / "inner" / "__init__.py",
        "pkg.sub.leaf": package / "sub" / "leaf.py",
    }


def test_the_modules_found_are_paths_as_a_dict_of_them_would_hold(tmp_path):
    """Kept as text and made paths when asked: the same paths, order, membership and
    equality as the dict of paths the discovery returned before."""
    expected = _tree(tmp_path)
    found = Discovery()
    modules = discover_modules("pkg", [tmp_path / "pkg"], found)
    assert modules is found.modules
    assert list(modules) == sorted(expected) and len(modules) == len(expected)
    assert modules == expected and expected == modules and dict(modules) == expected
    assert list(modules.items()) == sorted(expected.items())
    assert all(type(path) is type(expected["pkg"]) for path in modules.values())
    assert [str(path) for path in modules.values()] == [modules.texts[module] for module in modules]
    assert "pkg.sub.leaf" in modules and "pkg.plain.hidden" not in modules and modules.keys() == expected.keys()
    assert modules.get("pkg.nowhere") is None and modules.get("pkg.a") == expected["pkg.a"]
    with pytest.raises(KeyError):
        modules["pkg.nowhere"]
    assert modules != {**expected, "pkg.a": tmp_path / "elsewhere.py"}
    assert found.linked == [tmp_path / "pkg" / "linked"]
    assert {skipped.path for skipped in found.skipped} == {
        tmp_path / "pkg" / "sub.py",
        tmp_path / "pkg" / "plain" / "hidden.py",
    }


def test_module_files_change_as_a_dict_does():
    files = ModuleFiles({"b": str(Path("/p/b.py"))})
    assert files["b"] == Path("/p/b.py") and files["b"] is files["b"]  # made once
    files["a"] = Path("/p/a.py")
    files["c"] = Path("/p/c/__init__.py")
    files["a"] = Path("/q/a.py")
    del files["b"]
    assert list(files.items()) == [("a", Path("/q/a.py")), ("c", Path("/p/c/__init__.py"))]  # in the order set
    assert files.texts == {"a": str(Path("/q/a.py")), "c": str(Path("/p/c/__init__.py"))}
    assert "b" not in files and files.get("b") is None
    assert files == {"a": Path("/q/a.py"), "c": Path("/p/c/__init__.py")}


@pytest.mark.parametrize("copy_of", [ModuleFiles.copy, copy.copy], ids=["copy", "copy.copy"])
def test_a_copy_of_module_files_changes_on_its_own(copy_of):
    files = ModuleFiles({"a": str(Path("/p/a.py"))})
    made = files["a"]
    copied = copy_of(files)
    copied["b"] = Path("/p/b.py")
    del copied["a"]
    assert files == {"a": Path("/p/a.py")} and files["a"] is made
    assert copied == {"b": Path("/p/b.py")} and type(copied) is ModuleFiles


_SEGMENTS = st.sampled_from(["pkg", "runtime", "exp", "a", "b"])
_EXPRESSIONS = st.lists(st.sampled_from(["pkg", "runtime", "exp", "a", "*", "**"]), min_size=1, max_size=4).map(
    ".".join
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(_EXPRESSIONS, max_size=4),
    st.booleans(),
    st.lists(st.lists(_SEGMENTS, min_size=1, max_size=5).map(".".join), max_size=6),
)
def test_a_tuple_of_expressions_matches_as_any_of_them_does(texts, with_descendants, modules):
    expressions = tuple(ModuleExpression(text, with_descendants) for text in texts)
    for module in modules:
        expected = any(expression.matches(module) for expression in expressions)
        assert matches_any(module, expressions) is expected
        assert matches_any(module, list(expressions)) is expected


@settings(max_examples=300, deadline=None)
@given(_EXPRESSIONS, st.booleans(), st.lists(st.lists(_SEGMENTS, min_size=1, max_size=5).map(".".join), max_size=6))
def test_an_expression_matches_some_module_as_it_matches_one_of_them(text, with_descendants, modules):
    expression = ModuleExpression(text, with_descendants)
    expected = any(expression.matches(module) for module in modules)
    assert expression.matches_some(modules) is expected
    assert expression.matches_some(dict.fromkeys(modules).keys()) is expected
