"""The ``domain-fence`` command.

Exit statuses: 0 clean, 1 findings, 2 configuration or usage error.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from copy import deepcopy
from pathlib import Path

import click

from domain_fence.core.baseline import BaselineEntry, BaselineError, load_baseline, write_baseline
from domain_fence.integrations.importlinter.configuration import ConfigurationError, load_configuration
from domain_fence.integrations.importlinter.graph import build_graph

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2

config_option = click.option(
    "--config",
    "config_path",
    type=click.Path(dir_okay=True, path_type=Path),
    default=None,
    help="import-linter configuration file, or the directory holding it (default: the current directory).",
)


class UsageFailure(click.ClickException):
    """A one-line error with exit status 2."""

    exit_code = EXIT_ERROR

    def show(self, file=None) -> None:
        click.echo(f"domain-fence: error: {self.message}", err=True)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="domain-fence")
def main() -> None:
    """Keep a codebase's runtime free of experiment concerns."""


@main.command()
@config_option
@click.option("--prune", is_flag=True, help="Only remove stale entries; record nothing new.")
def baseline(config_path: Path | None, prune: bool) -> None:
    """Record the current violations of every domain-fence contract in its baseline."""
    try:
        configuration = load_configuration(config_path)
        contracts = configuration.fence_contracts()
        graph = build_graph(configuration) if any(c.family == "boundary" for c in contracts) else None
        current: dict[Path, dict[str, list[BaselineEntry]]] = defaultdict(dict)
        for contract in contracts:
            entries = contract.violations(deepcopy(graph) if graph is not None else None)
            current[contract.config.baseline.path][contract.contract_id] = entries
        for path, by_contract in sorted(current.items()):
            _update_baseline(path, by_contract, prune, configuration.root)
    except (ConfigurationError, BaselineError) as error:
        raise UsageFailure(str(error)) from None


def _update_baseline(path: Path, by_contract: dict[str, list[BaselineEntry]], prune: bool, root: Path) -> None:
    recorded = load_baseline(path)
    updated = recorded
    before = set(recorded.entries)
    for contract, entries in by_contract.items():
        old = {e for e in recorded.entries if e.contract == contract}
        if prune:
            keep = {e.fingerprint for e in entries}
            entries = [e for e in old if e.fingerprint in keep]
        updated = updated.replace_contract(contract, entries)
    after = set(updated.entries)
    changed = write_baseline(updated)
    fingerprints_before = {(e.contract, e.fingerprint) for e in before}
    fingerprints_after = {(e.contract, e.fingerprint) for e in after}
    added = len(fingerprints_after - fingerprints_before)
    pruned = len(fingerprints_before - fingerprints_after)
    kept = len(fingerprints_after & fingerprints_before)
    shown = path.relative_to(root) if path.is_relative_to(root) else path
    status = "written" if changed else "unchanged"
    click.echo(f"{shown}: {len(after)} recorded ({added} added, {pruned} pruned, {kept} still present); {status}")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
