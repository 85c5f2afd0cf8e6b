"""Where symbols are defined: module-level functions and classes, the methods of
those classes, the names bound by assignment at module level and in those classes'
bodies, the functions attached to a class from outside its body (``EvidenceLM.post_episode
= _reset``, see :func:`~domain_fence.core.source.facts.attached_names`), and the
``placement`` rule (DOM201) that some of them live only under allowed modules.

Only *definitions* count. ``from x import init_telemetry`` or a re-export in an
``__init__`` (``Alias = imported.Handler`` too) binds a name without defining anything;
``init_telemetry = _setup``, ``= lambda ...`` or ``= functools.partial(...)`` defines it
(a *binding*, see :func:`~domain_fence.core.source.facts.bound_names`), and so does a
re-export that gives something a name a pattern matches while its own name matches
none (``from .helpers import setup as init_telemetry``): nothing is reported where
``setup`` is defined, so the name is reported where it is given. A definition
inside an ``if``/``try``/``with``/``for``/``while``/``match`` block at module level is
module-level: it binds a module global. A pattern without a dot matches a function,
class, method or binding by its own name (``init_telemetry``); a pattern with a dot
matches a method, or a binding in a class body, by its class's name and its own
(``MontyExperiment.init_telemetry``, ``*.post_episode``).
"""

import ast
import functools
import keyword
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from fnmatch import fnmatchcase
from operator import attrgetter
from typing import NamedTuple

from domain_fence.core.families.config import PlacementConfig
from domain_fence.core.index.project import ProjectIndex
from domain_fence.core.model import fingerprints
from domain_fence.core.model.findings import Finding, character_columns, sorted_findings
from domain_fence.core.model.rules import get_rule
from domain_fence.core.source.facts import (
    BINDING,
    BoundName,
    FileFacts,
    attached_names,
    bound_names,
    method_definitions,
    nested_class_definitions,
    top_level_definitions,
)
from domain_fence.core.source.modules import matches_any
from domain_fence.core.source.reading import Unreadable, decode, read_file


# A dataclass: users' tests get it from domain_fence.testing, and may hand it to dataclasses'
# functions.
@dataclass(frozen=True)
class Definition:
    """A module-level function or class, a method, or a name bound by assignment at
    module level or in a class body: where it is, what it is, what it is called."""

    module: str
    path: str  # posix, relative to the project root
    # 1-based line of the ``def``/``class`` keyword (after any decorators), or of a
    # binding's name (the assignment's line unless its target spans lines)
    line: int
    # 0-based column of that keyword (of ``async`` for ``async def``), or of the name: in
    # UTF-8 bytes, as the AST counts, but from scan_definitions, which counts characters
    col: int
    kind: str  # "function", "class", "method" or "binding"
    name: str
    owner: str = ""  # a method's (or class-level binding's) class, by its qualified name ("Outer.Inner")
    renames: str = ""  # a re-export's: the name of what it binds anew (see BoundName)
    attached: bool = False  # a binding made outside its class's body (``Class.name = f``)

    @property
    def location(self) -> str:
        return f"{self.path}:{self.line}"

    @property
    def display_name(self) -> str:
        """``Class.method`` for a method, the name for a function or class."""
        return f"{self.owner}.{self.name}" if self.owner else self.name

    @property
    def qualified_name(self) -> str:
        return f"{self.module}.{self.display_name}"

    @property
    def fingerprint_name(self) -> str:
        """What DOM201's fingerprint names: the display name, followed by ``=`` for a
        binding (``init_telemetry=``), so that a binding and a ``def`` of one name are
        two findings, each recorded on its own; after ``setattr:`` for one attached
        from outside its class's body (``setattr:EvidenceLM.post_episode``), so that a
        binding in the body keeps its fingerprint whatever is attached before it."""
        if self.attached:
            return f"setattr:{self.display_name}"
        return f"{self.display_name}=" if self.kind == BINDING else self.display_name

    def matches(self, pattern: str, patterns: tuple[str, ...] = ()) -> bool:
        """Whether ``pattern`` matches it, one of a contract's ``patterns`` (default: the
        pattern alone): a re-export of what one of them matches matches none."""
        return definition_matches(self.name, self.owner, pattern) and not reexports_a_match(
            self.renames, self.owner, patterns or (pattern,)
        )

    def counted_in(self, kinds: frozenset[str]) -> bool:
        return counted(self.kind, self.owner, kinds)


