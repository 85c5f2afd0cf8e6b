"""The flake8 plugin (codes ``DOM``): the engine's findings for the file flake8 checks.

It reads the same import-linter configuration ``lint-imports`` reads (found in the
current directory, or named with ``--domain-fence-config``) and reports, for the
source flake8 hands it (the file, or stdin as editors send it), exactly the findings
``domain-fence check`` reports at that file: every contract's, with the baseline and
``noqa`` comments applied by the engine. The engine, its project index and the import
graph (for DOM302) are built once per process and shared by every file. Before flake8
starts its workers, the engine learns what the files will report the way ``check``
does (:meth:`~domain_fence.core.engine.Engine.prepare`): run on the project, each
contract is checked once, its results kept between runs as ``check`` keeps them, so a
second run only looks each file's findings up.
"""

from __future__ import annotations

import argparse
import gc
import glob
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flake8.exceptions import PluginExecutionFailed

from domain_fence import __version__
from domain_fence.core.engine import Engine
from domain_fence.core.engine.baseline import BaselineError
from domain_fence.core.index.blockers import Blocker, blocker_finding, printable_path
from domain_fence.core.index.project import ProjectIndex
from domain_fence.core.model.findings import Finding
from domain_fence.integrations.importlinter.configuration import (
    Configuration,
    ConfigurationError,
    ConfigurationNotFound,
    find_configuration,
    load_configuration,
)
from domain_fence.integrations.importlinter.results import validate
from domain_fence.integrations.importlinter.session import engine_for

EXIT_CONFIGURATION_ERROR = 2
STDIN_NAMES = ("stdin", "-")
ALWAYS_SHOWN = ("E902", "E999")  # flake8's codes for a file it cannot read or parse


@dataclass
class Project:
    """One configuration and its engine."""

    configuration: Configuration
    engine: Engine
    paths: list[str] = field(default_factory=list)  # what flake8 was asked to check

    @classmethod
    def load(cls, path: Path | None) -> Project:
        """Raises ConfigurationError or BaselineError with one line per problem."""
        configuration = load_configuration(path)
        engine = engine_for(configuration)
        # Per file, a missing root package or a misspelt module would pass silently.
        validate(engine)
        return cls(configuration, engine)

    @property
    def index(self) -> ProjectIndex:
        return self.engine.index

    def prepare(self, paths: list[str]) -> None:
        """Before flake8 starts its workers: learn what the files under ``paths`` will
        report (see :meth:`Engine.prepare`), then move what was read out of the cyclic
        garbage collector's sight.

        Kept for the whole run, those facts would otherwise be walked by every full
        collection that flake8's own work triggers: a cost growing with the files
        checked times the facts kept. Long-lived objects frozen before a fork is what
        ``gc.freeze`` is for; the workers inherit the facts instead of each reading
        its share."""
        self.paths = [os.path.abspath(path) for path in paths or ["."]]
        if any(path in STDIN_NAMES for path in paths):
            return  # stdin: one file, read when checked
        under = modules_below(self.index, paths or ["."])
        self.engine.prepare(under)
        global _FROZEN
        if not _FROZEN and len(under) >= FREEZE_AFTER:  # a handful of files costs the collector nothing
            gc.freeze()
            _FROZEN = True

    def findings(self, filename: str, text: str | None) -> Iterator[Finding]:
        """The engine's findings for the file, and (at a package's ``__init__.py``) the
        DOM001 of what lies right below it that flake8 never hands the plugin."""
        yield from self.engine.findings_in(filename, text).reported
        module = self.index.module_for_path(filename)
        if module is not None and self.index.is_package(module):
            yield from unvisited_below(self.index, self.index.modules[module].parent, self.paths)


def unvisited_below(index: ProjectIndex, package: Path, paths: list[str]) -> Iterator[Finding]:
    """DOM001, at a package's ``__init__.py``, for what flake8 never hands the plugin
    right below it: an unreadable directory, a FIFO, device or oversized file (kept
    from flake8, which would read it), a symlinked subpackage (flake8 does not enter
    directory links) unless it is named among flake8's paths. The engine reports each
    where it is; flake8 can only show a finding in a file it checks."""
    init = package / "__init__.py"
    for skipped in index.skipped:
        if not skipped.seen_by_flake8 and _nearest_package(index, skipped.path) == package:
            yield blocker_finding(_blocker(index, init, f"{_shown(index, skipped.path)}: {skipped.reason}"), "", ())
    for link in index.linked:
        named = any(path == str(link) or path.startswith(str(link) + os.sep) for path in paths)
        if link.parent == package and not named:
            reason = f"{_shown(index, link)}/ is a symlinked subpackage, which flake8 does not enter; name it as a path"
            yield blocker_finding(_blocker(index, init, reason), "", ())


