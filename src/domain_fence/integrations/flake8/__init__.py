"""The flake8 plugin (codes ``DOM``): the engine's findings for the file flake8 checks.

It reads the same import-linter configuration ``lint-imports`` reads (named with
``--domain-fence-config``, else the nearest one from the current directory upward, as
flake8 finds its own: see :func:`configuration_directories`, else from the files given:
see :func:`configuration_of_paths`) and reports, for the
source flake8 hands it (the file, or stdin as editors send it), exactly the findings
``domain-fence check`` reports at that file: every contract's, with the baseline and
``noqa`` comments applied by the engine. The engine, its project index and the import
graph (for DOM302) are built once per process and shared by every file. Before flake8
starts its workers, the engine learns what the files will report the way ``check``
does (:meth:`~domain_fence.core.engine.Engine.prepare`): run on the project, each
contract is checked once, its results kept between runs as ``check`` keeps them, so a
second run only looks each file's findings up.

flake8 imports every installed plugin on every run: this module is light, and the
engine and import-linter (:mod:`.project`) are imported only where a configuration may
be, so a project without one pays nothing for the plugin being installed.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flake8.exceptions import PluginExecutionFailed
from flake8.utils import matches_filename

from domain_fence import __version__
from domain_fence.core.source.listing import shared_listings
from domain_fence.integrations.configsearch import (
    configuration_directories,
    may_hold_configuration,
    nearest_directory,
)

if TYPE_CHECKING:
    from .project import Project

EXIT_CONFIGURATION_ERROR = 2
ALWAYS_SHOWN = ("E902", "E999")  # flake8's codes for a file it cannot read or parse


# One project per configuration and process, found once: flake8 creates a checker per
# file, and finding the configuration reads and parses it. Keyed by the option and
# the directory it is relative to.
_PROJECTS: dict[tuple[str | None, str], Project | None] = {}


def project_for(config: str | None) -> Project | None:
    """The project for ``--domain-fence-config`` (else the nearest configuration, see
    :func:`configuration_directories`); None when no option was given and no directory
    searched holds an import-linter configuration: the plugin then has nothing to check."""
    key = (config, os.getcwd())
    if key not in _PROJECTS:
        _PROJECTS[key] = _load_project(config)
    return _PROJECTS[key]


def _load_project(config: str | None) -> Project | None:
    if config is not None:
        from .project import load_project

        return load_project(config)
    for directory in configuration_directories(Path.cwd()):
        if may_hold_configuration(directory):
            from .project import project_in

            project = project_in(directory)
            if project is not None:
                return project
    return None


class DomainFenceChecker:
    """flake8 entry point ``DOM``."""

    name = "domain-fence"
    version = __version__
    config: str | None = None
    noqa: bool = True  # False under flake8's --disable-noqa: the engine then applies none

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
            "directory (default: the nearest one lint-imports would read, from the current "
            "directory upward to the repository's root, else from the files given upward)",
        )

    @classmethod
    def parse_options(cls, options: argparse.Namespace) -> None:
        cls.config = options.domain_fence_config
        # The engine applies noqa comments (flake8 would too, to what is yielded): told
        # not to, it reports what they suppress, as flake8 does for its own checks.
        cls.noqa = not getattr(options, "disable_noqa", False)
        try:
            # Discovery and the graph's blockers share one listing of each directory.
            with shared_listings():
                if cls.config is None and project_for(None) is None:
                    excluded = _excluded_by(options)
                    cls.config = configuration_of_paths([p for p in _checked_paths(options) if not excluded(p)])
                project = project_for(cls.config)  # a broken configuration fails once, up front
                if project is not None:
                    display = getattr(options, "stdin_display_name", None)
                    project.prepare(list(getattr(options, "filenames", None) or []), _excluded_by(options), display)
                    options.exclude = [*(options.exclude or ()), *project.must_not_read()]
        except Exception as error:
            if not _configuration_error(error):
                raise
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
            for finding in project.findings(self.filename, text, self.noqa):
                yield finding.line, finding.col, f"{finding.code} {finding.message}", type(self)
        except Exception as error:
            raise PluginExecutionFailed(filename=self.filename, plugin_name="DOM", exception=error) from error


def _checked_paths(options: argparse.Namespace) -> list[str]:
    """The paths flake8 was given, stdin as the file it stands for."""
    paths = list(getattr(options, "filenames", None) or [])
    display = getattr(options, "stdin_display_name", None)
    return [display if path == "-" and display not in (None, "stdin") else path for path in paths]


def configuration_of_paths(paths: list[str]) -> str | None:
    """The directory of the configuration the ``paths`` flake8 checks lie under, found
    upward from each as from the current directory (see :func:`configuration_directories`),
    when none is found from there: pre-commit runs flake8 at the repository's root, and a
    project whose configuration lies in a subdirectory would pass in silence. None when
    no path lies under one; a ConfigurationError when the paths lie under two (the
    plugin checks one project at a time)."""
    found: dict[Path, None] = {}
    nearest: dict[Path, Path | None] = {}  # memo: pre-commit passes many files of one directory
    # Each directory resolved once: pre-commit passes thousands of files.
    starts = {path if os.path.isdir(path) else os.path.dirname(path) or "." for path in paths}
    for start in starts:
        directory = nearest_directory(Path(start), holds_configuration, nearest)  # resolved as it walks
        if directory is not None:
            found[directory] = None
    if len(found) > 1:
        from domain_fence.integrations.importlinter.configuration import ConfigurationError

        first, second = sorted(found)[:2]
        raise ConfigurationError(
            f"the files given lie under two configurations ({first}, {second}): "
            "name one with --domain-fence-config, or run flake8 in each project"
        )
    return str(next(iter(found))) if found else None


def holds_configuration(directory: Path) -> bool:
    """Whether ``directory`` holds the configuration ``lint-imports`` would read there;
    import-linter's reader imported only where a file names it."""
    if not may_hold_configuration(directory):
        return False
    from domain_fence.integrations.importlinter.configuration import holds_configuration as holds

    return holds(directory)


def _excluded_by(options: argparse.Namespace) -> Callable[[str], bool]:
    """flake8's own test of a path against the ``exclude`` and ``extend-exclude`` patterns
    (as its checker joins them), for the plugin to know which files flake8 will check."""
    patterns = [*(getattr(options, "exclude", None) or ()), *(getattr(options, "extend_exclude", None) or ())]

    def excluded(path: str) -> bool:
        return bool(matches_filename(path, patterns=patterns, log_message="%(path)s", logger=_QUIET))

    return excluded


_QUIET = logging.getLogger("domain_fence.flake8.discovery")  # flake8's debug lines are flake8's


def _configuration_error(error: Exception) -> bool:
    """Whether ``error`` says the configuration or a baseline is unusable (only asked
    when loading one failed: the classes are the engine's and import-linter's)."""
    from domain_fence.core.engine.baseline import BaselineError
    from domain_fence.integrations.importlinter.configuration import ConfigurationError

    return isinstance(error, (ConfigurationError, BaselineError))