# A definition's order: its fields in turn, as a sort key (the class generates no comparisons:
# each generated method is compiled as the module is imported, on every run).
DEFINITION_ORDER = attrgetter(*(field.name for field in fields(Definition) if field.compare))


def counted(kind: str, owner: str, kinds: frozenset[str]) -> bool:
    """Whether a definition of ``kind`` counts for a contract's ``kinds``. What a
    binding binds is not known without running the code: at module level it counts as
    a function or class, in a class body as a method."""
    if kind != BINDING:
        return kind in kinds
    return "method" in kinds if owner else ("function" in kinds or "class" in kinds)


@functools.lru_cache(maxsize=1 << 16)  # the same names come back in module after module
def definition_matches(name: str, owner: str, pattern: str) -> bool:
    """A pattern with a dot names a method by ``Class.method``; one without names any
    definition by its own name."""
    if "." in pattern:
        return bool(owner) and fnmatchcase(f"{owner}.{name}", pattern)
    return fnmatchcase(name, pattern)


def definitions_in(module: str, path: str, tree: ast.Module) -> list[Definition]:
    """Every module-level function and class of ``tree``, their methods, and the names
    bound by assignment at module level and in their bodies."""
    found = [Definition(module, path, d.line, d.col, d.kind, d.name) for d in top_level_definitions(tree.body)]
    found += [Definition(module, path, m.line, m.col, "method", m.name, m.owner) for m in method_definitions(tree.body)]
    found += [
        Definition(module, path, c.line, c.col, "class", c.name, c.owner) for c in nested_class_definitions(tree.body)
    ]
    found += [
        Definition(module, path, b.line, b.col, BINDING, b.name, b.owner, b.renames) for b in bound_names(tree.body)
    ]
    found += [_attached(module, path, b) for b in attached_names(module, tree)]
    return sorted(found, key=lambda d: (d.line, d.col))


def facts_definitions(module: str, path: str, facts: FileFacts) -> list[Definition]:
    """The definitions :func:`definitions_in` finds, from a module's facts."""
    found = [Definition(module, path, d.line, d.col, d.kind, d.name) for d in facts.top_level]
    found += [Definition(module, path, m.line, m.col, "method", m.name, m.owner) for m in facts.methods]
    found += [Definition(module, path, c.line, c.col, "class", c.name, c.owner) for c in facts.nested_classes]
    found += [Definition(module, path, b.line, b.col, BINDING, b.name, b.owner, b.renames) for b in facts.bound]
    return found + [_attached(module, path, b) for b in facts.attached]


def _attached(module: str, path: str, binding: BoundName) -> Definition:
    return Definition(
        module, path, binding.line, binding.col, BINDING, binding.name, binding.owner, binding.renames, True
    )


def matches(name: str, patterns: Iterable[str], owner: str = "") -> bool:
    return bool(matched_patterns(name, owner, tuple(patterns)))


@functools.lru_cache(maxsize=1 << 16)  # a project defines the same names in module after module
def matched_patterns(name: str, owner: str, patterns: tuple[str, ...], renames: str = "") -> tuple[str, ...]:
    """The ``patterns`` a definition named ``name`` (a method of ``owner``) matches. A
    re-export of ``renames`` matches none when ``renames`` matches one: what it
    re-exports is placed where it is defined."""
    if reexports_a_match(renames, owner, patterns):
        return ()
    return tuple(pattern for pattern in patterns if definition_matches(name, owner, pattern))


def reexports_a_match(renames: str, owner: str, patterns: tuple[str, ...]) -> bool:
    """Whether a re-export of ``renames`` re-exports what one of ``patterns`` matches."""
    return bool(renames) and any(definition_matches(renames, owner, pattern) for pattern in patterns)


def _matches_facts(facts: FileFacts, patterns: Sequence[str]) -> bool:
    patterns = tuple(patterns)
    return (
        any(matched_patterns(d.name, "", patterns) for d in facts.top_level)
        or any(matched_patterns(m.name, m.owner, patterns) for m in facts.methods)
        or any(matched_patterns(c.name, c.owner, patterns) for c in facts.nested_classes)
        or any(matched_patterns(b.name, b.owner, patterns, b.renames) for b in facts.bound)
        or any(matched_patterns(b.name, b.owner, patterns, b.renames) for b in facts.attached)
    )


