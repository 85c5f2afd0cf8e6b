"""What the language server does when the analysis fails, or cannot start."""

from __future__ import annotations

import builtins
import sys
import threading
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner
from lsprotocol import types
from pygls.workspace import TextDocument

from domain_fence.core.setup.presets import EDITOR_RECIPE
from domain_fence.integrations.cli import main
from domain_fence.integrations.lsp.analysis import Analysis, AnalysisError
from domain_fence.integrations.lsp.server import configuration_diagnostic, diagnostics_for

REPO = Path(__file__).resolve().parents[2]


class FailingAnalysis:
    def findings(self, path: Path, text: str) -> list:
        raise RecursionError("maximum recursion depth exceeded\nwhile resolving a base")


def test_a_failing_analysis_is_logged_and_shown_as_dom001(tmp_path: Path):
    logged: list[tuple[types.MessageType, str]] = []
    path = tmp_path / "module.py"
    document = TextDocument(path.as_uri(), "x = 1\n")
    (diagnostic,) = diagnostics_for(FailingAnalysis(), path, document, lambda kind, text: logged.append((kind, text)))
    assert diagnostic.code == "DOM001"
    assert diagnostic.message == "skipped: internal error: RecursionError: maximum recursion depth exceeded"
    assert logged == [
        (types.MessageType.Error, f"{path}: internal error: RecursionError: maximum recursion depth exceeded")
    ]


def test_lsp_without_pygls_is_one_line_and_status_2(monkeypatch: pytest.MonkeyPatch):
    real_import = builtins.__import__

    def without_pygls(name, *args, **kwargs):
        if name.startswith("pygls"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return real_import(name, *args, **kwargs)

    monkeypatch.delitem(sys.modules, "domain_fence.integrations.lsp.server", raising=False)
    monkeypatch.setattr(builtins, "__import__", without_pygls)
    result = CliRunner().invoke(main, ["lsp"])
    assert result.exit_code == 2
    command = "pip install 'pygls>=2.1,<3' 'lsprotocol>=2025'"
    assert result.output == f"domain-fence: error: the language server needs pygls (the lsp extra): {command}\n"
    # What it says to install is the lsp extra, which the README and init's recipe name too.
    extra = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]["lsp"]
    assert command == "pip install " + " ".join(f"'{requirement}'" for requirement in extra)
    assert command in (REPO / "README.md").read_text() and command in " ".join(EDITOR_RECIPE)


INI_HEAD = "[importlinter]\nroot_package = pkg\n"
BOUNDARY = "type = boundary\nsource_modules =\n    pkg\nforbidden_modules =\n    pkg.{missing}\n"
TOML_HEAD = '[tool.black]\nline-length = 88\n\n[tool.importlinter]\nroot_packages = ["pkg"]\n'
TOML_CONTRACT = (
    '\n[[tool.importlinter.contracts]]\nname = "{name}"\ntype = "boundary"\n'
    'source_modules = ["pkg"]\nforbidden_modules = ["pkg.{missing}"]\n'
)
CONTRACT_TYPES = "boundary: domain_fence.integrations.importlinter.BoundaryContract"


def project_problem(tmp_path: Path, name: str, text: str) -> tuple[Path, str]:
    """The configuration written into a one-package project, and what the language
    server's analysis says of it (reading, or checking it against the project)."""
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "src" / "pkg" / "__init__.py").write_text("")
    (tmp_path / "src" / "pkg" / "here.py").write_text("")
    config = tmp_path / name
    config.write_text(text)
    with pytest.raises(AnalysisError) as raised:
        Analysis(config)
    return config, str(raised.value)


