"""The language server's analysis reports what flake8 reports: the same findings, at
the same lines and columns, with the same noqa comments honoured."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from lsp_support import BROKEN, copy_station

from domain_fence.integrations.lsp.analysis import Analysis


def flake8_dom(project: Path, target: str) -> subprocess.CompletedProcess[str]:
    """The real flake8 on ``target`` in ``project``, DOM codes only: it finds something."""
    flake8 = subprocess.run(
        [str(Path(sys.executable).parent / "flake8"), "--select", "DOM", target],
        cwd=project,
        capture_output=True,
        text=True,
    )
    assert flake8.returncode == 1, flake8.stderr
    return flake8


def test_the_server_and_flake8_report_the_same_lines(tmp_path: Path):
    project = copy_station(tmp_path)
    for name, text in BROKEN.items():
        (project / name).write_text(text)
    flake8 = flake8_dom(project, "station")
    analysis = Analysis(project / ".importlinter")
    served = sorted(
        f"./{finding.describe()}"
        for path in sorted((project / "station").rglob("*.py"))
        for finding in analysis.findings(path, path.read_text())
    )
    assert served == sorted(f"./{line}" if not line.startswith("./") else line for line in flake8.stdout.splitlines())
    assert {line.split()[1] for line in served} == {"DOM101", "DOM104", "DOM201", "DOM301"}


CENSUS = (
    "class Controller:\n"
    "    episode_limit = 3\n"
    "    model = None  # 'model' holds no word\n\n"
    "    def step(self, episode_count, target):\n"
    "        self.current_episode = episode_count\n\n\n"
    "def episode_summary(value, ground_episode):  # noqa: DOM112\n"
    "    return value\n\n\n"
    "class Slotted:\n"
    '    __slots__ = ("episode_total",)\n\n'
    "    def follow(self, items):\n"
    "        for self.episode in items:\n"
    "            pass\n"
)


def test_the_server_and_flake8_report_the_same_census(tmp_path: Path):
    """The wider scope (DOM111-DOM113) through the server's analysis and flake8: only
    the names holding a word, each once, at the same places."""
    project = copy_station(tmp_path)
    config = project / ".importlinter"
    config.write_text(
        config.read_text().replace(
            "words =\n    episode\n",
            "scope =\n    events\n    attributes\n    parameters\n    definitions\nwords =\n    episode\n",
        )
    )
    (project / "station/runtime/controller.py").write_text(CENSUS)
    flake8 = flake8_dom(project, "station/runtime/controller.py")
    path = project / "station/runtime/controller.py"
    found = Analysis(config).findings(path, CENSUS)
    reported = sorted(line.removeprefix("./") for line in flake8.stdout.splitlines())
    assert sorted(finding.describe() for finding in found) == reported
    # the attributes (a slot and a loop's target too), the parameter and the function
    # named with the word; not ``model``, ``target`` or the parameter whose noqa comment
    # silences it
    assert sorted((finding.line, finding.col, finding.code) for finding in found) == [
        (2, 4, "DOM111"),
        (5, 19, "DOM112"),
        (6, 8, "DOM111"),
        (9, 0, "DOM113"),
        (14, 17, "DOM111"),
        (17, 12, "DOM111"),
    ]


def test_every_diagnostic_range_covers_its_token(tmp_path: Path):
    # A name whose end the finding knows, and tokens whose end the line tells: a kind
    # string, a class and a function at their keyword, an attribute at its receiver.
    from pygls.workspace import TextDocument

    from domain_fence.integrations.lsp.server import diagnostic

    project = copy_station(tmp_path)
    config = project / ".importlinter"
    config.write_text(
        config.read_text().replace(
            "words =\n    episode\n", "scope =\n    events\n    attributes\n    definitions\nwords =\n    episode\n"
        )
    )
    path = project / "station/runtime/kinds.py"
    text = (
        "from station.runtime.telemetry import Event\n\n\n"
        "class Stepped(Event):\n"
        '    kind: str = "post_episode"\n'
        "    episode_count: int = 0\n\n\n"
        "class EpisodeDone(Event):\n"
        "    pass\n\n\n"
        "class Runner:\n"
        "    def __init__(self):\n"
        "        self.episode_total = 0\n\n"
        "    async  def pre_episode(self):\n"
        "        pass\n"
    )
    path.write_text(text)
    findings = Analysis(config).findings(path, text)
    document = TextDocument(path.as_uri(), text)
    lines = text.splitlines()
    covered = {}
    for finding in findings:
        r = diagnostic(finding, document).range
        assert r.start.line == r.end.line
        covered[finding.code] = lines[r.start.line][r.start.character : r.end.character]
    assert covered == {
        "DOM101": "episode_count",
        "DOM102": "class EpisodeDone",
        "DOM103": '"post_episode"',
        "DOM111": "self.episode_total",
        "DOM113": "async  def pre_episode",
    }


def test_a_buffer_holding_a_byte_order_mark_is_checked_as_its_file(tmp_path: Path):
    project = copy_station(tmp_path)
    for name, text in BROKEN.items():
        (project / name).write_text(text)
    path = project / "station/runtime/journal.py"
    analysis = Analysis(project / ".importlinter")
    found = [f.describe() for f in analysis.findings(path, "\ufeff" + path.read_text())]
    assert found == [f.describe() for f in analysis.findings(path, path.read_text())]
    assert [line.split()[1] for line in found] == ["DOM101"]


def test_the_noqa_quick_fix_goes_where_flake8_reads_it_and_keeps_the_code_valid():
    from pygls.workspace import TextDocument

    from domain_fence.core.engine.noqa import NoqaComments
    from domain_fence.integrations.lsp.server import noqa_edit

    cases = {  # the text, and the finding's line (0-based) the fix is asked for
        "a backslash continuation": ("e = Matched(step=1, episode=n) if x else \\\n    None\n", 0),
        "a string over lines": ('e = Matched(episode="""a\nb""")\n', 0),
        "a plain line": ("e = Matched(episode=n)\n", 0),
    }
    for case, (text, line) in cases.items():
        edit = noqa_edit(TextDocument("file:///t.py", text), line, "DOM104")
        assert edit is not None, case
        lines = text.splitlines(keepends=True)
        at = edit.range.start
        lines[at.line] = lines[at.line][: at.character] + edit.new_text + lines[at.line][at.character :]
        fixed = "".join(lines)
        compile(fixed, "t.py", "exec")  # still Python
        assert NoqaComments.of(fixed).suppresses(line + 1, "DOM104"), case
        assert fixed.replace("  # noqa: DOM104", "") == text, case  # and nothing else changed


def test_no_noqa_quick_fix_edits_a_string_flake8_reads_as_the_comment():
    from pygls.workspace import TextDocument

    from domain_fence.integrations.lsp.server import noqa_edit

    # flake8 reads the first noqa comment of a line, even inside a string: only editing the
    # string would change what it silences, so no fix is offered.
    in_string = 'c = Event(epoch=n, note="# noqa: DOM105")\n'
    assert noqa_edit(TextDocument("file:///t.py", in_string), 0, "DOM104") is None
    in_comment = 'c = Event(epoch=n, note="#x")  # noqa: DOM105\n'
    edit = noqa_edit(TextDocument("file:///t.py", in_comment), 0, "DOM104")
    assert edit is not None and (edit.range.start.character, edit.new_text) == (len(in_comment) - 1, ",DOM104")


def test_a_copy_of_a_recorded_leak_is_new_in_the_server_as_in_flake8(tmp_path: Path):
    project = copy_station(tmp_path)
    path = project / "station/runtime/report.py"
    copy = "    second = Event(step=1, **{'episode': n})\n"
    text = "from station.runtime.telemetry import Event\n\n\ndef report(n):\n    first = Event(episode=n)\n{more}    return first\n"
    path.write_text(text.format(more=copy))
    recorded = subprocess.run(
        [str(Path(sys.executable).parent / "domain-fence"), "baseline"], cwd=project, capture_output=True, text=True
    )
    assert recorded.returncode == 0, recorded.stderr
    assert Analysis(project / ".importlinter").findings(path, path.read_text()) == []
    # A third copy, in the editor's buffer: new, at its own line, as flake8 reads it from stdin.
    buffer = text.format(more=copy + copy.replace("second", "third"))
    served = [f.describe() for f in Analysis(project / ".importlinter").findings(path, buffer)]
    flake8 = subprocess.run(
        [str(Path(sys.executable).parent / "flake8"), "--select", "DOM", "--stdin-display-name", str(path), "-"],
        cwd=project,
        input=buffer,
        capture_output=True,
        text=True,
    )
    assert [line.split(": ", 1)[1] for line in flake8.stdout.splitlines()] == [s.split(": ", 1)[1] for s in served]
    assert [line.split(" ")[:2] for line in served] == [["station/runtime/report.py:7:31:", "DOM104"]]