def name_pattern(pattern: str) -> str:
    """A pattern every *own* name of a definition ``pattern`` matches satisfies (what
    the bytes prefilter looks for after ``def``, or before ``=``): for ``Class.method`` patterns, the
    part after the last dot, unless a wildcard there could swallow a dot itself."""
    if "." not in pattern:
        return pattern
    if "[" in pattern:
        return "*"  # a bracket set may hold the dot: stay general
    last = pattern.rsplit(".", 1)[1]
    if "?" in last:
        return "*"
    if "*" in last:
        return "*" + last.rsplit("*", 1)[1]  # ``*`` may eat dots: only the tail is sure
    return last


# What may stand between ``def``/``class`` and the name: blanks (the tokenizer's
# space, tab and form feed) and backslash continuations.
_BLANK = r"(?:[ \t\f]|\\\r?\n|\\\r)"
_SEPARATOR = _BLANK + "+"
# Every character of an identifier: an ASCII letter, digit or underscore, or any
# non-ASCII character (in UTF-8, any byte above 0x7f).
_NAME_CHARACTERS: dict[type, str] = {str: r"(?:[0-9A-Za-z_]|[^\x00-\x7f])", bytes: r"[0-9A-Za-z_\x80-\xff]"}
# Where a name starts: after no identifier character.
_NAME_START: dict[type, str] = {str: r"(?<![0-9A-Za-z_])(?<![^\x00-\x7f])", bytes: r"(?<![0-9A-Za-z_\x80-\xff])"}
# What follows the name of a binding's target, after blanks: ``=``, an annotation's
# ``:``, or what ends it in a tuple or list target (``,``, ``)``, ``]``), or in a
# bracketed target spanning lines, a comment or the end of a line; what follows an
# import's new name (``import a as name``) too, ``;`` included.
_BINDING_END = r"(?:[=:,;)\]#\r\n]|\Z)"
# No keyword is a target (``pass``, ``else:`` and ``None,`` are followed so too).
_KEYWORDS = "(?:" + "|".join(keyword.kwlist) + ")"


@functools.cache  # compiled when first needed: a run reusing its findings reads no file
def _coding() -> re.Pattern[bytes]:
    """An encoding declaration's start (looked for in a file's first two lines)."""
    return re.compile(rb"coding[:=]")


def bytes_filter(patterns: Iterable[str]) -> Callable[[bytes], bool]:
    return _bytes_filter(tuple(sorted({name_pattern(pattern) for pattern in patterns})))


@functools.lru_cache(maxsize=64)
def _bytes_filter(patterns: tuple[str, ...]) -> Callable[[bytes], bool]:
    """A cheap test of a file's bytes: False only when no module-level definition in
    the file can have a name matching one of ``patterns``.

    A definition spells ``def`` or ``class``, blanks, then its whole name: a file is
    parsed only when some ``def``/``class`` is followed by a name the pattern
    matches (``class CsrfViewMiddleware`` does not match ``*View``). A binding spells
    its whole name, then blanks and ``=``, ``:``, ``,``, ``)``, ``]`` (or, in a
    bracketed target spanning lines, a comment or a line's end): a file is parsed when
    a name the pattern matches is followed so (``Class.name = f`` too), or, in a file
    calling ``setattr``, is written between quotes. A name matching
    ``*PostEpisode*`` contains ``PostEpisode``, so files without that literal are
    skipped without a regular expression. Python reads identifiers NFKC-normalised
    (``ｉnit`` is ``init``), so a file that is not plain ASCII, or names its
    encoding, is decoded and normalised before the test.
    """
    literals = sorted({_longest_literal(pattern) for pattern in patterns})
    needles = literals if all(literals) else []  # a pattern without a literal (``*``) needs none
    needle_bytes = [needle.encode() for needle in needles]

    # Compiled when first needed: no file is read when every fact is known (after an
    # edit, say), and few files hold a needle.
    @functools.cache
    def in_bytes() -> list[re.Pattern[bytes]]:
        return [re.compile(shape.encode()) for shape in _shapes(patterns, bytes)]

    # Compiled when first needed: most files are plain ASCII and call no ``setattr``.
    @functools.cache
    def in_text() -> list[re.Pattern[str]]:
        # A keyword spelt with other characters (``iｆ``) is a name Python binds: normalised,
        # the text spells the keyword itself, which the shapes must then let through.
        return [re.compile(shape) for shape in _shapes(patterns, str, keywords_bind=True)]

    # A name given to ``setattr`` as a literal: looked for only where ``setattr`` is.
    @functools.cache
    def quoted_bytes() -> re.Pattern[bytes]:
        return re.compile(_quoted(patterns, bytes).encode())

    @functools.cache
    def quoted_text() -> re.Pattern[str]:
        return re.compile(_quoted(patterns, str))

    def could_match(data: bytes) -> bool:
        if data.isascii() and not _coding().search(data, 0, _second_line_end(data)):
            if needle_bytes and not any(needle in data for needle in needle_bytes):
                return False
            if any(shape.search(data) for shape in in_bytes()):
                return True
            return b"setattr" in data and quoted_bytes().search(data) is not None
        text = decode(data)
        if isinstance(text, Unreadable):
            return True  # the parser reports why it cannot read it
        if not unicodedata.is_normalized("NFKC", text):
            text = unicodedata.normalize("NFKC", text)
        if needles and not any(needle in text for needle in needles):
            return False
        if any(shape.search(text) for shape in in_text()):
            return True
        return "setattr" in text and quoted_text().search(text) is not None

    return could_match


