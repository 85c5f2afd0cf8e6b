"""Hostile input: every bad file, option, baseline, cache or tree gives a one-line
message and a distinct exit status, never a traceback and never a silent pass.

Most cases run ``domain-fence`` in this process (cheap); those that depend on the
process itself (a native crash, a race, a read-only directory) run subprocesses.
Exit statuses: 0 clean, 1 findings, 2 configuration or usage error.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import pickle
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from reliability_support import BIN, Result, cli, edit_config, flake8, lint_imports, project, run
from support import NEWER_SYNTAX, NEWER_SYNTAX_ERROR, NEWER_SYNTAX_LINE, PARSES_NEWER_SYNTAX, flake8_stdin

from domain_fence.core.engine import runcache

NOT_RUN = "      contract not run: the import graph cannot be built until this is fixed"
CONFIG = ".importlinter"


def dom001(path: str, line: int, reason: str) -> str:
    return f"{path}:{line}:1: DOM001 skipped: {reason}"


def assert_one_line_error(result: Result, message: str) -> None:
    assert (result.status, result.stdout) == (2, ""), result
    assert result.stderr == f"domain-fence: error: {message}\n"


# -- source files -------------------------------------------------------------------


def test_syntax_error_is_reported_and_the_rest_of_the_project_still_checked(tmp_path):
    root = project(
        tmp_path,
        {
            "app/runtime/broken.py": "from app.experiment import setup\n\n\ndef broken(:\n",
            "app/runtime/stats.py": "from app.runtime.events import Event\n\n\nclass Stats(Event):\n    episode: int\n",
            "app/runtime/hooks.py": "def init_telemetry():\n    pass\n",
        },
    )
    broken = dom001("app/runtime/broken.py", 4, "syntax error at line 4: invalid syntax")
    result = cli("check", cwd=root)
    assert result.status == 1 and result.stderr == ""
    # Contracts needing the import graph cannot run; they name the file, and say so.
    assert result.lines[:3] == [
        "Runtime does not import experiment [boundary: boundary] BROKEN",
        "  " + broken,
        NOT_RUN,
    ]
    assert result.lines[-5:] == [
        "Experiment sits above the runtime [layers: layers] BROKEN",
        "  " + broken,
        NOT_RUN,
        "",
        "4 contracts: 0 kept, 4 broken; 5 findings, 0 stale baseline entries, 0 baselined",
    ]
    # Those reading sources run over the rest.
    # (--quiet: each distinct line once, as flake8 shows it, though three contracts report it)
    assert cli("check", "--quiet", cwd=root).lines == [
        broken,
        "app/runtime/hooks.py:1:1: DOM201 function init_telemetry is defined outside app.experiment; move it there",
        "app/runtime/stats.py:5:5: DOM101 event field 'episode': experiment vocabulary 'episode'",
    ]

    # flake8 reports the file itself (E999) and runs the plugin on every other file.
    assert flake8("app", cwd=root) == Result(
        1,
        "app/runtime/broken.py:4:13: E999 SyntaxError: invalid syntax\n"
        "app/runtime/hooks.py:1:1: DOM201 function init_telemetry is defined outside app.experiment; move it there\n"
        "app/runtime/stats.py:5:5: DOM101 event field 'episode': experiment vocabulary 'episode'\n",
        "",
    )
    # pytest --domain-fence: the graph's contracts fail naming the file; the others run.
    tested = run("pytest", "--domain-fence", "-p", "no:cacheprovider", "-q", "-rf", cwd=root)
    assert tested.status == 1
    graph_problem = f"{root / CONFIG}: cannot build the import graph: app/runtime/broken.py:4: syntax error at line 4: invalid syntax"
    assert tested.lines.count(graph_problem) == 1  # layers; the boundary reports the file as check does
    assert broken in tested.lines and "4 failed in" in tested.stdout
    # lint-imports (grimp) stops at the file: broken, never kept.
    linted = lint_imports(cwd=root)
    unwrapped = "".join(linted.stdout.splitlines())  # rich wraps at 80 columns
    assert linted.status == 1 and f"Syntax error in {root / 'app/runtime/broken.py'}, line 4" in unwrapped


def test_flake8_not_given_the_file_that_does_not_parse_shows_it_at_the_files_it_checks(tmp_path):
    # pre-commit hands flake8 the changed files, an editor pipes one through stdin: the
    # boundary cannot run, and a new violation beside would pass in silence.
    changed = "app/runtime/new.py"
    root = project(tmp_path, {"app/runtime/broken.py": "def broken(:\n", changed: "from app.experiment import setup\n"})
    blocked = dom001(changed, 1, "app/runtime/broken.py: syntax error at line 1: invalid syntax")
    assert run("flake8", "--select", "DOM,E9", changed, cwd=root) == Result(1, f"{blocked}\n", "")
    piped = flake8_stdin(root, changed, (root / changed).read_text(encoding="utf-8"))
    assert (piped.returncode, piped.stdout, piped.stderr) == (1, f"{blocked}\n", "")
    # Given it too, flake8 shows its own E999 there (it runs no plugin on the file).
    both = run("flake8", "--select", "DOM,E9", changed, "app/runtime/broken.py", cwd=root)
    assert both == Result(1, "app/runtime/broken.py:1:13: E999 SyntaxError: invalid syntax\n", "")


@pytest.mark.parametrize(
    "paths, exclude, shown_at",
    [
        (["app/runtime/new.py", "app/runtime/broken.py"], "broken.py", "app/runtime/new.py"),
        (["app"], "broken.py", "app/runtime/__init__.py"),
        (["app"], "app/runtime", "app/__init__.py"),
        (["."], "runtime", "./app/__init__.py"),  # flake8 prints the path as it walked it
    ],
    ids=["the file named and excluded", "the file excluded", "its directory excluded", "by its name"],
)
def test_flake8_excluding_the_file_that_does_not_parse_shows_it_at_the_files_it_checks(
    tmp_path, paths, exclude, shown_at
):
    # flake8 checks no file its exclude patterns match, named or found: the plugin must
    # not count on it to show what it holds.
    root = project(tmp_path, {"app/runtime/broken.py": "def broken(:\n", "app/runtime/new.py": "VALUE = 1\n"})
    blocked = dom001(shown_at, 1, "app/runtime/broken.py: syntax error at line 1: invalid syntax")
    assert run("flake8", "--select", "DOM,E9", "--extend-exclude", exclude, *paths, cwd=root) == Result(
        1, f"{blocked}\n", ""
    )


@pytest.mark.parametrize(
    "paths", [["app", "app/runtime/deep"], ["app/runtime/deep", "app"]], ids=["outer first", "inner first"]
)
def test_flake8_given_a_directory_inside_an_excluded_one_checks_it_whatever_the_order(tmp_path, paths):
    # flake8 walks each path given: the inner one is walked though the outer walk skips it.
    deep = {"app/runtime/deep/__init__.py": "", "app/runtime/deep/broken.py": "def broken(:\n"}
    root = project(tmp_path, deep)
    checked = run("flake8", "--select", "DOM,E9", "--extend-exclude", "runtime", *paths, cwd=root)
    assert checked == Result(1, "app/runtime/deep/broken.py:1:13: E999 SyntaxError: invalid syntax\n", "")


def test_a_baseline_cannot_be_recorded_while_a_file_does_not_parse(tmp_path):
    root = project(tmp_path, {"app/runtime/broken.py": "def broken(:\n"})
    assert_one_line_error(
        cli("baseline", cwd=root),
        f"{root / CONFIG}: cannot build the import graph: app/runtime/broken.py:1: syntax error at line 1: invalid syntax",
    )
    assert not (root / ".domain-fence-baseline.json").exists()


@pytest.mark.skipif(PARSES_NEWER_SYNTAX, reason="this Python parses every syntax grimp's parser reads")
def test_a_file_that_cannot_be_parsed_is_never_accepted_by_the_baseline(tmp_path):
    # Python cannot parse it while grimp can: only the source-reading contracts see it.
    root = project(tmp_path, {"app/runtime/generic.py": NEWER_SYNTAX})
    reason = f"syntax error at line {NEWER_SYNTAX_LINE}: {NEWER_SYNTAX_ERROR}"
    recorded = cli("baseline", cwd=root)
    assert recorded.status == 0
    assert (
        recorded.lines[-1]
        == f"not recorded, fix it (no baseline accepts DOM001): app.runtime.generic: skipped: {reason}"
    )
    assert cli("check", "--quiet", cwd=root) == Result(
        1, dom001("app/runtime/generic.py", NEWER_SYNTAX_LINE, reason) + "\n", ""
    )
    # Nor does an entry written by hand.
    baseline = root / ".domain-fence-baseline.json"
    document = json.loads(baseline.read_text(encoding="utf-8"))
    document["entries"].append({"contract": "vocabulary", "fingerprint": "DOM001:app.runtime.generic"})
    baseline.write_text(json.dumps(document), encoding="utf-8")
    assert cli("check", "--quiet", cwd=root).status == 1


@pytest.mark.parametrize(
    "content, reason, line, contracts, flake8_line",
    [
        # placement parses every non-ASCII file (its identifiers may be normalised).
        (
            b"x = 1\ny = 2\nNAME = 'caf\xe9'\n",
            "cannot decode as utf-8: invalid continuation byte at line 3",
            3,
            4,
            None,
        ),
        # An ASCII file without the placement pattern may be skipped unread by placement.
        (b"# -*- coding: klingon -*-\nx = 1\n", "cannot decode: unknown encoding: klingon", 1, 3, None),
        # flake8 reads this one itself and reports it; the plugin is not run on it.
        (
            b"x = 1\n\0\n",
            "cannot parse: null byte at line 2",
            2,
            3,
            "1:1: E999 SyntaxError: source code string cannot contain null bytes",
        ),
    ],
    ids=["undecodable bytes", "wrong coding cookie", "null byte"],
)
def test_a_file_that_cannot_be_decoded_is_reported_by_every_front_end(
    tmp_path, content, reason, line, contracts, flake8_line
):
    root = project(tmp_path, {"app/runtime/bad.py": content})
    finding = dom001("app/runtime/bad.py", line, reason)
    # boundary and layers (not run without the graph), vocabulary, and maybe placement.
    assert cli("check", "--quiet", cwd=root) == Result(1, f"{finding}\n", "")  # once, as flake8 shows it
    assert cli("check", cwd=root).lines.count("  " + finding) >= contracts  # under each contract
    assert cli("check", cwd=root).stdout.count(NOT_RUN + "\n") == 2
    expected = f"app/runtime/bad.py:{flake8_line}" if flake8_line else finding
    assert flake8("app", cwd=root) == Result(1, expected + "\n", "")


def test_a_contract_that_cannot_run_calls_no_baseline_entry_stale(tmp_path):
    # The leak is recorded; a new file breaks the import graph: the boundary did not run,
    # so it found nothing, and its entries are not stale ("run baseline --prune" would be
    # refused anyway while the file is broken).
    root = project(tmp_path, {"app/runtime/leak.py": "from app.experiment import setup\n"})
    assert cli("baseline", cwd=root).status == 0
    (root / "app/runtime/bad.py").write_text("x = (self.x := 1)\n", encoding="utf-8")
    finding = dom001(
        "app/runtime/bad.py", 1, "syntax error at line 1: cannot use assignment expressions with attribute"
    )
    result = cli("check", cwd=root)
    assert result.status == 1 and "DOM002" not in result.stdout, result
    assert result.lines[:3] == [
        "Runtime does not import experiment [boundary: boundary] BROKEN",
        "  " + finding,
        NOT_RUN,
    ]
    assert result.lines[-1].endswith("0 stale baseline entries, 0 baselined")
    tested = run("pytest", "--domain-fence", "-p", "no:cacheprovider", "-q", "-rf", cwd=root)
    assert tested.status == 1 and "DOM002" not in tested.stdout, tested


@pytest.mark.parametrize(
    "content",
    [
        b"\xef\xbb\xbf# coding: latin-1\nfrom app.experiment import setup\n",
        b'# coding: ascii\nfrom app.experiment import setup\nx = "\xc3\xa9"\n',
    ],
    ids=["BOM and a latin-1 cookie", "non-ASCII under an ascii cookie"],
)
def test_flake8_reports_a_file_python_cannot_decode_as_check_does(tmp_path, content):
    # flake8 falls back to latin-1 and runs the plugin on its own text: the plugin must
    # still see what the engine sees in the bytes, DOM001 included.
    root = project(tmp_path, {"app/runtime/bad.py": content})
    checked = sorted({line for line in cli("check", "--quiet", cwd=root).lines if " DOM303 " not in line})
    assert any(" DOM001 " in line for line in checked) and any(" DOM301 " in line for line in checked)
    assert flake8("app", cwd=root).stdout.splitlines() == checked


@pytest.mark.parametrize(
    "content",
    [
        b"\xef\xbb\xbffrom app.experiment import setup\nfrom app.runtime.events import Event\n\n\nclass Done(Event):\n    episode: int\n",
        b"from app.experiment import setup\r\nfrom app.runtime.events import Event\r\n\r\n\r\nclass Done(Event):\r\n    episode: int\r\n",
    ],
    ids=["BOM", "CRLF"],
)
def test_bom_and_crlf_files_are_checked_at_the_right_places(tmp_path, content):
    root = project(tmp_path, {"app/runtime/done.py": content})
    expected = [
        "app/runtime/done.py:1:28: DOM301 app.runtime.done imports forbidden app.experiment.setup",
        "app/runtime/done.py:1:28: DOM303 layers contract 'layers' broken: app.runtime.done imports app.experiment.setup",
        "app/runtime/done.py:6:5: DOM101 event field 'episode': experiment vocabulary 'episode'",
    ]
    assert cli("check", "--quiet", cwd=root) == Result(1, "\n".join(expected) + "\n", "")
    assert flake8("app", cwd=root) == Result(1, f"{expected[0]}\n{expected[2]}\n", "")


def test_a_10_megabyte_file_is_checked(tmp_path):
    data = "DATA = '" + "x" * 10_000_000 + "'\n"
    event = "from app.runtime.events import Event\n\n\nclass Big(Event):\n    episode: int\n\n\n"
    root = project(tmp_path, {"app/runtime/big.py": event + data})
    assert (root / "app/runtime/big.py").stat().st_size > 10_000_000
    assert cli("check", "--quiet", cwd=root) == Result(
        1, "app/runtime/big.py:5:5: DOM101 event field 'episode': experiment vocabulary 'episode'\n", ""
    )


def test_nesting_deeper_than_the_recursion_limit(tmp_path):
    # Python's parser gives up (RecursionError); grimp reads the file, so the graph is built.
    deep = "TOTAL = " + " + ".join(["1"] * 10_000) + "\n"
    # A class hierarchy deeper than the recursion limit, its base declared last.
    chain = "".join(f"class C{i}(C{i + 1}):\n    pass\n\n\n" for i in range(3000))
    chain += "from app.runtime.events import Event\n\n\nclass C3000(Event):\n    episode: int\n"
    root = project(tmp_path, {"app/runtime/deep.py": deep, "app/runtime/chain.py": chain})
    assert cli("check", "--quiet", cwd=root) == Result(
        1,
        "app/runtime/chain.py:12005:5: DOM101 event field 'episode': experiment vocabulary 'episode'\n"
        + dom001(
            "app/runtime/deep.py",
            1,
            "cannot parse: RecursionError: maximum recursion depth exceeded during ast construction",
        )
        + "\n",
        "",
    )


def test_nesting_deep_enough_to_overflow_grimps_native_stack(tmp_path):
    # grimp's Rust parser recurses: with default thread stacks this kills the process.
    root = project(tmp_path, {"app/runtime/deep.py": "TOTAL = " + "+".join(["1"] * 300_000) + "\n"})
    result = run("domain-fence", "check", "--quiet", cwd=root)
    assert result == Result(
        1,
        dom001(
            "app/runtime/deep.py",
            1,
            "cannot parse: RecursionError: maximum recursion depth exceeded during ast construction",
        )
        + "\n",
        "",
    )


def test_circular_class_hierarchies_across_modules(tmp_path):
    root = project(
        tmp_path,
        {
            "app/runtime/a.py": "from app.runtime.b import B\nfrom app.runtime.events import Event\n\n\n"
            "class A(B, Event):\n    episode: int\n\n\nclass Cyclic(Cyclic):\n    episode: int\n",
            "app/runtime/b.py": "from app.runtime import a\n\n\nclass B(a.A):\n    terminal_state: str\n",
            "app/runtime/c.py": "from app.runtime.d import D\n\n\nclass C(D):\n    episode: int\n",
            "app/runtime/d.py": "from app.runtime.c import C\n\n\nclass D(C):\n    episode: int\n",
        },
    )
    # A and B are events through Event (the cycle does not matter); C and D derive from nothing.
    assert cli("check", "--quiet", cwd=root) == Result(
        1,
        "app/runtime/a.py:6:5: DOM101 event field 'episode': experiment vocabulary 'episode'\n"
        "app/runtime/b.py:5:5: DOM101 event field 'terminal_state': experiment vocabulary 'terminal state'; "
        "consider 'recognized state'\n",
        "",
    )


def test_relative_import_above_the_top_level_package(tmp_path):
    # grimp panics on it (lint-imports shows the Rust panic): we name the file, and no
    # panic message reaches the user.
    root = project(tmp_path, {"app/runtime/climb.py": "from .... import settings\n"})
    finding = dom001("app/runtime/climb.py", 1, "relative import beyond the top-level package at line 1")
    assert run("domain-fence", "check", "--quiet", cwd=root) == Result(1, f"{finding}\n", "")
    # flake8 reports what check reports at that file: the boundary cannot run without it.
    assert flake8("app", cwd=root) == Result(1, f"{finding}\n", "")


def test_relative_import_climbing_exactly_to_the_top_reaches_nothing(tmp_path):
    # One level less: grimp (and lint-imports) ignore an import that can name no module
    # of the project, so there is nothing to report; the same file imports app.experiment
    # properly too, which is reported.
    root = project(
        tmp_path, {"app/runtime/climb.py": "from ...settings import DEBUG\nfrom ..experiment import setup\n"}
    )
    assert cli("check", "--quiet", cwd=root).lines == [
        "app/runtime/climb.py:2:26: DOM301 app.runtime.climb imports forbidden app.experiment.setup",
        "app/runtime/climb.py:2:26: DOM303 layers contract 'layers' broken: app.runtime.climb imports app.experiment.setup",
    ]


# -- the tree -------------------------------------------------------------------------


def test_a_symlink_loop_in_the_tree(tmp_path):
    root = project(tmp_path)
    os.symlink("..", root / "app/runtime/loop")
    os.symlink(root / "app", root / "app/runtime/back")
    os.symlink("itself", root / "app/runtime/itself")
    back = dom001("app/runtime/back", 1, "symlink loop: leads back to app")
    loop = dom001("app/runtime/loop", 1, "symlink loop: leads back to app")
    # grimp (and lint-imports) would walk it forever: refused before the graph is built;
    # boundary and layers each report both links (--quiet: each line once).
    checked = run("domain-fence", "check", cwd=root, timeout=60)
    assert [line for line in checked.stdout.splitlines() if "DOM001" in line] == [f"  {back}", f"  {loop}"] * 2
    assert run("domain-fence", "check", "--quiet", cwd=root, timeout=60) == Result(1, f"{back}\n{loop}\n", "")
    # flake8 visits no link: both are shown at their package's __init__.py (else the
    # boundary contract, which cannot run, would pass every file in silence).
    at_init = [
        dom001("app/runtime/__init__.py", 1, f"app/runtime/{name}: symlink loop: leads back to app")
        for name in ("back", "loop")
    ]
    assert flake8("app", cwd=root) == Result(1, "".join(f"{line}\n" for line in at_init), "")
    # Given changed files only (pre-commit) or stdin (an editor), flake8 checks no
    # __init__.py: they are shown at the file it checks.
    changed = "app/runtime/events.py"
    at_file = [line.replace("app/runtime/__init__.py", changed) for line in at_init]
    assert flake8(changed, cwd=root) == Result(1, "".join(f"{line}\n" for line in at_file), "")
    source = (root / changed).read_text(encoding="utf-8")
    piped = flake8_stdin(root, changed, source)
    assert (piped.returncode, piped.stdout, piped.stderr) == (1, "".join(f"{line}\n" for line in at_file), "")


@pytest.mark.parametrize("tree", ["clean, results kept", "clean", "a symlink loop"])
def test_flake8_workers_never_build_the_import_graph(tmp_path, tree):
    # Forked after grimp's native threads ran in the parent (a check in the same process,
    # an earlier build), a worker starting grimp waits on them forever: what a package's
    # __init__.py reports is known before flake8 forks.
    from domain_fence.integrations.flake8.project import Project

    root = project(tmp_path)
    settled(root)
    if tree == "a symlink loop":
        os.symlink("..", root / "app/runtime/loop")
    if tree == "clean, results kept":
        cli("check", cwd=root)
    with contextlib.chdir(root):
        linted = Project.load(None)
        linted.prepare(["app"])

        def forked_build():
            raise AssertionError("the import graph built in a flake8 worker")

        linted.engine.context.build_graph = forked_build
        found = [f.describe() for f in linted.findings(str(root / "app/runtime/__init__.py"), None)]
    looped = ["app/runtime/__init__.py:1:1: DOM001 skipped: app/runtime/loop: symlink loop: leads back to app"]
    assert found == (looped if tree == "a symlink loop" else [])


@pytest.mark.skipif(sys.platform != "linux", reason="file names are bytes on Linux only")
def test_a_file_name_that_is_not_utf8(tmp_path):
    root = project(tmp_path)
    (root / "app/runtime").joinpath(os.fsdecode(b"caf\xe9.py")).write_text("from app.experiment import setup\n")
    finding = dom001("app/runtime/caf\\xe9.py", 1, "file name is not valid UTF-8")
    # grimp panics on it; it is no importable module for the source-reading contracts.
    assert cli("check", "--quiet", cwd=root) == Result(1, f"{finding}\n", "")
    at_init = dom001("app/runtime/__init__.py", 1, "app/runtime/caf\\xe9.py: file name is not valid UTF-8")
    assert flake8("app", cwd=root) == Result(1, f"{at_init}\n", "")


@pytest.mark.skipif(sys.platform != "linux", reason="file names are bytes on Linux only")
def test_a_project_whose_path_is_not_utf8(tmp_path):
    root = project(
        tmp_path / os.fsdecode(b"caf\xe9"),
        {"app/runtime/stats.py": "from app.runtime.events import Event\n\n\nclass Stats(Event):\n    episode: int\n"},
    )
    reason = "the import graph cannot be built: the project's path is not valid UTF-8, which grimp cannot read"
    assert cli("check", "--quiet", cwd=root) == Result(
        1,
        f"{dom001('.importlinter', 9, reason)}\n"
        f"{dom001('.importlinter', 36, reason)}\n"
        "app/runtime/stats.py:5:5: DOM101 event field 'episode': experiment vocabulary 'episode'\n",
        "",
    )


# -- the configuration ----------------------------------------------------------------


CONFIGURATION_ERRORS = {
    "unknown contract option": (
        (
            "    app.experiment\n\n[importlinter:contract:vocabulary]",
            "    app.experiment\nforbidden_module = app.x\n\n[importlinter:contract:vocabulary]",
        ),
        "[importlinter:contract:boundary] forbidden_module: Unrecognized option. Did you mean 'forbidden_modules'?",
    ),
    "missing required option": (
        ("symbols =\n    init_telemetry\n", ""),
        "[importlinter:contract:placement] symbols: This is a required field.",
    ),
    "malformed words arrow": (
        ("    terminal state -> recognized state\n", "    terminal state ->\n"),
        "[importlinter:contract:vocabulary] words: 'terminal state ->': expected 'words -> replacement'",
    ),
    "malformed ignore_imports arrow": (
        (
            "    app.experiment\n\n[importlinter:contract:vocabulary]",
            "    app.experiment\nignore_imports =\n    app.runtime.model => app.experiment\n\n[importlinter:contract:vocabulary]",
        ),
        '[importlinter:contract:boundary] ignore_imports: Must be in the form "package.importer -> package.imported".',
    ),
    "boundary module that does not exist": (
        ("source_modules =\n    app.runtime\n", "source_modules =\n    app.runtim\n"),
        "[importlinter:contract:boundary] source_modules: module 'app.runtim' does not exist",
    ),
    "forbidden modules above the source": (
        ("forbidden_modules =\n    app.experiment\n", "forbidden_modules =\n    app\n"),
        "[importlinter:contract:boundary] source_modules: no module is left to check once forbidden_modules and "
        "exclude_modules are taken out of it",
    ),
    "excluded modules covering the source": (
        (
            "forbidden_modules =\n    app.experiment\n",
            "forbidden_modules =\n    app.experiment\nexclude_modules =\n    app.runtime\n",
        ),
        "[importlinter:contract:boundary] source_modules: no module is left to check once forbidden_modules and "
        "exclude_modules are taken out of it",
    ),
    "excluded modules covering the vocabulary's modules": (
        (
            "modules =\n    app.runtime\nevent_bases",
            "modules =\n    app.runtime\nexclude_modules =\n    app.runtime\nevent_bases",
        ),
        "[importlinter:contract:vocabulary] exclude_modules: no module is left to check once they are taken out of "
        "modules",
    ),
    "every module allowed to define the symbols": (
        ("allowed_modules =\n    app.experiment\n", "allowed_modules =\n    app\n"),
        "[importlinter:contract:placement] allowed_modules: every module of the root packages is allowed; no "
        "definition can break the contract",
    ),
    "boundary exclusion matching nothing": (
        (
            "forbidden_modules =\n    app.experiment\n",
            "forbidden_modules =\n    app.experiment\nexclude_modules =\n    app.runtime.nothing\n",
        ),
        "[importlinter:contract:boundary] exclude_modules: 'app.runtime.nothing' matches no module of the root "
        "packages; is it misspelt?",
    ),
    "vocabulary exclusion matching nothing": (
        (
            "modules =\n    app.runtime\nevent_bases",
            "modules =\n    app.runtime\nexclude_modules =\n    app.runtime.*.nothing\nevent_bases",
        ),
        "[importlinter:contract:vocabulary] exclude_modules: 'app.runtime.*.nothing' matches no module of the root "
        "packages; is it misspelt?",
    ),
    "two baseline files": (
        (
            "forbidden_modules =\n    app.experiment\n",
            "forbidden_modules =\n    app.experiment\nbaseline =\n    a.json\n    b.json\n",
        ),
        "[importlinter:contract:boundary] baseline: Expected one file, not 2 ('a.json', 'b.json').",
    ),
    "a session flag neither true nor false": (
        ("root_package = app", "root_package = app\nexclude_type_checking_imports = yes"),
        "[importlinter] exclude_type_checking_imports: Expected true or false, not 'yes'.",
    ),
    "a contract without a name": (
        ("name = init_telemetry lives under experiment\n", ""),
        "[importlinter:contract:placement] name: This is a required field.",
    ),
    "root package that cannot be found": (
        ("root_package = app", "root_package = nowhere"),
        "[importlinter] root_packages: cannot find nowhere (looked in {root}, its src/ and sys.path)",
    ),
}


@pytest.mark.parametrize("case", sorted(CONFIGURATION_ERRORS))
def test_configuration_errors_exit_2_with_one_line(tmp_path, case):
    (old, new), message = CONFIGURATION_ERRORS[case]
    root = project(tmp_path)
    edit_config(root, old, new)
    message = message.format(root=root)
    assert_one_line_error(cli("check", cwd=root), f"{root / CONFIG}: {message}")
    assert_one_line_error(cli("baseline", cwd=root), f"{root / CONFIG}: {message}")


def test_flake8_refuses_configuration_errors(tmp_path):
    for case in sorted(CONFIGURATION_ERRORS):
        (old, new), message = CONFIGURATION_ERRORS[case]
        root = project(tmp_path / case.replace(" ", "-"))
        edit_config(root, old, new)
        message = message.format(root=root)  # the same reader, the same message
        assert flake8("app", cwd=root) == Result(2, "", f"flake8: domain-fence: error: {root / CONFIG}: {message}\n"), (
            case
        )
    assert lint_imports(cwd=root).status == 1  # the last case: its own message, and broken


def test_module_expressions_and_patterns_that_match_nothing(tmp_path):
    root = project(tmp_path)
    edit_config(root, "modules =\n    app.runtime\nevent_bases", "modules =\n    app.runtim\nevent_bases")
    edit_config(root, "    app.runtime.events.Event\n", "    app.runtime.events.Evnt\n")
    edit_config(root, "    init_telemetry\n", "    init_telemetri\n")
    # A configuration problem, the same in every front end: exit 2, one line each.
    section = f"{root / CONFIG}: [importlinter:contract:vocabulary]"
    problems = [
        f"{section} modules: 'app.runtim' matches no module of the root packages; is it misspelt?",
        f"{section} event_bases: 'app.runtime.events.Evnt' names no class of the project; is it misspelt?",
    ]
    result = cli("check", cwd=root)
    assert (result.status, result.stdout) == (2, "")
    assert result.stderr.splitlines() == [f"domain-fence: error: {problem}" for problem in problems]
    section = f"flake8: domain-fence: error: {root / CONFIG}: [importlinter:contract:vocabulary]"
    assert flake8("app", cwd=root) == Result(
        2,
        "",
        f"{section} modules: 'app.runtim' matches no module of the root packages; is it misspelt?\n"
        f"{section} event_bases: 'app.runtime.events.Evnt' names no class of the project; is it misspelt?\n",
    )
    # An unmatched placement pattern breaks the contract when it must match.
    edit_config(root, "modules =\n    app.runtim\nevent_bases", "modules =\n    app.runtime\nevent_bases")
    edit_config(root, "    app.runtime.events.Evnt\n", "    app.runtime.events.Event\n")
    edit_config(
        root,
        "    app.experiment\n\n[importlinter:contract:layers]",
        "    app.experiment\nrequire_match = true\n\n[importlinter:contract:layers]",
    )
    assert "init_telemetry lives under experiment [placement: placement] BROKEN" in cli("check", cwd=root).lines


def test_a_root_package_inside_a_regular_package_is_refused_before_grimp_imports_it(tmp_path):
    root = project(tmp_path)
    edit_config(root, "root_package = app", "root_package = app.runtime")
    assert_one_line_error(
        cli("check", cwd=root),
        f"{root / CONFIG}: [importlinter] root_packages: 'app.runtime' is inside the regular package 'app' "
        "(it has an __init__.py); name 'app' instead",
    )


# -- the baseline -----------------------------------------------------------------------


BASELINE = ".domain-fence-baseline.json"


@pytest.mark.parametrize(
    "content, message",
    [
        (
            "{not json",
            "baseline is not valid JSON (Expecting property name enclosed in double quotes: line 1 column 2 (char 1))",
        ),
        ("[" * 100_000, "baseline is not valid JSON (nested too deeply)"),
        (
            '{"format": "something-else", "entries": []}',
            'not a domain-fence baseline (missing "format": "domain-fence-baseline")',
        ),
        (
            '{"format": "domain-fence-baseline", "version": 2, "entries": []}',
            "baseline format version 2 is not supported (expected 1); regenerate it with 'domain-fence baseline'",
        ),
        ('{"format": "domain-fence-baseline", "version": 1, "entries": {}}', '"entries" must be a list'),
        (
            '{"format": "domain-fence-baseline", "version": 1, "entries": [{"contract": "boundary"}]}',
            'entry 1 needs string "contract" and "fingerprint" fields',
        ),
    ],
    ids=["corrupt", "deeply nested", "another format", "another version", "entries not a list", "hand-edited entry"],
)
def test_an_unusable_baseline_exits_2_naming_the_file(tmp_path, content, message):
    root = project(tmp_path, {BASELINE: content})
    expected = f"{root / BASELINE}: {message}"
    assert_one_line_error(cli("check", cwd=root), expected)
    assert_one_line_error(cli("baseline", cwd=root), expected)


ENTRY = '{"contract": "c", "fingerprint": "boundary:a->b", "description": ""}'


@pytest.mark.parametrize(
    "content, message",
    [
        (
            '{"format": "domain-fence-baseline", "version": 1, "entries": [\n<<<<<<< HEAD\n'
            + ENTRY
            + "\n=======\n"
            + ENTRY.replace("a->b", "a->c")
            + "\n>>>>>>> branch\n]}\n",
            ":2: baseline holds merge conflict markers; keep the entries of both sides (each entry is one "
            "object), then run 'domain-fence baseline --prune'",
        ),
        (
            '{"format": "domain-fence-baseline", "version": 1, "entries": [\n'
            '{"contract": "c", "fingerprint": "boundary:a->b",\n"fingerprint": "boundary:a->c"}]}\n',
            ": baseline is not valid JSON (an object repeats the key 'fingerprint': was a merge resolved by "
            "keeping both sides?)",
        ),
    ],
    ids=["conflict markers", "a key twice"],
)
def test_a_badly_merged_baseline_exits_2_saying_so(tmp_path, content, message):
    root = project(tmp_path, {BASELINE: content})
    for command in ("check", "baseline"):
        assert_one_line_error(cli(command, cwd=root), f"{root / BASELINE}{message}")


def test_a_baseline_holding_an_integer_too_long_to_convert_exits_2(tmp_path):
    big = "9" * 5000
    root = project(
        tmp_path, {BASELINE: f'{{"format": "domain-fence-baseline", "version": 1, "entries": [], "x": {big}}}'}
    )
    expected = f"{root / BASELINE}: baseline is not valid JSON (Exceeds the limit (4300 digits) for integer string"
    for command in ("check", "baseline"):
        result = cli(command, cwd=root)
        assert (result.status, result.stdout, len(result.stderr.splitlines())) == (2, "", 1)
        assert result.stderr.startswith(f"domain-fence: error: {expected}")


# What is not a regular file: read, a FIFO blocks until a writer comes, a device may never
# end, a loop of symbolic links has Path.resolve raise RuntimeError.
NOT_FILES = {
    "a FIFO": (lambda path: os.mkfifo(path), "not a regular file (a FIFO, device or socket)"),
    "a device": (lambda path: path.symlink_to("/dev/zero"), "not a regular file (a FIFO, device or socket)"),
    "a symbolic link to itself": (lambda path: path.symlink_to(path.name), "Too many levels of symbolic links"),
}


@pytest.mark.parametrize("case", sorted(NOT_FILES))
def test_a_baseline_that_is_not_a_regular_file_is_refused_everywhere(pytester, tmp_path, case):
    make, reason = NOT_FILES[case]
    root = project(tmp_path)
    shutil.copytree(root, pytester.path, dirs_exist_ok=True)
    for where in (root, pytester.path):
        make(where / BASELINE)
    shown = "/dev/zero" if case == "a device" else str(root / BASELINE)
    message = f"{shown}: cannot read baseline: {reason}"
    for command in ("check", "baseline"):
        assert cli(command, cwd=root) == Result(2, "", f"domain-fence: error: {message}\n"), command
    assert flake8("app", cwd=root) == Result(2, "", f"flake8: domain-fence: error: {message}\n")
    tested = pytester.runpytest_subprocess("--domain-fence", "-p", "no:cacheprovider", timeout=60)
    assert tested.ret == pytest.ExitCode.USAGE_ERROR
    assert tested.errlines == [f"ERROR: {message.replace(str(root), str(pytester.path))}", ""]


@pytest.mark.parametrize("case", ["a FIFO", "a symbolic link to itself"])
def test_a_configuration_that_is_not_a_regular_file_is_refused(tmp_path, case):
    make, reason = NOT_FILES[case]
    root = project(tmp_path)
    (root / CONFIG).unlink()
    make(root / CONFIG)
    message = f"{root / CONFIG}: cannot read configuration: {reason}"
    for arguments in (("check",), ("check", "--config", CONFIG)):
        assert cli(*arguments, cwd=root) == Result(2, "", f"domain-fence: error: {message}\n"), arguments
    assert flake8("app", "--domain-fence-config", CONFIG, cwd=root) == Result(
        2, "", f"flake8: domain-fence: error: {message}\n"
    )
    # Found by looking: flake8 runs the plugin in every project, and one without a
    # configuration file is not the plugin's to refuse.
    assert flake8("app", cwd=root) == Result(0, "", "")


def test_a_candidate_that_is_no_file_gives_way_to_the_configuration(tmp_path):
    root = project(tmp_path, {"app/runtime/leak.py": "from app.experiment import setup\n"})
    (root / "setup.cfg").symlink_to("/dev/null")  # read before .importlinter, and empty
    leak = "app/runtime/leak.py:1:28: DOM301 app.runtime.leak imports forbidden app.experiment.setup"
    assert leak in cli("check", "--quiet", cwd=root).lines
    assert flake8("app", cwd=root).stdout.splitlines() == [leak]


def test_flake8_refuses_an_unusable_baseline(tmp_path):
    root = project(tmp_path, {BASELINE: "{not json"})
    message = "baseline is not valid JSON (Expecting property name enclosed in double quotes: line 1 column 2 (char 1))"
    assert flake8("app", cwd=root) == Result(2, "", f"flake8: domain-fence: error: {root / BASELINE}: {message}\n")


def test_a_hand_edited_baseline_that_is_still_valid_is_read(tmp_path):
    root = project(tmp_path, {"app/runtime/leak.py": "from app.experiment import setup\n"})
    # Written by hand: a BOM, CRLF, no descriptions, entries in any order, duplicated.
    entry = '{"contract": "boundary", "fingerprint": "boundary:app.runtime.leak->app.experiment.setup"}'
    (root / BASELINE).write_bytes(
        b"\xef\xbb\xbf"
        + f'{{\r\n"version": 1, "format": "domain-fence-baseline",\r\n"entries": [{entry}, {entry}]}}\r\n'.encode()
    )
    assert cli("check", "--quiet", cwd=root).lines == [
        "app/runtime/leak.py:1:28: DOM303 layers contract 'layers' broken: app.runtime.leak imports app.experiment.setup"
    ]


# -- caches -------------------------------------------------------------------------------


def leaky(tmp_path: Path) -> Path:
    return project(tmp_path, {"app/runtime/leak.py": "from app.experiment import setup\n"})


LEAK = "app/runtime/leak.py:1:28: DOM301 app.runtime.leak imports forbidden app.experiment.setup\n"
LAYERS_LEAK = (
    "app/runtime/leak.py:1:28: DOM303 layers contract 'layers' broken: app.runtime.leak imports app.experiment.setup\n"
)


def test_a_corrupt_grimp_cache_is_rebuilt(tmp_path):
    root = leaky(tmp_path)
    assert cli("check", "--quiet", cwd=root) == Result(1, LEAK + LAYERS_LEAK, "")
    cache = root / ".import_linter_cache"
    written = sorted(cache.glob("*.json"))
    assert written
    for path in written:
        path.write_text("garbage{{", encoding="utf-8")
    result = cli("check", "--quiet", cwd=root)
    assert (result.status, result.stdout) == (1, LEAK + LAYERS_LEAK)
    # A hand-edited (valid JSON) cache whose modification times do not match is not used.
    (cache / written[0].name).write_text('{"app.runtime.leak": 0.0}', encoding="utf-8")
    assert cli("check", "--quiet", cwd=root).stdout == LEAK + LAYERS_LEAK


def settled(root: Path) -> None:
    """Sources last modified an hour ago: only settled files have their facts cached."""
    an_hour_ago = time.time() - 3600
    for path in root.rglob("*.py"):
        os.utime(path, (an_hour_ago, an_hour_ago))


class Planted:
    """A pickle that would run a command when loaded."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def test_a_corrupt_or_planted_fact_cache_is_never_trusted(tmp_path):
    root = leaky(tmp_path)
    settled(root)
    assert cli("check", "--quiet", cwd=root) == Result(1, LEAK + LAYERS_LEAK, "")
    entries = sorted((root / ".domain_fence_cache").rglob("*.pickle"))
    assert entries
    marker = tmp_path / "PLANTED-PICKLE-RAN"
    damages = [b"", b"garbage", entries[0].read_bytes()[:20], pickle.dumps(Planted(marker)), pickle.dumps(("x",) * 7)]
    for number, entry in enumerate(entries):
        entry.write_bytes(damages[number % len(damages)])
    for _ in range(2):  # rebuilt, then read back
        assert cli("check", "--quiet", cwd=root) == Result(1, LEAK + LAYERS_LEAK, "")
    assert not marker.exists()


