"""The settings a check ran with, recorded beside its report in the run cache.

A check whose configuration is byte for byte the one the last run read (and whose
tools are the same: see :func:`.runcache.setup_digest`), but whose sources changed,
starts from the recorded settings instead of reading the configuration through
import-linter again: importing import-linter, and the contract types it hosts, is
about a quarter of a check that re-reads one edited file. Each contract's options are
recorded as written and parsed again by its family, exactly as when the
configuration is read, so the engine gets equal settings either way; a record that
would not read back equal is not made.

Only configurations made of domain-fence contracts are recorded: import-linter's own
contract types are checked by import-linter.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, NamedTuple

from domain_fence.core.engine.engine import ContractSpec, Settings

RECORD_VERSION = 2


class Recorded(NamedTuple):
    settings: Settings
    graph_from_bytes: bool  # what the graph builder answered (see Engine's ``graph_from_bytes``)


def settings_record(settings: Settings, graph_from_bytes: bool) -> dict[str, Any] | None:
    """The settings as JSON-able data; None when they would not read back equal."""
    record = {
        "version": RECORD_VERSION,
        "config_path": str(settings.config_path),
        "root_packages": list(settings.root_packages),
        "session": dict(settings.session),
        "known_contracts": None if settings.known_contracts is None else list(settings.known_contracts),
        "graph_from_bytes": graph_from_bytes,
        "contracts": [
            {
                "family": spec.family.name,
                "id": spec.id,
                "name": spec.name,
                "type": spec.type,
                "options": dict(spec.options),
                "section": spec.section,
                "section_line": spec.section_line,
                "guidance": spec.guidance,
            }
            for spec in settings.contracts
        ],
    }
    try:
        plain: dict[str, Any] = json.loads(json.dumps(record))
    except (TypeError, ValueError):  # an option JSON cannot hold
        return None
    read_back = settings_from_record(plain, settings.cache_dir)
    if read_back is None or read_back.settings != settings:
        return None  # a tuple become a list, say: the engine would not see the same settings
    return plain


def settings_from_record(record: object, cache_dir: Path | None) -> Recorded | None:
    """The settings ``record`` holds, each contract's options parsed by its family; None
    when the record is not one this version made, or a family refuses its options."""
    from domain_fence.core.families import family_named

    try:
        if not isinstance(record, dict) or record["version"] != RECORD_VERSION:
            return None
        config_path = Path(record["config_path"])
        specs = []
        for contract in record["contracts"]:
            family = family_named(contract["family"])
            options = contract["options"]
            if not isinstance(options, dict):
                return None
            config = family.parse(contract["id"], contract["name"], options, config_path.parent)
            specs.append(
                ContractSpec(
                    id=str(contract["id"]),
                    name=str(contract["name"]),
                    type=str(contract["type"]),
                    family=family,
                    config=config,
                    section=str(contract["section"]),
                    section_line=int(contract["section_line"]),
                    guidance=str(contract["guidance"]),
                    options=options,
                )
            )
        known = record["known_contracts"]
        settings = Settings(
            config_path=config_path,
            root_packages=tuple(str(package) for package in record["root_packages"]),
            contracts=tuple(specs),
            session=dict(record["session"]),
            cache_dir=cache_dir,
            known_contracts=None if known is None else tuple(str(contract) for contract in known),
        )
        return Recorded(settings, bool(record["graph_from_bytes"]))
    except Exception:  # noqa: BLE001 -- a record from another version, or planted: read the configuration
        return None
