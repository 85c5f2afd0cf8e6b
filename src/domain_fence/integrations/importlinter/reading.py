"""Read the raw options of an import-linter configuration file, strictly.

The options come out as import-linter's own readers produce them (a string, or a list
of strings for a multi-line INI value or a TOML array; TOML booleans as "True" and
"False"), with what those readers let through refused here as one line naming the key:
an INI value is read raw (a ``%`` is text, not interpolation), a byte order mark is
skipped, a TOML value of the wrong type is named, and two TOML contracts may not
share an id (``lint-imports`` refuses them too; their baseline entries would mix).
"""

from __future__ import annotations

import configparser
import difflib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from importlinter.adapters.user_options import IniFileUserOptionReader, TomlFileUserOptionReader

from domain_fence.core.model.text import control_character
from domain_fence.core.source.files import read_regular_file
from domain_fence.core.source.reading import loads_toml

INI_SECTION = "importlinter"
# Session options that are one value each; every other session option may be a list.
SINGLE_SESSION_OPTIONS = ("root_package", "include_external_packages", "exclude_type_checking_imports")
SESSION_FLAGS = ("include_external_packages", "exclude_type_checking_imports")
# Every session option lint-imports reads: it passes over any other in silence, so a
# misspelt one (``root_pakages``, ``contract_type``) would be a setting lost unseen.
SESSION_OPTIONS = ("root_package", "root_packages", "contract_types", "show_timings", *SESSION_FLAGS)


class OptionsError(Exception):
    """The file's options cannot be used; the message is one line without the path."""


def read_text(path: Path) -> str:
    """The file's text, a byte order mark left out (editors on Windows add one)."""
    return read_regular_file(path).decode("utf-8-sig")


def has_section(path: Path) -> bool:
    """Whether ``path`` holds an import-linter section (raises on unreadable files)."""
    text = read_text(path)
    if path.suffix == ".toml":
        tool = loads_toml(text).get("tool", {})
        return isinstance(tool, dict) and bool(tool.get(INI_SECTION))
    return _ini_parser(text).has_section(INI_SECTION)


FlagTest = Callable[[Mapping[str, Any], str], bool]


def read_options(path: Path, flags_for: Callable[[dict[str, Any]], FlagTest]) -> dict[str, Any]:
    """``{"session_options": ..., "contracts_options": [...]}`` of ``path``.

    ``flags_for(session_options)`` gives a test ``is_flag(contract_options, key)``:
    whether a TOML boolean is a valid value of ``key`` for that contract's type (every
    other option wants strings).
    """
    text = read_text(path)
    toml = path.suffix == ".toml"
    options = _toml_options(loads_toml(text), flags_for) if toml else _ini_options(_ini_parser(text))
    _refuse_control_characters(options, toml=toml)
    session = options["session_options"]
    _refuse_unknown_session_options(session, toml)
    if "root_packages" not in session and "root_package" in session:  # as import-linter does
        session["root_packages"] = [session["root_package"]]
    session.pop("root_package", None)
    return options


def _refuse_unknown_session_options(session: Mapping[str, Any], toml: bool) -> None:
    """One line for the first option of the session section that lint-imports does not
    read, with the option meant when one is close (as import-linter says of a contract's)."""
    for key in sorted(session):
        if key not in SESSION_OPTIONS:
            close = difflib.get_close_matches(key, SESSION_OPTIONS, n=1)
            hint = f" Did you mean {close[0]!r}?" if close else ""
            where = "[tool.importlinter]" if toml else f"[{INI_SECTION}]"
            raise OptionsError(f"{where} {key}: Unrecognized option.{hint}")


def _refuse_control_characters(options: dict[str, Any], toml: bool) -> None:
    """A contract's name, a word or a guidance text is printed in every report: a line
    feed or an escape sequence in it would split or forge lines there."""
    sections = [("[tool.importlinter]" if toml else "[importlinter]", options["session_options"])]
    sections += [(_contract_where(c, n, toml), c) for n, c in enumerate(options["contracts_options"], start=1)]
    for where, values in sections:
        for key, value in values.items():
            for item in value if isinstance(value, list) else [value]:
                found = control_character(item) if isinstance(item, str) else None
                if found:
                    raise OptionsError(f"{where} {key}: holds a control character ({found}); use printable text")


