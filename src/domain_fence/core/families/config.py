"""Typed, frozen contract configurations, validated once with every error reported.

Front ends receive raw option values as import-linter reads them (a string, or a list
of strings for a multi-line INI value or a TOML array). Each ``parse_*`` function
returns a frozen configuration, or raises :class:`ConfigError` listing every problem,
keyed by option name, so a user fixes their configuration in one pass.
"""

# Annotations evaluated, not postponed (no ``from __future__ import annotations``):
# typing.NamedTuple compiles each postponed one into a ForwardRef as the module is
# imported, on every run: about a third of what creating these classes costs.
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

from domain_fence.core.model.text import escape_controls, split_words
from domain_fence.core.source.modules import ModuleExpression, matches_any, module_expression_error

T = TypeVar("T")


DEFAULT_PATH = ".domain-fence-baseline.json"  # of a contract's baseline file


class ConfigError(Exception):
    """Invalid contract options: ``errors`` maps option name -> one-line problem."""

    def __init__(self, errors: Mapping[str, str]) -> None:
        self.errors = dict(sorted(errors.items()))
        super().__init__("; ".join(f"{k}: {v}" for k, v in self.errors.items()))


ALERT_LEVELS = ("error", "warn", "none")
# The options read with _Options.flag: a TOML boolean is a valid value of these only.
FLAG_OPTIONS = ("as_packages", "allow_indirect_imports", "require_match")


class ImportExpression(NamedTuple):
    """An ignored import: ``importer -> imported``, each a module expression."""

    importer: ModuleExpression
    imported: ModuleExpression
    text: str

    def matches(self, importer: str, imported: str) -> bool:
        return self.importer.matches(importer) and self.imported.matches(imported)


class WordRule(NamedTuple):
    """One entry of ``words``: a phrase of one or more words and an optional replacement."""

    words: tuple[str, ...]
    replacement: str | None = None

    @property
    def phrase(self) -> str:
        return " ".join(self.words)


@dataclass(frozen=True)
class BaselineOptions:
    """Where a contract's baseline is, and how an entry matching nothing is reported."""

    path: Path
    stale: str = "error"  # ALERT_LEVELS: how to report an entry matching nothing
    # As written, below the configuration's directory (``path`` is where it resolves to):
    # what a symbolic link, retargeted, makes another file.
    written: Path | None = field(default=None, compare=False)


class BoundaryConfig(NamedTuple):
    """A boundary contract's options, parsed."""

    contract: str
    name: str
    source_modules: tuple[ModuleExpression, ...]
    forbidden_modules: tuple[ModuleExpression, ...]
    ignore_imports: tuple[ImportExpression, ...]
    as_packages: bool
    allow_indirect_imports: bool
    baseline: BaselineOptions
    unmatched_ignores: str = "error"  # ALERT_LEVELS: an ignore_imports entry matching no import
    # Modules inside the source modules that are on neither side.
    exclude_modules: tuple[ModuleExpression, ...] = ()
    unclassified: str = "none"  # ALERT_LEVELS: modules on neither side of explicit lists

    def in_source(self, module: str) -> bool:
        """The runtime: the source modules less the forbidden and excluded ones, so
        ``source_modules = pkg`` covers every module added to ``pkg`` later."""
        return (
            matches_any(module, self.source_modules)
            and not matches_any(module, self.forbidden_modules)
            and not matches_any(module, self.exclude_modules)
        )


class EventBasePattern(NamedTuple):
    """Every class whose name matches ``classes`` (fnmatch, case-sensitive) defined in a
    module matched by ``modules`` or below one: ``tbp.monty.**.telemetry:*Event``."""

    modules: ModuleExpression
    classes: str
    text: str

    def matches(self, module: str, qualname: str) -> bool:
        return fnmatchcase(qualname, self.classes) and self.covers_module(module)

    def covers_module(self, module: str) -> bool:
        """``module`` is matched by ``modules`` or below one that is."""
        return self.modules.matches_or_below(module)

    def literal_part(self) -> str:
        """The longest run of ``classes`` without a wildcard or a dot: the file defining
        a class it matches contains it (``Event`` for ``*Event`` and ``Outer.*Event``,
        each part of a qualname being a class name written whole; empty for ``*``)."""
        without_sets = re.sub(r"\[!?\]?[^]]*\]", "*", self.classes)  # ``[]_]`` holds "]"
        return max(re.split(r"[*?.]", without_sets), key=len)

    def __str__(self) -> str:
        return self.text


