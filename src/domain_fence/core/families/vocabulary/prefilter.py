"""Which modules a vocabulary contract must read, decided from their bytes.

A contract over a whole runtime covers thousands of files, and few of them can hold a
finding. Reading the rest costs most of a cold check: parsing them, and walking their
trees for facts. A file is read when its bytes may hold one (it is *accepted*); of the
others only their imports are read (parsed, but their expressions not walked: about two
thirds of the cost), which tells whether Python can parse them (DOM001) and is what
the boundary's kept result compares.

What may hold a finding, soundly (a property test holds the filtered check to the full
one on generated projects):

- **declarations** (``attributes``, ``parameters``, ``definitions``): an identifier
  that has a configured word among its words contains, ignoring case, the entry's first
  word or a plural folded to it (:func:`~.words.spelled_within`); a field named in a
  string (``TypedDict("X", {"episode": int})``, ``__slots__ = ("episode",)``,
  ``setattr(self, "episode", n)``) may be escaped or split across literals, so a file
  that names a functional class factory, ``__slots__`` or ``setattr`` is read;
- **events** (DOM101-DOM105): a module that defines an event class, constructs one or
  calls an emit function names it, by a name that resolution follows to it. Following a
  name from a module to a definition goes from the name written to the one each import
  or alias binds it to (``from a import Event as E``, ``E = a.Event``), and each of those
  modules names the next one; a dotted name keeps its last part (a star import binds no
  name: the module that uses one names it). So the names that can lead to an event are
  found to a fixpoint, from the files that mention them (:class:`EventNames`): the
  event bases' and the emit functions' own names (and the bases' as resolved, for a
  base named through a re-export), the names of classes defined with a base among
  them, the names bound to one, and the names of the functions that construct one
  from their own ``**`` parameter (emit functions no configuration names, whose
  callers need name no event). A file whose bytes are not ASCII (an identifier
  may be spelled in other scripts, and is normalised) is read whatever it names; a
  module an ``event_bases`` pattern covers, when it names the pattern's literal part.

A file the filter passes over is still found by resolution when another module's
names lead there: it is read then, when asked for, as before.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from domain_fence.core.families.config import EVENTS_SCOPE, EventBasePattern, VocabularyConfig
from domain_fence.core.families.vocabulary.words import Vocabulary, spelled_within
from domain_fence.core.index.project import ProjectIndex
from domain_fence.core.source.facts import FUNCTIONAL_CLASS_FACTORIES

_IDENTIFIER = r"[A-Za-z_][A-Za-z0-9_]*"  # compiled by re's cache when first used: a reused prefilter never is
# Most covered modules (one in GIVE_UP_SHARE or more) mention an event name before any
# is learnt: the filter would cost more than it saves (see EventNames._pays_little).
GIVE_UP_SHARE = 2
_IDENTIFIER_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_NOT_AFTER = rb"(?![A-Za-z0-9_])"


def _words_pattern(words: Iterable[str]) -> re.Pattern[bytes] | None:
    """Any of ``words`` not followed by an identifier's character (the character before
    is looked at by :func:`_mentions`: a look-behind first would keep the regular
    expression engine from skipping ahead to where a word may start)."""
    ordered = sorted(set(words), key=lambda word: (-len(word), word))
    if not ordered:
        return None
    return re.compile(rb"(?:" + b"|".join(re.escape(word.encode()) for word in ordered) + rb")" + _NOT_AFTER)


def _mentions(pattern: re.Pattern[bytes] | None, data: bytes) -> bool:
    """Whether ``pattern`` matches in ``data`` where no identifier character precedes."""
    if pattern is None:
        return False
    for match in pattern.finditer(data):
        start = match.start()
        if start == 0 or data[start - 1] not in _IDENTIFIER_BYTES:
            return True
    return False


_FACTORY_NAMES = tuple(name.encode() for name in FUNCTIONAL_CLASS_FACTORIES)


@functools.cache  # compiled when first needed: few files name a factory
def _factories() -> re.Pattern[bytes] | None:
    return _words_pattern(FUNCTIONAL_CLASS_FACTORIES)


# What declares an attribute named in a string besides a factory: ``__slots__``, and
# ``setattr`` (also within ``__setattr__``), wherever they are (a superset is sound).
_NAMING_IN_STRINGS = (b"__slots__", b"setattr")


def declaration_spellings(vocabulary: Vocabulary) -> tuple[bytes, ...]:
    """What a file must contain, lower-cased, to declare a name an entry matches."""
    return tuple(sorted({form.encode() for word in vocabulary.first_words() for form in spelled_within(word)}))


def may_declare(spellings: tuple[bytes, ...], data: bytes) -> bool:
    """Whether ``data`` may declare a name with a word of ``spellings`` (see the module
    docstring: not ASCII, a functional class factory, ``__slots__`` or ``setattr``, or a
    spelling, ignoring case)."""
    if not data.isascii() or (any(name in data for name in _FACTORY_NAMES) and _mentions(_factories(), data)):
        return True
    if any(name in data for name in _NAMING_IN_STRINGS):
        return True
    lowered = data.lower()
    return any(spelling in lowered for spelling in spellings)


def _last(dotted: str) -> str:
    return dotted.rsplit(".", 1)[-1]


class EventNames:
    """The names that can lead to an event class or an emit function, and the modules
    that mention one, found to a fixpoint over the project's files."""

    def __init__(self, config: VocabularyConfig, index: ProjectIndex, names: Iterable[str] = ()) -> None:
        self.config = config
        self.index = index
        # ``names``: the event bases as resolved (a base may name a re-export, and the
        # classes deriving from it name the class it is), or the names known already.
        seeds = [_last(base) for base in config.event_bases] + [_last(p) for p in config.emit_functions]
        # A wildcard in a name's last part (``*.emit_*``) could be any name: read everything.
        self.everything = not all(re.fullmatch(_IDENTIFIER, name) for name in seeds)
        self.names: set[str] = {*seeds, *(_last(name) for name in names)}
        self.accepted: set[str] = set()
        # name -> the names that lead to it: a class with it as a base's last part, or a
        # name bound to a dotted name ending in it
        self._leading: dict[str, set[str]] = {}
        self.added: set[str] = set()  # the names learnt from the last batch read

    def find(self, also: Callable[[str, bytes], bool] = lambda module, data: False) -> set[str]:
        """The modules to read: those that mention a name (to the fixpoint), those of the
        patterns, and those ``also`` accepts. The first batch also reads the files other
        contracts will (:meth:`~...index.project.ProjectIndex.read_also`): parsed
        together, though this contract does not check them unless they mention a name."""
        patterns = self.config.event_base_patterns
        sources = None if self.everything else self._sources()
        if sources is None:  # every covered module is read, the others when resolution asks
            self.everything = True
            covered = [m for m in self.index.modules if self.config.covers(m)]
            self.index.prefetch(covered)
            self.accepted = set(self.index.modules)
            return self.accepted
        # A source that cannot be read is read anyway (to say why); a namespace directory has none.
        batch = {m for m, data in sources.items() if data is None and self.index.modules[m].suffix == ".py"}
        rejected = {m: data for m, data in sources.items() if data is not None}
        along: list[str] = []  # read for other contracts, in the first batch
        new_names: set[str] = set(self.names)
        first = True
        while True:
            pattern = _words_pattern(new_names)
            for module, data in rejected.items():
                if (
                    self.everything
                    or _mentions(pattern, data)
                    or (first and (_always(module, data, patterns) or also(module, data)))
                ):
                    batch.add(module)
                elif first and self.index.read_by_others(module, data):
                    along.append(module)
            first = False
            if not batch:
                self.index.prefetch(along)
                return self.accepted
            for module in batch:
                rejected.pop(module, None)
            self.accepted |= batch
            self.index.prefetch(sorted({*batch, *along}))
            along = []
            self.added = set()
            for module in sorted(batch):
                self.learn(module, patterns)
            if not self.added:
                return self.accepted
            new_names, batch = self.added, set()

    def _sources(self) -> dict[str, bytes | None] | None:
        """Every module's bytes; None as soon as the files that mention a name before
        any is learnt are half as many as the covered modules. Then each name learnt
        would cost a batch of its own, and the modules outside the contract that
        mention one would be read too, so reading every covered module (and the others
        when resolution asks) is cheaper. Django's fields are such a case; Monty's
        telemetry is not."""
        pattern = _words_pattern(self.names)
        patterns = self.config.event_base_patterns
        covered = sum(1 for m in self.index.modules if self.config.covers(m))
        sources: dict[str, bytes | None] = {}
        mention = 0
        for module in self.index.modules:
            data = sources[module] = self.index.source_bytes(module)
            if data is not None and (_mentions(pattern, data) or _always(module, data, patterns)):
                mention += 1
                if mention * GIVE_UP_SHARE >= covered:
                    return None
        return sources

    def learn(self, module: str, patterns: tuple[EventBasePattern, ...]) -> None:
        """Note what leads to a name in ``module``: its classes' bases (a class a pattern
        names is one), the names it binds, and what its functions construct from their
        keywords (facts.EmitterFact: an emit function when that is an event)."""
        facts = self.index.file_facts(module)
        names = facts.names if facts is not None else None
        if names is None:
            return
        for qualname in names.classes:
            simple = _last(qualname)
            if any(p.matches(module, qualname) for p in patterns):
                self._add(simple)
            for fact in names.statements(qualname):  # a class bound in each branch leads from each
                for base in fact.bases:
                    self._lead(_last(base), simple)
        for bound, target in names.bindings.items():
            self._lead(_last(target), bound)
        for function, emitter in names.emitters.items():  # an emit function when it builds an event
            for built in emitter.built:
                self._lead(_last(built), function)

    def _lead(self, name: str, to: str) -> None:
        if name in self.names:
            self._add(to)
        else:
            self._leading.setdefault(name, set()).add(to)

    def _add(self, name: str) -> None:
        pending = [name]
        while pending:
            current = pending.pop()
            if current in self.names:
                continue
            self.names.add(current)
            self.added.add(current)
            pending += self._leading.pop(current, ())


