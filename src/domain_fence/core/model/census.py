"""The vocabulary census: where a vocabulary contract's leaks are, which words they
use, and how its baseline has moved since it was recorded.

A codebase migrating its runtime away from experiment knowledge measures progress
with it: the baselined leaks still present shrink, the fixed ones are struck from the
record, and a new one fails the contract.

A leak is counted once per fingerprint, the unit the baseline records, so the counts
always add up: recorded = still present + fixed, and counted = still present + new.
"""

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from operator import itemgetter
from typing import NamedTuple

from domain_fence.core.model import fingerprints
from domain_fence.core.model.findings import FINDING_ORDER, Finding
from domain_fence.core.model.rules import RULES

# The codes of leaks; DOM001 (a file that could not be read) is not one.
CENSUS_CODES = frozenset(code for code, rule in RULES.items() if rule.family == "vocabulary")


# A dataclass: its field ``count`` would hide a named tuple's ``count`` method.
@dataclass(frozen=True)
class Tally:
    """``count`` leaks share ``name`` (a module, or a configured word)."""

    name: str
    count: int


class Movement(NamedTuple):
    """The baseline since it was recorded, over distinct fingerprints."""

    recorded: int  # leaks in the baseline file at check time
    still_present: int  # recorded and still found
    fixed: int  # recorded and no longer found: stale, to be pruned
    new: int  # found and not recorded: they break the contract

    def describe(self) -> str:
        """``5 recorded, 4 still present, 1 fixed since recording, 1 new``."""
        return (
            f"{self.recorded} recorded, {self.still_present} still present, "
            f"{self.fixed} fixed since recording, {self.new} new"
        )


class Census(NamedTuple):
    """A contract's findings counted by module and by word, and how its baseline moved."""

    findings: int  # leaks found, recorded or new
    modules: tuple[Tally, ...]  # by count descending, then name
    words: tuple[Tally, ...]
    baseline: Movement

    def describe(self) -> str:
        """``5 findings in 2 modules``, or ``no findings`` once every leak is fixed."""
        if not self.findings:
            return "no findings"
        return f"{plural(self.findings, 'finding')} in {plural(len(self.modules), 'module')}"


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def vocabulary_word(finding: Finding) -> str | None:
    """The configured word a vocabulary finding matched, None for any other finding."""
    if finding.code not in CENSUS_CODES:
        return None
    return finding.field("word")


def fingerprint_module(fingerprint: str) -> str:
    """The module of a vocabulary fingerprint (``DOM111:pkg.mod:Class.attr``)."""
    return fingerprints.module_of(fingerprint)


def take_census(found: Iterable[Finding], recorded: Iterable[str]) -> Census | None:
    """The census of one vocabulary contract from everything it ``found`` (new and
    baselined findings) and the fingerprints ``recorded`` for it in its baseline file.

    None when there is nothing to count: no leak found and none recorded.
    """
    leaks = _leaks(found)
    record = _leak_fingerprints(recorded)
    if not leaks and not record:
        return None
    still_present = record & leaks.keys()
    # A leak's fingerprint is ``CODE:module:...``, never a crossing's: its module is read
    # as fingerprints.module_of reads it, inline, for thousands.
    by_module = Counter([fingerprint.partition(":")[2].partition(":")[0] for fingerprint in leaks])
    by_word = Counter(leaks.values())
    return Census(
        findings=len(leaks),
        modules=_ranked(by_module),
        words=_ranked(by_word),
        baseline=Movement(
            recorded=len(record),
            still_present=len(still_present),
            fixed=len(record - still_present),
            new=len(leaks.keys() - record),
        ),
    )


def _leaks(findings: Iterable[Finding]) -> dict[str, str]:
    """fingerprint -> word of the counted findings (two copies of one leak in a module
    have fingerprints of their own, numbered by the engine; should two still share one,
    the first in report order counts)."""
    found = list(findings)
    leaks, counted = _words(found)
    if counted > len(leaks):  # a fingerprint found twice: only then does the order matter
        leaks, _ = _words(sorted(found, key=FINDING_ORDER))
    return leaks


def _words(findings: Iterable[Finding]) -> tuple[dict[str, str], int]:
    """fingerprint -> word of the counted ``findings`` (the first of each fingerprint's),
    and how many were counted: thousands, rarely sharing a fingerprint, so sorted only
    when they do."""
    leaks: dict[str, str] = {}
    counted = 0
    for finding in findings:
        if finding.code in CENSUS_CODES:  # vocabulary_word, inline: thousands of findings
            for name, word in finding.fields:
                if name == "word":
                    leaks.setdefault(finding.fingerprint, word)
                    counted += 1
                    break
    return leaks, counted


def _leak_fingerprints(recorded: Iterable[str]) -> set[str]:
    """The fingerprints of leaks among ``recorded``: a recorded DOM001 (a file unreadable
    when the baseline was written) is no leak. Each read as :func:`~.fingerprints.parse`
    reads its code and rest, inline: a baseline holds thousands."""
    leaks = set()
    for fingerprint in recorded:
        code, _, remainder = fingerprint.partition(":")
        if code in CENSUS_CODES and remainder.partition(":")[2]:
            leaks.add(fingerprint)
    return leaks


def _ranked(counts: Counter[str]) -> tuple[Tally, ...]:
    """By count descending, then name: sorted by name, then stably by count."""
    ranked = sorted(counts.items())
    ranked.sort(key=itemgetter(1), reverse=True)
    return tuple(Tally(name, count) for name, count in ranked)