class VocabularyConfig(NamedTuple):
    """A vocabulary contract's options, parsed."""

    contract: str
    name: str
    modules: tuple[ModuleExpression, ...]
    event_bases: tuple[str, ...]
    words: tuple[WordRule, ...]
    allow: frozenset[str]
    kind_attributes: tuple[str, ...]
    baseline: BaselineOptions
    # What is checked (SCOPES, in that order): event classes (DOM101-DOM104), and, opt-in,
    # any attribute (DOM111), parameter (DOM112) or definition name (DOM113) in ``modules``.
    scope: tuple[str, ...] = ("events",)
    exclude_modules: tuple[ModuleExpression, ...] = ()  # subtracted from ``modules``
    # ``module:ClassPattern`` entries of ``event_bases``: bases that may not exist yet.
    event_base_patterns: tuple[EventBasePattern, ...] = ()
    # Callees (dotted paths, ``*`` wildcards: ``*.emit``) whose keyword arguments are
    # event values too (DOM105): a function or method that builds and emits an event.
    emit_functions: tuple[str, ...] = ()

    def covers(self, module: str) -> bool:
        return matches_any(module, self.modules) and not matches_any(module, self.exclude_modules)


class PlacementConfig(NamedTuple):
    """A placement contract's options, parsed."""

    contract: str
    name: str
    symbols: tuple[str, ...]
    allowed_modules: tuple[ModuleExpression, ...]
    kinds: frozenset[str]
    require_match: bool
    baseline: BaselineOptions
    # ALERT_LEVELS: how to report a pattern matching nothing ("error" with require_match).
    unmatched: str = "warn"


class _Options:
    """Reads raw options, collecting errors instead of stopping at the first."""

    def __init__(self, raw: Mapping[str, Any], root: Path) -> None:
        self.raw = raw
        self.root = root
        self.errors: dict[str, str] = {}

    def strings(
        self, key: str, *, required: bool = False, default: tuple[str, ...] = (), commas: bool = True
    ) -> tuple[str, ...]:
        value = self.raw.get(key)
        if value is None or value == "" or value == []:
            if required:
                self.errors[key] = "This is a required field."
            return default
        items = [value] if isinstance(value, str) else value
        if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
            self.errors[key] = "Expected a string or a list of strings."
            return default
        # Our own lists may also be comma-separated on one line. Not those import-linter
        # reads itself (``commas=False``): every front end must read them alike.
        split = [part.strip() for item in items for part in (item.split(",") if commas else [item])]
        return tuple(part for part in split if part)

    def flag(self, key: str, default: bool) -> bool:
        value = self.raw.get(key)
        if value is None:
            return default
        text = str(value).strip().lower()
        if text in ("true", "false"):
            return text == "true"
        # import-linter reads anything but True/true as False; we refuse instead.
        self.errors[key] = f"Expected true or false, not {value!r}."
        return default

    def choice(self, key: str, choices: tuple[str, ...], default: str) -> str:
        value = self.raw.get(key)
        if value is None:
            return default
        if not isinstance(value, str) or value.strip().lower() not in choices:
            self.errors[key] = f"Expected one of {', '.join(choices)}, not {value!r}."
            return default
        return value.strip().lower()

    def each(self, key: str, values: tuple[str, ...], convert: Callable[[str], T]) -> tuple[T, ...]:
        converted: list[T] = []
        problems: list[str] = []
        for value in values:
            try:
                converted.append(convert(value))
            except ValueError as error:
                problems.append(str(error))
        if problems:
            self.errors[key] = "; ".join(problems)
        return tuple(converted)

    def modules(
        self, key: str, *, required: bool = True, with_descendants: bool = True, commas: bool = True
    ) -> tuple[ModuleExpression, ...]:
        def convert(text: str) -> ModuleExpression:
            problem = module_expression_error(text)
            if problem:
                raise ValueError(problem)
            return ModuleExpression(text, with_descendants)

        return self.each(key, self.strings(key, required=required, commas=commas), convert)

    def baseline(self) -> BaselineOptions:
        path = self.strings("baseline", default=(DEFAULT_PATH,), commas=False)  # one path, commas and all
        stale = self.choice("unmatched_baseline_alerting", ALERT_LEVELS, "error")
        # One identity per file, whatever the spelling (``sub/../bl.json``, a symbolic
        # link): contracts sharing a file then share its entries instead of each
        # overwriting the others'.
        chosen = path[0] if path else DEFAULT_PATH
        if len(path) > 1:  # a contract has one baseline: the others would be ignored
            self.errors["baseline"] = f"Expected one file, not {len(path)} ({', '.join(map(repr, path))})."
        if "\0" in chosen:  # no file system takes it: say so, as for any other bad value
            self.errors["baseline"] = f"{escape_controls(chosen)!r} is not a file name (it holds a NUL byte)."
            chosen = DEFAULT_PATH
        resolved = os.path.realpath(self.root / chosen)
        return BaselineOptions(Path(resolved), stale, self.root / chosen)

    def finish(self, config: T) -> T:
        if self.errors:
            raise ConfigError(self.errors)
        return config


