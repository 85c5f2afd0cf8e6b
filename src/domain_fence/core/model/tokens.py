"""The token a finding points at on its line, when the finding does not say where it
ends: what an editor or a SARIF region highlights. Kept out of :mod:`.text`, which
every run imports: only the language server and the SARIF report compile these expressions.
"""

from __future__ import annotations

import re

# What a finding whose end is unknown points at, on its line: a definition's keyword and
# name, a string literal (prefix, quotes and all), or a dotted name (``self.target``).
_DEFINITION = re.compile(r"(?:async\s+)?(?:def|class)\s+\w+")
_STRING = re.compile(r"[A-Za-z]{0,2}(?:'''.*?'''|\"\"\".*?\"\"\"|'(?:\\.|[^'\\])*'|\"(?:\\.|[^\"\\])*\")")
_DOTTED = re.compile(r"\w+(?:\s*\.\s*\w+)*")


def token_end(line: str, start: int) -> int:
    """Where the token of ``line`` starting at character ``start`` ends: the span an
    editor or a SARIF region highlights when a finding does not say (one character when
    nothing is recognised, as a string left open on this line)."""
    for shape in (_DEFINITION, _STRING, _DOTTED):
        found = shape.match(line, start)
        if found:
            return found.end()
    return min(start + 1, max(len(line), start))
