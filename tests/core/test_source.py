"""Reading and parsing never raise: problems become one-line reasons."""

from __future__ import annotations

import ast

from domain_fence.core.source.reading import Unreadable, decode, load_tree, parse_source


def test_utf8_with_bom_and_crlf():
    text = decode(b"\xef\xbb\xbfx = 1\r\ny = 2\r\n")
    assert isinstance(ast.parse(text), ast.Module)


def test_coding_cookie_is_honoured():
    assert decode("# -*- coding: latin-1 -*-\nname = 'caf\xe9'\n".encode("latin-1")).endswith("'café'\n")


def test_undecodable_bytes():
    problem = decode(b"x = 1\ny = '\xff'\n")
    assert isinstance(problem, Unreadable)
    assert problem.reason.startswith("cannot decode") and problem.line == 2


def test_unknown_coding_cookie():
    problem = decode(b"# coding: klingon\nx = 1\n")
    assert isinstance(problem, Unreadable) and "cannot decode" in problem.reason


def test_syntax_error_names_the_line():
    problem = parse_source("x = 1\ndef (:\n")
    assert isinstance(problem, Unreadable)
    assert problem.line == 2 and problem.reason.startswith("syntax error at line 2")


def test_null_bytes():
    assert isinstance(parse_source("x = 1\0"), Unreadable)


def test_deep_nesting_does_not_raise():
    problem = parse_source("x = " + "(" * 100_000 + ")" * 100_000)
    assert isinstance(problem, Unreadable)


def test_missing_file(tmp_path):
    problem = load_tree(tmp_path / "gone.py")
    assert isinstance(problem, Unreadable) and problem.reason.startswith("cannot read")


def test_the_walk_counts_the_bindings_a_walk_of_their_own_counts():
    """The facts' walk counts every name's bindings on its way (the module-wide
    question "is ``super`` the builtin here?"): as many as the generic walk finds, in
    every fixture file, and in shapes written for it."""
    from support import FIXTURES

    from domain_fence.core.source.facts.extraction import _walked
    from domain_fence.core.source.facts.scopes import _binding_sites

    shapes = (
        "import a.b, c as d\nfrom e import f as g, h\nfrom i import *\ndef k(p, /, q=1, *r, s, **t): pass\n"
        "lambda x, *y: x\n[z for z in w if (v := z)]\ndel u\nglobal o\n"
        "try:\n    pass\nexcept E as e:\n    pass\n"
        "match m:\n    case {'k': n, **rest}: pass\n    case [a1, *others]: pass\n    case C(x=xx) as whole: pass\n"
        "with c() as (w1, w2): pass\nfor i, (j, k2) in x: pass\nclass L:\n    nonlocal_ = 1\n"
    )
    trees = [ast.parse(shapes)]
    for path in sorted(FIXTURES.rglob("*.py")):
        tree = parse_source(decode(path.read_bytes()))
        if isinstance(tree, ast.Module):
            trees.append(tree)
    for tree in trees:
        walk, _, _ = _walked("m", False, tree)
        expected: dict[str, int] = {}
        for name, _node in _binding_sites(tree):
            expected[name] = expected.get(name, 0) + 1
        assert walk.bound == expected
