"""Read the project's import-linter configuration for our own front ends.

flake8, pytest and the CLI read the *same* contracts ``lint-imports`` runs, through
``importlinter.api.read_configuration``, and validate them by constructing the very
contract classes ``lint-imports`` constructs, so every front end agrees on what is
valid and what a violation is. Errors become :class:`ConfigurationError`, whose lines
each name the file, the section and the option at fault.
"""

from __future__ import annotations

import configparser
import errno
import importlib
import os
import re
import stat
import sys
import tomllib
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import importlinter.api  # noqa: F401  (configures import-linter's settings, as lint-imports does)
from importlinter import fields
from importlinter.domain.contract import Contract, InvalidContractOptions

# CONFIG_FILES: lint-imports' order, the run cache's inputs too
from domain_fence.core.engine.runcache import CONFIG_FILES, session_section
from domain_fence.core.families.config import FLAG_OPTIONS
from domain_fence.core.model.text import one_line
from domain_fence.core.source.factcache import DEFAULT_DIRECTORY, cache_directory
from domain_fence.core.source.files import real_path
from domain_fence.core.source.modules import max_file_size_problem
from domain_fence.integrations.configsearch import may_hold_configuration

from .base import FenceContract, project_root
from .reading import FlagTest, OptionsError, has_section, quoted, read_options

BUILT_IN_TYPES = {
    "forbidden": "importlinter.contracts.forbidden.ForbiddenContract",
    "layers": "importlinter.contracts.layers.LayersContract",
    "independence": "importlinter.contracts.independence.IndependenceContract",
    "protected": "importlinter.contracts.protected.ProtectedContract",
    "private_modules": "importlinter.contracts.private_modules.PrivateModulesContract",
    "acyclic_siblings": "importlinter.contracts.acyclic_siblings.AcyclicSiblingsContract",
}


class ConfigurationError(Exception):
    """The configuration cannot be used; each line of the message names file and place."""


class ConfigurationNotFound(ConfigurationError):
    """No file in the directory has an import-linter section."""


@dataclass(eq=False)  # a holder never compared: no __eq__ compiled on import
class Configuration:
    """An import-linter configuration file, read: its session options and its contracts' options."""

    path: Path
    session_options: dict[str, Any]
    contracts_options: list[dict[str, Any]]
    contract_types: dict[str, type[Contract]] = field(default_factory=dict)
    # Where domain-fence caches facts (None: no caches at all); set from the
    # environment when loaded, from --cache-dir/--no-cache by the command line.
    cache_dir: Path | None = None

    @property
    def root(self) -> Path:
        return self.path.parent

    @property
    def graph_cache_dir(self) -> Path | None:
        """grimp's cache: where lint-imports keeps it, unless ours was moved or is off."""
        if self.cache_dir is None:
            return None
        if self.cache_dir == self.root / DEFAULT_DIRECTORY:
            return self.root / ".import_linter_cache"
        return self.cache_dir / "import_linter"

    @property
    def root_packages(self) -> list[str]:
        return list(self.session_options["root_packages"])

    def session_flag(self, key: str) -> bool:
        return str(self.session_options.get(key, "")).strip() in ("True", "true")

    def section(self, options: dict[str, Any]) -> str:
        if self.path.suffix == ".toml":
            # By its number when it has neither name nor id, as the reader names it.
            number = next((n for n, given in enumerate(self.contracts_options, start=1) if given is options), "?")
            return f"[[tool.importlinter.contracts]] {quoted(options.get('name', options.get('id', number)))}"
        return f"[importlinter:contract:{options.get('id', '?')}]"

    def contracts(self) -> list[Contract]:
        """Every contract, constructed and validated; all problems raised together."""
        built, problems = [], []
        token = project_root.set(self.root)
        try:
            for options in self.contracts_options:
                contract_type = options.get("type")
                cls = self.contract_types.get(str(contract_type))
                if cls is None:
                    problems.append(f"{self.section(options)} type: unknown contract type {contract_type!r}")
                    continue
                if not options.get("name"):  # lint-imports fails on it with a bare KeyError
                    problems.append(f"{self.section(options)} name: This is a required field.")
                    continue
                try:
                    built.append(
                        cls(
                            name=str(options["name"]),
                            session_options=self.session_options,
                            contract_options=options,
                        )
                    )
                except InvalidContractOptions as error:
                    problems += [
                        f"{self.section(options)} {key}: {message}" for key, message in sorted(error.errors.items())
                    ]
        finally:
            project_root.reset(token)
        problems += self._shared_ids(built)
        if problems:
            raise ConfigurationError("\n".join(f"{self.path}: {p}" for p in problems))
        return built

    def _shared_ids(self, contracts: list[Contract]) -> list[str]:
        """One problem per domain-fence contract whose id (else its name) an earlier one
        has: their baseline entries and findings would be one contract's."""
        seen: set[str] = set()
        problems = []
        for contract in contracts:
            if not isinstance(contract, FenceContract):
                continue
            if contract.contract_id in seen:
                problems.append(
                    f"{self.section(contract.contract_options)} id: {contract.contract_id!r} is already the id (or "
                    "name) of another contract; give each contract an id of its own"
                )
            seen.add(contract.contract_id)
        return problems

    def fence_contracts(self, family: str | None = None) -> list[FenceContract]:
        return [
            c for c in self.contracts() if isinstance(c, FenceContract) and (family is None or c.family.name == family)
        ]


