"""noqa comments: the engine reads them as flake8 does, for every front end.

flake8 cannot be imported by the core, so the grammar is written there again; these
tests hold it to flake8's own ``Violation.is_inline_ignored`` on the same lines.
"""

from __future__ import annotations

import argparse
import io
import re
import tokenize

import pytest
from flake8.violation import Violation
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from domain_fence.core.engine.noqa import NoqaComments

CODES = ["DOM101", "DOM104", "DOM112", "DOM301", "DOM001"]


def flake8_ignores(line: str, code: str) -> bool:
    return Violation(code, "f.py", 1, 0, "message", line).is_inline_ignored(disable_noqa=False)


def engine_ignores(line: str, code: str) -> bool:
    return NoqaComments.of(line + "\n").suppresses(1, code)


@given(
    prefix=st.sampled_from(["x = 1", "import a", "    y: int", ""]),
    spacing=st.sampled_from(["  ", " ", ""]),
    marker=st.sampled_from(["# noqa", "# NOQA", "#noqa", "# noqa:", "# noqa: ", "# noqa :", "# type: ignore # noqa"]),
    codes=st.lists(st.sampled_from([*CODES, "DOM1", "DOM", "E501", "dom101", "X"]), max_size=3),
    separator=st.sampled_from([",", ", ", " ", ",,"]),
    code=st.sampled_from(CODES),
)
def test_the_engine_reads_noqa_as_flake8_does(prefix, spacing, marker, codes, separator, code):
    line = f"{prefix}{spacing}{marker}{separator.join(codes)}"
    assert engine_ignores(line, code) == flake8_ignores(line, code), line


def test_bare_specific_and_prefix_forms():
    assert engine_ignores("x = 1  # noqa", "DOM101")
    assert engine_ignores("x = 1  # noqa: DOM101,DOM112", "DOM112")
    assert engine_ignores("x = 1  # noqa: DOM1", "DOM104")
    assert not engine_ignores("x = 1  # noqa: DOM112", "DOM101")
    assert not engine_ignores("x = 1  # a comment about noqa", "DOM101")


def test_only_the_line_of_the_comment_is_silenced():
    comments = NoqaComments.of("a = 1\nb = 2  # noqa: DOM101\nc = 3\n")
    assert [comments.suppresses(line, "DOM101") for line in (1, 2, 3)] == [False, True, False]


def every_line_matched(text: str) -> dict[int, frozenset[str] | None]:
    """The grammar matched against every line, numbered as Python numbers lines: what
    :meth:`NoqaComments.of` must find."""
    from domain_fence.core.engine.noqa import _NOQA, codes_of

    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return {number: codes_of(line) for number, line in enumerate(lines, start=1) if re.search(_NOQA, line)}


LINE_PARTS = ["x = 1", "# noqa", "# NoQa: DOM101", "  # noqa: DOM1,E501", "noqa", "ß", "'# noqa'", " ", ""]
ANY_LINE_ENDING = st.sampled_from(["\n", "\r\n", "\r", "\x0c", "\x0b", "\x1c", "\x85", "\u2028", ""])


@given(st.lists(st.tuples(st.lists(st.sampled_from([*LINE_PARTS, "İ"]), max_size=4), ANY_LINE_ENDING), max_size=8))
def test_every_comment_is_found_on_the_line_python_numbers_whatever_ends_the_lines(lines):
    text = "".join("".join(parts) + ending for parts, ending in lines)
    assert NoqaComments.of(text).lines == every_line_matched(text)


@given(st.lists(st.lists(st.sampled_from(LINE_PARTS), max_size=4), min_size=2, max_size=12))
def test_only_the_lines_where_noqa_occurs_are_matched_yet_every_comment_is_found(lines):
    text = "\n".join("".join(parts) for parts in lines)  # what most files are: found by offset
    assert NoqaComments.of(text).lines == every_line_matched(text)


def test_a_form_feed_ends_no_line_for_noqa_as_for_python():
    import ast

    text = "a = 1\n\x0c\nimport os  # noqa\nb = 2\r\nc = 3  # noqa: DOM101\rd = 4\n"
    tree = ast.parse(text)
    lines = {node.lineno for node in tree.body if isinstance(node, ast.Import)} | {tree.body[-2].lineno}
    assert set(NoqaComments.of(text).lines) == lines == {3, 5}


JOINED = {
    "a comment after a closing triple quote": 'class A:\n    episode: str = """\n    the episode"""  # noqa: DOM101\n',
    "a comment on a string's first line": 'x = f(1, """a\nb""")  # noqa: DOM104\ny = """c  # noqa: DOM112\nd"""\n',
    "a backslash continuation": "x = 1 + \\\n    2  # noqa\ny = 3\n",
    "brackets: each line its own": "x = f(\n    a,  # noqa: DOM104\n    b,\n)\n",
    "two comments: the first counts": 'x = """a  # noqa: DOM101\nb"""  # noqa: DOM104\n',
    "a form feed ends no line": 'x = """a\n\x0cb"""  # noqa\nz = 1\n',
    "a comment on a string's middle line": 'def f(x="""\n# noqa: DOM1\n"""):\n    pass\n',
    "an f-string's middle line": 'x = f"""\n{y}  # noqa\n"""\nz = 1\n',
    "codes continued on the next line": 'x = """# noqa:\nDOM104\n"""\n',
    "a string continued by a backslash": 'x = "a  # noqa: DOM104\\\nb"\ny = 2\n',
    "inside a string on one line": 'x = "# noqa: DOM101"\ny = 2  # noqa\n',
}


