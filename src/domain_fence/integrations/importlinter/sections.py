"""Where a contract is written in its configuration file."""

from __future__ import annotations

from pathlib import Path


def section_line(path: Path, contract_id: str, name: str) -> int:
    """The line of a contract's section (INI) or id/name (TOML) in the configuration."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return 1
    wanted = (f"[importlinter:contract:{contract_id}]", f'id = "{contract_id}"', f'name = "{name}"')
    for number, line in enumerate(lines, start=1):
        if line.strip() in wanted:
            return number
    return 1