def find_configuration(directory: Path) -> Path:
    """The file ``lint-imports`` would read in ``directory``."""
    for name in CONFIG_FILES:
        candidate = directory / name
        if candidate.is_file() and _has_importlinter_section(candidate):
            return candidate
    # None of them holds one: a candidate that is no file (a FIFO, a device, a loop of
    # links) may be the configuration meant, which lint-imports fails on too.
    for name in CONFIG_FILES:
        if _neither_file_nor_directory(directory / name):
            _has_importlinter_section(directory / name)  # refused in one line
    raise ConfigurationNotFound(
        f"{directory}: no import-linter configuration found (looked for an [importlinter] "
        f"section in {', '.join(CONFIG_FILES)})"
    )


def holds_configuration(directory: Path) -> bool:
    """Whether ``directory`` holds the configuration ``lint-imports`` would read there,
    usable or not (loading a broken one says why, where it is)."""
    if not may_hold_configuration(directory):  # the cheap look first: most directories hold none
        return False
    try:
        find_configuration(directory)
    except ConfigurationNotFound:
        return False
    except ConfigurationError:
        return True
    return True


def _neither_file_nor_directory(path: Path) -> bool:
    """Whether ``path`` is there but neither a file nor a directory: a FIFO, a device, a
    loop of symbolic links (a dangling link is no file at all)."""
    try:
        mode = os.stat(path).st_mode
    except OSError as error:
        return error.errno == errno.ELOOP
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def _has_importlinter_section(path: Path) -> bool:
    try:
        return has_section(path)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, configparser.Error) as error:
        raise _unreadable(path, error) from None


def _unreadable(path: Path, error: Exception) -> ConfigurationError:
    """One line saying why ``path`` cannot be read, with the line configparser names on
    a second line of its own message (a syntax error, text before any section)."""
    where = ""
    if isinstance(error, configparser.MissingSectionHeaderError):
        where = f" [line {error.lineno}]: {error.line!r}"
    elif isinstance(error, configparser.ParsingError) and error.errors:
        # "\t[line  3]: 'text'" in every version (``errors`` holds the line raw from 3.13)
        where = " " + str(error).splitlines()[1].strip()
    reason = error.strerror if isinstance(error, OSError) and error.strerror else one_line(error)
    return ConfigurationError(f"{path}: cannot read configuration: {reason}{where[:100]}")


def load_configuration(path: Path | str | None = None, directory: Path | None = None) -> Configuration:
    """Read and check the configuration at ``path``, or the one found in ``directory``.

    ``path`` may also name a directory, in which case it is searched.
    """
    problem = max_file_size_problem()
    if problem is not None:
        raise ConfigurationError(problem)
    if path is None:
        path = find_configuration((directory or Path.cwd()).resolve())
    path = real_path(path)
    if path.is_dir():
        path = find_configuration(path)
    if not path.is_file() and not os.path.lexists(path):  # else reading it says why (a loop, a FIFO)
        raise ConfigurationError(f"{path}: configuration file not found")
    _has_importlinter_section(path)  # surfaces unreadable files as one line
    try:
        raw = read_options(path, lambda session: _flag_test(session, path))
    except OptionsError as error:
        raise ConfigurationError(f"{path}: {error}") from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, configparser.Error) as error:
        raise _unreadable(path, error) from None
    session = dict(raw["session_options"])
    if not session.get("root_packages"):
        raise ConfigurationError(f"{path}: {session_section(path)} root_packages: This is a required field.")
    if isinstance(session["root_packages"], str):
        # lint-imports would iterate over the string's characters.
        layout = (
            'give a list, root_packages = ["a", "b"]'
            if path.suffix == ".toml"
            else "put each package on its own line below the key"
        )
        raise ConfigurationError(
            f"{path}: {session_section(path)} root_packages: {layout}, or use root_package for a single one"
        )
    for flag in SESSION_FLAGS:
        # import-linter reads anything but "true" as false: "yes" would turn the flag off unseen.
        if flag in session and str(session[flag]).strip() not in ("True", "true", "False", "false"):
            raise ConfigurationError(
                f"{path}: {session_section(path)} {flag}: Expected true or false, not {session[flag]!r}."
            )
    configuration = Configuration(path, session, list(raw["contracts_options"]), cache_dir=cache_directory(path.parent))
    configuration.contract_types = _contract_types(configuration)
    if not configuration.contracts_options:
        raise ConfigurationError(f"{path}: no contracts found")
    return configuration


