"""import-linter's own contract types in `domain-fence check`: each offending import is
a DOM303 finding at its first import, and a broken contract with no import to point at
is reported at its section of the configuration with its own report attached."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import domain_fence

FILES = {
    "app/__init__.py": "",
    "app/a/__init__.py": "",
    "app/a/one.py": "from app.b import two\n",
    "app/b/__init__.py": "",
    "app/b/two.py": "import app.a.one\n",
    "app/b/_secret.py": "",
    "app/c.py": "from app.b import _secret\nimport app.a\n",
}

CONFIG = """\
[importlinter]
root_package = app

[importlinter:contract:siblings-independent]
name = a and b are independent
type = independence
modules =
    app.a
    app.b

[importlinter:contract:only-a-uses-b]
name = Only a imports b
type = protected
protected_modules =
    app.b
allowed_importers =
    app.a

[importlinter:contract:private]
name = Private modules stay private
type = private_modules

[importlinter:contract:no-cycles]
name = No cycles between the children of app
type = acyclic_siblings
ancestors =
    app
broken_contract_guidance = Break the cycle at the import that matters least.

[importlinter:contract:all-layers-named]
name = Every child of app is a layer
type = layers
containers =
    app
layers =
    a
    b
exhaustive = true
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    for name, text in FILES.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    (tmp_path / ".importlinter").write_text(CONFIG)
    return tmp_path


def test_every_built_in_type_is_reported_with_locations(project):
    result = domain_fence("check", "--format", "json", cwd=project)
    assert result.returncode == 1, result.stderr
    contracts = {c["id"]: c for c in json.loads(result.stdout)["contracts"]}
    assert {c["id"]: c["kept"] for c in contracts.values()} == {
        "siblings-independent": False,
        "only-a-uses-b": False,
        "private": False,
        "no-cycles": False,
        "all-layers-named": False,
    }

    def located(contract: str) -> list[tuple[str, int, str]]:
        return [(f["path"], f["line"], f["message"]) for f in contracts[contract]["findings"]]

    assert all(f["code"] == "DOM303" for c in contracts.values() for f in c["findings"])
    assert located("siblings-independent") == [
        ("app/a/one.py", 1, "independence contract 'siblings-independent' broken: app.a.one imports app.b.two"),
        ("app/b/two.py", 1, "independence contract 'siblings-independent' broken: app.b.two imports app.a.one"),
    ]
    assert located("only-a-uses-b") == [
        ("app/c.py", 1, "protected contract 'only-a-uses-b' broken: app.c imports app.b._secret"),
    ]
    assert located("private") == [
        ("app/c.py", 1, "private_modules contract 'private' broken: app.c imports app.b._secret")
    ]
    assert located("all-layers-named") == [
        ("app/b/two.py", 1, "layers contract 'all-layers-named' broken: app.b.two imports app.a.one"),
        ("app/c.py", 1, "layers contract 'all-layers-named' broken: app.c is not listed as a layer"),
    ]
    [cycle] = contracts["no-cycles"]["findings"]
    assert (cycle["path"], cycle["line"]) == (".importlinter", 23)  # its section
    assert cycle["message"] == "acyclic_siblings contract 'no-cycles' broken: see its report"
    assert "No cycles are allowed in app." in cycle["details"]


def test_text_shows_the_contract_guidance(project):
    result = domain_fence("check", cwd=project)
    lines = result.stdout.splitlines()
    start = lines.index("No cycles between the children of app [no-cycles: acyclic_siblings] BROKEN")
    assert "  Break the cycle at the import that matters least." in lines[start:]
