"""Each tool's configuration file, written from one :class:`RuleSpec`.

Files in a corpus root:

- ``.importlinter``: domain-fence's boundary, vocabulary and placement contracts (read
  by ``domain-fence check`` and by the flake8 plugin);
- ``forbidden.ini``: the same boundary as import-linter's own ``forbidden`` contract;
- ``vocabulary.ini``: the vocabulary contract alone, for profiling it under lint-imports;
- ``tach.toml``, ``ruff.toml``, ``test_boundary_archon.py``: the boundary for tach, ruff
  (TID251 banned-api) and pytest-archon;
- ``.flake8`` and ``pytest.ini``: empty sections, so neither tool reads a configuration
  from a parent directory.
"""

from __future__ import annotations

from .corpora import Corpus
from .spec import RuleSpec

CONTRACT_TYPES = {
    "boundary": "domain_fence.integrations.importlinter.BoundaryContract",
    "vocabulary": "domain_fence.integrations.importlinter.VocabularyContract",
    "placement": "domain_fence.integrations.importlinter.PlacementContract",
}


def write_all(corpus: Corpus, families: tuple[str, ...]) -> None:
    spec, root = corpus.spec, corpus.root
    (root / ".importlinter").write_text(domain_fence_config(spec, families))
    (root / "forbidden.ini").write_text(forbidden_config(spec))
    if "vocabulary" in families:
        (root / "vocabulary.ini").write_text(domain_fence_config(spec, ("vocabulary",)))
    (root / "tach.toml").write_text(tach_config(spec))
    (root / "ruff.toml").write_text(ruff_config(spec))
    (root / "test_boundary_archon.py").write_text(archon_test(spec))
    (root / ".flake8").write_text("# The benchmark passes its options on the command line.\n[flake8]\n")
    (root / "pytest.ini").write_text("# Keeps pytest from reading a parent directory's configuration.\n[pytest]\n")


def _lines(key: str, values: tuple[str, ...]) -> str:
    return f"{key} =\n" + "".join(f"    {v}\n" for v in values)


def _session(spec: RuleSpec, families: tuple[str, ...] = ()) -> str:
    text = "[importlinter]\n" + _lines("root_packages", spec.root_packages)
    if families:
        text += _lines("contract_types", tuple(f"{f}: {CONTRACT_TYPES[f]}" for f in families))
    return text


def domain_fence_config(spec: RuleSpec, families: tuple[str, ...]) -> str:
    sections = [_session(spec, families)]
    if "boundary" in families:
        sections.append(
            "[importlinter:contract:orm-knows-no-web]\n"
            f"name = {spec.boundary_name}\ntype = boundary\n"
            + _lines("source_modules", spec.sources)
            + _lines("forbidden_modules", spec.forbidden)
        )
    if "vocabulary" in families:
        sections.append(
            "[importlinter:contract:fields-speak-orm]\n"
            f"name = {spec.vocabulary_name}\ntype = vocabulary\n"
            + _lines("modules", spec.vocabulary_modules)
            + _lines("event_bases", spec.event_bases)
            + _lines("words", spec.words)
        )
    if "placement" in families:
        sections.append(
            "[importlinter:contract:web-symbols-in-web-layers]\n"
            f"name = {spec.placement_name}\ntype = placement\n"
            + _lines("symbols", spec.placement_symbols)
            + _lines("allowed_modules", spec.placement_allowed)
        )
    return "\n".join(sections)


def forbidden_config(spec: RuleSpec) -> str:
    return "\n".join(
        [
            _session(spec),
            "[importlinter:contract:orm-knows-no-web]\n"
            f"name = {spec.boundary_name}\ntype = forbidden\n"
            + _lines("source_modules", spec.sources)
            + _lines("forbidden_modules", spec.forbidden),
        ]
    )


def tach_config(spec: RuleSpec) -> str:
    """Every rule package a tach module; sources may not depend on the forbidden ones.
    Code outside the declared modules belongs to tach's root module, which is ignored."""
    modules = []
    for source in spec.sources:
        banned = ", ".join(f'"{f}"' for f in spec.forbidden)
        modules.append(f'[[modules]]\npath = "{source}"\ncannot_depend_on = [{banned}]\n')
    for forbidden in spec.forbidden:
        modules.append(f'[[modules]]\npath = "{forbidden}"\n')
    return (
        'source_roots = ["src"]\nroot_module = "ignore"\nexact = false\n'
        "forbid_circular_dependencies = false\n\n" + "\n".join(modules)
    )


def ruff_config(spec: RuleSpec) -> str:
    """TID251 bans the forbidden modules everywhere; a negated per-file-ignores pattern
    lifts the ban outside the source package (ruff has no notion of importer modules)."""
    (source,) = spec.sources  # one negated pattern per source would cancel each other
    banned = "".join(f'"{f}".msg = "{spec.boundary_name}"\n' for f in spec.forbidden)
    return (
        '[lint]\nselect = ["TID251"]\n\n'
        "[lint.flake8-tidy-imports.banned-api]\n" + banned + "\n"
        f'[lint.per-file-ignores]\n"!src/{source.replace(".", "/")}/**" = ["TID251"]\n'
    )


def archon_test(spec: RuleSpec) -> str:
    def patterns(modules: tuple[str, ...]) -> str:
        return ", ".join(f'"{m}", "{m}.*"' for m in modules)

    (package,) = spec.root_packages  # check() ends the chain
    return (
        '"""The boundary, as a pytest-archon rule (transitive imports, its default)."""\n\n'
        "from pytest_archon import archrule\n\n\n"
        "def test_boundary():\n"
        "    (\n"
        f'        archrule("{spec.boundary_name}")\n'
        f"        .match({patterns(spec.sources)})\n"
        f"        .should_not_import({patterns(spec.forbidden)})\n" + f'        .check("{package}")\n' + "    )\n"
    )
