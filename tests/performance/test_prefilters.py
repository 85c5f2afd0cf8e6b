"""The placement prefilter skips only files that cannot matter.

The bytes filter may say "could match" too often, never too rarely: every module-level
definition, every method and every binding, whose name matches a pattern (a method's or
class-level binding's qualified name, for a pattern with a dot) is in a file it lets
through. And the
project-wide check, which reads the allowed modules only until each pattern has
matched, finds what parsing every file finds.
"""

from __future__ import annotations

import re
import shutil
import string
import unicodedata
from fnmatch import fnmatchcase
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from support import FIXTURES, MINIMONTY_SRC

from domain_fence.core.families.config import parse_placement
from domain_fence.core.families.placement.definitions import (
    bytes_filter,
    check_placement,
    definitions_in,
    placement_findings,
)
from domain_fence.core.index.project import ProjectIndex
from domain_fence.core.source.facts import attached_names, bound_names, method_definitions, top_level_definitions
from domain_fence.core.source.reading import Unreadable, decode, parse_source


def python_files() -> list[Path]:
    return sorted({*FIXTURES.rglob("*.py"), *MINIMONTY_SRC.rglob("*.py")})


def definitions_of(data: bytes) -> list[str] | None:
    """The module-level definitions of a file, from parsing it; None when it cannot be."""
    text = decode(data)
    tree = parse_source(text) if not isinstance(text, Unreadable) else text
    if isinstance(tree, Unreadable):
        return None
    return [definition.name for definition in top_level_definitions(tree.body)]


def methods_of(data: bytes) -> list[tuple[str, str]]:
    """``(class, method)`` of each method of a parsable file."""
    text = decode(data)
    tree = parse_source(text) if not isinstance(text, Unreadable) else text
    if isinstance(tree, Unreadable):
        return []
    return [(method.owner, method.name) for method in method_definitions(tree.body)]


def bindings_of(data: bytes) -> list[tuple[str, str]]:
    """``(class, name)`` of each binding of a parsable file (class ``""`` at module level),
    attached to a class from outside its body too."""
    text = decode(data)
    tree = parse_source(text) if not isinstance(text, Unreadable) else text
    if isinstance(tree, Unreadable):
        return []
    bound = [*bound_names(tree.body), *attached_names("pkg.mod", tree)]
    return [(binding.owner, binding.name) for binding in bound]


def qualified_patterns_for(owner: str, name: str) -> list[str]:
    """Patterns with a dot that ``owner.name`` matches."""
    qualified = f"{owner}.{name}"
    return [
        qualified,
        f"*.{name}",
        f"{owner}.*",
        f"*{qualified[1:]}",
        f"{qualified[:-1]}?",
        f"{owner[0]}*{name[-1]}",  # no dot: the method's own name must match it
        f"[{owner[0]}]{qualified[1:]}",
        f"*{owner[-1]}.{name[:1]}*",
    ]


def patterns_for(name: str) -> list[str]:
    """Patterns a name matches, in every shape: whole, prefix, suffix, infix, ``?``."""
    patterns = [name, "*", f"*{name[1:]}", f"{name[:-1]}*", f"?{name[1:]}", f"[{name[0]}]{name[1:]}"]
    if len(name) > 2:
        patterns.append(f"*{name[1:-1]}*")
    return patterns


def test_the_filter_compiles_its_expressions_for_a_file_holding_a_needle_only(monkeypatch):
    # After an edit every file's facts are known (another contract read the edited
    # one): the filter is made, and never given bytes.
    compiled: list[str] = []
    real = re.compile
    monkeypatch.setattr(re, "compile", lambda pattern, flags=0: compiled.append(str(pattern)) or real(pattern, flags))

    def spelling_the_pattern() -> list[str]:
        return [pattern for pattern in compiled if "ZeppelinFleet" in pattern]

    could_match = bytes_filter(["*ZeppelinFleet*"])
    assert spelling_the_pattern() == []
    assert not could_match(b"class Balloon:\n    pass\n")  # no needle: no expression
    assert spelling_the_pattern() == []
    assert could_match(b"class ZeppelinFleetStats:\n    pass\n")
    assert spelling_the_pattern()


