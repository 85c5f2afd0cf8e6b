#!/usr/bin/env python3
"""Regenerate the rule reference in README.md from the rule registry.

    python scripts/generate_rule_docs.py          # rewrite the section between the markers
    python scripts/generate_rule_docs.py --check  # exit 1 when the README is out of date

The section lies between ``<!-- rules:start -->`` and ``<!-- rules:end -->``;
``domain-fence explain CODE`` renders the same registry (src/domain_fence/core/model/rules.py).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from domain_fence.core.model.ruledocs import MarkersMissing, replace_reference, unknown_codes

README = Path(__file__).resolve().parents[1] / "README.md"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report whether README.md is up to date")
    parser.add_argument("--readme", type=Path, default=README, help="the file to update (default: README.md)")
    args = parser.parse_args(argv)
    current = args.readme.read_text(encoding="utf-8")
    try:
        generated = replace_reference(current)
    except MarkersMissing as error:
        print(f"{args.readme}: {error}", file=sys.stderr)
        return 2
    unknown = unknown_codes(generated)
    if unknown:
        print(f"{args.readme}: names codes that are not rules: {', '.join(unknown)}", file=sys.stderr)
        return 1
    if generated == current:
        return 0
    if args.check:
        print(f"{args.readme}: rule reference is out of date; run {Path(__file__).name}", file=sys.stderr)
        return 1
    args.readme.write_text(generated, encoding="utf-8")
    print(f"{args.readme}: rule reference regenerated")
    return 0


if __name__ == "__main__":
    sys.exit(main())
