"""Per-module reuse of a contract's findings: which modules a run checks again, and
what it records for the next one (the storage is :mod:`.resultcache`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from itertools import compress, repeat
from operator import attrgetter, is_
from typing import Any, NamedTuple

from domain_fence.core.engine.noqa import NoqaComments
from domain_fence.core.engine.resultcache import (
    Digests,
    ResultStore,
    StoredResults,
    extra_of,
    positions,
    view_digest,
)
from domain_fence.core.families.base import Context, Reusable
from domain_fence.core.model.findings import Finding

UNANALYSABLE = "DOM001"
_CODE = attrgetter("code")


class Plan(NamedTuple):
    """What a run reuses: the covered modules, the modules to check again, the
    findings of the others, and the project-wide outcome kept with them."""

    covered: list[str]
    again: list[str]
    kept: dict[str, list[Finding]]  # the findings of the others that have any
    warnings: tuple[str, ...]
    failures: tuple[str, ...]
    noqa: dict[str, NoqaComments]  # the noqa comments of the unchanged files whose findings are kept
    extra: Mapping[str, Any] | None  # what the report shows besides findings; None: not kept
    stored_extra: object  # ``extra`` as stored (plain data, see plain_extra), to be stored again

    @property
    def whole(self) -> bool:
        """Everything is kept: no module to check again, and the outcome's extra."""
        return not self.again and self.extra is not None