EVENT_WITH_AN_EPISODE = "from app.runtime.events import Event\n\n\nclass Stats(Event):\n    episode: int\n"


def git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.email=a@b", "-c", "user.name=a", *args], cwd=root, check=True, capture_output=True
    )


@pytest.mark.parametrize(
    "layout", [("index.version", "2"), ("index.version", "4"), ("core.splitIndex", "true")], ids="=".join
)
def test_a_fact_cache_that_comes_with_the_checkout_is_not_used(tmp_path, layout):
    # Made up for a file (facts of a clean version, under the digest of a violating one)
    # and committed with `git add -f` to a pull request: no checksum tells it from ours,
    # so a cache git tracks is not used at all. A copy restored beside the checkout (CI's
    # actions/cache) is no file of the index, and is used. (Fresh processes: this one
    # keeps the facts it read.)
    clean = "from app.runtime.events import Event\n\n\nclass Stats(Event):\n    count: int\n"
    root = project(tmp_path, {"app/runtime/stats.py": clean})
    settled(root)
    assert cli("check", "--quiet", cwd=root).status == 0
    stats = root / "app/runtime/stats.py"
    stats.write_text(EVENT_WITH_AN_EPISODE, encoding="utf-8")
    settled(root)
    [pack] = (root / ".domain_fence_cache").glob("facts-*.pickle")
    raw = pack.read_bytes()
    stream = io.BytesIO(raw)
    form, key, index = pickle.Unpickler(stream).load()
    path = next(name for name in index if name.endswith("runtime/stats.py"))
    module, _, row = index[path]
    index[path] = (module, hashlib.blake2b(stats.read_bytes()).digest(), row)
    pack.write_bytes(pickle.dumps((form, key, index), protocol=pickle.HIGHEST_PROTOCOL) + raw[stream.tell() :])
    for kept in ("runs", "results"):
        shutil.rmtree(root / ".domain_fence_cache" / kept, ignore_errors=True)
    expected = cli("check", "--quiet", "--no-cache", cwd=root)
    assert expected.status == 1 and "episode" in expected.stdout
    assert run("domain-fence", "check", "--quiet", cwd=root).status == 0  # the made-up facts, trusted
    git(root, "init", "-q")
    git(root, "config", *layout)
    (root / ".dockerignore").write_text("*\n", encoding="utf-8")  # sorted just before: v4 abbreviates by it
    git(root, "add", "-A")
    git(root, "add", "-f", ".domain_fence_cache")
    assert run("domain-fence", "check", "--quiet", cwd=root) == expected
    assert flake8("app", cwd=root).stdout == expected.stdout
    git(root, "rm", "-r", "-q", "--cached", ".domain_fence_cache")
    assert run("domain-fence", "check", "--quiet", cwd=root).status == 0  # restored, not committed: used