def _shapes(patterns: Iterable[str], text: type, keywords_bind: bool = False) -> list[str]:
    """A definition whose whole name matches one of ``patterns``; one expression per
    keyword, as a literal prefix lets the regular expression engine skip ahead quickly,
    and one for a binding. ``text`` is ``str`` or ``bytes``, what the expressions read;
    ``keywords_bind``: a keyword followed as a binding is one (NFKC-normalised text)."""
    name = _NAME_CHARACTERS[text]
    names = "(?:" + "|".join(_name_shape(pattern, name) for pattern in patterns) + f")(?!{name})"
    not_a_keyword = "" if keywords_bind else f"(?!{_KEYWORDS}(?!{name}))"
    binding = _NAME_START[text] + f"(?={name}){not_a_keyword}" + names + _BLANK + "*" + _BINDING_END
    return [*(keyword + _SEPARATOR + names for keyword in ("def", "class")), binding]


def _quoted(patterns: Iterable[str], text: type) -> str:
    """A name one of ``patterns`` matches written between quotes (``"post_episode"``):
    what ``setattr(Class, "post_episode", f)`` attaches (see
    :func:`~domain_fence.core.source.facts.attached_names`)."""
    name = _NAME_CHARACTERS[text]
    return "[\"']" + "(?:" + "|".join(_name_shape(pattern, name) for pattern in patterns) + ")[\"']"


def _name_shape(pattern: str, name: str) -> str:
    """``pattern`` (fnmatch syntax) as a regular expression over identifier characters.

    Only text this function is sure of is kept: the first bracket set, with its edge
    cases (``[]a]``, ``[!a]``, an unclosed ``[``), and everything after it become
    "any identifier characters", which only lets more files through.
    """
    parts = []
    for character in pattern:
        if character == "[":
            parts.append(f"{name}*")
            break
        parts.append(f"{name}*" if character == "*" else name if character == "?" else re.escape(character))
    return "".join(parts)


def _second_line_end(data: bytes) -> int:
    """Where a coding cookie may be: the first two lines."""
    first = data.find(b"\n")
    second = data.find(b"\n", first + 1) if first >= 0 else -1
    return len(data) if second < 0 else second


def _longest_literal(pattern: str) -> str:
    """The longest run of ``pattern`` every matching name contains verbatim.

    Bracket sets have subtle edge cases (``[]a]``), so only the part before the first
    ``[`` is used: a shorter literal only means fewer files are skipped.
    """
    before_brackets = pattern.split("[", 1)[0]
    return max(re.split(r"[*?]", before_brackets), key=len)


class Scan(NamedTuple):
    """Definitions whose names match, and the files that could not be analysed."""

    definitions: tuple[Definition, ...]
    unreadable: tuple[Finding, ...]  # DOM001, one per file that might hold a match


def scan_definitions(index: ProjectIndex, patterns: Sequence[str], contract: str = "") -> Scan:
    """Every module-level definition in the project whose name matches a pattern, its
    column counted in characters, as a finding's is (the facts count UTF-8 bytes)."""
    scan = _scan(index, index.modules, patterns, contract)
    columns: dict[str, Callable[[int, int], int]] = {}
    found = []
    for d in scan.definitions:
        if d.col:  # a column 0 is the same in bytes: its module's text need not be read
            if d.module not in columns:
                columns[d.module] = character_columns(index.text(d.module))
            d = replace(d, col=columns[d.module](d.line, d.col))
        found.append(d)
    return scan._replace(definitions=tuple(found))


