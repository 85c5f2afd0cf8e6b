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
