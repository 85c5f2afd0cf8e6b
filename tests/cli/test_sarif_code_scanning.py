"""`check --format sarif` as GitHub code scanning reads it: the SARIF 2.1.0 schema, and
each of GitHub's documented requirements checked on its own, on a project whose
configuration sits in a subdirectory of a git checkout, with baselined and new
findings on lines holding non-ASCII text.

GitHub's requirements, from "SARIF support for code scanning"
(docs.github.com/en/code-security/code-scanning/integrating-with-code-scanning/sarif-support-for-code-scanning),
are the entries of REQUIREMENTS below.
"""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import jsonschema
import pytest
from cli_support import REPO, domain_fence, git, write_tree

from domain_fence.core.model.findings import Finding
from domain_fence.core.model.report import ContractResult, Report
from domain_fence.integrations.reporters import RenderOptions, sarif

SCHEMA = json.loads((REPO / "tests" / "data" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
SUBDIRECTORY = "services/app"

CONFIG = """\
[importlinter]
root_package = app
contract_types =
    boundary: domain_fence.integrations.importlinter.BoundaryContract
    vocabulary: domain_fence.integrations.importlinter.VocabularyContract

[importlinter:contract:runtime-knows-no-experiment]
name = Runtime does not import experiment code
type = boundary
source_modules =
    app.runtime
forbidden_modules =
    app.experiment

[importlinter:contract:runtime-events-speak-runtime]
name = Runtime events carry no experiment vocabulary
type = vocabulary
modules =
    app.runtime
event_bases =
    app.runtime.telemetry.TelemetrySchema
words =
    episode
"""

RECORDED = {
    ".importlinter": CONFIG,
    "app/__init__.py": "",
    "app/experiment/__init__.py": "",
    "app/experiment/modes.py": "TRAIN = True\n",
    "app/runtime/__init__.py": "",
    "app/runtime/legacy.py": '"""Héritage."""\nfrom app.experiment import modes  # déjà là\n',
    "app/runtime/telemetry.py": (
        '"""Événements du runtime."""\n\n\nclass TelemetrySchema:\n    KIND = ""\n\n\n'
        'class Mesuré(TelemetrySchema):\n    KIND = "mesuré"\n    étape: int = 0; episode: int = 0\n'
    ),
}
# Added after the baseline was recorded: new findings after non-ASCII text on their line,
# one of them in a file whose name needs percent-encoding.
NEW = {
    "app/runtime/modèle.py": (
        '"""Modèle."""\n\n\ndef f():\n    from app.experiment import modes  # 🚀 ici\n    return modes\n'
    ),
}
COUNTED = "\n\nclass Compté(TelemetrySchema):\n    été: int = 0; episode_total: int = 0\n"


@pytest.fixture(scope="module")
def checkout(tmp_path_factory) -> Path:
    top = tmp_path_factory.mktemp("sarif") / "checkout"
    project = top / SUBDIRECTORY
    write_tree(project, RECORDED)
    git("init", "-q", cwd=top)
    recorded = domain_fence("baseline", cwd=project)
    assert recorded.returncode == 0, recorded.stderr
    write_tree(project, NEW)
    with (project / "app/runtime/telemetry.py").open("a", encoding="utf-8") as handle:
        handle.write(COUNTED)
    git("add", "-A", cwd=top)
    git("commit", "-q", "-m", "fixture", cwd=top)
    return top


def code_scanning_log(checkout: Path, *args: str) -> dict[str, Any]:
    result = domain_fence("check", "--format", "sarif", *args, cwd=checkout / SUBDIRECTORY)
    assert result.returncode == 1, result.stderr
    return json.loads(result.stdout)


# -- GitHub's requirements, one check each ---------------------------------------------

LEVELS = {"none", "note", "warning", "error"}
URI_CHARACTERS = re.compile(r"(?:[A-Za-z0-9\-._~/!$&'()*+,;=@]|%[0-9A-F]{2})+")


def top_level_version(log: dict[str, Any], top: Path) -> None:
    """`version` is 2.1.0 and `$schema` names the 2.1.0 schema."""
    assert log["version"] == "2.1.0"
    assert log["$schema"].endswith("sarif-schema-2.1.0.json")


def at_most_twenty_runs(log: dict[str, Any], top: Path) -> None:
    """An upload holds at most 20 runs (one per tool and category)."""
    assert 1 <= len(log["runs"]) <= 20


def driver_named(log: dict[str, Any], top: Path) -> None:
    """`tool.driver.name` is required; `semanticVersion` is in the Semantic Versioning format."""
    for run in log["runs"]:
        driver = run["tool"]["driver"]
        assert driver["name"] == "domain-fence"
        assert re.fullmatch(r"\d+\.\d+\.\d+(?:[-+].+)?", driver["semanticVersion"])


def rules_described(log: dict[str, Any], top: Path) -> None:
    """Each rule: a unique `id`, `shortDescription.text`, `fullDescription.text`, `help.text`,
    `defaultConfiguration.level` among note/warning/error; at most 25,000 rules; at most
    20 tags a rule (GitHub shows 10)."""
    for run in log["runs"]:
        rules = run["tool"]["driver"]["rules"]
        assert len(rules) <= 25_000
        assert len({r["id"] for r in rules}) == len(rules)
        for r in rules:
            assert r["shortDescription"]["text"] and r["fullDescription"]["text"] and r["help"]["text"]
            assert r["defaultConfiguration"]["level"] in {"note", "warning", "error"}
            assert len(r.get("properties", {}).get("tags", [])) <= 10


def results_reference_rules(log: dict[str, Any], top: Path) -> None:
    """Each result: `ruleId` of a rule of the driver (and `ruleIndex` pointing at it),
    `message.text`, a valid `level`; at most 25,000 results a run."""
    for run in log["runs"]:
        rules = run["tool"]["driver"]["rules"]
        assert len(run["results"]) <= 25_000
        for result in run["results"]:
            assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
            assert result["message"]["text"]
            assert result["level"] in LEVELS


def one_physical_location(log: dict[str, Any], top: Path) -> None:
    """Each result has at least one location and at most 1,000 (GitHub shows the first)."""
    for run in log["runs"]:
        for result in run["results"]:
            assert 1 <= len(result["locations"]) <= 1000
            assert "physicalLocation" in result["locations"][0]


def uris_relative_to_the_repository(log: dict[str, Any], top: Path) -> None:
    """`artifactLocation.uri` is relative to the repository root (GitHub ignores
    `uriBaseId`), percent-encoded, and names a file of the checkout."""
    for location in _locations(log):
        uri = location["artifactLocation"]["uri"]
        assert URI_CHARACTERS.fullmatch(uri), uri
        assert not uri.startswith("/") and ":" not in uri.split("/")[0]
        assert (top / unquote(uri)).is_file(), uri


def regions_well_formed(log: dict[str, Any], top: Path) -> None:
    """`region.startLine` >= 1; `startColumn`, `endLine`, `endColumn` 1-based, the end
    after the start, within the file's lines."""
    for location in _locations(log):
        region = location["region"]
        lines = _lines(top / unquote(location["artifactLocation"]["uri"]))
        assert 1 <= region["startLine"] <= region.get("endLine", region["startLine"]) <= len(lines)
        if "endColumn" in region:
            assert region["endLine"] > region["startLine"] or region["endColumn"] > region["startColumn"] >= 1
            assert region["endColumn"] <= _utf16_length(lines[region["endLine"] - 1]) + 1


def utf16_columns(log: dict[str, Any], top: Path) -> None:
    """`columnKind` is `utf16CodeUnits`, the kind GitHub assumes, and columns count so."""
    for run in log["runs"]:
        assert run["columnKind"] == "utf16CodeUnits"


def fingerprints_are_strings(log: dict[str, Any], top: Path) -> None:
    """`partialFingerprints` maps names to strings (GitHub adds its own line hash)."""
    for run in log["runs"]:
        for result in run["results"]:
            assert all(isinstance(value, str) for value in result.get("partialFingerprints", {}).values())


def nothing_suppressed(log: dict[str, Any], top: Path) -> None:
    """GitHub ignores `suppressions` and `baselineState`: a baselined finding would be an
    open alert, so none is uploaded."""
    for run in log["runs"]:
        for result in run["results"]:
            assert "suppressions" not in result and result["baselineState"] != "unchanged"


def small_enough(log: dict[str, Any], top: Path) -> None:
    """An upload is at most 10 MB gzip-compressed."""
    assert len(gzip.compress(json.dumps(log).encode("utf-8"))) <= 10 * 1024 * 1024


REQUIREMENTS: list[Callable[[dict[str, Any], Path], None]] = [
    top_level_version,
    at_most_twenty_runs,
    driver_named,
    rules_described,
    results_reference_rules,
    one_physical_location,
    uris_relative_to_the_repository,
    regions_well_formed,
    utf16_columns,
    fingerprints_are_strings,
    nothing_suppressed,
    small_enough,
]


def _locations(log: dict[str, Any]) -> list[dict[str, Any]]:
    return [r["locations"][0]["physicalLocation"] for run in log["runs"] for r in run["results"]]


def _lines(path: Path) -> list[str]:
    return re.split(r"\r\n|\r|\n", path.read_text(encoding="utf-8"))


def _utf16_length(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def _utf16_slice(text: str, start: int, end: int | None = None) -> str:
    """``text`` from 1-based UTF-16 column ``start`` to the column before ``end``."""
    units = text.encode("utf-16-le")
    stop = None if end is None else (end - 1) * 2
    return units[(start - 1) * 2 : stop].decode("utf-16-le")


# -- the tests ---------------------------------------------------------------------------


def test_the_log_validates_against_the_sarif_schema(checkout):
    jsonschema.validate(code_scanning_log(checkout), SCHEMA)
    jsonschema.validate(code_scanning_log(checkout, "--verbose"), SCHEMA)


@pytest.mark.parametrize("requirement", REQUIREMENTS, ids=lambda r: r.__name__)
def test_github_requirement(checkout, requirement):
    requirement(code_scanning_log(checkout), checkout)


def test_only_the_new_findings_are_uploaded_at_their_tokens(checkout):
    log = code_scanning_log(checkout)
    located = {}
    for result in log["runs"][0]["results"]:
        location = result["locations"][0]["physicalLocation"]
        located[result["ruleId"], location["artifactLocation"]["uri"]] = location["region"]
    assert set(located) == {
        ("DOM301", f"{SUBDIRECTORY}/app/runtime/mod%C3%A8le.py"),
        ("DOM101", f"{SUBDIRECTORY}/app/runtime/telemetry.py"),
    }
    # The columns, counted in UTF-16 code units on the real line, land on the tokens.
    field = located["DOM101", f"{SUBDIRECTORY}/app/runtime/telemetry.py"]
    line = _lines(checkout / SUBDIRECTORY / "app/runtime/telemetry.py")[field["startLine"] - 1]
    assert line == "    été: int = 0; episode_total: int = 0"
    assert _utf16_slice(line, field["startColumn"]).startswith("episode_total")
    assert "episode_total".startswith(_utf16_slice(line, field["startColumn"], field["endColumn"]) or "-")
    imported = located["DOM301", f"{SUBDIRECTORY}/app/runtime/mod%C3%A8le.py"]
    line = _lines(checkout / SUBDIRECTORY / "app/runtime/modèle.py")[imported["startLine"] - 1]
    covered = _utf16_slice(line, imported["startColumn"], imported["endColumn"])
    assert line == "    from app.experiment import modes  # 🚀 ici"
    assert covered and "modes".startswith(covered)  # the module imported, the 🚀 after it not counted


def test_verbose_keeps_the_baselined_findings_as_suppressed_unchanged_results(checkout):
    results = code_scanning_log(checkout, "--verbose")["runs"][0]["results"]
    unchanged = sorted(
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results if "suppressions" in r
    )
    assert unchanged == [f"{SUBDIRECTORY}/app/runtime/legacy.py", f"{SUBDIRECTORY}/app/runtime/telemetry.py"]
    assert all(r["baselineState"] == "unchanged" for r in results if "suppressions" in r)
    assert code_scanning_log(checkout, "--verbose")["runs"][0]["originalUriBaseIds"] == {
        "SRCROOT": {"uri": checkout.resolve().as_uri() + "/"}
    }


# -- regions and the driver, on hand-built findings --------------------------------------


def finding(line: int, col: int, end_line: int = 0, end_col: int = 0, code: str = "DOM101") -> Finding:
    return Finding("m.py", line, col, code, "event field", "m.S.f", f"{code}:m:S.f", "c", (), end_line, end_col)


def region_of(tmp_path: Path, text: str, f: Finding) -> dict[str, int]:
    (tmp_path / "m.py").write_text(text, encoding="utf-8")
    return sarif.Locator(tmp_path, tmp_path).region(f)


def test_a_known_end_is_converted_from_characters_to_utf16_units(tmp_path):
    line = "x = '🚀é'; episode = 1"
    start = line.index("episode")
    region = region_of(tmp_path, line + "\n", finding(1, start, 1, start + len("episode")))
    assert region == {"startLine": 1, "startColumn": 12, "endLine": 1, "endColumn": 19}
    assert _utf16_slice(line, 12, 19) == "episode"


def test_a_region_may_span_lines(tmp_path):
    region = region_of(tmp_path, "é = f(\n    a,\n)\n", finding(1, 0, 3, 1))
    assert region == {"startLine": 1, "startColumn": 1, "endLine": 3, "endColumn": 2}


def test_an_unknown_end_covers_the_statement_or_one_character(tmp_path):
    # A file that cannot be analysed (DOM001) and a stale entry (DOM002) are about a
    # line: from column 1, as the other formats say, to the end of its text.
    assert region_of(tmp_path, "    import x  \n", finding(1, 0, code="DOM001")) == {
        "startLine": 1,
        "startColumn": 1,
        "endLine": 1,
        "endColumn": 13,
    }
    entry = '      "fingerprint": "boundary:a->b"\n'
    for code in ("DOM002", "DOM003"):  # a baseline entry: stale, or added since a review's revision
        assert region_of(tmp_path, entry, finding(1, 0, code=code)) == {
            "startLine": 1,
            "startColumn": 1,
            "endLine": 1,
            "endColumn": len(entry),
        }
    assert region_of(tmp_path, "é = '🚀'\n", finding(1, 5)) == {
        "startLine": 1,
        "startColumn": 6,
        "endLine": 1,
        "endColumn": 8,
    }


def test_an_unknown_end_covers_a_definition_a_string_or_a_dotted_name(tmp_path):
    text = 'class Ép(E):\n    kind = "post_é"\n    def f(self): self.episode_x = 1\n'
    spans = {
        (1, 0): "class Ép",  # at column 0, a token as anywhere else (the editor shows it so)
        (2, 11): '"post_é"',
        (3, 4): "def f",
        (3, 17): "self.episode_x",
    }
    for (line, col), token in spans.items():
        region = region_of(tmp_path, text, finding(line, col))
        source = text.splitlines()[line - 1]
        assert _utf16_slice(source, region["startColumn"], region["endColumn"]) == token, (line, col)


def test_no_columns_when_the_line_cannot_be_read(tmp_path):
    (tmp_path / "m.py").write_bytes(b"\xff\xfe not utf-8\n")
    assert sarif.Locator(tmp_path, tmp_path).region(finding(1, 3)) == {"startLine": 1}
    assert sarif.Locator(tmp_path, tmp_path).region(finding(7, 3)) == {"startLine": 7}


def test_project_urls_give_information_and_help_uris(monkeypatch):
    urls = {"homepage": "https://example.org/domain-fence", "documentation": "https://example.org/docs#top"}
    monkeypatch.setattr(sarif, "project_urls", lambda: urls)
    report = Report("/nowhere", ".importlinter", (ContractResult("c", "C", "vocabulary", False, (finding(1, 0),)),))
    driver = sarif.document(report, RenderOptions(), Path("/nowhere"))["runs"][0]["tool"]["driver"]
    assert driver["informationUri"] == "https://example.org/domain-fence"
    dom101 = next(r for r in driver["rules"] if r["id"] == "DOM101")
    assert dom101["helpUri"].startswith("https://example.org/docs#dom101-")
    jsonschema.validate(sarif.document(report, RenderOptions(), Path("/nowhere")), SCHEMA)


def test_a_finding_at_a_line_start_covers_its_name_as_in_the_editor(tmp_path):
    text = "post_episode = functools.partial(print, 1)\n"
    region = region_of(tmp_path, text, finding(1, 0, code="DOM201"))
    assert _utf16_slice(text, region["startColumn"], region["endColumn"]) == "post_episode"