def test_a_cache_committed_in_a_linked_worktree_or_a_subdirectory_is_told(tmp_path):
    from domain_fence.core.source.cachedir import committed

    main = tmp_path / "main"
    (main / "sub/.domain_fence_cache").mkdir(parents=True)
    (main / "sub/.domain_fence_cache/facts.pickle").write_bytes(b"x")
    (main / "README").write_text("x")
    git(main, "init", "-q")
    git(main, "add", "README")
    git(main, "commit", "-q", "-m", "first")
    assert not committed(main / "sub/.domain_fence_cache")  # there, untracked
    assert not committed(tmp_path / "elsewhere/.domain_fence_cache")  # in no work tree
    git(main, "add", "-f", "sub/.domain_fence_cache")
    assert committed(main / "sub/.domain_fence_cache")
    git(main, "commit", "-q", "-m", "cache")
    git(main, "worktree", "add", "-q", str(tmp_path / "linked"))
    assert (tmp_path / "linked/.git").is_file()
    assert committed(tmp_path / "linked/sub/.domain_fence_cache")
    assert not committed(tmp_path / "linked/.domain_fence_cache")


def test_whether_a_cache_is_committed_is_asked_of_the_repository_found_and_runs_nothing(tmp_path, monkeypatch):
    from domain_fence.core.source import cachedir

    main = tmp_path / "main"
    (main / ".domain_fence_cache").mkdir(parents=True)
    (main / ".domain_fence_cache/facts.pickle").write_bytes(b"x")
    git(main, "init", "-q")
    git(main, "add", "-f", ".domain_fence_cache")
    marker = tmp_path / "FSMONITOR-RAN"
    hook = tmp_path / "fsmonitor.sh"
    hook.write_text(f"#!/bin/sh\ntouch {marker}\n", encoding="utf-8")
    hook.chmod(0o755)
    git(main, "config", "core.fsmonitor", str(hook))
    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "-q")
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))  # a hook's environment names another repository
    cachedir._tracked_below.cache_clear()
    assert cachedir.committed(main / ".domain_fence_cache")
    assert not marker.exists()  # no command of the repository's configuration runs
    monkeypatch.delenv("GIT_DIR")
    monkeypatch.setenv("PATH", str(tmp_path / "no-git-here"))
    cachedir._tracked_below.cache_clear()
    assert cachedir.committed(main / ".domain_fence_cache")  # git cannot say: not trusted
    cachedir._tracked_below.cache_clear()


