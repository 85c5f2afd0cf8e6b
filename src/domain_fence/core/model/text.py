"""Text from the checked project or its configuration: made safe to print on one line,
and split into words (the token a finding points at: :mod:`.tokens`).

A kind string, a keyword or a file name may hold a line feed, a carriage return or an
escape sequence: printed raw it would split a ``path:line:col:`` line in two, forge a
GitHub workflow command at column 0, or drive the terminal. Control characters are
shown escaped (``\\n``, ``\\x1b``) instead, in every format.
"""

from __future__ import annotations

import re
import unicodedata


def escape_controls(text: str) -> str:
    """``text`` with every control character (Unicode category C, tab aside) escaped."""
    if text.isprintable():
        return text
    return "".join(_escaped(character) for character in text)


def control_character(text: str) -> str | None:
    """The first control character of ``text`` (tab aside), escaped; None when none."""
    for character in text:
        escaped = _escaped(character)
        if escaped != character:
            return escaped
    return None


def _escaped(character: str) -> str:
    if character == "\t" or unicodedata.category(character)[0] != "C":
        return character
    return character.encode("unicode_escape").decode("ascii")


def line_reference(line: int) -> str:
    """How a message names a line of the checked file: `` (l.40)``."""
    return f" (l.{line})"


# What line_reference writes, which a baseline's description leaves out.
_LINE_REFERENCE = re.compile(r" \(l\.\d+\)")


def without_line_references(message: str) -> str:
    """``message`` without the lines it names: what stays true when a line is inserted
    above (a baseline entry's description, whose fingerprint leaves the line out too)."""
    return _LINE_REFERENCE.sub("", message) if " (l." in message else message


def one_line(error: BaseException | str) -> str:
    """An error (or its message) as the one line a front end shows: its first line,
    else the exception's type; every "one line, never a traceback" goes through here."""
    text = str(error).strip()
    if not text:
        return type(error).__name__ if isinstance(error, BaseException) else "unknown"
    return text.splitlines()[0]


# The words of an identifier: a run of capitals before a capitalised word (LMState),
# a capitalised or lower-case word, a run of capitals, a number.
_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


def split_words(identifier: str) -> tuple[str, ...]:
    """The lower-case words of an identifier or a kind string, in order, unfolded.

    >>> split_words("LMState_2d")
    ('lm', 'state', '2', 'd')
    """
    return tuple(part.lower() for chunk in re.split(r"[^A-Za-z0-9]+", identifier) for part in _PART.findall(chunk))