@pytest.mark.parametrize(
    ("name", "text", "row"),
    [
        # A section given twice, on a line configparser pads to two digits: "[line  9]".
        (
            ".importlinter",
            INI_HEAD + "\n[importlinter:contract:a]\nname = A\n" + "\n[importlinter:contract:a]\n",
            6,
        ),
        (".importlinter", INI_HEAD + "\n".join(f"# {n}" for n in range(20)) + "\n[importlinter]\n", 22),
        # "(at end of document)": at the last line holding anything.
        ("pyproject.toml", TOML_HEAD + "\n[tool.importlinter.x]\nbroken = [1,\n\n", 7),
        ("pyproject.toml", TOML_HEAD + 'oops = "\n', 5),  # "(at line 6, column 8)"
        # A contract naming a module the project lacks: at its section, its table.
        (
            ".importlinter",
            INI_HEAD
            + f"contract_types =\n    {CONTRACT_TYPES}\n\n[importlinter:contract:fine]\nname = Fine\n"
            + BOUNDARY.format(missing="here")
            + "\n[importlinter:contract:bad]\nname = Bad\n"
            + BOUNDARY.format(missing="gone"),
            13,
        ),
        (
            "pyproject.toml",
            TOML_HEAD.replace('["pkg"]\n', f'["pkg"]\ncontract_types = ["{CONTRACT_TYPES}"]\n')
            + TOML_CONTRACT.format(name="It's fine", missing="here")
            + TOML_CONTRACT.format(name="Not so", missing="gone"),
            13,
        ),
        # Written with a byte order mark, a comment after a table's header, spaces in it.
        (
            "pyproject.toml",
            "\ufeff"
            + TOML_HEAD.replace('["pkg"]\n', f'["pkg"]\ncontract_types = ["{CONTRACT_TYPES}"]\n')
            + TOML_CONTRACT.format(name="Fine", missing="here")
            + TOML_CONTRACT.format(name="Not so", missing="gone").replace(
                "[[tool.importlinter.contracts]]", "[[ tool.importlinter.contracts ]]  # the new one"
            ),
            13,
        ),
        (
            ".importlinter",
            INI_HEAD
            + f"contract_types =\n    {CONTRACT_TYPES}\n\n[importlinter:contract:bad] ; new\nname = Bad\n"
            + BOUNDARY.format(missing="gone"),
            5,
        ),
        # configparser's errors whose line is on the second line of its message.
        ("setup.cfg", "[flake8]\nmax-line-length = 100\nextend-ignore\n\n" + INI_HEAD, 2),
        (".importlinter", "# a comment\n\nstray text\n" + INI_HEAD, 2),
        # The session options of a pyproject.toml: at [tool.importlinter].
        ("pyproject.toml", TOML_HEAD.replace('root_packages = ["pkg"]', 'root_packages = "pkg"'), 3),
        (  # the engine's "[tool.importlinter] root_packages: cannot find ..."
            "pyproject.toml",
            TOML_HEAD.replace('["pkg"]\n', f'["nowhere"]\ncontract_types = ["{CONTRACT_TYPES}"]\n')
            + TOML_CONTRACT.format(name="Fine", missing="here"),
            3,
        ),
        # A contract with neither name nor id: by its number.
        (
            "pyproject.toml",
            TOML_HEAD.replace('["pkg"]\n', f'["pkg"]\ncontract_types = ["{CONTRACT_TYPES}"]\n')
            + TOML_CONTRACT.format(name="Fine", missing="here")
            + TOML_CONTRACT.format(name="", missing="gone").replace('name = ""\n', ""),
            13,
        ),
        # The session options' table written with spaces and a comment, after others.
        (
            "pyproject.toml",
            TOML_HEAD.replace("[tool.importlinter]", "[ tool . importlinter ]  # ours").replace(
                '["pkg"]\n', f'["nowhere"]\ncontract_types = ["{CONTRACT_TYPES}"]\n'
            )
            + TOML_CONTRACT.format(name="Fine", missing="here"),
            3,
        ),
        # setup.cfg: [importlinter] below other tools' sections, and an indented one inside
        # a value above it (configparser reads that as the value's next line).
        (
            "setup.cfg",
            "[flake8]\nper-file-ignores =\n    [importlinter]\n    x.py: E1\n\n"
            + INI_HEAD.replace("root_package = pkg", "root_package = nowhere")
            + f"contract_types =\n    {CONTRACT_TYPES}\n\n[importlinter:contract:fine]\nname = Fine\n"
            + BOUNDARY.format(missing="here"),
            5,
        ),
        # Two contracts with one id: at the second (import-linter itself would run both).
        (
            "pyproject.toml",
            TOML_HEAD.replace('["pkg"]\n', f'["pkg"]\ncontract_types = ["{CONTRACT_TYPES}"]\n')
            + TOML_CONTRACT.format(name="One", missing="here").replace('name = "One"', 'id = "same"\nname = "One"')
            + TOML_CONTRACT.format(name="Two", missing="here").replace('name = "Two"', 'id = "same"\nname = "Two"'),
            14,
        ),
        (
            "pyproject.toml",
            TOML_HEAD.replace('["pkg"]\n', f'["pkg"]\ncontract_types = ["{CONTRACT_TYPES}"]\n')
            + TOML_CONTRACT.format(name="A", missing="here").replace('name = "A"', 'id = "same"\nname = "A"')
            + TOML_CONTRACT.format(name="A", missing="here").replace('name = "A"', 'id = "same"\nname = "A"'),
            14,
        ),
        # The repeating contract shares its name with a later one that repeats nothing.
        (
            "pyproject.toml",
            TOML_HEAD.replace('["pkg"]\n', f'["pkg"]\ncontract_types = ["{CONTRACT_TYPES}"]\n')
            + TOML_CONTRACT.format(name="A", missing="here").replace('name = "A"', 'id = "x"\nname = "A"')
            + TOML_CONTRACT.format(name="B", missing="here").replace('name = "B"', 'id = "x"\nname = "B"')
            + TOML_CONTRACT.format(name="B", missing="here").replace('name = "B"', 'id = "y"\nname = "B"'),
            14,
        ),
    ],
)
def test_a_configuration_problem_is_shown_where_the_fix_goes(tmp_path: Path, name: str, text: str, row: int):
    config, problem = project_problem(tmp_path, name, text)
    diagnostic = configuration_diagnostic(config, problem)
    assert (diagnostic.range.start.line, diagnostic.range.end.line) == (row, row), text.splitlines()[row]
    assert diagnostic.range.end.character == len(text.removeprefix("\ufeff").splitlines()[row])
    assert diagnostic.message == "configuration cannot be used: " + problem.replace(f"{config}: ", "")