def test_a_shipped_repository_configuration_cannot_make_the_look_fetch(tmp_path):
    # A partial clone's missing tree, read when a sparse index is expanded, is fetched
    # from its promisor remote, which a .git shipped in an archive may make a command.
    from domain_fence.core.source import cachedir

    repository = tmp_path / "repository"
    for name in ("a/f", "b/g"):
        (repository / name).parent.mkdir(parents=True, exist_ok=True)
        (repository / name).write_text(name, encoding="utf-8")
    git(repository, "init", "-q")
    git(repository, "add", "-A")
    git(repository, "commit", "-q", "-m", "first")
    git(repository, "sparse-checkout", "init", "--cone", "--sparse-index")
    git(repository, "sparse-checkout", "set", "b")
    tree = subprocess.run(
        ["git", "rev-parse", "HEAD:a"], cwd=repository, capture_output=True, text=True, check=True
    ).stdout.strip()
    (repository / ".git/objects" / tree[:2] / tree[2:]).unlink()
    marker = tmp_path / "FETCH-RAN"
    for key, value in (
        ("core.repositoryformatversion", "1"),
        ("extensions.partialClone", "origin"),
        ("remote.origin.url", f"ext::sh -c touch% {marker}% >&2"),
        ("remote.origin.promisor", "true"),
        ("protocol.ext.allow", "always"),
    ):
        git(repository, "config", key, value)
    git(repository, "config", "--worktree", "index.sparse", "false")  # read whole: the tree is needed
    (repository / "project/.domain_fence_cache").mkdir(parents=True)
    subprocess.run(["git", "ls-files"], cwd=repository, capture_output=True, check=False)
    assert marker.exists()  # what git alone does here
    marker.unlink()
    cachedir._tracked_below.cache_clear()
    assert cachedir.committed(repository / "project/.domain_fence_cache")  # git could not read it all: not trusted
    assert not marker.exists()
    cachedir._tracked_below.cache_clear()