def _import_expression(text: str) -> ImportExpression:
    importer, arrow, imported = (part.strip() for part in text.partition("->"))
    if not arrow or not importer or not imported:
        raise ValueError(f"{text!r} is not of the form 'importer -> imported'")
    for side in (importer, imported):
        problem = module_expression_error(side)
        if problem:
            raise ValueError(problem)
    return ImportExpression(ModuleExpression(importer, False), ModuleExpression(imported, False), text)


def parse_boundary(contract: str, name: str, raw: Mapping[str, Any], root: Path) -> BoundaryConfig:
    """The parts of a ``boundary`` contract the per-file (flake8) view needs."""
    options = _Options(raw, root)
    as_packages = options.flag("as_packages", True)
    source = options.modules("source_modules", with_descendants=as_packages, commas=False)
    return options.finish(
        BoundaryConfig(
            contract=contract,
            name=name,
            # import-linter's own options (of ``forbidden``): one entry per line, as it reads them.
            source_modules=source,
            forbidden_modules=options.modules("forbidden_modules", with_descendants=as_packages, commas=False),
            ignore_imports=options.each(
                "ignore_imports", options.strings("ignore_imports", commas=False), _import_expression
            ),
            as_packages=as_packages,
            allow_indirect_imports=options.flag("allow_indirect_imports", False),
            baseline=options.baseline(),
            unmatched_ignores=options.choice("unmatched_ignore_imports_alerting", ALERT_LEVELS, "error"),
            exclude_modules=_excluded(options, "source_modules", source, with_descendants=as_packages),
            unclassified=options.choice("unclassified_modules_alerting", ALERT_LEVELS, "none"),
        )
    )


def _excluded(
    options: _Options, within: str, included: tuple[ModuleExpression, ...], with_descendants: bool = True
) -> tuple[ModuleExpression, ...]:
    """``exclude_modules``: modules subtracted from those of option ``within``; one
    outside all of them excludes nothing, so it is a mistake."""
    excluded = options.modules("exclude_modules", required=False, with_descendants=with_descendants)
    outside = [str(e) for e in excluded if included and not any(_inside(e, i) for i in included)]
    if outside:
        options.errors["exclude_modules"] = (
            f"{', '.join(map(repr, outside))} not inside {within} ({', '.join(map(str, included))})."
        )
    return excluded


def _inside(expression: ModuleExpression, container: ModuleExpression) -> bool:
    """Whether what ``expression`` names lies within ``container``: it, or a module it
    is below, matches ``container`` (wildcard segments of ``expression`` read as names,
    which a wildcard of ``container`` matches too)."""
    parts = expression.text.split(".")
    return any(container.matches(".".join(parts[:end])) for end in range(len(parts), 0, -1))


_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*\Z")


def _word_rule(text: str) -> WordRule:
    phrase, arrow, replacement = (part.strip() for part in text.partition("->"))
    if arrow and (not replacement or "->" in replacement):
        raise ValueError(f"{text!r}: expected 'words -> replacement'")
    parts = [part for part in re.split(r"[\s_]+", phrase) if part]
    if not parts or not all(_WORD.match(part) for part in parts):
        raise ValueError(f"{text!r}: a word entry is letters and digits separated by spaces")
    # Split as identifiers are (primaryTarget, episode2): a part left whole could never match.
    return WordRule(tuple(word for part in parts for word in split_words(part)), replacement or None)


_DOTTED = r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+\Z"  # compiled by re's cache, if ever used


def _dotted_class(text: str) -> str:
    if not re.match(_DOTTED, text):
        raise ValueError(
            f"{text!r} is not a dotted class path such as 'pkg.module.Class', "
            "nor a pattern such as 'pkg.**.telemetry:*Event'"
        )
    return text


_CLASS_PATTERN = re.compile(r"[A-Za-z0-9_*?\[\]!.]+\Z")


def _event_base_pattern(text: str) -> EventBasePattern:
    modules, _, classes = (part.strip() for part in text.partition(":"))
    problem = module_expression_error(modules)
    if problem or not classes or not _CLASS_PATTERN.match(classes):
        raise ValueError(f"{text!r} is not of the form 'module.expression:ClassPattern' such as 'pkg.**:*Event'")
    return EventBasePattern(ModuleExpression(modules, True), classes, text)