def _contract_where(contract: Mapping[str, Any], number: int, toml: bool = True) -> str:
    if not toml:
        return f"[importlinter:contract:{contract.get('id', number)}]"
    return f"[[tool.importlinter.contracts]] {quoted(contract.get('name', contract.get('id', number)))}"


def quoted(value: object) -> str:
    """``repr(value)``, which Python refuses for an integer of too many digits (TOML
    reads hexadecimal ones of any length)."""
    try:
        return repr(value)
    except ValueError:
        return "a number too long to show"


def _ini_parser(text: str) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(interpolation=None)
    parser.read_string(text)
    return parser


def _ini_options(parser: configparser.ConfigParser) -> dict[str, Any]:
    if not parser.has_section(INI_SECTION):
        raise OptionsError(f"no [{INI_SECTION}] section")
    options = IniFileUserOptionReader()._build_from_config(parser)
    session = dict(options.session_options)
    for key in SINGLE_SESSION_OPTIONS:
        if isinstance(session.get(key), list):
            raise OptionsError(f"[{INI_SECTION}] {key}: one value expected, on the same line as the key")
    return {"session_options": session, "contracts_options": list(options.contracts_options)}


def _toml_options(document: dict[str, Any], flags_for: Callable[[dict[str, Any]], FlagTest]) -> dict[str, Any]:
    tool = document.get("tool", {})
    session = tool.get(INI_SECTION) if isinstance(tool, dict) else None
    if not isinstance(session, dict) or not session:
        raise OptionsError("no [tool.importlinter] table")
    session = dict(session)
    contracts = session.pop("contracts", [])
    if not isinstance(contracts, list) or not all(isinstance(c, dict) for c in contracts):
        raise OptionsError(
            "[tool.importlinter] contracts: expected an array of tables ([[tool.importlinter.contracts]])"
        )
    for key, value in session.items():
        problem = _session_value_problem(key, value)
        if problem:
            raise OptionsError(f"[tool.importlinter] {key}: {problem}")
    reader = TomlFileUserOptionReader()
    reader._normalize_booleans(session)
    is_flag = flags_for(session)
    seen: set[str] = set()
    for number, contract in enumerate(contracts, start=1):
        where = _contract_where(contract, number)
        for key, value in contract.items():
            problem = _contract_value_problem(key, value, is_flag(contract, key))
            if problem:
                raise OptionsError(f"{where} {key}: {problem}")
        contract_id = contract.get("id")
        if contract_id is not None:
            if contract_id in seen:
                raise OptionsError(f"{where} id: more than one contract has the id {contract_id!r}; ids must be unique")
            seen.add(contract_id)
    for contract in contracts:
        reader._normalize_booleans(contract)
    return {"session_options": session, "contracts_options": contracts}


def _session_value_problem(key: str, value: object) -> str | None:
    if key in SESSION_FLAGS:
        return None if isinstance(value, (bool, str)) else f"expected true or false, not {_shown(value)}"
    if key in SINGLE_SESSION_OPTIONS:
        return None if isinstance(value, str) else f"expected a string, not {_shown(value)}"
    return _strings_problem(value)


def _contract_value_problem(key: str, value: object, flag: bool) -> str | None:
    if flag and isinstance(value, bool):
        return None
    if key in ("id", "name", "type"):
        return None if isinstance(value, str) else f"expected a string, not {_shown(value)}"
    return _strings_problem(value)


def _strings_problem(value: object) -> str | None:
    if isinstance(value, str):
        return None
    if isinstance(value, list):
        wrong = [item for item in value if not isinstance(item, str)]
        return f"expected a list of strings, not one holding {_shown(wrong[0])}" if wrong else None
    return f"expected a string or a list of strings, not {_shown(value)}"


def _shown(value: object) -> str:
    kind = {bool: "a boolean", int: "a number", float: "a number", dict: "a table", list: "an array"}
    return f"{kind.get(type(value), type(value).__name__)} ({quoted(value)})"[:80]