def test_a_form_feed_is_no_line_break_for_the_editor(tmp_path: Path):
    text = INI_HEAD + "# page\x0cbreak\n\n[importlinter:contract:a]\nname = A\n\n[importlinter:contract:a]\n"
    config, problem = project_problem(tmp_path, ".importlinter", text)
    diagnostic = configuration_diagnostic(config, problem)
    assert diagnostic.range.start.line == 7
    assert diagnostic.range.end.character == len("[importlinter:contract:a]")


def test_a_line_named_by_a_problem_that_is_not_the_readers_moves_nothing(tmp_path: Path):
    config = tmp_path / ".importlinter"
    config.write_text(INI_HEAD + "\n[importlinter:contract:a]\nname = A [line 2]\n")
    problem = f"{config}: [importlinter:contract:a] name = A [line 2]: something else is wrong"
    assert configuration_diagnostic(config, problem).range.start.line == 3


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("tool = 1\n", "[[tool.importlinter.contracts]] 'B' source_modules: gone"),
        ('[tool]\nimportlinter = "x"\n', "[[tool.importlinter.contracts]] 'B' source_modules: gone"),
        ("[[tool.importlinter]]\n", "[[tool.importlinter.contracts]] 'B' source_modules: gone"),
        (  # TOML reads a hexadecimal integer of any length; repr refuses it
            "[[tool.importlinter.contracts]]\nname = 0x" + "f" * 4000 + "\n",
            "[[tool.importlinter.contracts]] 'B' source_modules: gone",
        ),
        ("x = " + "[" * 3000 + "]" * 3000 + "\n", "[[tool.importlinter.contracts]] 'B' source_modules: gone"),
        ("n = " + "9" * 5000 + "\n", "[[tool.importlinter.contracts]] 'B' source_modules: gone"),
        ("[importlinter]\n", "cannot read configuration: [line " + "9" * 5000 + "]: beyond any file"),
        ("[importlinter]\n", "cannot read configuration: [line 99]: beyond this file"),
        ("", "[importlinter:contract:gone] name: changed since"),
    ],
)
def test_a_problem_older_than_the_file_is_shown_at_its_top(tmp_path: Path, text: str, problem: str):
    # The file changed since the problem was found (a file-watch notice not yet handled).
    config = tmp_path / ("pyproject.toml" if "tool" in problem else ".importlinter")
    config.write_text(text)
    assert configuration_diagnostic(config, f"{config}: {problem}").range.start.line == 0


def test_a_configuration_that_is_a_fifo_is_shown_without_reading_it(tmp_path: Path):
    import os

    config = tmp_path / "setup.cfg"
    os.mkfifo(config)  # read, it would block until a writer came
    problem = f"{config}: cannot read configuration: not a regular file (a FIFO, device or socket)"
    shown: list[types.Diagnostic] = []
    # In a thread, so that reading the FIFO (a regression) fails the test instead of hanging the suite.
    worker = threading.Thread(target=lambda: shown.append(configuration_diagnostic(config, problem)), daemon=True)
    worker.start()
    worker.join(timeout=30)
    assert shown, "the diagnostic was not made within 30 s: the FIFO was read"
    assert shown[0].range.start.line == 0 and shown[0].message.endswith(problem.removeprefix(f"{config}: "))