def _nearest_package(index: ProjectIndex, path: Path) -> Path | None:
    """The directory of the innermost package of ``index`` holding ``path``."""
    files = index.absolute_paths()
    for parent in path.parents:
        if os.path.join(os.path.abspath(parent), "__init__.py") in files:
            return parent
    return None


def flake8_must_not_read(index: ProjectIndex) -> list[str]:
    """Exclude patterns for the files flake8 would hang on or read without end."""
    return [glob.escape(os.path.abspath(s.path)) for s in index.skipped if not s.seen_by_flake8]


def _blocker(index: ProjectIndex, path: Path, reason: str) -> Blocker:
    shown = _shown(index, path)
    return Blocker(shown, 1, reason, shown)


def _shown(index: ProjectIndex, path: Path) -> str:
    return printable_path(index.root, Path(os.path.abspath(path)))


FREEZE_AFTER = 64  # modules about to be checked
_FROZEN = False


def modules_below(index: ProjectIndex, paths: list[str]) -> list[str]:
    """The modules whose files are ``paths`` or lie below one of them."""
    roots = [os.path.abspath(path) for path in paths]
    exact = set(roots)
    # pre-commit passes every changed file: only directories can hold others
    prefixes = tuple(root.rstrip(os.sep) + os.sep for root in roots if os.path.isdir(root))
    return [module for file, module in index.absolute_paths().items() if file in exact or file.startswith(prefixes)]


# One project per configuration and process, found once: flake8 creates a checker per
# file, and finding the configuration reads and parses it. Keyed by the option and
# the directory it is relative to.
_PROJECTS: dict[tuple[str | None, str], Project | None] = {}


def project_for(config: str | None) -> Project | None:
    """The project for ``--domain-fence-config`` (or the current directory); None when
    no option was given and the current directory holds no import-linter configuration:
    the plugin then has nothing to check."""
    key = (config, os.getcwd())
    if key not in _PROJECTS:
        _PROJECTS[key] = _load_project(config)
    return _PROJECTS[key]


def _load_project(config: str | None) -> Project | None:
    if config is None:
        try:
            path = find_configuration(Path.cwd())
        except ConfigurationNotFound:
            return None
    else:
        path = Path(config).resolve()
    return Project.load(path)


class DomainFenceChecker:
    """flake8 entry point ``DOM``."""

    name = "domain-fence"
    version = __version__
    config: str | None = None

    def __init__(self, tree: Any, filename: str, lines: list[str] | None = None) -> None:
        self.filename = filename
        self.lines = lines

    @classmethod
    def add_options(cls, parser: Any) -> None:
        parser.add_option(
            "--domain-fence-config",
            default=None,
            parse_from_config=True,
            normalize_paths=True,
            help="import-linter configuration holding the domain-fence contracts, or its "
            "directory (default: the one lint-imports reads in the current directory)",
        )

    @classmethod
    def parse_options(cls, options: argparse.Namespace) -> None:
        cls.config = options.domain_fence_config
        try:
            project = project_for(cls.config)  # a broken configuration fails once, up front
            if project is not None:
                project.prepare(list(getattr(options, "filenames", None) or []))
                options.exclude = [*(options.exclude or ()), *flake8_must_not_read(project.index)]
        except (ConfigurationError, BaselineError) as error:
            for line in str(error).splitlines():
                print(f"flake8: domain-fence: error: {line}", file=sys.stderr)
            raise SystemExit(EXIT_CONFIGURATION_ERROR) from None
        # flake8 reports a file it cannot read or parse itself (E902, E999) and never
        # runs a plugin on it: shown whatever `select` says, or `select = DOM` would
        # pass such a file silently.
        options.extend_select = [*(getattr(options, "extend_select", None) or ()), *ALWAYS_SHOWN]

    def run(self) -> Iterator[tuple[int, int, str, type]]:
        # flake8 wraps errors raised while constructing a plugin, not while iterating it.
        try:
            project = project_for(self.config)
            if project is None:
                return
            text = None if self.lines is None else "".join(self.lines)
            for finding in project.findings(self.filename, text):
                yield finding.line, finding.col, f"{finding.code} {finding.message}", type(self)
        except Exception as error:
            raise PluginExecutionFailed(filename=self.filename, plugin_name="DOM", exception=error) from error
