"""Where in a configuration file the language server shows why it cannot be used: the
line where the fix goes, as far as the problem's first line tells."""

from __future__ import annotations

import re
import tomllib

UNREADABLE = "cannot read configuration: "  # what loading says before the reader's own words
CONTRACTS_HEADER = "[[tool.importlinter.contracts]]"
# Where a reader says it stopped: configparser's "[line  7]" (padded to two digits),
# tomllib's "(at line 3, column 5)" and "(at end of document)".
_LINE_NAMED = re.compile(r"\[line\s+(\d+)\]|\(at line (\d+), column \d+\)")
_AT_END = "(at end of document)"
_SECTION = re.compile(r"\[[^\[\]]+\]")  # [importlinter:contract:x], [tool.importlinter]
_QUOTED = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")  # a repr()'d contract name
_LINE_BREAK = re.compile(r"\r\n|\r|\n")  # the only line breaks an LSP client counts


def editor_lines(text: str) -> list[str]:
    """``text``'s lines as an editor numbers them (str.splitlines also breaks at form
    feeds and other separators that neither the readers nor LSP clients count)."""
    return _LINE_BREAK.split(text)


def problem_row(text: str, problem: str) -> int:
    """The 0-based line of the configuration ``text`` that ``problem`` (the first line of
    what loading it said, its path removed) is about; 0 when it does not say."""
    lines = editor_lines(text)
    if problem.startswith(UNREADABLE):
        named = _LINE_NAMED.search(problem)
        if named is not None and 0 < int(named.group(1) or named.group(2)) <= len(lines):
            return int(named.group(1) or named.group(2)) - 1
        if problem.endswith(_AT_END):
            return max((row for row, line in enumerate(lines) if line.strip()), default=0)
        return 0
    if problem.startswith(CONTRACTS_HEADER + " "):
        return _contract_row(text, lines, problem[len(CONTRACTS_HEADER) + 1 :]) or 0
    section = _SECTION.match(problem)
    stripped = [line.strip() for line in lines]
    if section is not None and section.group() in stripped:
        return stripped.index(section.group())
    return 0


def _contract_row(text: str, lines: list[str], rest: str) -> int | None:
    """The header of the ``[[tool.importlinter.contracts]]`` table named at the start of
    ``rest`` (its name, or its id, as ``repr`` writes it)."""
    label = _QUOTED.match(rest)
    try:
        contracts = tomllib.loads(text).get("tool", {}).get("importlinter", {}).get("contracts")
    except tomllib.TOMLDecodeError:
        return None
    if label is None or not isinstance(contracts, list):
        return None
    named = [
        number
        for number, contract in enumerate(contracts)
        if isinstance(contract, dict) and label.group() in (repr(contract.get("name")), repr(contract.get("id")))
    ]
    headers = [row for row, line in enumerate(lines) if line.strip() == CONTRACTS_HEADER]
    if not named or len(headers) != len(contracts):  # written inline: no header per contract
        return None
    return headers[named[0]]