def test_a_cache_committed_under_another_case_or_as_a_link_is_told(tmp_path):
    from domain_fence.core.source import cachedir

    main = tmp_path / "main"
    (main / ".Domain_Fence_Cache").mkdir(parents=True)  # the same directory where a disk ignores case
    (main / ".Domain_Fence_Cache/facts.pickle").write_bytes(b"x")
    (main / ".domain_fence_cache").mkdir()
    (tmp_path / "out/cache").mkdir(parents=True)  # outside the work tree
    (main / "linked").mkdir()
    os.symlink(tmp_path / "out/cache", main / "linked/.domain_fence_cache")
    git(main, "init", "-q")
    git(main, "config", "core.ignorecase", "true")
    git(main, "add", "-f", ".Domain_Fence_Cache", "linked/.domain_fence_cache")
    cachedir._tracked_below.cache_clear()
    assert cachedir.committed(main / ".domain_fence_cache")
    assert cachedir.committed(main / "linked/.domain_fence_cache")  # a link committed in its place
    assert not cachedir.committed(tmp_path / "out/cache")
    cachedir._tracked_below.cache_clear()


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="changes a checkout's owner")
def test_a_checkout_another_user_owns_is_read_as_git_allows(tmp_path, monkeypatch):
    # A CI container runs as root on a workspace another user owns, where git refuses
    # "dubious ownership" (its configuration could run commands): the cache is then not
    # trusted, until the checkout is declared safe, as actions/checkout declares it.
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # the global configuration this test writes
    (tmp_path / "home").mkdir()
    from domain_fence.core.source import cachedir

    main = tmp_path / "main"
    for name in ("committed", "restored"):
        (main / name / ".domain_fence_cache").mkdir(parents=True)
        (main / name / ".domain_fence_cache/facts.pickle").write_bytes(b"x")
    git(main, "init", "-q")
    git(main, "add", "-f", "committed/.domain_fence_cache")
    subprocess.run(["chown", "-R", "nobody", str(main)], check=True)
    cachedir._tracked_below.cache_clear()
    assert cachedir.committed(main / "committed/.domain_fence_cache")
    assert cachedir.committed(main / "restored/.domain_fence_cache")  # git refuses to say: not trusted
    git(main, "config", "--global", "--add", "safe.directory", str(main))  # as actions/checkout does
    cachedir._tracked_below.cache_clear()
    assert cachedir.committed(main / "committed/.domain_fence_cache")
    assert not cachedir.committed(main / "restored/.domain_fence_cache")
    cachedir._tracked_below.cache_clear()


