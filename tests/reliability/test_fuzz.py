"""Property tests: generated programs and mutated fixture files, through the core, the
flake8 plugin, the contracts and the CLI. Nothing raises, each example finishes within
a deadline, every finding is well formed, and a file that cannot be analysed is never
a silent pass.

The default run is short (a few hundred examples in all). For a long run:

    DOMAIN_FENCE_FUZZ_EXAMPLES=10000 pytest tests/reliability/test_fuzz.py

sets the examples of each test (the deadline stays).
"""

from __future__ import annotations

import ast
import contextlib
import itertools
import json
import os
import re
import sys
import tempfile
import warnings
from datetime import timedelta
from pathlib import Path

import grimp
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from importlinter.domain.contract import InvalidContractOptions
from reliability_support import REPO, project

from domain_fence.core.families.config import parse_placement, parse_vocabulary
from domain_fence.core.families.placement.definitions import check_placement
from domain_fence.core.families.vocabulary.events import all_vocabulary_findings
from domain_fence.core.index.blockers import source_blockers
from domain_fence.core.index.project import ProjectIndex
from domain_fence.core.model.rules import RULES
from domain_fence.core.source.facts import extract
from domain_fence.core.source.reading import Unreadable, decode, load_tree, parse_source
from domain_fence.integrations import flake8 as flake8_plugin
from domain_fence.integrations.cli import main
from domain_fence.integrations.importlinter import BoundaryContract, PlacementContract, VocabularyContract
from domain_fence.integrations.importlinter.base import UnusableBaseline, project_root
from domain_fence.integrations.importlinter.configuration import ConfigurationError, load_configuration
from domain_fence.integrations.importlinter.results import check_configuration, render_broken_contract
from domain_fence.integrations.reporters import FORMATS, render

# hypothesmith compiles what it generates ("<string>"): its warnings are not ours.
pytestmark = pytest.mark.filterwarnings("ignore::SyntaxWarning")

LONG_RUN = int(os.environ.get("DOMAIN_FENCE_FUZZ_EXAMPLES", "0"))


def examples(default: int) -> int:
    return LONG_RUN or default


settings.register_profile(
    "domain-fence-fuzz",
    deadline=timedelta(seconds=20),  # bounded time per example, generous for a shared CI machine
    database=None,  # nothing written into the repository
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.filter_too_much,
        HealthCheck.function_scoped_fixture,  # conftest's sys.path restore: harmless to share
    ],
)
FUZZ = settings.get_profile("domain-fence-fuzz")

FIXTURE_FILES = sorted(
    path
    for path in (REPO / "tests" / "fixtures").rglob("*.py")
    if "__pycache__" not in path.parts and path.stat().st_size < 200_000
)
SCOPE = "events\n    attributes\n    parameters\n    definitions"
_unique = itertools.count()


# -- strategies ---------------------------------------------------------------------------


def _mutate(data: bytes, choice: int, position: float, payload: bytes) -> bytes:
    at = int(position * len(data))
    lines = data.splitlines(keepends=True) or [b""]
    line = int(position * len(lines)) % len(lines)
    operations = [
        lambda: data[:at] + payload + data[at:],  # insert
        lambda: data[:at] + data[at + len(payload) :],  # delete
        lambda: data[:at] + payload + data[at + len(payload) :],  # overwrite
        lambda: data[:at],  # truncate: half-written code
        lambda: b"".join(lines[:line] + [lines[line]] * 3 + lines[line + 1 :]),  # repeat a line
        lambda: b"".join(lines[:line] + lines[line + 1 :] + lines[line : line + 1]),  # move a line
        lambda: data.replace(b"\n", b"\r\n"),
        lambda: b"\xef\xbb\xbf" + data,
        lambda: b"# -*- coding: latin-1 -*-\n" + data,
        lambda: data[:at] + b"(" * 300 + data[at:],  # nesting
        lambda: data.replace(b"    ", b"\t", 1),
    ]
    return operations[choice % len(operations)]()


@st.composite
def mutated_fixture(draw) -> bytes:
    data = draw(st.sampled_from(FIXTURE_FILES)).read_bytes()
    for _ in range(draw(st.integers(1, 4))):
        data = _mutate(
            data,
            draw(st.integers(0, 100)),
            draw(st.floats(0, 1, allow_nan=False)),
            draw(
                st.one_of(
                    st.binary(max_size=12),
                    st.sampled_from(
                        [b"\xff", b"\0", b"class ", b"\\", b'"""', b":", b"import .", b"from . import *\n"]
                    ),
                )
            ),
        )
    return data


# hypothesmith's strategies are built when first drawn from (st.deferred), not at
# import: importing it and compiling its grammar cost seconds of every collection.


