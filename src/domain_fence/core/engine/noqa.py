"""``# noqa`` comments, honoured by every front end the same way.

The grammar is flake8's (``flake8.defaults.NOQA_INLINE_REGEXP`` and
``Violation.is_inline_ignored``): a bare ``# noqa`` silences every code on its line,
``# noqa: DOM101,DOM112`` the codes listed, and a listed prefix the codes it starts
(``# noqa: DOM1``). A line starting ``# flake8: noqa`` (``flake8.defaults.NOQA_FILE``,
codes or not) silences the whole file, as flake8 then skips it. So is the line a comment covers (flake8's ``noqa_line_for``): every
line of a statement that spans lines without a newline token between them (a string
over several lines, a backslash continuation) is read as one, so a comment after a
closing triple quote covers each line of the string, and so does ``# noqa`` written
inside it, on any of its lines: flake8 searches the text, comment or not.
flake8 cannot be imported here; tests hold the two to agreement.
"""

import re
from collections.abc import Iterable, Iterator
from typing import NamedTuple

from domain_fence.core.model.findings import Finding

# Matched only on the lines holding "noqa", which most files have none of: compiled by
# re's cache when first used, not as every run imports the module.
_NOQA = r"(?i)# noqa(?::[\s]?(?P<codes>([A-Z]+[0-9]+(?:[,\s]+)?)+))?"
_SEPARATOR = r"[,\s]"

# flake8's NOQA_FILE, matched at the start of a line; blanks within one line only.
_NOQA_FILE = r"(?im)^[^\S\n]*# flake8[:=][^\S\n]*noqa"

ALL = None  # a bare noqa comment: every code
WHOLE_FILE = 0  # the "line" of a file-wide flake8 noqa comment: every line


class NoqaComments(NamedTuple):
    """The noqa comment of each line of one file: line -> codes (None: every code)."""

    lines: dict[int, frozenset[str] | None]

    @classmethod
    def of(cls, text: str) -> "NoqaComments":
        """The comments of ``text``, its lines numbered as Python numbers them (ended by
        "\n", "\r\n" or "\r"; a form feed ends none), as findings are. Only the lines
        where "noqa" occurs are matched against the grammar: a file of a codebase that
        uses noqa comments has a handful among hundreds of lines. A file-wide comment
        holds "noqa" too, on its own line."""
        found: dict[int, frozenset[str] | None] = {}
        if "\r" in text:
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        offsets = _noqa_offsets(text)
        if not offsets:  # the usual case
            return cls(found)
        whole_file = False
        for number, line in _lines_at(text, offsets):
            if number not in found and re.search(_NOQA, line):
                found[number] = codes_of(line)
            whole_file = whole_file or re.match(_NOQA_FILE, line) is not None
        if found and _may_join(text):
            _cover_joined_lines(text, found)
        if whole_file:
            found[WHOLE_FILE] = ALL
        return cls(found)

    def suppresses(self, line: int, code: str) -> bool:
        if WHOLE_FILE in self.lines:
            return True
        if line not in self.lines:
            return False
        codes = self.lines[line]
        return codes is None or code in codes or code.startswith(tuple(codes))


def _cover_joined_lines(text: str, found: dict[int, frozenset[str] | None]) -> None:
    """Give every line of a multi-line range holding a noqa comment what the range's
    text, read as one (its first match, as flake8 reads it), says."""
    lines = text.split("\n")
    for first, last in _joined_ranges(text):
        if not any(first <= number <= last for number in found):
            continue
        joined = "\n".join(lines[first - 1 : last])
        codes = codes_of(joined)  # a noqa comment is in it: a line of it matched
        for number in range(first, last + 1):
            found[number] = codes


def _may_join(text: str) -> bool:
    """Whether ``text`` (its lines ended by "\n") may hold a range of lines flake8 reads
    as one: only a token over several lines (a triple-quoted string, a string continued
    by a backslash) or a backslash continuation makes one, as a newline in brackets, in
    an f-string's replacement field too, is a token of its own."""
    return '"""' in text or "'''" in text or "\\\n" in text


def comment_line(text: str, line: int) -> int:
    """The line a noqa comment for ``line`` goes on: the last of the lines flake8 reads
    with it (after a closing triple quote, not inside the string; after a backslash
    continuation, not before the backslash)."""
    for first, last in _joined_ranges(text.replace("\r\n", "\n").replace("\r", "\n")):
        if first <= line <= last:
            return last
    return line