def test_a_bit_flipped_in_any_cache_file_costs_time_never_the_answer(tmp_path, monkeypatch):
    # A bit flipped on disk or in a restored copy mostly leaves a valid pickle or JSON:
    # each file the tool keeps is checked against what it wrote (a checksum, or the
    # digest it is named by), or it is a miss. (grimp's own files are grimp's.)
    monkeypatch.setattr(runcache, "TOOLS", ())  # a tool's file a moment old keeps no run
    root = project(
        tmp_path,
        {"app/runtime/leak.py": "from app.experiment import setup\n", "app/runtime/stats.py": EVENT_WITH_AN_EPISODE},
    )
    settled(root)
    assert cli("baseline", cwd=root).status == 0  # its entries kept, parsed, in the cache too
    (root / "app/runtime/stats.py").write_text(EVENT_WITH_AN_EPISODE + "    episode_count: int\n")
    settled(root)
    an_hour_ago = time.time() - 3600
    os.utime(root / ".domain-fence-baseline.json", (an_hour_ago, an_hour_ago))  # else no report is kept
    expected = cli("check", "--quiet", "--no-cache", cwd=root)
    assert expected.status == 1 and "episode_count" in expected.stdout
    assert cli("check", "--quiet", cwd=root) == expected
    cache = root / ".domain_fence_cache"
    pristine = tmp_path / "pristine"
    shutil.copytree(cache, pristine)
    kept = sorted(p.relative_to(pristine) for p in pristine.rglob("*") if p.is_file() and p.stat().st_size > 8)
    assert {p.parts[0] for p in kept} >= {"baselines", "runs", "results"} and any("facts" in p.name for p in kept)
    for name in kept:
        data = (pristine / name).read_bytes()
        # Here and there, and in a name a finding is made of (still a valid pickle or JSON).
        named = [found.start() + 2 for found in re.finditer(rb"episode_count|app\.runtime\.leak", data)]
        for at in (len(data) // 3, len(data) // 2, len(data) - 5, *named):
            shutil.rmtree(cache)
            shutil.copytree(pristine, cache)
            flipped = bytearray(data)
            flipped[at] ^= 0x04
            (cache / name).write_bytes(flipped)
            # Else the run's report is replayed, or the kept findings, and nothing else read.
            for other in ("runs", "results"):
                if name.parts[0] != other:
                    shutil.rmtree(cache / other, ignore_errors=True)
            # (This process keeps the facts it read: a flipped fact pack entry is
            # tests/performance/test_fact_cache.py's.)
            assert cli("check", "--quiet", cwd=root) == expected, (name, at)


def test_a_cache_path_that_cannot_be_a_directory_is_done_without(tmp_path):
    root = leaky(tmp_path)
    settled(root)
    (root / ".import_linter_cache").write_text("not a directory")
    (root / ".domain_fence_cache").write_text("not a directory")
    assert cli("check", "--quiet", cwd=root) == Result(1, LEAK + LAYERS_LEAK, "")


@pytest.mark.parametrize("case", ["a name too long", "a loop of links"])
def test_a_cache_path_that_cannot_be_looked_at_is_done_without(tmp_path, case):
    # os.stat raises on it (Path.is_dir too, for a name too long): only time is lost.
    root = leaky(tmp_path)
    settled(root)
    cache = "c" * 300
    if case == "a loop of links":
        cache = "loop"
        (root / cache).symlink_to(cache)
    environment = {"DOMAIN_FENCE_CACHE_DIR": cache}
    for arguments, env in ((("check", "--quiet"), environment), (("check", "--quiet", "--cache-dir", cache), {})):
        assert run("domain-fence", *arguments, cwd=root, env=env) == Result(1, LEAK + LAYERS_LEAK, ""), arguments
    assert run("domain-fence", "baseline", cwd=root, env=environment).status == 0
    assert flake8("app", cwd=root, env=environment).status == 0  # the leak is baselined now
    # (lint-imports --cache-dir hands it to grimp, whose own failure it is)
    linted = run("lint-imports", "--no-logo", cwd=root, env=environment)
    assert linted == run("lint-imports", "--no-logo", cwd=root) and linted.stderr == "", linted


@pytest.mark.parametrize("value", ["abc", "0", "-1", "1e3"])
def test_a_file_size_limit_that_is_no_positive_number_is_refused(tmp_path, value):
    # Else the limit would stay at its default, and a typo go unseen.
    root = project(tmp_path)
    environment = {"DOMAIN_FENCE_MAX_FILE_SIZE": value}
    message = f"domain-fence: error: DOMAIN_FENCE_MAX_FILE_SIZE={value!r}: expected a positive whole number of bytes\n"
    for command in ("check", "baseline"):
        assert run("domain-fence", command, cwd=root, env=environment) == Result(2, "", message), command
    assert flake8("app", cwd=root, env=environment) == Result(2, "", f"flake8: {message}")


def test_an_empty_cache_directory_is_refused_not_taken_for_the_project(tmp_path):
    root = project(tmp_path)
    before = sorted(path.name for path in root.iterdir())
    for command in ("check", "baseline"):
        result = cli(command, "--cache-dir", "", cwd=root)
        assert (result.status, result.stdout, len(result.stderr.splitlines())) == (2, "", 1), command
        assert result.stderr.startswith(
            "domain-fence: error: Invalid value for '--cache-dir': an empty path; name a directory, or use --no-cache"
        )
    assert sorted(path.name for path in root.iterdir()) == before


def test_read_only_cache_directories_are_done_without(tmp_path):
    root = leaky(tmp_path)
    settled(root)
    caches = [root / ".import_linter_cache", root / ".domain_fence_cache"]
    for cache in caches:
        cache.mkdir()
        cache.chmod(0o555)
    command = [str(BIN / "domain-fence"), "check", "--quiet"]
    if os.geteuid() == 0:  # root writes anywhere: drop that power
        if shutil.which("setpriv") is None:
            pytest.skip("running as root without setpriv to drop CAP_DAC_OVERRIDE")
        command = ["setpriv", "--inh-caps=-dac_override", "--bounding-set=-dac_override", *command]
    completed = subprocess.run(command, cwd=root, capture_output=True, text=True, timeout=120)
    for cache in caches:
        cache.chmod(0o755)
    assert (completed.returncode, completed.stdout, completed.stderr) == (1, LEAK + LAYERS_LEAK, "")
    assert [list(cache.iterdir()) for cache in caches] == [[], []]


def test_two_processes_writing_the_baseline_and_the_caches_at_once(tmp_path):
    root = leaky(tmp_path)
    settled(root)  # so that both write the fact cache too
    baseline = root / BASELINE
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    for attempt in range(6):
        baseline.unlink(missing_ok=True)
        for cache in (root / ".import_linter_cache", root / ".domain_fence_cache"):
            shutil.rmtree(cache, ignore_errors=True)
        writers = [
            subprocess.Popen(
                [str(BIN / "domain-fence"), "baseline"],
                cwd=root,
                env=environment,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
            for _ in range(2)
        ]
        outcomes = [(w.wait(timeout=120), w.stderr.read()) for w in writers]
        for writer in writers:
            writer.stdout.close()
            writer.stderr.close()
        assert outcomes == [(0, b""), (0, b"")], attempt
        document = json.loads(baseline.read_text(encoding="utf-8"))
        assert [(e["contract"], e["fingerprint"]) for e in document["entries"]] == [
            ("boundary", "boundary:app.runtime.leak->app.experiment.setup")
        ], attempt
        assert sorted((root / ".domain_fence_cache").rglob("*.pickle")), attempt
    assert sorted(p.name for p in root.iterdir() if p.name.startswith(".baseline-")) == []  # no temporary left
    assert cli("check", "--quiet", cwd=root) == Result(1, LAYERS_LEAK, "")


def test_lint_imports_breaks_a_boundary_contract_left_with_nothing_to_check(tmp_path):
    root = project(tmp_path)
    edit_config(root, "forbidden_modules =\n    app.experiment\n", "forbidden_modules =\n    app\n")
    result = lint_imports(cwd=root)
    assert result.status == 1
    assert "source_modules: no module is left to check once forbidden_modules and exclude_modules" in result.stdout


def test_lint_imports_breaks_vocabulary_and_placement_contracts_that_cannot_break(tmp_path):
    root = project(tmp_path)
    edit_config(root, "allowed_modules =\n    app.experiment\n", "allowed_modules =\n    app\n")
    edit_config(
        root,
        "modules =\n    app.runtime\nevent_bases",
        "modules =\n    app.runtime\nexclude_modules =\n    app.runtime\nevent_bases",
    )
    result = lint_imports(cwd=root)
    assert result.status == 1
    assert "exclude_modules: no module is left to check once they are taken out of modules" in result.stdout
    assert "allowed_modules: every module of the root packages is allowed" in result.stdout