SESSION_FLAGS = ("include_external_packages", "exclude_type_checking_imports")
_CONTRACT_TYPE = re.compile(r"([A-Za-z_][\w-]*): ([A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)+)\Z")


def _contract_types(configuration: Configuration) -> dict[str, type[Contract]]:
    used = {str(options.get("type")) for options in configuration.contracts_options}
    return _types_of(configuration.session_options, configuration.path, used)


def _types_of(session_options: dict[str, Any], path: Path, used: Collection[str]) -> dict[str, type[Contract]]:
    """The built-in types named in ``used`` (import-linter's modules, imported only for a
    contract of theirs) plus the file's ``contract_types``, parsed strictly: lint-imports
    stops without a word on a single-line value or a missing space after the colon."""
    entries = session_options.get("contract_types", [])
    if isinstance(entries, str):  # lint-imports would read each character as an entry, and fail without a word
        layout = (
            'give a list, contract_types = ["name: dotted.path.Class"]'
            if path.suffix == ".toml"
            else "put each entry on its own line below the key"
        )
        raise ConfigurationError(f"{path}: {session_section(path)} contract_types: {layout}")
    types: dict[str, type[Contract]] = {}
    for name, dotted in BUILT_IN_TYPES.items():
        if name in used:
            types[name] = _import_class(dotted, path)
    for entry in entries:
        match = _CONTRACT_TYPE.match(entry.strip())
        if not match:
            raise ConfigurationError(
                f"{path}: {session_section(path)} contract_types: {entry!r} is not "
                "'name: dotted.path.Class' (one per line, a space after the colon)"
            )
        types[match[1]] = _import_class(match[2], path)
    return types


def _flag_test(session_options: dict[str, Any], path: Path) -> FlagTest:
    """Whether a TOML boolean is a valid value of a contract's option: the option is a
    flag of the contract's type (a contract of an unknown type is refused later)."""
    types = _types_of(session_options, path, BUILT_IN_TYPES)

    def is_flag(options: Any, key: str) -> bool:
        cls = types.get(options.get("type"))
        if cls is None:
            return True
        return isinstance(getattr(cls, key, None), fields.BooleanField) or (
            issubclass(cls, FenceContract) and key in FLAG_OPTIONS
        )

    return is_flag


def _import_class(dotted: str, path: Path) -> type[Contract]:
    module_name, _, class_name = dotted.rpartition(".")
    try:
        cls = getattr(importlib.import_module(module_name), class_name)
    except (ImportError, AttributeError) as error:
        raise ConfigurationError(
            f"{path}: {session_section(path)} contract_types: cannot import {dotted} ({one_line(error)})"
        ) from None
    if not (isinstance(cls, type) and issubclass(cls, Contract)):
        raise ConfigurationError(
            f"{path}: {session_section(path)} contract_types: {dotted} is not an import-linter Contract"
        )
    return cls


@contextmanager
def project_on_path(configuration: Configuration) -> Iterator[None]:
    """What lint-imports does (the current directory on ``sys.path``), plus ``src``, for
    grimp to locate the root packages; only while the block runs, so that nothing the
    tool imports later can be a module of the project."""
    saved = list(sys.path)
    for candidate in (configuration.root / "src", configuration.root):
        if candidate.is_dir() and str(candidate) not in sys.path:
            sys.path.insert(0, str(candidate))
    try:
        yield
    finally:
        sys.path[:] = saved
