"""Everything the language server asks of the analysis, behind one small class.

:class:`Analysis` holds the engine of one configuration and answers "what are this
buffer's findings?" with baselined and ``noqa``-suppressed findings already left out,
as the engine applies them for every front end. It knows nothing of the protocol, so
the server stays a thin translation layer.
"""

from __future__ import annotations

import os
from pathlib import Path

from domain_fence.core.engine import ConfigurationProblems, Engine
from domain_fence.core.engine.baseline import BaselineError
from domain_fence.core.engine.runcache import CONFIG_FILES
from domain_fence.core.index.blockers import shown_at
from domain_fence.core.model.findings import Finding
from domain_fence.core.source.files import real_path
from domain_fence.integrations.importlinter.configuration import (
    ConfigurationError,
    load_configuration,
)
from domain_fence.integrations.importlinter.session import engine_for


class AnalysisError(Exception):
    """The configuration or a baseline cannot be used; one line per problem."""


class Analysis:
    """The findings of one configuration's contracts, for files and editor buffers.

    Raises :class:`AnalysisError` (from the constructor, :meth:`validate`,
    :meth:`findings` and :meth:`refresh`) when the configuration, a baseline or the project they describe
    cannot be used. With ``validate=False`` the constructor leaves the questions about
    the whole project to :meth:`validate`, so a first file can be checked sooner.
    """

    def __init__(self, config_path: Path, validate: bool = True) -> None:
        self.config_path = real_path(config_path)
        self.engine = _engine(self.config_path)
        self._buffers: set[Path] = set()
        if validate:
            self.validate()

    @property
    def root(self) -> Path:
        return self.engine.settings.root

    def validate(self) -> None:
        """Fail where the per-file view would pass silently, as ``check`` fails: a root
        package not found, a module or event base that matches nothing, a baseline that
        cannot be read."""
        try:
            self.engine.validate()
        except (ConfigurationProblems, BaselineError) as error:
            raise AnalysisError(str(error)) from None

    def inputs(self) -> frozenset[Path]:
        """The files besides the sources whose change means reloading: the candidate
        configuration files and every baseline."""
        baselines = {real_path(spec.baseline_path) for spec in self.engine.contracts}
        return frozenset({*(self.root / name for name in CONFIG_FILES), self.config_path, *baselines})

    def findings(self, path: Path, text: str) -> list[Finding]:
        """The new findings of ``path`` if it held ``text`` (an editor's buffer, kept
        for the other files' checks until :meth:`close`); none outside the project. A
        file not saved yet is checked as the module it will be once saved. Raises
        :class:`AnalysisError` when a baseline cannot be read: before :meth:`validate`,
        the first file's check reads it."""
        self._buffers.add(path)
        try:
            found = list(self.engine.findings_in(path, text).reported)
        except (ConfigurationProblems, BaselineError) as error:
            raise AnalysisError(str(error)) from None
        if self.engine.index.module_for_path(path) is None:
            return found
        # What keeps the import graph from being built is no file an editor opens, and
        # the contracts needing the graph cannot run: said in every module's file.
        shown = {finding.path for finding in found}
        for blocker in self.engine.graph_blockers():
            if blocker.path not in shown:
                found.append(shown_at(self.root, path, f"{blocker.path}: {blocker.reason}"))
        return found

    def close(self, path: Path) -> bool:
        """The editor closed ``path``: check it from its file again. True when the other
        open files' findings may change (a new module never saved, which the project no
        longer holds, or a buffer whose edits they saw)."""
        if path not in self._buffers:
            return False
        self._buffers.discard(path)
        return self.engine.drop_buffer(path)

    def refresh(self, changed: list[Path]) -> None:
        """Take files changed on disk into account: the configuration or a baseline
        changed, or a module (or a directory of the packages) was created or deleted,
        and everything is read again; a module changed, and what depended on it is
        computed again."""
        inputs = self.inputs()
        sources = [path for path in changed if path.suffix == ".py" and self._in_project(path)]
        # A graph that could not be built is tried again from a fresh start after any change.
        blocked = self.engine.context.graph_error() is not None
        index = self.engine.index
        known = index.module_for_path
        # A new module saved (the index held it from its buffer only) may make a new
        # package of its directory: the project is discovered again, as for a new file.
        if (
            blocked
            or any(real_path(path) in inputs for path in changed)
            or any(known(path) is None or index.is_unsaved(known(path)) or not path.exists() for path in sources)
            or self._directories_of_project([path for path in changed if path.suffix != ".py"])
        ):
            self.engine = _engine(self.config_path)
            self._buffers.clear()
            self.validate()
            return
        for path in sources:
            self.engine.file_changed(path)

    def _directories_of_project(self, paths: list[Path]) -> bool:
        """Whether one of ``paths`` is a directory created in one of the project's packages
        that discovery enters (named as a package is, holding Python already: not a
        ``__pycache__``, nor a folder of notes), or one deleted that held some of what
        the index found: many clients tell of a folder moved or deleted with one event
        for the folder, none for the files in it."""
        gone = []
        for path in paths:
            if path.is_dir():
                if _may_be_a_package(path) and self._in_project(path / "__init__.py"):
                    return True
            elif not path.exists():
                gone.append(tuple({os.path.join(os.path.abspath(path), ""), os.path.join(os.path.realpath(path), "")}))
        if not gone:
            return False
        index = self.engine.index
        found = [*index.absolute_paths(), *(os.path.abspath(skipped.path) for skipped in index.skipped)]
        # the directory itself too
        return any(os.path.join(place, "").startswith(below) for below in gone for place in found)

    def _in_project(self, path: Path) -> bool:
        """A module of the project, or a new one in one of its packages (a file below
        the project that no package holds, such as a virtual environment's, is not)."""
        index = self.engine.index
        # the file, its package (or namespace directory), and theirs for a new package's __init__.py
        candidates = [path, *(place for folder in path.parents[:2] for place in (folder / "__init__.py", folder))]
        return any(index.module_for_path(candidate) is not None for candidate in candidates)


def _may_be_a_package(directory: Path) -> bool:
    """A directory discovery may take for a package: named as one, and holding Python."""
    if not directory.name.isidentifier() or directory.name == "__pycache__":
        return False
    try:
        return any(entry.name.endswith(".py") for entry in os.scandir(directory))
    except OSError:
        return False


def _engine(path: Path) -> Engine:
    try:
        return engine_for(load_configuration(path), long_lived=True)
    except (ConfigurationError, BaselineError) as error:
        raise AnalysisError(str(error)) from None