class ModuleResults:
    """One contract's stored results, and the project as this run sees it."""

    def __init__(
        self,
        family: Reusable,
        config: object,
        context: Context,
        store: ResultStore,
        digests: Digests,
        view_keeps_findings: bool = False,
    ):
        self.family = family
        self.view_keeps_findings = view_keeps_findings  # see Reusable
        self.config = config
        self.context = context
        self.store = store
        self.digests = digests
        self.stored: StoredResults | None = None
        self.changed: set[str] = set()
        self.saved: StoredResults | None = None  # what this run stores (see :meth:`write`)
        self._learnt_when_saved = -1  # the index's ``learnt`` when the views were taken

    def plan(self) -> Plan | None:
        """What can be reused; None when the contract must be checked whole."""
        stored = self.stored = self.store.load()
        modules = self.context.index.modules.texts  # a dict's keys: compared in C, not by the Mapping mixin
        # Against the table's positions, made once for the contracts that share it.
        if (
            stored is None
            or len(stored.table[0]) != len(modules)
            or modules.keys() != positions(stored.table[0]).keys()
        ):
            return None
        self.changed = set(self.digests.changed(stored.table))
        try:
            self.family.reuse_answers(self.config, self.context, stored.answers)
        except Exception:  # noqa: BLE001 -- answers of another shape: check everything
            self.context.forget()
            return None
        for module in sorted(self.changed):
            before = stored.view(module)
            if self.view_keeps_findings:
                now = self._view(module, read=True)
                same = before is not None and now is not None and view_digest(now) == before
            else:
                same = before is None or view_digest(self._view(module, read=True)) == before
            if not same:
                # What other modules read of it changed: anything may differ, and the
                # answers taken up are not the project's any more.
                self.context.forget()
                return None
        unanalysable = {m for m, found in stored.findings.items() if UNANALYSABLE in map(_CODE, found)}
        again_here = unanalysable if self.view_keeps_findings else self.changed | unanalysable
        again = [module for module in stored.covered if module in again_here] if again_here else []
        # Of covered modules only (loading checked it), in their order as saved.
        kept = {m: found for m, found in stored.findings.items() if m not in again_here}
        # A changed file's comments are read again: its findings may be kept, not its noqa.
        paths = {finding.path for m, found in kept.items() if m not in self.changed for finding in found}
        # Most files whose findings are kept have no noqa comment: nothing to read for them.
        noqa = {
            path: NoqaComments(
                {line: None if codes is None else frozenset(codes) for line, codes in lines} if lines else {}
            )
            for path, lines in stored.noqa.items()
            if path in paths
        }
        try:
            extra = stored.decoded_extra if stored.extra is None or stored.decoded_extra else extra_of(stored.extra)
        except ValueError:
            extra = None
        stored_extra = None if extra is None else stored.extra
        return Plan(list(stored.covered), again, kept, stored.warnings, stored.failures, noqa, extra, stored_extra)

    def save(
        self,
        covered: list[str],
        findings: dict[str, list[Finding]],
        warnings: tuple[str, ...],
        failures: tuple[str, ...],
        comments: Callable[[str], NoqaComments],
        extra: object = None,
    ) -> None:
        """What this run found (``findings``: of the covered modules, those without
        any may be left out), to be stored by :meth:`write`; ``comments`` gives the noqa
        comments of a file (each file's bytes decide them), ``extra`` what the report
        shows besides findings, as plain data (None: not kept)."""
        index = self.context.index
        stored = self.stored
        self._learnt_when_saved = index.learnt
        answers = self.family.answers(self.config, self.context)
        table = self.digests.table(index.modules, stored.table if stored is not None else None)
        views = self._views(table[0], stored, answers)
        # In the covered modules' order, whatever order they were checked in.
        listed = list(compress(covered, map(findings.get, covered)))  # in C: most modules have none
        found = {module: list(findings[module]) for module in listed}
        paths = sorted({finding.path for found in found.values() for finding in found})
        # An unchanged file's comments are those stored: its bytes decide them (the key
        # of stored results holds every module's file: the same files as now).
        changed_modules = self.digests.changed(stored.table) if stored is not None else frozenset()
        changed = {index.relative_path(module) for module in changed_modules}
        changed.update(finding.path for module in changed_modules for finding in found.get(module, ()))
        before = stored.noqa if stored is not None else {}
        noqa = {
            path: before[path] if path in before and path not in changed else _plain_noqa(comments(path))
            for path in paths
        }
        self.saved = StoredResults(table, views, list(covered), found, warnings, failures, answers, noqa, extra)

    def _views(self, names: tuple[str, ...], stored: StoredResults | None, answers: object) -> tuple[bytes | None, ...]:
        """The digest of each module's view after the run (None: no check read it).

        A view is a function of the module's bytes and of the answers (which grow only
        by reading the modules whose views they widen): while the answers are as they
        were, an unchanged module's view is too, and its recorded digest is kept."""
        if stored is not None and stored.table[0] == names and answers == stored.answers:
            return self._views_since(stored)
        return self._views_each(names, stored, answers)

    def _views_each(
        self, names: tuple[str, ...], stored: StoredResults | None, answers: object
    ) -> tuple[bytes | None, ...]:
        """:meth:`_views`, module by module."""
        index = self.context.index
        same_answers = stored is not None and answers == stored.answers
        recorded = positions(stored.table[0]) if stored is not None else {}
        before = stored.views if stored is not None else ()
        # Asked of the table here too: a full check planned nothing.
        changed = self.digests.changed(stored.table) if stored is not None else frozenset()
        views: list[bytes | None] = []
        for name in names:
            at = recorded.get(name)
            if at is not None and name not in changed:
                again = (before[at] is None or not same_answers) and index.known_facts(name) is not None
                if not again:
                    views.append(before[at])
                    continue
            view = self._view(name, read=False)
            views.append(None if view is None else view_digest(view))
        return tuple(views)

    def _views_since(self, stored: StoredResults) -> tuple[bytes | None, ...]:
        """:meth:`_views` of the modules of ``stored``'s table, in its order, while the
        answers are as they were: the recorded digests but those of the changed modules
        and of the modules whose facts were read since none was recorded, taken now.
        Found without a look at each module in Python."""
        index = self.context.index
        names, before = stored.table[0], stored.views
        unknown = compress(names, map(is_, before, repeat(None)))
        again = {name for name in unknown if index.known_facts(name) is not None}
        again |= self.digests.changed(stored.table)
        if not again:
            return before
        views = list(before)
        at = positions(names)
        for name in sorted(again, key=at.__getitem__):  # in the table's order, as ever
            view = self._view(name, read=False)
            views[at[name]] = None if view is None else view_digest(view)
        return tuple(views)

    def write(self) -> None:
        """Store what :meth:`save` recorded (the caller has made sure that no file changed
        while the run read them: what was found is of these versions)."""
        if self.saved is not None:
            self.store.save(self.saved, self.stored)

    def complete_views(self) -> None:
        """Add the views this run's contract could not give when it was saved, of the
        modules whose facts later contracts read: for a family whose views keep its
        findings, a changed module whose view is unknown is a full check. None is known
        when no facts were read since (a check of one contract, the last contract)."""
        saved = self.saved
        if saved is None or not self.view_keeps_findings or self.context.index.learnt == self._learnt_when_saved:
            return
        names, _, digests = saved.table
        views = list(saved.views)
        pairs = enumerate(zip(views, digests, strict=True))
        unknown = [at for at, (view, digest) in pairs if view is None and digest is not None]
        for at in unknown:
            view = self._view(names[at], read=False)
            if view is not None:
                views[at] = view_digest(view)
        if views != list(saved.views):
            self.saved = replace(saved, views=tuple(views))

    def _view(self, module: str, read: bool) -> object:
        return self.family.module_view(self.config, self.context, module, read)


def _plain_noqa(comments: NoqaComments) -> tuple[tuple[int, tuple[str, ...] | None], ...]:
    """A file's noqa comments as stored: (line, its codes sorted, or None for all)."""
    return tuple((line, None if codes is None else tuple(sorted(codes))) for line, codes in comments.lines.items())