_CALLEE = r"[A-Za-z0-9_*?]+(?:\.[A-Za-z0-9_*?]+)*\Z"  # compiled by re's cache, if ever used


def _callee_pattern(text: str) -> str:
    if not re.match(_CALLEE, text):
        raise ValueError(f"{text!r} is not a dotted callee such as 'pkg.telemetry.emit' or '*.emit'")
    return text


EVENTS_SCOPE = "events"
SCOPES = (EVENTS_SCOPE, "attributes", "parameters", "definitions")


def _scope(options: _Options) -> tuple[str, ...]:
    chosen = {item.lower() for item in options.strings("scope", default=(EVENTS_SCOPE,))}
    unknown = sorted(chosen - set(SCOPES))
    if unknown:
        options.errors["scope"] = f"Expected some of {', '.join(SCOPES)}, not {', '.join(map(repr, unknown))}."
    return tuple(scope for scope in SCOPES if scope in chosen)


def parse_vocabulary(contract: str, name: str, raw: Mapping[str, Any], root: Path) -> VocabularyConfig:
    options = _Options(raw, root)
    scope = _scope(options)
    # Event bases define what an event is: needed only when events are checked.
    event_bases = options.strings("event_bases", required=EVENTS_SCOPE in scope)
    patterns = tuple(base for base in event_bases if ":" in base)
    modules = options.modules("modules")
    return options.finish(
        VocabularyConfig(
            contract=contract,
            name=name,
            modules=modules,
            event_bases=options.each("event_bases", tuple(b for b in event_bases if b not in patterns), _dotted_class),
            event_base_patterns=_each_merged(options, "event_bases", patterns, _event_base_pattern),
            exclude_modules=_excluded(options, "modules", modules),
            words=options.each("words", options.strings("words", required=True), _word_rule),
            allow=frozenset(options.strings("allow")),
            kind_attributes=options.strings("kind_attributes", default=("KIND", "kind")),
            baseline=options.baseline(),
            scope=scope,
            emit_functions=options.each("emit_functions", options.strings("emit_functions"), _callee_pattern),
        )
    )


def _each_merged(
    options: _Options, key: str, values: tuple[str, ...], convert: Callable[[str], Any]
) -> tuple[Any, ...]:
    """:meth:`_Options.each` for a second kind of entry of the same option: its
    problems join those already reported for ``key``."""
    earlier = options.errors.pop(key, None)
    converted = options.each(key, values, convert)
    if earlier:
        options.errors[key] = "; ".join(filter(None, (earlier, options.errors.get(key))))
    return converted


KINDS = ("function", "class", "method")


def symbol_pattern(text: str) -> str:
    """``text`` if it is a symbol pattern (``init_telemetry``, ``*PostEpisode*``,
    ``Class.method``); ValueError saying what one is if not."""
    segments = text.split(".")
    if not all(re.fullmatch(r"[A-Za-z0-9_*?\[\]!]+", segment) for segment in segments):
        raise ValueError(f"{text!r} is not a name pattern such as 'init_telemetry', '*PostEpisode*' or 'Class.method'")
    return text


def _unmatched_symbols(options: _Options) -> str:
    """``unmatched_symbols_alerting``; ``require_match = true`` is its ``error``."""
    level = options.choice("unmatched_symbols_alerting", ALERT_LEVELS, "warn")
    required = options.flag("require_match", False)
    if required and "unmatched_symbols_alerting" in options.raw and level != "error":
        options.errors["unmatched_symbols_alerting"] = f"{level!r} contradicts require_match = true."
    return "error" if required else level


def parse_placement(contract: str, name: str, raw: Mapping[str, Any], root: Path) -> PlacementConfig:
    options = _Options(raw, root)
    kinds = options.strings("kinds", default=KINDS)
    bad = [k for k in kinds if k not in KINDS]
    if bad:
        options.errors["kinds"] = f"Expected some of {', '.join(KINDS)}, not {', '.join(map(repr, bad))}."
    return options.finish(
        PlacementConfig(
            contract=contract,
            name=name,
            symbols=options.each("symbols", options.strings("symbols", required=True), symbol_pattern),
            allowed_modules=options.modules("allowed_modules"),
            kinds=frozenset(kinds),
            require_match=options.flag("require_match", False),
            unmatched=_unmatched_symbols(options),
            baseline=options.baseline(),
        )
    )