@pytest.mark.parametrize("path", python_files(), ids=lambda p: p.relative_to(FIXTURES.parent.parent).as_posix())
def test_the_bytes_filter_lets_through_every_file_defining_a_match(path):
    data = path.read_bytes()
    names = definitions_of(data)
    if names is None:
        return  # unparsable: the filter's answer only decides whether DOM001 is reported
    for name in names:
        for pattern in patterns_for(name):
            assert fnmatchcase(name, pattern)
            assert bytes_filter([pattern])(data), (name, pattern)
            assert bytes_filter(["zz_no_such_name", pattern])(data), (name, pattern)
    for owner, name in methods_of(data) + bindings_of(data):
        qualified = qualified_patterns_for(owner, name) if owner else []
        for pattern in qualified + patterns_for(name):
            if fnmatchcase(f"{owner}.{name}" if "." in pattern else name, pattern):
                assert bytes_filter([pattern])(data), (owner, name, pattern)


IDENTIFIER_START = st.sampled_from(string.ascii_letters + "_" + "éßΩ" + "ｆＶ" + "ﬁ")
IDENTIFIER_REST = st.text(string.ascii_letters + string.digits + "_" + "éΩ" + "ｆＶ" + "ﬁ" + "\u0308", max_size=8)
LAYOUTS = [
    "def {name}(): pass\n",
    "class {name}:\n    pass\n",
    "async def {name}(): pass\n",
    "@decorator\ndef {name}(): pass\n",
    "if True:\n    class {name}(Base):\n        pass\n",
    "try:\n    pass\nexcept E:\n\tdef {name}(): pass\n",
    "def \\\n    {name}(): pass\n",
    "class\t\f{name}: pass\r\n",
    "# -*- coding: utf-8 -*-\nclass {name}: pass\n",
    "\ufeffclass {name}: pass\n",
    "x = '''\ndef other(): pass\n'''\nclass {name}: pass\n",
]


BINDING_LAYOUTS = [
    "{name} = setup\n",
    "{name}: Callable = setup\n",
    "{name}\t\f=\\\n lambda: None\r\n",
    "a, *{name} = values\n",
    "[a, ({name}, b)] = values\n",
    "(\n    a,\n    {name}  # a comment\n) = values\n",
    "(a,\n {name}\n) = values\n",
    "x = {name} = setup\n",
    "if True:\n    {name}: int=1\n",
    "class Handler:\n    {name} = staticmethod(setup)\n",
    "# -*- coding: utf-8 -*-\n{name}=1",
    "\ufeff{name} = 1\n",
    "from m import setup as {name}; import os\n",
    "import m.setup as {name}, os\n",
    "from m import (\n    setup as {name},\n)\n",
    "from m import setup as {name}\\\n;import os\n",
    "import m.setup as {name}",
]


@settings(max_examples=300, deadline=None)
@given(start=IDENTIFIER_START, rest=IDENTIFIER_REST, layout=st.sampled_from(BINDING_LAYOUTS), cut=st.integers(0, 8))
@example(start="i", rest="\N{FULLWIDTH LATIN SMALL LETTER F}", layout="{name} = setup\n", cut=0)  # binds "if"
def test_the_bytes_filter_lets_every_binding_through(start, rest, layout, cut):
    """A name bound by assignment, however its target is spelt (a tuple, a starred or
    bracketed one over lines with a comment, an annotation, a continuation), read as
    Python reads it (NFKC-normalised), lets the file through for every pattern it matches."""
    name = start + rest
    data = layout.format(name=name).encode("utf-8")
    bound = [bound for _, bound in bindings_of(data) if bound not in ("a", "b", "x")]
    if not name.isidentifier() or not bound:
        return  # not a name Python accepts there
    [defined] = bound
    assert defined == unicodedata.normalize("NFKC", name)
    for pattern in [*patterns_for(defined), defined[: cut + 1] + "*", "*" + defined[cut:]]:
        if fnmatchcase(defined, pattern):
            assert bytes_filter([pattern])(data), (data, pattern)


ATTACHMENT_LAYOUTS = [
    "from m import Handler\nHandler.{name} = staticmethod(setup)\n",
    "from m import Handler\nsetattr(Handler, '{name}', lambda self: None)\n",
    'import m\n\n\ndef install():\n    setattr(m.Handler, "{name}", staticmethod(setup))\n',
    "class Handler:\n    pass\n\n\nHandler\\\n  .{name}\t=\\\n lambda: None\n",
    "from m import Handler, setup\n(Handler.a, Handler.{name}) = (setup, setup)\n",
    "from m import Handler\nHandler.{name}: Callable = lambda: None\n",
    "from m import Handler\n(\n    Handler\n    .{name}  # a comment\n) = lambda: None\n",
    "# -*- coding: utf-8 -*-\nfrom m import Handler\nsetattr(Handler,'{name}',classmethod(setup))",
]


