"""The import statements a boundary finding is placed at, each parsed alone, give the
facts the whole file's walk gives at those lines: on every Python file of the
repository (sources, fixtures, the distilled Monty tree), on a module written to hold
every form an import statement takes, and on generated modules with import statements
put before any of their lines. A statement that cannot be parsed alone sends the
caller to the whole file, never to a wrong place."""

from __future__ import annotations

import ast
import re
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import NEWER_SYNTAX, PARSES_NEWER_SYNTAX, REPO

from domain_fence.core.source.facts import extract
from domain_fence.core.source.reading import decode, parse_source
from domain_fence.core.source.statements import statement_imports

FORMS = '''\
"""A docstring that says import nothing."""
import os
import os.path as osp, sys
from . import sibling
from .. import parent
from .sub import (
    first,
    second as renamed,
)
from pkg.mod import *
x = 1; import json; from collections import abc
if x:
    import re
else:
    import glob
try:
    import tomllib
except ImportError:  # pragma: no cover
    tomllib = None


def function():
    from typing import TYPE_CHECKING
    if TYPE_CHECKING: import decimal
    import \\
        fractions


class Holder:
    from itertools import (chain,
                           islice)
    value = "import not_an_import"
'''


IMPORTS = (
    "import os",
    "import os.path as p, sys",
    "from . import sibling",
    "from ..up import (a,\n    b as c)",
    "from x import *",
    "y = 1; import json",
    "import \\\n    fractions",
)


def whole_file_imports(module: str, is_package: bool, tree: ast.Module) -> list:
    facts = extract(module, is_package, tree)[0]
    return sorted((fact._replace(type_checking=False) for fact in facts.imports), key=lambda f: (f.at_line, f.col))


def compare(module: str, is_package: bool, text: str) -> bool | None:
    """True: the statements alone give the whole file's facts; None: one could not be
    parsed alone; no comparison for a file Python cannot parse whole."""
    tree = parse_source(text)
    if not isinstance(tree, ast.Module):
        return None
    whole = whole_file_imports(module, is_package, tree)
    alone = statement_imports(module, is_package, text, {fact.line for fact in whole})
    if alone is None:
        return None
    assert alone == whole, module
    return True


def test_every_form_of_import_statement():
    assert compare("pkg.sub.mod", False, FORMS) is True


def test_the_same_in_a_package_module_with_windows_line_ends():
    assert compare("pkg.sub", True, FORMS.replace("\n", "\r\n")) is True


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("if x:\n    pass\nelse: import os\n", 3),  # a clause's body on its line
        ("x = (1,\n     2); import os\n", 2),  # starts inside another logical line
    ],
)
def test_a_statement_that_cannot_stand_alone_sends_the_caller_to_the_whole_file(text, line):
    assert statement_imports("m", False, text, {line}) is None


def test_a_relative_import_above_the_top_level_package_sends_the_caller_to_the_whole_file():
    assert statement_imports("top", False, "from .. import x\n", {1}) is None


@pytest.mark.skipif(PARSES_NEWER_SYNTAX, reason="this Python parses every syntax grimp's parser reads")
def test_a_statement_of_a_file_python_cannot_parse_whole_is_still_placed():
    text = "import os\nfrom app.experiment import runner\n\n" + NEWER_SYNTAX
    assert not isinstance(parse_source(text), ast.Module)
    (fact,) = statement_imports("app.runtime.generic", False, text, {2})
    assert (fact.line, fact.col, fact.end_col, fact.source, fact.name) == (2, 27, 33, "app.experiment", "runner")


def repository_files() -> list[Path]:
    roots = [REPO / "src", REPO / "tests", REPO / "examples", REPO / "benchmarks", REPO / "scripts"]
    skipped = {"__pycache__", ".work", ".venv"}  # compiled, and the benchmarks' downloaded corpora
    return sorted(path for root in roots for path in root.rglob("*.py") if not skipped & set(path.parts))


def test_every_python_file_of_the_repository():
    compared = fell_back = 0
    for path in repository_files():
        text = decode(path.read_bytes())
        if not isinstance(text, str):
            continue
        outcome = compare(path.stem, path.name == "__init__.py", text)
        compared += outcome is True
        fell_back += outcome is None and isinstance(parse_source(text), ast.Module)
    assert compared >= 400
    assert fell_back <= compared // 50  # parsed alone nearly everywhere


@settings(max_examples=25, deadline=timedelta(seconds=20), database=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_generated_modules_with_imports_in_every_position(data):
    import hypothesmith

    lines = data.draw(hypothesmith.from_node(), label="module").splitlines(keepends=True)
    for statement in data.draw(st.lists(st.sampled_from(IMPORTS), min_size=1, max_size=4), label="imports"):
        # Before any line, indented as it is: at the top, in a function, a class, a branch.
        at = data.draw(st.integers(0, len(lines)), label="where")
        indent = re.match(r"[ \t]*", lines[at] if at < len(lines) else "").group()
        lines.insert(at, indent + statement.replace("\n", "\n" + indent) + "\n")
    assert compare("pkg.sub.mod", False, "".join(lines)) in (True, None)  # alone, never elsewhere