def prefetch_candidates(index: ProjectIndex, modules: Iterable[str], patterns: Sequence[str]) -> list[str]:
    """The modules that may define a match, their facts read together (in parallel when
    many are to be parsed): checked one by one, they would be parsed one by one."""
    could_match = bytes_filter(patterns)
    candidates = [module for module in modules if passes_filter(index, module, patterns, could_match)]
    index.prefetch(candidates)
    return candidates


def _scan(
    index: ProjectIndex,
    modules: Iterable[str],
    patterns: Sequence[str],
    contract: str,
    candidates: list[str] | None = None,
) -> Scan:
    """The matching definitions of ``modules``, parsing only the files that may hold
    one (``candidates``, when they were just found by :func:`prefetch_candidates`)."""
    patterns = tuple(patterns)
    if candidates is None:
        candidates = prefetch_candidates(index, modules, patterns)
    found: list[Definition] = []
    unreadable: list[Finding] = []
    for module in candidates:
        facts = index.file_facts(module)
        if facts is None:
            continue
        if facts.unreadable is not None:
            unreadable.append(unreadable_finding(index, module, facts.unreadable, contract))
            continue
        path = index.relative_path(module)
        found += [
            d for d in facts_definitions(module, path, facts) if matched_patterns(d.name, d.owner, patterns, d.renames)
        ]
    return Scan(tuple(sorted(found, key=DEFINITION_ORDER)), tuple(sorted(unreadable)))


def passes_filter(
    index: ProjectIndex, module: str, patterns: Sequence[str], could_match: Callable[[bytes], bool]
) -> bool:
    """Whether ``module`` may define a name matching ``patterns``: from its facts when
    another contract has read them already, else from its bytes."""
    file = index.modules.get(module)
    if file is None or not file.name.endswith(".py"):
        return False  # unknown, or a namespace package root without source
    known = index.known_facts(module)
    if known is not None and known.unreadable is None:
        return _matches_facts(known, patterns)
    try:
        return could_match(read_file(file))
    except OSError:
        return True  # the index reads it again and reports why it cannot


def unreadable_finding(index: ProjectIndex, module: str, problem: Unreadable, contract: str = "") -> Finding:
    return Finding(
        path=index.relative_path(module),
        line=problem.line,
        col=0,
        code="DOM001",
        message=get_rule("DOM001").format(reason=problem.reason),
        symbol=module,
        fingerprint=fingerprints.unanalysable(module),
        contract=contract,
    )


class PlacementResult(NamedTuple):
    """A placement contract's check of the project: its findings and what matched."""

    findings: tuple[Finding, ...]  # DOM201 for misplaced definitions, DOM001 for unreadable files
    unmatched_patterns: tuple[str, ...]  # patterns matching no definition of the allowed kinds
    examined: tuple[str, ...]  # the allowed modules whose definitions the check read
    # Of each module outside the allowed ones that has any: its findings, as
    # module_placement_findings finds them, and its definitions matching a pattern.
    outside_findings: Mapping[str, tuple[Finding, ...]]
    outside_matches: Mapping[str, tuple[Definition, ...]]


def check_placement(
    config: PlacementConfig, index: ProjectIndex, candidates: list[str] | None = None
) -> PlacementResult:
    """Check one placement contract over the whole project; ``candidates``: the modules
    outside the allowed ones that may define a match, just found by
    :func:`prefetch_candidates`.

    Definitions in the allowed modules are never findings: those files are read only
    to learn whether each pattern matches something, and only until it does. An
    unreadable file is a DOM001 finding when it might hide a finding (outside the
    allowed modules) or the only match of a pattern.
    """
    allowed = [module for module in index.modules if matches_any(module, config.allowed_modules)]
    outside = [module for module in index.modules if not matches_any(module, config.allowed_modules)]
    scan = _scan(index, outside, config.symbols, config.contract, candidates)
    relevant = [d for d in scan.definitions if d.counted_in(config.kinds)]
    symbols = tuple(config.symbols)
    unmatched = [p for p in symbols if not any(d.matches(p, symbols) for d in relevant)]
    examined: list[str] = []
    unmatched, hiding = _match_in(index, allowed, unmatched, config, examined)
    # What an unreadable file may define is not known to match nothing: its DOM001 says
    # why, where "is it misspelt?" would send the user after a typo.
    hidden = _maybe_defined_in(index, [finding.symbol for finding in (*scan.unreadable, *hiding)], unmatched)
    unmatched = [pattern for pattern in unmatched if pattern not in hidden]
    findings = placement_findings(config, relevant)
    matches: dict[str, list[Definition]] = {}
    for definition in scan.definitions:
        matches.setdefault(definition.module, []).append(definition)
    unreadable: dict[str, list[Finding]] = {}
    for finding in scan.unreadable:
        unreadable.setdefault(finding.symbol, []).append(finding)
    by_module = {
        module: tuple(sorted([*placement_findings(config, matches.get(module, ())), *unreadable.get(module, ())]))
        for module in sorted({*matches, *unreadable})
    }
    return PlacementResult(
        tuple(sorted_findings([*findings, *scan.unreadable, *hiding])),
        tuple(unmatched),
        tuple(examined),
        {module: found for module, found in by_module.items() if found},
        {module: tuple(found) for module, found in matches.items()},
    )