@settings(max_examples=300, deadline=None)
@given(start=IDENTIFIER_START, rest=IDENTIFIER_REST, layout=st.sampled_from(ATTACHMENT_LAYOUTS), cut=st.integers(0, 8))
@example(start="p", rest="ost_episode", layout=ATTACHMENT_LAYOUTS[1], cut=0)
def test_the_bytes_filter_lets_every_attachment_through(start, rest, layout, cut):
    """A function attached to a class from outside its body, by assignment or by
    ``setattr`` with its name written as a literal, lets the file through for every
    pattern its name, or its qualified name, matches."""
    name = start + rest
    data = layout.format(name=name).encode("utf-8")
    attached = [bound for owner, bound in bindings_of(data) if owner == "Handler" and bound != "a"]
    if not name.isidentifier() or not attached:
        return  # not a name Python accepts there (or setattr is given, as is, what it cannot be)
    [defined] = attached
    patterns = [*patterns_for(defined), defined[: cut + 1] + "*", "*" + defined[cut:]]
    for pattern in patterns + qualified_patterns_for("Handler", defined):
        if fnmatchcase(f"Handler.{defined}" if "." in pattern else defined, pattern):
            assert bytes_filter([pattern])(data), (data, pattern)


@settings(max_examples=300, deadline=None)
@given(start=IDENTIFIER_START, rest=IDENTIFIER_REST, layout=st.sampled_from(LAYOUTS), cut=st.integers(0, 8))
def test_the_bytes_filter_reads_names_as_python_does(start, rest, layout, cut):
    """Identifiers are NFKC-normalised (``ｆoo`` is ``foo``): a pattern matching the
    normalised name must let the file through, whatever the spelling."""
    name = start + rest
    data = layout.format(name=name).encode("utf-8")
    names = definitions_of(data)
    if not name.isidentifier() or names is None:
        return  # not a name Python accepts there (``as``, a leading combining mark)
    [defined] = names
    assert defined == unicodedata.normalize("NFKC", name)
    for pattern in [*patterns_for(defined), defined[: cut + 1] + "*", "*" + defined[cut:]]:
        if fnmatchcase(defined, pattern):
            assert bytes_filter([pattern])(data), (data, pattern)


ASCII_NAME = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,7}", fullmatch=True)
GLOB = st.lists(st.sampled_from(["*", "?", "a", "b", "_", "A", "1", "ab", "View"]), min_size=1, max_size=5).map("".join)


@settings(max_examples=500, deadline=None)
@given(name=ASCII_NAME, pattern=GLOB, keyword=st.sampled_from(["def", "class", "async def"]))
def test_the_bytes_filter_lets_a_definition_through_exactly_when_its_name_matches(name, pattern, keyword):
    """Without bracket sets, the filter reads a plain ASCII definition as fnmatch does:
    it lets through no file whose only definition cannot match (``CsrfViewMiddleware``
    for ``*View``), and every file whose definition does."""
    data = f"{keyword} {name}(): pass\n".encode() if keyword != "class" else f"class {name}: pass\n".encode()
    assert bytes_filter([pattern])(data) is fnmatchcase(name, pattern)


QUALIFIED_GLOB = st.lists(
    st.sampled_from(["*", "?", "a", "b", "_", "A", ".", "ab", ".b", "View", "[.]", "[!a]"]), min_size=1, max_size=6
).map("".join)


@settings(max_examples=500, deadline=None)
@given(owner=ASCII_NAME, inner=st.none() | ASCII_NAME, name=ASCII_NAME, pattern=QUALIFIED_GLOB)
def test_the_bytes_filter_lets_through_every_method_a_pattern_matches(owner, inner, name, pattern):
    """A pattern with a dot is matched against ``Class.method`` (``Outer.Inner.method``
    for a nested class), where ``*``, ``?`` and a bracket set may match a dot too."""
    if inner is None:
        data, qualified = f"class {owner}:\n    def {name}(self): pass\n", f"{owner}.{name}"
    else:
        data = f"class {owner}:\n    class {inner}:\n        async def {name}(self): pass\n"
        qualified = f"{owner}.{inner}.{name}"
    matched = fnmatchcase(qualified, pattern) if "." in pattern else fnmatchcase(name, pattern)
    if matched:
        assert bytes_filter([pattern])(data.encode()), (qualified, pattern)


