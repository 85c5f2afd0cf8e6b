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
_MAX_DIGITS = 9  # a line number beyond any file's
_SECTION = re.compile(r"\[[^\[\]]+\]")  # [importlinter:contract:x], [tool.importlinter]
# A TOML table header as tomllib reads one (spaces inside the brackets, a comment after
# them), an array-of-tables header for the contracts, and a section header as
# configparser reads one (any text may follow it).
_TOML_TABLE = re.compile(r"\[\s*(?P<header>[\w-]+(?:\s*\.\s*[\w-]+)*)\s*\]\s*(?:#.*)?\Z")
_CONTRACT_TABLE = re.compile(r"\[\[\s*tool\s*\.\s*importlinter\s*\.\s*contracts\s*\]\]\s*(?:#.*)?\Z")
_INI_HEADER = re.compile(r"\[(?P<header>.+)\]")
# A contract as problems name it: its name or id written by repr(), or its number.
_LABEL = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|(?P<number>\d{1,9})(?= )")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")  # the only line breaks an LSP client counts


def editor_lines(text: str) -> list[str]:
    """``text``'s lines as an editor numbers them (str.splitlines also breaks at form
    feeds and other separators that neither the readers nor LSP clients count)."""
    return _LINE_BREAK.split(text)


def problem_row(text: str, problem: str, toml: bool = False) -> int:
    """The 0-based line of the configuration ``text`` that ``problem`` (the first line of
    what loading it said, its path removed) is about; 0 when it does not say. ``toml``:
    the file is a pyproject.toml. The file may have changed since the problem was
    found: nothing here raises."""
    lines = editor_lines(text)
    if problem.startswith(UNREADABLE):
        named = _LINE_NAMED.search(problem)
        number = (named.group(1) or named.group(2)) if named is not None else ""
        if 0 < len(number) <= _MAX_DIGITS and 0 < int(number) <= len(lines):
            return int(number) - 1
        if problem.endswith(_AT_END):
            return max((row for row, line in enumerate(lines) if line.strip()), default=0)
        return 0
    if problem.startswith(CONTRACTS_HEADER + " "):
        return _contract_row(text, lines, problem[len(CONTRACTS_HEADER) + 1 :]) or 0
    section = _SECTION.match(problem)
    if section is not None:
        for row, line in enumerate(lines):
            if _header(line, toml) == section.group():
                return row
    return 0


def _header(line: str, toml: bool) -> str | None:
    """The table (TOML) or section (INI) ``line`` opens, written as problems write it."""
    if toml:
        table = _TOML_TABLE.match(line.strip())
        return None if table is None else "[" + re.sub(r"\s*\.\s*", ".", table.group("header")) + "]"
    # Indented, it continues a value of the section above it (configparser).
    section = _INI_HEADER.match(line.rstrip())
    return None if section is None else f"[{section.group('header')}]"


def _contract_row(text: str, lines: list[str], rest: str) -> int | None:
    """The header of the ``[[tool.importlinter.contracts]]`` table named at the start of
    ``rest``: by its name or its id, as ``repr`` writes it, or by its number when it
    has neither."""
    label = _LABEL.match(rest)
    try:
        contracts: object = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError, RecursionError):  # ValueError: an integer too long
        return None
    for key in ("tool", "importlinter", "contracts"):
        contracts = contracts.get(key) if isinstance(contracts, dict) else None
    if label is None or not isinstance(contracts, list):
        return None
    tables = [contract if isinstance(contract, dict) else {} for contract in contracts]
    if label.group("number"):
        named = [int(label.group("number")) - 1] if 0 < int(label.group("number")) <= len(tables) else []
    else:
        named = [number for number, contract in enumerate(tables) if label.group() in _labels(contract)]
    headers = [row for row, line in enumerate(lines) if _CONTRACT_TABLE.match(line.strip())]
    if not named or len(headers) != len(contracts):  # written inline: no header per contract
        return None
    if rest[label.end() :].startswith(" id: "):
        # An id given twice is refused at the contract repeating an earlier one's.
        named = [number for number in named if _repeats(tables, number)] or named
    return headers[named[0]]


def _labels(contract: dict[str, object]) -> set[str]:
    """How a problem may name ``contract``: its name or id as ``repr`` writes them (only
    strings: ``repr`` refuses an integer of too many digits)."""
    return {repr(value) for value in (contract.get("name"), contract.get("id")) if isinstance(value, str)}


def _repeats(tables: list[dict[str, object]], number: int) -> bool:
    """Whether contract ``number``'s id (or name, without one) is an earlier one's."""
    own = tables[number].get("id", tables[number].get("name"))
    return any(own in (table.get("id"), table.get("name")) for table in tables[:number])