def flake8_file_ignores(text: str, line: int, code: str) -> bool:
    """flake8's own answer: the text it searches for ``line`` (noqa_line_for)."""
    from flake8.processor import FileProcessor

    options = argparse.Namespace(hang_closing=False, indent_size=4, max_line_length=79, max_doc_length=None, verbose=0)
    lines = io.StringIO(text).readlines()  # as it reads files
    processor = FileProcessor("f.py", options=options, lines=lines)
    # A file it cannot tokenize maps no line: flake8 then reads the line itself (linecache).
    searched = processor.noqa_line_for(line)
    searched = lines[line - 1] if searched is None else searched
    return Violation(code, "f.py", line, 0, "message", searched).is_inline_ignored(False)


@pytest.mark.parametrize("case", sorted(JOINED))
def test_a_comment_covers_the_lines_flake8_joins(case):
    text = JOINED[case]
    comments = NoqaComments.of(text)
    for line in range(1, text.count("\n") + 1):
        for code in CODES:
            assert comments.suppresses(line, code) == flake8_file_ignores(text, line, code), (case, line, code)


# Whole lines: a string over lines, an f-string's, a backslash continuation, brackets, noqa
# comments in and out of them (most sequences tokenize, as flake8 needs).
JOINING_LINES = ['x = """', 'x = f"""{y}', "x = (", ")", '"""', '"""  # noqa: DOM104', "x = 1 + \\", "2"]
JOINING_LINES += ["# noqa", "a  # noqa: DOM101", "b  #NOQA:DOM1,E501", "# noqa:", "DOM112", "{y}  # noqa"]
# A string continued by a backslash, a comment ending in one, raw quotes, brackets alone.
JOINING_LINES += ["y = 'a\\", "b'", "# comment \\", "w = r'''", "'''  # noqa: DOM101", "]", "["]


def tokenizes(text: str) -> bool:
    """Whether the tokenizer reads ``text`` to its end without an ERRORTOKEN (a quote left
    open, a bracket never closed, a stray character): flake8 runs no plugin on a file it
    cannot (it reports E902 or E999 there), and the engine reports it as DOM001, so what
    the two read of its noqa comments is never compared by a user."""
    try:
        return all(token.type != tokenize.ERRORTOKEN for token in tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return False


@settings(max_examples=300, suppress_health_check=[HealthCheck.filter_too_much])
@given(st.lists(st.sampled_from(JOINING_LINES), min_size=1, max_size=8))
def test_every_line_is_read_as_flake8_reads_it_whatever_joins_the_lines(lines):
    text = "".join(line + "\n" for line in lines)
    assume(tokenizes(text))
    comments = NoqaComments.of(text)
    for line in range(1, len(lines) + 1):
        for code in CODES:
            assert comments.suppresses(line, code) == flake8_file_ignores(text, line, code), (line, code)


def test_the_lines_of_a_string_closed_before_a_comment_are_covered():
    comments = NoqaComments.of(JOINED["a comment after a closing triple quote"])
    assert [comments.suppresses(line, "DOM101") for line in (1, 2, 3)] == [False, True, True]


FILE_COMMENTS = {
    "bare": "# flake8: noqa\nx = 1\n",
    "with codes": "x = 1\n# flake8: noqa: DOM101\n",
    "equals, upper case, indented": "def f():\n    # FLAKE8=NOQA\n    pass\n",
    "after code": "x = 1  # flake8: noqa\n",
    "split over two lines": "# flake8:\nnoqa = 1\n",
    "inside a string, at a line's start": 'x = """\n# flake8: noqa\n"""\n',
    "a plain noqa": "x = 1  # noqa\ny = 2\n",
}


def flake8_skips_file(text: str) -> bool:
    """flake8's own answer: whether it skips the whole file (FileProcessor.should_ignore_file)."""
    from flake8.processor import FileProcessor

    options = argparse.Namespace(
        hang_closing=False, indent_size=4, max_line_length=79, max_doc_length=None, verbose=0, disable_noqa=False
    )
    processor = FileProcessor("f.py", options=options, lines=io.StringIO(text).readlines())
    return processor.should_ignore_file()


@pytest.mark.parametrize("case", sorted(FILE_COMMENTS))
def test_a_file_comment_silences_the_file_as_flake8_skips_it(case):
    text = FILE_COMMENTS[case]
    comments = NoqaComments.of(text)
    silenced = all(comments.suppresses(line, code) for line in (1, 2, 3) for code in CODES)
    assert silenced == flake8_skips_file(text), case


CASED_PARTS = ["x = 1", "# ", "#", "noqa", "NOQA", "NoQa", "nOqA", "q", "Q", "no", "qa", "flake8", "FLAKE8", ": ", "="]
CASED_PARTS += [" ", "\f", "İ", "ß", "K", "DOM101", ","]


@given(st.lists(st.lists(st.sampled_from(CASED_PARTS), max_size=8), min_size=1, max_size=8))
def test_noqa_is_found_in_any_case_and_next_to_any_character(lines):
    """A comment written in any case (found without lowering the file), beside characters
    that lower to several or to an ASCII letter: as the grammar reads every line."""
    text = "\n".join("".join(parts) for parts in lines)
    found = dict(NoqaComments.of(text).lines)
    from domain_fence.core.engine.noqa import _NOQA_FILE, WHOLE_FILE

    assert (found.pop(WHOLE_FILE, "none") is None) == (re.search(_NOQA_FILE, text) is not None), text
    assert found == every_line_matched(text), text