def _match_in(
    index: ProjectIndex, modules: list[str], unmatched: list[str], config: PlacementConfig, examined: list[str]
) -> tuple[list[str], list[Finding]]:
    """The patterns still unmatched after reading ``modules`` for them, and the
    unreadable files among those that might hold a match of one of them; ``examined``
    gets the modules read."""
    filters = {pattern: bytes_filter([pattern]) for pattern in unmatched}
    unreadable: list[tuple[Finding, list[str]]] = []
    for module in modules:
        if not unmatched:
            break
        wanted = [pattern for pattern in unmatched if passes_filter(index, module, [pattern], filters[pattern])]
        facts = index.file_facts(module) if wanted else None
        if facts is None:
            continue
        examined.append(module)
        if facts.unreadable is not None:
            unreadable.append((unreadable_finding(index, module, facts.unreadable, config.contract), wanted))
            continue
        kept = [d for d in facts_definitions(module, "", facts) if d.counted_in(config.kinds)]
        unmatched = [p for p in unmatched if not any(d.matches(p, tuple(config.symbols)) for d in kept)]
    return unmatched, [finding for finding, wanted in unreadable if set(wanted) & set(unmatched)]


def _maybe_defined_in(index: ProjectIndex, modules: Iterable[str], patterns: Sequence[str]) -> set[str]:
    """The patterns a name defined in one of ``modules`` (unreadable files) may match,
    as far as their bytes tell."""
    return {p for module in modules for p in patterns if passes_filter(index, module, [p], bytes_filter([p]))}


def misplaced_finding(definition: Definition, allowed: str, contract: str = "") -> Finding:
    """DOM201 for ``definition``, defined outside ``allowed`` (the allowed module
    expressions as written, joined by ", "). Its fingerprint names no contract: a
    definition recorded by one placement contract is recorded for every other."""
    rule = get_rule("DOM201")
    d = definition
    return Finding(
        path=d.path,
        line=d.line,
        col=d.col,
        code=rule.code,
        message=rule.format(kind=d.kind, name=d.display_name, allowed=allowed),
        symbol=d.qualified_name,
        fingerprint=fingerprints.located(rule.code, d.module, d.fingerprint_name),
        contract=contract,
        fields=(("allowed", allowed), ("kind", d.kind), ("name", d.name)),
    )


def placement_findings(config: PlacementConfig, definitions: Iterable[Definition]) -> list[Finding]:
    """DOM201 for each of ``definitions`` the contract does not allow where it is."""
    allowed = ", ".join(str(expression) for expression in config.allowed_modules)
    return sorted(
        misplaced_finding(d, allowed, config.contract)
        for d in definitions
        if d.counted_in(config.kinds)
        and matched_patterns(d.name, d.owner, tuple(config.symbols), d.renames)
        and not matches_any(d.module, config.allowed_modules)
    )


def module_placement_findings(config: PlacementConfig, index: ProjectIndex, module: str) -> list[Finding]:
    """The findings of one contract in one module: the per-file view flake8 reports,
    the project-wide check's findings for that module. (An unreadable file in the
    allowed modules is a finding of the project-wide check only when it hides the
    only match of a pattern: a question about the whole project, not this file.)"""
    if matches_any(module, config.allowed_modules):
        return []
    scan = _scan(index, [module], config.symbols, config.contract)
    return sorted([*placement_findings(config, scan.definitions), *scan.unreadable])
