"""The configuration ``domain-fence init`` writes: a plan of contracts made from a
project's layout, by the ``monty`` preset or by detection, rendered as an
import-linter file.

Modules a preset names that the project does not have are left out (and listed), so
the configuration written always validates against the project as it is.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from domain_fence.core.families.config import DEFAULT_PATH, EventBasePattern
from domain_fence.core.setup.helpers import experiment_only_modules
from domain_fence.core.setup.layout import (
    Layout,
    LayoutError,
    event_bases,
    experiment_packages,
    neither_side,
    runtime_partition,
)
from domain_fence.core.source.modules import ModuleExpression

CONTRACT_TYPES = {
    "boundary": "domain_fence.integrations.importlinter.BoundaryContract",
    "vocabulary": "domain_fence.integrations.importlinter.VocabularyContract",
    "placement": "domain_fence.integrations.importlinter.PlacementContract",
}

BOUNDARY_ID = "runtime-knows-no-experiment"
VOCABULARY_ID = "runtime-events-speak-runtime"
PLACEMENT_ID = "experiment-owns-its-machinery"
# Experiment knowledge held by runtime objects, events or not: baselined by init, so a
# codebase without telemetry events can ratchet its migration from day one.
CENSUS_ID = "runtime-holds-no-experiment-knowledge"

DEFAULT_WORDS = (
    "episode",
    "epoch",
    "experiment",
    "primary target",
    "ground truth",
    "post episode",
    "terminal state -> recognized state",
)
DEFAULT_SYMBOLS = ("init_telemetry", "*PostEpisode*")


@dataclass(frozen=True)
class Preset:
    """A known layout. The runtime is everything in the root package but the
    experiment modules, so runtime packages added later are covered."""

    name: str
    root_package: str
    experiment: tuple[str, ...]  # module names; ``*`` matches within one segment
    telemetry: tuple[str, ...]  # where the runtime's event base classes live today
    words: tuple[str, ...]  # the event contract's vocabulary
    symbols: tuple[str, ...]
    census: bool = False  # write the attributes-and-parameters vocabulary contract
    census_words: tuple[str, ...] = ()  # the census's vocabulary (default: ``words``)
    # Event bases that may not exist yet (``module.expression:ClassPattern``): with
    # them the events contract is written even before the runtime has telemetry.
    event_base_patterns: tuple[str, ...] = ()


MONTY = Preset(
    name="monty",
    root_package="tbp.monty",
    experiment=(
        "tbp.monty.conf",
        "tbp.monty.experiment",
        "tbp.monty.frameworks.experiments",
        "tbp.monty.frameworks.loggers",
        "tbp.monty.frameworks.run*",
        "tbp.monty.hydra",
    ),
    telemetry=("tbp.monty.frameworks.telemetry", "tbp.monty.telemetry"),
    # In an event, any target is the experiment's, and step, mode and episode are the
    # experiment's metadata.
    words=(
        "mode",
        "episode",
        "step",
        "epoch",
        "experiment",
        "target",
        "primary target",
        "ground truth",
        "post episode",
        "terminal state -> recognized state",
    ),
    # *post_episode*: a handler however it is named or defined (a function, a method).
    symbols=("init_telemetry", "*PostEpisode*", "*post_episode*", "*ExperimentStats*"),
    census=True,
    # Outside events, a target is often the motor system's or a model's own: only the
    # phrases naming the experiment's target are experiment knowledge.
    census_words=(
        "episode",
        "epoch",
        "experiment",
        "mode",
        "train",
        "eval",
        "label",
        "primary target",
        "target object",
        "stepwise target",
        "graph id to target",
        "target to graph id",
        "graph to target",
        "target to graph",
        "ground truth",
        "post episode",
        "terminal state -> recognized state",
    ),
    event_base_patterns=tuple(
        f"{package}:{classes}"
        for package in ("tbp.monty.telemetry", "tbp.monty.**.telemetry")
        for classes in ("*Event", "*Schema")
    ),
)

PRESETS = {MONTY.name: MONTY}


@dataclass(frozen=True)
class Plan:
    """The contracts to write, with what was left out and why."""

    origin: str  # "preset monty" or "detected"
    root_packages: tuple[str, ...]
    runtime: tuple[str, ...]
    experiment: tuple[str, ...]
    event_bases: tuple[str, ...]
    words: tuple[str, ...]
    symbols: tuple[str, ...]
    left_out: tuple[str, ...] = ()  # preset modules missing from the project
    notes: tuple[str, ...] = ()
    census: bool = False  # see CENSUS_ID
    census_words: tuple[str, ...] = ()  # default: ``words``
    event_base_patterns: tuple[str, ...] = ()
    # Runtime-side modules only experiment code imports, and whether ``experiment``
    # includes them (``init --experiment-helpers``).
    helpers: tuple[str, ...] = ()
    helpers_are_experiment: bool = False
    neither: tuple[str, ...] = ()  # modules of the root packages on neither side (tests, __main__)

    @property
    def written_event_bases(self) -> tuple[str, ...]:
        """The patterns, and the bases found that no pattern names."""
        patterns = [_pattern(text) for text in self.event_base_patterns]
        found = [b for b in self.event_bases if not any(p.matches(*b.rsplit(".", 1)) for p in patterns)]
        return (*found, *self.event_base_patterns)


def _pattern(text: str) -> EventBasePattern:
    modules, _, classes = text.partition(":")
    return EventBasePattern(ModuleExpression(modules), classes, text)


def plan_preset(layout: Layout, preset: Preset, experiment_helpers: bool = False) -> Plan:
    if preset.root_package not in layout.root_packages:
        found = ", ".join(layout.root_packages)
        raise LayoutError(
            f"{layout.directory}: preset {preset.name} needs root package {preset.root_package}; found {found}"
        )
    experiment: list[str] = []
    left_out: list[str] = []
    for name in preset.experiment:
        existing = layout.expand(name)
        experiment += existing
        if not existing:
            left_out.append(name)
    if not experiment:
        raise LayoutError(
            f"{layout.directory}: preset {preset.name}: none of its experiment modules exists in {preset.root_package}"
        )
    helpers = experiment_only_modules(layout, experiment)
    if experiment_helpers:
        experiment += helpers
    runtime = runtime_partition(layout, experiment, (preset.root_package,))
    if not runtime:
        raise LayoutError(f"{layout.directory}: nothing but experiment code in {preset.root_package}")
    telemetry = [name for name in preset.telemetry if layout.exists(name)]
    return _with_vocabulary(
        Plan(
            origin=f"preset {preset.name}",
            root_packages=(preset.root_package,),
            runtime=tuple(runtime),
            experiment=tuple(sorted(experiment)),
            event_bases=tuple(event_bases(layout, telemetry)),
            words=preset.words,
            symbols=preset.symbols,
            left_out=tuple(left_out),
            census=preset.census,
            census_words=preset.census_words,
            event_base_patterns=preset.event_base_patterns,
            helpers=tuple(helpers),
            helpers_are_experiment=experiment_helpers,
            neither=tuple(neither_side(layout, (preset.root_package,))),
        ),
        telemetry,
    )


def plan_detected(layout: Layout, experiment_helpers: bool = False) -> Plan:
    """Experiment packages are the ones named experiment/experiments; the runtime is
    everything else below the root packages."""
    experiment = experiment_packages(layout)
    if not experiment:
        raise LayoutError(
            f"{layout.directory}: no experiment package (named experiment or experiments) in "
            f"{', '.join(layout.root_packages)}; pass --preset, or write the configuration yourself"
        )
    helpers = experiment_only_modules(layout, experiment)
    if experiment_helpers:
        experiment = sorted([*experiment, *helpers])
    runtime = runtime_partition(layout, experiment)
    if not runtime:
        raise LayoutError(f"{layout.directory}: nothing but experiment code in {', '.join(layout.root_packages)}")
    telemetry = sorted(
        {
            d
            for m in runtime
            for d in layout.descendants(m)
            if d.rsplit(".", 1)[-1] == "telemetry" and layout.is_package(d)
        }
    )
    return _with_vocabulary(
        Plan(
            origin="detected",
            root_packages=layout.root_packages,
            runtime=tuple(runtime),
            experiment=tuple(experiment),
            event_bases=tuple(event_bases(layout, telemetry)),
            words=DEFAULT_WORDS,
            symbols=DEFAULT_SYMBOLS,
            helpers=tuple(helpers),
            helpers_are_experiment=experiment_helpers,
            neither=tuple(neither_side(layout)),
        ),
        telemetry,
    )


def _with_vocabulary(plan: Plan, telemetry: list[str]) -> Plan:
    if plan.written_event_bases:
        return plan
    where = ", ".join(telemetry) if telemetry else "no telemetry package"
    note = (
        f"event vocabulary contract left out: no event base class (a Schema or Event class other "
        f"classes derive from) found in {where}; add one by hand when the runtime has events"
    )
    return Plan(**{**plan.__dict__, "notes": (*plan.notes, note)})


def contract_ids(plan: Plan) -> list[tuple[str, str]]:
    """``(type, id)`` of each contract ``render_importlinter`` writes."""
    contracts = [("boundary", BOUNDARY_ID)]
    if plan.written_event_bases:
        contracts.append(("vocabulary", VOCABULARY_ID))
    if plan.census:
        contracts.append(("vocabulary", CENSUS_ID))
    contracts.append(("placement", PLACEMENT_ID))
    return contracts


def render_importlinter(plan: Plan, command: str) -> str:
    sections = [
        f"# Written by `{command}` ({plan.origin}). Every domain-fence front end",
        "# (lint-imports, flake8, pytest, domain-fence check) reads these contracts.",
        "[importlinter]",
        _option("root_packages", plan.root_packages),
        "contract_types =",
        *(f"    {name}: {path}" for name, path in CONTRACT_TYPES.items()),
        "",
        "# The runtime is everything in the root packages but the experiment modules,",
        "# so a package added later is runtime without a change here.",
        f"[importlinter:contract:{BOUNDARY_ID}]",
        "name = Runtime code does not import experiment code",
        "type = boundary",
        _option("source_modules", plan.root_packages),
        _option("forbidden_modules", plan.experiment),
        *([_option("exclude_modules", plan.neither)] if plan.neither else []),
        f"baseline = {DEFAULT_PATH}",
        "",
    ]
    if plan.written_event_bases:
        sections += [
            f"[importlinter:contract:{VOCABULARY_ID}]",
            "name = Runtime events carry no experiment vocabulary",
            "type = vocabulary",
            _option("modules", plan.root_packages),
            _option("exclude_modules", (*plan.experiment, *plan.neither)),
            _option("event_bases", plan.written_event_bases),
            _option("words", plan.words),
            f"baseline = {DEFAULT_PATH}",
            "",
        ]
    if plan.census:
        sections += [
            f"[importlinter:contract:{CENSUS_ID}]",
            "name = Runtime attributes and parameters carry no experiment vocabulary",
            "type = vocabulary",
            _option("modules", plan.root_packages),
            _option("exclude_modules", (*plan.experiment, *plan.neither)),
            _option("scope", ("attributes", "parameters")),
            _option("words", plan.census_words or plan.words),
            f"baseline = {DEFAULT_PATH}",
            "",
        ]
    sections += [
        f"[importlinter:contract:{PLACEMENT_ID}]",
        "name = Experiment machinery is defined only under the experiment packages",
        "type = placement",
        _option("symbols", plan.symbols),
        _option("allowed_modules", plan.experiment),
        "# The symbols name machinery the project may not have yet (init_telemetry, ...):",
        "# a pattern that matches nothing today is not reported.",
        "unmatched_symbols_alerting = none",
        f"baseline = {DEFAULT_PATH}",
    ]
    return "\n".join(sections) + "\n"


def _option(key: str, values: Iterable[str]) -> str:
    # One value per line below the key: import-linter reads a single-line value as a string.
    return "\n".join([f"{key} =", *(f"    {value}" for value in values)])


FLAKE8_SECTION = """\
[flake8]
# domain-fence's flake8 plugin reports DOM codes from the contracts in .importlinter.
extend-select = DOM
"""

# For a project linted with ruff: flake8 then runs for the DOM codes only, so its own
# pycodestyle and pyflakes checks (at their defaults) do not contradict ruff's.
FLAKE8_DOM_ONLY_SECTION = """\
[flake8]
# This project lints with ruff; flake8 runs only domain-fence's plugin, whose DOM codes
# come from the contracts in .importlinter.
select = DOM
"""

# ruff cannot load flake8 plugins: in the editor, domain-fence's language server runs beside ruff's.
EDITOR_RECIPE = (
    "editor: run the language server beside ruff's (the lsp extra: pip install 'pygls>=2.1,<3' 'lsprotocol>=2025'); in Neovim:",
    "  vim.lsp.config('domain_fence', { cmd = { 'domain-fence', 'lsp' }, filetypes = { 'python' },",
    "    root_markers = { '.importlinter', 'setup.cfg', 'pyproject.toml' } })",
    "  vim.lsp.enable({ 'ruff', 'domain_fence' })",
    "  Helix, Emacs (eglot) and VS Code: see 'Editors' in domain-fence's README",
)
