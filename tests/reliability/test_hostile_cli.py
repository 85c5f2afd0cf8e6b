"""The command line under hostile conditions: an output that cannot be written, an
``init`` that cannot write everything, and an edit the caches cannot see by size and
modification time."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from reliability_support import BIN, Result, cli, project, run

LEAK = {"app/runtime/leak.py": "from app.experiment import setup\n"}


def run_with_stdout(root, args: list[str], **stdout) -> tuple[int, str]:
    """``domain-fence ARGS`` in a subprocess whose stdout is ``stdout=`` (or closed by
    ``preexec_fn``): its exit status and stderr."""
    environment = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "GITHUB_WORKSPACE")}
    completed = subprocess.run(
        [str(BIN / "domain-fence"), *args], cwd=root, env=environment, stderr=subprocess.PIPE, text=True, **stdout
    )
    return completed.returncode, completed.stderr


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize(
    "args",
    [["check"], ["check", "--quiet"], ["check", "--format", "sarif"], ["baseline"], ["explain"], ["explain", "DOM101"]],
)
def test_an_output_that_cannot_be_written_is_one_line_and_exit_2(tmp_path, args):
    root = project(tmp_path, LEAK)
    with open("/dev/full", "w") as full:
        result = run_with_stdout(root, args, stdout=full)
    assert result == (2, "domain-fence: error: cannot write the output: No space left on device\n")


@pytest.mark.parametrize(
    "args",
    [
        ["check"],
        ["check", "--format", "sarif"],
        ["baseline"],
        ["explain"],
        ["explain", "DOM101"],
        ["--help"],  # printed as click reads the options
        ["--version"],
        ["check", "--help"],
    ],
)
def test_an_output_pipe_closed_by_its_reader_is_one_line_and_exit_2(tmp_path, args):
    # Not status 1 in silence (click's own), which would read as findings.
    root = project(tmp_path, LEAK)
    reader, writer = os.pipe()
    os.close(reader)
    try:
        result = run_with_stdout(root, args, stdout=writer)
    finally:
        os.close(writer)
    assert result == (2, "domain-fence: error: cannot write the output: Broken pipe\n")


@pytest.mark.parametrize("args", [["check"], ["baseline"], ["explain", "DOM101"]])
def test_a_closed_standard_output_is_one_line_and_exit_2(tmp_path, args):
    root = project(tmp_path, LEAK)
    result = run_with_stdout(root, args, preexec_fn=lambda: os.close(1))
    assert result == (2, "domain-fence: error: cannot write the output: standard output is closed\n")


def test_a_report_written_to_a_file_needs_no_standard_output(tmp_path):
    root = project(tmp_path, LEAK)
    result = run_with_stdout(root, ["check", "--output", "report.txt"], preexec_fn=lambda: os.close(1))
    assert result == (1, "")
    assert "DOM301" in (root / "report.txt").read_text()


@pytest.mark.parametrize(
    "output, what",
    [
        (".importlinter", "the configuration file"),
        ("./.importlinter", "the configuration file"),
        (".domain-fence-baseline.json", "a baseline file"),  # not recorded yet: the next run would read the report
        ("linked", "the configuration file"),
    ],
)
def test_a_report_is_never_written_over_the_configuration_or_a_baseline(tmp_path, output, what):
    root = project(tmp_path, LEAK)
    (root / "linked").symlink_to(".importlinter")
    before = (root / ".importlinter").read_bytes()
    result = cli("check", "--output", output, cwd=root)
    assert result == Result(
        2, "", f"domain-fence: error: --output {Path(output)}: is {what}, which the report would overwrite\n"
    )
    assert (root / ".importlinter").read_bytes() == before
    assert not (root / ".domain-fence-baseline.json").exists()


def test_init_writes_all_or_nothing(tmp_path):
    root = project(tmp_path)
    (root / ".importlinter").unlink()
    (root / ".flake8").mkdir()  # where init would write flake8's configuration
    result = cli("init", cwd=root)
    assert result == Result(2, "", f"domain-fence: error: {root / '.flake8'}: cannot write: Is a directory\n")
    assert sorted(p.name for p in root.iterdir()) == [".flake8", "app"]  # no .importlinter left behind


@pytest.mark.parametrize("replacing", [False, True], ids=["new", "--force"])
def test_init_interrupted_leaves_the_project_as_it_was(tmp_path, monkeypatch, replacing):
    # A Ctrl-C (or SIGTERM) while the baseline is recorded, after the configuration files
    # are written: else the next check fails on every finding and init refuses to run again.
    from domain_fence.integrations import cli as command_line

    root = project(tmp_path)
    before = (root / ".importlinter").read_text() if replacing else None
    if not replacing:
        (root / ".importlinter").unlink()

    def interrupted(*args: object, **kwargs: object) -> list[str]:
        raise KeyboardInterrupt

    monkeypatch.setattr(command_line, "record_baselines", interrupted)
    result = cli("init", *(["--force"] if replacing else []), cwd=root)
    assert result == Result(130, "", "domain-fence: interrupted\n")
    if replacing:
        assert (root / ".importlinter").read_text() == before
        assert sorted(p.name for p in root.iterdir()) == [".importlinter", "app"]
    else:
        assert sorted(p.name for p in root.iterdir()) == ["app"]


def test_init_refuses_a_configuration_file_every_front_end_would_stop_at(tmp_path):
    # setup.cfg is looked in before .importlinter: a damaged one would keep check and
    # flake8 from ever reading what init writes.
    root = project(tmp_path)
    (root / ".importlinter").unlink()
    (root / "setup.cfg").write_text("[flake8\n")
    result = cli("init", cwd=root)
    assert result == Result(
        2,
        "",
        f"domain-fence: error: {root / 'setup.cfg'}: cannot read configuration: File contains no section headers. "
        "[line 1]: '[flake8\\n'; init wrote nothing\n",
    )
    assert sorted(p.name for p in root.iterdir()) == ["app", "setup.cfg"]


@pytest.mark.parametrize("force", [[], ["--force"]], ids=["plain", "forced"])
def test_init_where_its_configuration_would_go_is_a_directory(tmp_path, force):
    root = project(tmp_path)
    (root / ".importlinter").unlink()
    (root / ".importlinter").mkdir()
    message = (
        f"domain-fence: error: {root / '.importlinter'}: is not a regular file; init writes its configuration there\n"
    )
    assert cli("init", *force, cwd=root) == Result(2, "", message)
    assert sorted(p.name for p in root.iterdir()) == [".importlinter", "app"]


def test_init_on_a_file_python_cannot_parse_writes_nothing_and_says_why(tmp_path):
    root = project(tmp_path, {"app/runtime/legacy.py": 'print "py2"\n'})
    (root / ".importlinter").unlink()
    result = cli("init", cwd=root)
    assert result == Result(
        2,
        "",
        f"domain-fence: error: {root}: cannot record the baseline, so init wrote nothing: cannot build the import "
        "graph: app/runtime/legacy.py:1: syntax error at line 1: Missing parentheses in call to 'print'. Did you "
        "mean print(...)?\n",
    )
    caches = {".import_linter_cache", ".domain_fence_cache"}  # each holds a .gitignore of its own
    assert sorted(p.name for p in root.iterdir() if p.name not in caches) == ["app"]


def test_init_with_force_restores_the_configuration_it_replaced(tmp_path):
    root = project(tmp_path)
    before = (root / ".importlinter").read_text()
    (root / ".flake8").mkdir()
    assert cli("init", "--force", cwd=root).status == 2
    assert (root / ".importlinter").read_text() == before
    assert sorted(p.name for p in root.iterdir()) == [".flake8", ".importlinter", "app"]


def settle(path, seconds_ago: float = 3600) -> None:
    when = time.time() - seconds_ago
    os.utime(path, (when, when))


def test_an_edit_keeping_size_and_modification_time_is_seen(tmp_path):
    stats = "from app.runtime.events import Event\n\n\nclass Stats(Event):\n    episode: int\n"
    root = project(tmp_path, {"app/runtime/stats.py": stats})
    path = root / "app/runtime/stats.py"
    for file in root.rglob("*.py"):
        settle(file)
    first = run("domain-fence", "check", "--quiet", cwd=root)
    assert first.lines == ["app/runtime/stats.py:5:5: DOM101 event field 'episode': experiment vocabulary 'episode'"]
    status = path.stat()
    path.write_text(stats.replace("episode", "counter"), encoding="utf-8")  # same size
    assert path.stat().st_size == status.st_size
    os.utime(path, ns=(status.st_atime_ns, status.st_mtime_ns))
    assert run("domain-fence", "check", "--quiet", cwd=root) == Result(0, "", "")
    assert run("flake8", "--select", "DOM", "app", cwd=root) == Result(0, "", "")


SHARED = "from app.experiment import setup\n\nutil = None\n"


@pytest.mark.parametrize(
    "change",
    ["a module added", "a module removed", "a module made a package"],
)
def test_the_imports_of_an_unchanged_file_follow_the_modules_around_it(tmp_path, change):
    # grimp keeps imports resolved against the other modules: `from app.shared import util`
    # is app.shared.util while that module exists, else app.shared (which reaches the
    # experiment); `from .. import experiment` reads differently from x.py and x/__init__.py.
    files = {
        "app/shared/__init__.py": SHARED,
        "app/runtime/user.py": "from app.shared import util\n",
        "app/runtime/x.py": "from .. import experiment\n",
    }
    if change == "a module removed":
        files["app/shared/util.py"] = "VALUE = 2\n"
    root = project(tmp_path, files)
    for file in root.rglob("*.py"):
        settle(file)
    before = run("domain-fence", "check", "--quiet", cwd=root)  # the caches (grimp's too), written
    if change == "a module added":
        (root / "app/shared/util.py").write_text("VALUE = 2\n", encoding="utf-8")
    elif change == "a module removed":
        (root / "app/shared/util.py").unlink()
    else:
        (root / "app/runtime/x").mkdir()
        (root / "app/runtime/x.py").rename(root / "app/runtime/x/__init__.py")  # the same bytes
    cold = run("domain-fence", "check", "--quiet", "--no-cache", cwd=root)
    assert cold != before  # the change changes the verdict: a chain comes or goes
    assert run("domain-fence", "check", "--quiet", cwd=root) == cold
    linted = run("domain-fence-lint-imports", cwd=root)
    assert linted.stdout.count("DOM30") == run("domain-fence-lint-imports", "--no-cache", cwd=root).stdout.count(
        "DOM30"
    )


def test_a_report_is_not_replayed_when_the_file_size_limit_or_the_checkout_changed(tmp_path):
    big = "# " + "x" * 2000 + "\nfrom app.experiment import setup\n"
    root = project(tmp_path / "checkout", {"app/runtime/leak.py": big})
    for file in root.rglob("*.py"):
        settle(file)
    full = run("domain-fence", "check", "--quiet", cwd=root)
    limit = {"DOMAIN_FENCE_MAX_FILE_SIZE": "1000"}
    limited = run("domain-fence", "check", "--quiet", cwd=root, env=limit)
    assert limited != full and "larger than 1000 bytes" in limited.stdout, limited
    assert limited == run("domain-fence", "check", "--quiet", "--no-cache", cwd=root, env=limit)

    def uris() -> set[str]:
        log = json.loads(run("domain-fence", "check", "--format", "sarif", cwd=root).stdout)
        return {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in log["runs"][0]["results"]}

    assert "app/runtime/leak.py" in uris()
    subprocess.run(["git", "init", "-q", str(tmp_path / "checkout")], check=True)  # SARIF paths start at its top
    assert "app/app/runtime/leak.py" in uris()


if sys.platform == "win32":  # pragma: no cover
    pytestmark = pytest.mark.skip(reason="POSIX devices and permissions")