def generated_program() -> st.SearchStrategy[str]:
    import hypothesmith

    # hypothesmith warns about its own grammar constructs; they are not ours to fix.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return hypothesmith.from_grammar()


def generated_module() -> st.SearchStrategy[str]:
    import hypothesmith

    return hypothesmith.from_node()


# -- checks of one module -------------------------------------------------------------------


CONFIG_EXTRA = f"""
[importlinter:contract:scope]
name = Runtime declarations speak runtime
type = vocabulary
modules =
    app.runtime
event_bases =
    app.runtime.events.Event
words =
    episode
    step
    x
scope =
    {SCOPE}
"""


def fuzz_project(files: dict[str, bytes | str]) -> Path:
    """A new project directory per example: caches are keyed by path and mtime."""
    base = Path(tempfile.mkdtemp(prefix=f"fuzz{next(_unique)}-", dir=_FUZZ_DIR))
    root = project(base, files)
    with open(root / ".importlinter", "a", encoding="utf-8") as config:
        config.write(CONFIG_EXTRA)
    return root


_FUZZ_DIR: str | None = None


@pytest.fixture(autouse=True, scope="module")
def fuzz_directory(tmp_path_factory):
    global _FUZZ_DIR
    _FUZZ_DIR = str(tmp_path_factory.mktemp("fuzz"))
    yield
    _FUZZ_DIR = None


def assert_well_formed(findings) -> None:
    for finding in findings:
        assert finding.code in RULES, finding
        assert finding.line >= 1 and finding.col >= 0, finding
        assert "\n" not in finding.message and finding.message.isprintable(), finding
        assert not finding.path.startswith("/"), finding


def check_core(root: Path, module: str) -> None:
    """Every core analysis of ``module``: no exception, well-formed findings, and a
    module that cannot be read is reported, never skipped."""
    index = ProjectIndex.build(root, ["app"])
    tree = load_tree(index.modules[module])  # the index keeps facts, not trees
    extract(module, False, tree)  # never raises
    vocabulary = parse_vocabulary(
        "v",
        "v",
        {
            "modules": "app",
            "event_bases": "app.runtime.events.Event",
            "words": ["episode", "step x"],
            "scope": SCOPE.split(),
        },
        root,
    )
    placement = parse_placement("p", "p", {"symbols": ["*", "init_*"], "allowed_modules": "app.experiment"}, root)
    vocabulary_findings = all_vocabulary_findings(vocabulary, index)
    placement_result = check_placement(placement, index)
    assert_well_formed([*vocabulary_findings, *placement_result.findings])
    blockers = source_blockers(index)
    if isinstance(tree, Unreadable):
        unreadable = {f.fingerprint for f in vocabulary_findings if f.code == "DOM001"}
        assert f"DOM001:{module}" in unreadable
        assert any(b.symbol == module for b in blockers)


def check_flake8_plugin(root: Path, path: Path) -> None:
    flake8_plugin.DomainFenceChecker.config = str(root / ".importlinter")
    try:
        results = list(flake8_plugin.DomainFenceChecker(None, str(path)).run())
    finally:
        flake8_plugin.DomainFenceChecker.config = None
    for line, col, message, _ in results:
        assert line >= 1 and col >= 0 and message.startswith("DOM") and "\n" not in message


def check_contracts_and_reports(root: Path, path: Path) -> None:
    saved = list(sys.path)
    try:
        try:
            report = check_configuration(load_configuration(root / ".importlinter"))
        except ConfigurationError as error:
            # An edit can leave the configuration naming what is gone (the event base
            # class): a configuration problem, exit 2, one line each, like every front end.
            report, problems = None, str(error).splitlines()
        with contextlib.chdir(root):
            result = CliRunner().invoke(main, ["check", "--quiet"], catch_exceptions=False)
    finally:
        assert sys.path == saved  # the project's directories never stay on the path
    if report is None:
        assert all("event_bases:" in problem for problem in problems), problems
        assert result.exit_code == 2 and result.stderr.splitlines() == [f"domain-fence: error: {p}" for p in problems]
        return
    assert_well_formed(report.failing)
    rendered = {format_: render(report, format_) for format_ in FORMATS}
    for structured in ("json", "sarif"):
        json.loads(rendered[structured])  # raises when malformed
    assert report.summary_line() in rendered["text"]
    for finding in report.failing:  # each format shows every failing finding
        assert [f for f, text in rendered.items() if finding.path not in text] == [], finding
    relative = path.relative_to(root).as_posix()
    if relative.startswith("app/runtime/") and isinstance(load_tree(path), Unreadable):
        # The vocabulary contracts read every runtime module: never a silent pass.
        assert not report.kept
        assert any(f.code == "DOM001" and f.path == relative for f in report.failing)
    assert result.exit_code == (0 if report.kept else 1), result.stderr
    assert result.stderr == ""


