"""Experiment vocabulary: identifiers split into words, and word lists matched on them.

``num_episodes``, ``PostEpisodeTelemetry``, ``primaryTargetId`` and ``"post-episode"``
all become lists of lower-case words with plurals folded (``episodes`` -> ``episode``).
A configured entry matches only whole words, and a multi-word entry only consecutive
words, so ``model``, ``modern`` and ``constraint`` never match ``mode`` or ``train``.
"""

from collections.abc import Iterable
from functools import lru_cache
from typing import NamedTuple

from domain_fence.core.families.config import WordRule
from domain_fence.core.model.text import split_words

# Runs of capitals before a capitalised word (the "LM" of "LMState"), capitalised or
# lower-case words, remaining capitals, digits.

# Singular nouns that look plural, and plurals the suffix rules below get wrong.
_IRREGULAR = {
    "analyses": "analysis",
    "axes": "axis",
    "buses": "bus",
    "caches": "cache",
    "criteria": "criterion",
    "indices": "index",
    "matrices": "matrix",
    "series": "series",
    "species": "species",
    "statuses": "status",
    "vertices": "vertex",
}
_SINGULAR_ENDINGS = ("ss", "us", "is")  # class, status, analysis
_ES_ENDINGS = ("sses", "xes", "zes", "ches", "shes")  # classes, boxes, matches, meshes


def fold(word: str) -> str:
    """The singular of a lower-case word, by suffix rules; short words stay as they are."""
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if len(word) <= 3 or not word.endswith("s") or word.endswith(_SINGULAR_ENDINGS):
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"  # entries -> entry
    if word.endswith(_ES_ENDINGS):
        return word[:-2]
    return word[:-1]


def spelled_within(word: str) -> tuple[str, ...]:
    """What every lower-case word that folds to ``word`` contains: ``word`` itself
    (``episodes``), or the irregular plural or ``-ies`` form it is folded from
    (``indices``, ``entries``). A text that contains none of them, ignoring case,
    holds no identifier with ``word`` among its words."""
    forms = {word}
    if word.endswith("y"):
        forms.add(word[:-1] + "ies")
    forms.update(plural for plural, singular in _IRREGULAR.items() if singular == word)
    return tuple(sorted(forms))


@lru_cache(maxsize=1 << 16)  # a project names the same identifiers again and again
def words_of(identifier: str) -> tuple[str, ...]:
    """The folded words of an identifier: what configured entries are matched against."""
    return tuple(fold(word) for word in split_words(identifier))


class Match(NamedTuple):
    """A configured entry found in an identifier."""

    rule: WordRule
    start: int  # index of the first matching word

    @property
    def word(self) -> str:
        return self.rule.phrase

    @property
    def hint(self) -> str:
        """The message suffix naming the replacement, or nothing."""
        return f"; consider '{self.rule.replacement}'" if self.rule.replacement else ""


class Vocabulary:
    """A compiled word list plus the identifiers exempted from it."""

    # A matcher and its memo, never compared, hashed or printed: a plain class (a
    # dataclass's generated methods are compiled as the module is imported, on every run).
    __slots__ = ("_firsts", "_found", "_within", "allow", "rules")

    def __init__(
        self, rules: tuple[tuple[tuple[str, ...], WordRule], ...], allow: frozenset[str] = frozenset()
    ) -> None:
        self.rules = rules  # (folded words, rule)
        self.allow = allow
        # identifier -> its first entry: the same identifiers come back in file after file
        self._found: dict[str, Match | None] = {}
        # the first word of every entry: an identifier holding none of them matches none
        self._firsts = frozenset(key[0] for key, _ in rules)
        # the last part of each dotted ``allow`` entry -> the parts naming where it holds
        within: dict[str, list[tuple[str, ...]]] = {}
        for entry in sorted(allow):
            scope, dot, name = entry.rpartition(".")
            if dot:
                within.setdefault(name, []).append(tuple(scope.split(".")))
        self._within = {name: tuple(runs) for name, runs in within.items()}

    @classmethod
    def compile(cls, words: Iterable[WordRule], allow: Iterable[str] = ()) -> "Vocabulary":
        folded = []
        for rule in words:
            key = tuple(fold(part) for word in rule.words for part in split_words(word))
            if key:
                folded.append((key, rule))
        # Longer phrases first, so "post episode" wins over "episode" at the same place.
        folded.sort(key=lambda item: -len(item[0]))
        return cls(tuple(folded), frozenset(allow))

    def match(self, identifier: str, context: str = "") -> Match | None:
        """The first entry (leftmost, then longest) found in ``identifier``, if any.

        ``allow`` exempts an identifier everywhere. An entry with dots exempts its last
        part only within what the rest names, matched as whole dotted parts of the
        ``context`` the identifier is declared in: ``PositioningProcedure.target``
        exempts ``target`` in that class (an attribute, a method's parameter) and
        ``positioning.target`` in that module, not every ``target``.
        """
        if identifier in self.allow or (context and self._allowed_within(identifier, context)):
            return None
        if identifier not in self._found:
            self._found[identifier] = self._first_entry(identifier)
        return self._found[identifier]

    def first_words(self) -> tuple[str, ...]:
        """The first (folded) word of every entry: an identifier an entry matches has it."""
        return tuple(sorted({key[0] for key, _ in self.rules}))

    def may_match(self, identifier: str) -> bool:
        """Whether :meth:`match` may find an entry in ``identifier``, wherever it is
        declared (a dotted ``allow`` entry may still exempt it there)."""
        if identifier in self.allow:
            return False
        if identifier not in self._found:
            self._found[identifier] = self._first_entry(identifier)
        return self._found[identifier] is not None

    def _first_entry(self, identifier: str) -> Match | None:
        words = words_of(identifier)
        if self._firsts.isdisjoint(words):  # most identifiers: no entry can start anywhere
            return None
        for start in range(len(words)):
            for key, rule in self.rules:
                if words[start : start + len(key)] == key:
                    return Match(rule, start)
        return None

    def _allowed_within(self, identifier: str, context: str) -> bool:
        runs = self._within.get(identifier)
        if not runs:
            return False
        parts = context.split(".")
        return any(parts[i : i + len(run)] == list(run) for run in runs for i in range(len(parts) - len(run) + 1))
