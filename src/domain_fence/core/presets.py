"""The configuration ``domain-fence init`` writes: a plan of contracts made from a
project's layout, by the ``monty`` preset or by detection, rendered as an
import-linter file.

Modules a preset names that the project does not have are left out (and listed), so
the configuration written always validates against the project as it is.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .baseline import DEFAULT_PATH
from .layout import Layout, LayoutError, event_bases, experiment_packages, runtime_partition

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
    name: str
    root_package: str
    runtime: tuple[str, ...]  # module names; ``*`` matches within one segment
    experiment: tuple[str, ...]
    telemetry: tuple[str, ...]  # where the runtime's event base classes live
    words: tuple[str, ...]
    symbols: tuple[str, ...]
    census: bool = False  # write the attributes-and-parameters vocabulary contract


MONTY = Preset(
    name="monty",
    root_package="tbp.monty",
    runtime=(
        *(
            f"tbp.monty.frameworks.{name}"
            for name in ("models", "environments", "environment_utils", "actions", "agents", "sensors", "utils")
        ),
        "tbp.monty.simulators",
        *(
            f"tbp.monty.{name}"
            for name in (
                *("cmp", "context", "runtime", "geometry", "math", "memento", "path"),
                *("attention", "sensor_modules", "observations"),  # Monty 0.55's runtime outside frameworks
            )
        ),
        "tbp.monty.frameworks.telemetry",
        "tbp.monty.telemetry",
    ),
    experiment=(
        "tbp.monty.experiment",
        "tbp.monty.frameworks.experiments",
        "tbp.monty.frameworks.loggers",
        "tbp.monty.frameworks.run*",
        "tbp.monty.hydra",
    ),
    telemetry=("tbp.monty.frameworks.telemetry", "tbp.monty.telemetry"),
    words=(
        "episode",
        "epoch",
        "experiment",
        "mode",
        "primary target",
        "target",
        "ground truth",
        "label",
        "train",
        "eval",
        "post episode",
        "terminal state -> recognized state",
    ),
    symbols=("init_telemetry", "*PostEpisode*", "*ExperimentStats*"),
    census=True,
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


def plan_preset(layout: Layout, preset: Preset) -> Plan:
    if preset.root_package not in layout.root_packages:
        found = ", ".join(layout.root_packages)
        raise LayoutError(
            f"{layout.directory}: preset {preset.name} needs root package {preset.root_package}; found {found}"
        )
    runtime: list[str] = []
    experiment: list[str] = []
    left_out: list[str] = []
    for names, kept in ((preset.runtime, runtime), (preset.experiment, experiment)):
        for name in names:
            existing = layout.expand(name)
            kept += existing
            if not existing:
                left_out.append(name)
    if not runtime or not experiment:
        missing = "runtime" if not runtime else "experiment"
        raise LayoutError(
            f"{layout.directory}: preset {preset.name}: none of its {missing} modules exists in {preset.root_package}"
        )
    telemetry = [name for name in preset.telemetry if layout.exists(name)]
    return _with_vocabulary(
        Plan(
            origin=f"preset {preset.name}",
            root_packages=(preset.root_package,),
            runtime=tuple(sorted(runtime)),
            experiment=tuple(sorted(experiment)),
            event_bases=tuple(event_bases(layout, telemetry)),
            words=preset.words,
            symbols=preset.symbols,
            left_out=tuple(left_out),
            census=preset.census,
        ),
        telemetry,
    )


def plan_detected(layout: Layout) -> Plan:
    """Experiment packages are the ones named experiment/experiments; the runtime is
    everything else below the root packages."""
    experiment = experiment_packages(layout)
    if not experiment:
        raise LayoutError(
            f"{layout.directory}: no experiment package (named experiment or experiments) in "
            f"{', '.join(layout.root_packages)}; pass --preset, or write the configuration yourself"
        )
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
        ),
        telemetry,
    )


def _with_vocabulary(plan: Plan, telemetry: list[str]) -> Plan:
    if plan.event_bases:
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
    if plan.event_bases:
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
        f"[importlinter:contract:{BOUNDARY_ID}]",
        "name = Runtime code does not import experiment code",
        "type = boundary",
        _option("source_modules", plan.runtime),
        _option("forbidden_modules", plan.experiment),
        f"baseline = {DEFAULT_PATH}",
        "",
    ]
    if plan.event_bases:
        sections += [
            f"[importlinter:contract:{VOCABULARY_ID}]",
            "name = Runtime events carry no experiment vocabulary",
            "type = vocabulary",
            _option("modules", plan.runtime),
            _option("event_bases", plan.event_bases),
            _option("words", plan.words),
            f"baseline = {DEFAULT_PATH}",
            "",
        ]
    if plan.census:
        sections += [
            f"[importlinter:contract:{CENSUS_ID}]",
            "name = Runtime attributes and parameters carry no experiment vocabulary",
            "type = vocabulary",
            _option("modules", plan.runtime),
            _option("scope", ("attributes", "parameters")),
            _option("words", plan.words),
            f"baseline = {DEFAULT_PATH}",
            "",
        ]
    sections += [
        f"[importlinter:contract:{PLACEMENT_ID}]",
        "name = Experiment machinery is defined only under the experiment packages",
        "type = placement",
        _option("symbols", plan.symbols),
        _option("allowed_modules", plan.experiment),
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