# -- the properties ---------------------------------------------------------------------------


@settings(FUZZ, max_examples=examples(60))
@given(source=st.deferred(generated_program))
def test_generated_programs_through_the_core(source):
    root = fuzz_project({"app/runtime/generated.py": source})
    check_core(root, "app.runtime.generated")


@settings(FUZZ, max_examples=examples(15))
@given(source=st.deferred(generated_module))
def test_generated_modules_through_the_flake8_plugin_and_the_cli(source):
    root = fuzz_project({"app/runtime/generated.py": source})
    check_flake8_plugin(root, root / "app/runtime/generated.py")
    check_contracts_and_reports(root, root / "app/runtime/generated.py")


@settings(FUZZ, max_examples=examples(80))
@given(data=mutated_fixture())
def test_mutated_fixture_files_through_the_core_and_the_flake8_plugin(data):
    root = fuzz_project({"app/runtime/mutated.py": data})
    check_core(root, "app.runtime.mutated")
    check_flake8_plugin(root, root / "app/runtime/mutated.py")


@settings(FUZZ, max_examples=examples(30))
@given(
    data=mutated_fixture(),
    where=st.sampled_from(["app/runtime/mutated.py", "app/runtime/events.py", "app/experiment/setup.py"]),
)
def test_mutated_files_through_the_contracts_and_the_cli(data, where):
    root = fuzz_project({where: data})
    check_contracts_and_reports(root, root / where)


@settings(FUZZ, max_examples=examples(60))
@given(data=st.binary(max_size=400))
def test_arbitrary_bytes_decode_and_parse_without_raising(data):
    text = decode(data)
    if not isinstance(text, Unreadable):
        tree = parse_source(text)
        try:  # the same verdict as Python's own parser
            compile(text, "<bytes>", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            assert isinstance(tree, Unreadable) and "\n" not in tree.reason and tree.line >= 1
        else:
            assert isinstance(tree, ast.Module)
    else:
        assert "\n" not in text.reason and text.line >= 1


OPTION_TEXT = st.one_of(
    st.text(max_size=30),
    st.sampled_from(["app", "app.runtime", "app.**", "*", "app.*.x", "a -> b", "episode -> ", "->", "", " ", "app..x"]),
)
OPTION_VALUE = st.one_of(OPTION_TEXT, st.lists(OPTION_TEXT, max_size=4))


@settings(FUZZ, max_examples=examples(60))
@given(
    kind=st.sampled_from([VocabularyContract, PlacementContract, BoundaryContract]),
    options=st.dictionaries(
        st.sampled_from(
            [
                "modules",
                "event_bases",
                "words",
                "allow",
                "scope",
                "symbols",
                "allowed_modules",
                "kinds",
                "require_match",
                "source_modules",
                "forbidden_modules",
                "ignore_imports",
                "baseline",
                "unmatched_baseline_alerting",
            ]
        ),
        OPTION_VALUE,
        max_size=6,
    ),
)
def test_contracts_with_arbitrary_options_are_refused_or_checked(kind, options):
    """Construction refuses bad options (InvalidContractOptions, as import-linter
    expects); a contract that is constructed checks an in-memory graph without raising
    anything but import-linter's ValueError for a module that does not exist."""
    graph = grimp.ImportGraph()
    for module in ("app", "app.runtime", "app.runtime.events", "app.experiment", "app.experiment.setup"):
        graph.add_module(module)
    graph.add_import(
        importer="app.runtime.events", imported="app.experiment.setup", line_number=1, line_contents="import x"
    )
    token = project_root.set(Path(_FUZZ_DIR))
    try:
        try:
            contract = kind(
                name="fuzzed",
                session_options={"root_packages": ["app"]},
                contract_options={"type": kind.type_name, **options},
            )
        except InvalidContractOptions as error:
            assert error.errors and all(isinstance(message, str) for message in error.errors.values())
            return
        try:
            check = contract.check(graph, verbose=False)
        except ValueError as error:  # "Module 'x' does not exist.", an unusable baseline
            assert isinstance(error, UnusableBaseline) or re.fullmatch(r"Module '[^']+' does not exist\.", str(error))
            return
        findings = check.metadata.get("findings", [])
        assert all(f["code"] in RULES and f["contract"] == contract.contract_id for f in findings)
        if check.kept:
            assert not findings
        else:  # a broken contract says why
            text = render_broken_contract(contract, check)
            assert text.strip() and not text.startswith("(could not render"), text
    finally:
        project_root.reset(token)