def adds_names(config: VocabularyConfig, index: ProjectIndex, names: frozenset[str], module: str) -> bool:
    """Whether ``module``, as it is now, leads to a name that ``names`` lacks."""
    found = EventNames(config, index, names)
    found.learn(module, config.event_base_patterns)
    return bool(found.added)


def _always(module: str, data: bytes, patterns: tuple[EventBasePattern, ...]) -> bool:
    """Read whatever names it mentions: bytes that are not ASCII, a module a pattern
    covers naming its literal part."""
    if not data.isascii():
        return True
    return any(p.covers_module(module) and p.literal_part().encode() in data for p in patterns)


@dataclass(frozen=True)
class Prefilter:
    """The modules of one contract to read, and the names that decided it (kept with the
    contract's results: a later run decides a changed file with them)."""

    names: frozenset[str]  # see EventNames; empty without the events scope
    # every covered file is read: an emit function ends in a wildcard, or most files
    # mention a name before any is learnt (see EventNames._sources)
    everything: bool
    spellings: tuple[bytes, ...]  # see declaration_spellings; empty without a declaration scope
    accepted: frozenset[str] | None  # None: decided from the bytes of each module asked about

    def accepts(self, config: VocabularyConfig, module: str, data: bytes | None) -> bool:
        """Whether ``module``, with ``data`` as its bytes now, must be read."""
        if data is None or self.everything:
            return True
        if self.spellings and config.covers(module) and may_declare(self.spellings, data):
            return True
        if EVENTS_SCOPE not in config.scope:
            return False
        if _always(module, data, config.event_base_patterns):
            return True
        return _mentions(self._pattern, data)

    @functools.cached_property
    def _pattern(self) -> re.Pattern[bytes] | None:
        return _words_pattern(self.names)


def declarations_reader(config: VocabularyConfig, vocabulary: Vocabulary) -> Callable[[str, bytes], bool]:
    """Which modules ``config``'s declaration scopes read, by their bytes."""
    spellings = declaration_spellings(vocabulary)
    return lambda module, data: config.covers(module) and may_declare(spellings, data)


def find_prefilter(
    config: VocabularyConfig, index: ProjectIndex, vocabulary: Vocabulary, declares: bool, bases: Iterable[str]
) -> Prefilter:
    """The modules a contract with the events scope must read (and those of its
    declaration scopes, when ``declares``), read in batches, in parallel; ``bases``
    are the event bases resolved."""
    names = EventNames(config, index, bases)
    reader = declarations_reader(config, vocabulary) if declares else None
    accepted = names.find(reader or (lambda module, data: False))
    spellings = declaration_spellings(vocabulary) if declares else ()
    return Prefilter(frozenset(names.names), names.everything, spellings, frozenset(accepted))