# What makes flake8 read lines as one: a string over several lines (triple-quoted, or
# single-quoted and continued by a backslash) and a backslash continuation. Each is
# found after what cannot be one (code, comments to their line's end, strings on one
# line), skipped within the same match and never backtracked into (possessive
# quantifiers, Python 3.11's): one match per string of a file, not one per token.
_SKIPPED = (
    r"(?:[^#'\"\\]++"
    r"|#[^\n]*+"
    r"|'(?!'')[^'\\\n]*+(?:\\[^\n][^'\\\n]*+)*+'"
    r"|\"(?!\"\")[^\"\\\n]*+(?:\\[^\n][^\"\\\n]*+)*+\""
    r"|\\(?!\n))*+"
)
_JOINING = _SKIPPED + (
    r"(?P<string>[rRbBuUfF]{0,2}(?:'''[^'\\]*+(?:(?:\\.|'(?!''))[^'\\]*+)*+'''"
    r"|\"\"\"[^\"\\]*+(?:(?:\\.|\"(?!\"\"))[^\"\\]*+)*+\"\"\""
    r"|'[^'\\\n]*+(?:\\.[^'\\\n]*+)*+'"
    r"|\"[^\"\\\n]*+(?:\\.[^\"\\\n]*+)*+\")"
    r"|\\\n)"
)


def _joined_ranges(text: str) -> Iterator[tuple[int, int]]:
    """The ranges of lines (first, last) that flake8 joins to look for noqa (from one NL or
    NEWLINE token to the next, when they span more than one line), as Python's tokenizer
    reads ``text`` (its lines ended by "\n"): each string over several lines, each
    backslash continuation, and those that share a line, merged. Found by one scan for
    comments, strings and continuations, not by tokenizing the file, which costs as much
    as parsing it. Read so for a file Python can parse: flake8 runs no plugin on another
    (it reports E902 or E999 there), and the engine reports it as DOM001. An f-string is
    read as Python 3.11 reads it, one string: quotes nested in its fields, which 3.12
    allows, end it here."""
    first = last = 0
    line, counted = 1, 0  # the line at offset ``counted``
    joining, skipped = re.compile(_JOINING, re.DOTALL), re.compile(_SKIPPED)
    at = 0
    while at < len(text):
        found = joining.match(text, at)
        if found is None:  # a quote that opens no string (a file Python cannot parse): past it
            at = skipped.match(text, at).end() + 1  # type: ignore[union-attr]
            continue
        at = found.end()
        written = found["string"] if found["string"] is not None else "\\\n"
        if "\n" not in written:
            continue
        start = found.start("string") if found["string"] is not None else at - 2
        line += text.count("\n", counted, start)
        counted = start
        begins, ends = line, line + written.count("\n")  # a continuation joins the next line
        if begins <= last:  # shares a line with the range before: no newline token between
            last = max(last, ends)
            continue
        if last > first:
            yield first, last
        first, last = begins, ends
    if last > first:
        yield first, last


def _noqa_offsets(text: str) -> list[int]:
    """Where "noqa" is written, in any case (no other character matches one of its
    letters, ignoring case, nor lowers to one), in ascending order. Found from each
    "q" or "Q", which code seldom holds: lowering a whole file to search it cost more
    than everything else done with its comments."""
    found = []
    for letter in "qQ":
        at = text.find(letter, 2)
        while at != -1:
            if text[at - 2 : at + 2].lower() == "noqa":
                found.append(at - 2)
            at = text.find(letter, at + 1)
    return sorted(found)


def _lines_at(text: str, offsets: Iterable[int]) -> Iterator[tuple[int, str]]:
    """The number and text of the line of each offset (ascending) of a text whose
    lines all end with "\n"."""
    number, counted = 1, 0
    for at in offsets:
        number += text.count("\n", counted, at)
        counted = at
        start = text.rfind("\n", 0, at) + 1
        end = text.find("\n", at)
        yield number, text[start : end if end != -1 else len(text)]


def codes_of(line: str) -> frozenset[str] | None:
    """The codes the noqa comment of ``line`` names; None for a bare ``# noqa`` (every
    code), and for a line with no noqa comment (ask :data:`_NOQA` first)."""
    match = re.search(_NOQA, line)
    if match is None:
        return ALL
    codes = match.group("codes")
    if codes is None:
        return ALL
    return frozenset(code.strip() for code in re.split(_SEPARATOR, codes) if code.strip())


def split_suppressed(findings: Iterable[Finding], comments: NoqaComments) -> tuple[list[Finding], list[Finding]]:
    """``(kept, suppressed)``."""
    kept: list[Finding] = []
    suppressed: list[Finding] = []
    for finding in findings:
        (suppressed if comments.suppresses(finding.line, finding.code) else kept).append(finding)
    return kept, suppressed