def every_definition(index: ProjectIndex):
    """Every file parsed: its definitions, and the modules that cannot be read."""
    definitions, unreadable = [], []
    for module, path in index.modules.items():
        if not path.name.endswith(".py"):
            continue
        names = definitions_of(path.read_bytes())
        if names is None:
            unreadable.append(module)
            continue
        tree = parse_source(decode(path.read_bytes()))
        definitions += definitions_in(module, index.relative_path(module), tree)
    return definitions, unreadable


def everything_parsed(config, parsed):
    """The placement check from every file's definitions (:func:`every_definition`): the reference."""
    definitions, unreadable = parsed
    relevant = [d for d in definitions if d.counted_in(config.kinds)]
    unmatched = tuple(p for p in config.symbols if not any(d.matches(p, tuple(config.symbols)) for d in relevant))
    return placement_findings(config, relevant), unmatched, unreadable


def projects() -> list[tuple[Path, str]]:
    """(project root, root package) for every fixture tree with a package, and minimonty."""
    found = {(MINIMONTY_SRC.parent, "minimonty")}
    for init in FIXTURES.rglob("__init__.py"):
        package = init.parent
        if not (package.parent / "__init__.py").exists() and package.name.isidentifier():
            found.add((package.parent, package.name))
    return sorted(found)


def symbol_sets(index: ProjectIndex) -> list[list[str]]:
    """Patterns that match something, nothing, or both, from the project's own names."""
    names = sorted(
        {
            name
            for path in index.modules.values()
            if path.name.endswith(".py")
            for name in [
                *(definitions_of(path.read_bytes()) or []),
                *(bound for owner, bound in bindings_of(path.read_bytes()) if not owner),
            ]
            if name.isascii()  # what a contract's symbols may hold
        }
    )
    methods = sorted(
        {
            f"{owner}.{name}"
            for path in index.modules.values()
            if path.name.endswith(".py")
            for owner, name in methods_of(path.read_bytes()) + bindings_of(path.read_bytes())
            if owner and owner.isascii() and name.isascii()
        }
    )
    sets = [["*"], ["zz_matches_nothing"], ["init_telemetry", "*PostEpisode*"], ["*.post_episode", "*.*"]]
    sets += [[name, f"*{name[-3:]}", "zz_matches_nothing"] for name in names[::3]]
    sets += [[qualified, "*." + qualified.rsplit(".", 1)[1], "Zz.matches_nothing"] for qualified in methods[::5]]
    return sets


@pytest.mark.parametrize(("root", "package"), projects(), ids=lambda value: str(value).split("/")[-1])
def test_the_placement_check_finds_what_parsing_every_file_finds(tmp_path, root, package):
    project = tmp_path / "project"
    shutil.copytree(root, project, ignore=shutil.ignore_patterns("__pycache__", ".domain_fence_cache"))
    index = ProjectIndex.build(project, [package], search_paths=[str(project)], cache_dir=None)
    modules = sorted(index.modules)
    allowed_choices = [modules[0], modules[len(modules) // 2], f"{package}.**"]
    parsed = every_definition(index)
    for symbols in symbol_sets(index):
        for allowed in allowed_choices:
            config = parse_placement("p", "p", {"symbols": symbols, "allowed_modules": allowed}, project)
            result = check_placement(config, index)
            findings, unmatched, unreadable = everything_parsed(config, parsed)
            assert [f for f in result.findings if f.code == "DOM201"] == findings
            assert result.unmatched_patterns == unmatched
            reported = {f.symbol for f in result.findings if f.code == "DOM001"}
            assert reported <= set(unreadable)  # never one that is not
            # every unreadable file that could hide a finding is reported
            outside = [m for m in unreadable if not any(e.matches(m) for e in config.allowed_modules)]
            filters = bytes_filter(config.symbols)
            assert {m for m in outside if filters(index.modules[m].read_bytes())} <= reported
