"""The pytest plugin through pytester: a small Monty-shaped project per test, checked
by the `fence` fixture and by `pytest --domain-fence`, failure texts asserted."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from support import placement_config

CONFIG = (
    placement_config("proto")
    + """
[importlinter:contract:runtime-knows-no-experiment]
name = Runtime does not import experiment
type = forbidden
source_modules =
    proto.frameworks
forbidden_modules =
    proto.experiment
"""
)

PROJECT = {
    "proto/__init__.py": "",
    "proto/frameworks/__init__.py": "",
    "proto/frameworks/telemetry/__init__.py": "",
    "proto/frameworks/telemetry/subscribers.py": """\
        class TelemetrySubscriber:
            def consume(self, event):
                pass

            def post_episode(self):  # a method, misplaced for '*.post_episode'

                pass
        """,
    "proto/experiment/__init__.py": """\
        from proto.experiment.post_episode import PostEpisodeStatsHandler
        from proto.experiment.telemetry import init_telemetry

        __all__ = ["PostEpisodeStatsHandler", "init_telemetry"]
        """,
    "proto/experiment/telemetry.py": """\
        def init_telemetry(config):
            return config
        """,
    "proto/experiment/post_episode.py": """\
        from proto.frameworks.telemetry.subscribers import TelemetrySubscriber


        class PostEpisodeStatsHandler(TelemetrySubscriber):
            pass
        """,
}

PLACEMENT_TESTS = """\
    def test_init_telemetry(fence):
        fence.assert_defined_only_under("init_telemetry", "proto.experiment")


    def test_post_episode_handlers(fence):
        fence.assert_defined_only_under("*PostEpisode*", "proto.experiment")
    """


def write(base: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = base / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


def assert_no_traceback(result: pytest.RunResult) -> None:
    output = result.stdout.str() + result.stderr.str()
    assert "Traceback" not in output and "During handling" not in output


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write(pytester.path, {".importlinter": CONFIG, **PROJECT})
    return pytester


def test_a_well_placed_project_passes(project):
    project.makepyfile(test_placement=PLACEMENT_TESTS)
    project.runpytest().assert_outcomes(passed=2)


def test_a_misplaced_init_telemetry_under_frameworks_fails_with_file_and_line(project):
    write(
        project.path,
        {"proto/frameworks/telemetry/setup.py": "import logging\n\n\ndef init_telemetry(config):\n    pass\n"},
    )
    project.makepyfile(test_placement=PLACEMENT_TESTS)
    result = project.runpytest()
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*_ test_init_telemetry _*",
            "1 definition(s) matching 'init_telemetry' outside proto.experiment:",
            "proto/frameworks/telemetry/setup.py:4:1: DOM201 function init_telemetry is defined outside "
            "proto.experiment; move it there",
        ]
    )
    assert_no_traceback(result)


def test_a_post_episode_consumer_under_frameworks_telemetry_fails(project):
    write(
        project.path,
        {
            "proto/frameworks/telemetry/consumers.py": """\
                from proto.frameworks.telemetry.subscribers import TelemetrySubscriber


                if True:
                    class PostEpisodeTelemetryConsumer(TelemetrySubscriber):
                        pass
                """
        },
    )
    project.makepyfile(
        test_placement=PLACEMENT_TESTS
        + """
    def test_the_contract(fence):
        fence.check("experiment-owns-its-telemetry")
    """
    )
    result = project.runpytest()
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines(
        [
            "*_ test_post_episode_handlers _*",
            "proto/frameworks/telemetry/consumers.py:5:5: DOM201 class PostEpisodeTelemetryConsumer "
            "is defined outside proto.experiment; move it there",
            "*_ test_the_contract _*",
            "init_telemetry and post-episode handlers live under experiment BROKEN",
            "",
            "proto/frameworks/telemetry/consumers.py:5:5: DOM201 class PostEpisodeTelemetryConsumer "
            "is defined outside proto.experiment; move it there",
        ]
    )


def test_a_pattern_with_a_typo_fails_unless_empty_is_allowed(project):
    project.makepyfile(
        test_typo="""
        def test_typo(fence):
            fence.assert_defined_only_under("init_telemtry", "proto.experiment")


        def test_typo_allowed(fence):
            fence.assert_defined_only_under("init_telemtry", "proto.experiment", allow_empty=True)
        """
    )
    result = project.runpytest()
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "no function, class, method or binding matches 'init_telemtry' in proto; is the pattern "
            "misspelt? (pass allow_empty=True if none is expected)",
        ]
    )
    assert_no_traceback(result)


def test_a_typo_in_the_contract_is_a_warning_or_with_require_match_a_failure(project):
    (project.path / ".importlinter").write_text(CONFIG.replace("    init_telemetry\n", "    init_telemtry\n"))
    project.makepyfile(test_contract="def test_contract(fence):\n    fence.check('experiment-owns-its-telemetry')\n")
    warned = project.runpytest()
    warned.assert_outcomes(passed=1, warnings=1)
    warned.stdout.fnmatch_lines(
        [
            "*FenceWarning: init_telemetry and post-episode handlers live under experiment: symbols: "
            "'init_telemtry' matches no function, class, method or binding; is it misspelt?"
        ]
    )

    collected = project.runpytest("--domain-fence", "--deselect", "test_contract.py::test_contract")
    collected.assert_outcomes(passed=2, deselected=1, warnings=1)
    collected.stdout.fnmatch_lines(["*FenceWarning: init_telemetry and post-episode handlers live under experiment: *"])

    config = CONFIG.replace("    init_telemetry\n", "    init_telemtry\n")
    config = config.replace("    proto.experiment\n\n", "    proto.experiment\nrequire_match = true\n\n", 1)
    (project.path / ".importlinter").write_text(config)
    failed = project.runpytest()
    failed.assert_outcomes(failed=1)
    failed.stdout.fnmatch_lines(
        [
            "init_telemetry and post-episode handlers live under experiment BROKEN",
            "",
            "symbols: 'init_telemtry' matches no function, class, method or binding; is it misspelt? (require_match = true)",
        ]
    )


def test_a_re_export_and_an_import_are_not_definitions(project):
    write(
        project.path,
        {
            # Runtime code re-exporting experiment symbols: the boundary contract's
            # business, not a definition.
            "proto/frameworks/telemetry/__init__.py": """\
                from proto.experiment.telemetry import init_telemetry as init_telemetry
                from proto.experiment import post_episode
                PostEpisodeStatsHandler = post_episode.PostEpisodeStatsHandler

                __all__ = ["PostEpisodeStatsHandler", "init_telemetry"]
                """,
        },
    )
    project.makepyfile(
        test_placement=PLACEMENT_TESTS
        + """
    def test_one_definition_each(fence):
        assert [(d.module, d.kind, d.name) for d in fence.definitions("init_telemetry")] == [
            ("proto.experiment.telemetry", "function", "init_telemetry")
        ]
        assert [d.location for d in fence.definitions("*PostEpisode*")] == ["proto/experiment/post_episode.py:4"]


    def test_the_boundary_sees_the_import(fence):
        fence.check("runtime-knows-no-experiment")
    """
    )
    result = project.runpytest()
    result.assert_outcomes(passed=3, failed=1)
    # A built-in import-linter contract fails with its own rendered report.
    result.stdout.fnmatch_lines(
        [
            "*_ test_the_boundary_sees_the_import _*",
            "Runtime does not import experiment BROKEN",
            "",
            "proto.frameworks is not allowed to import proto.experiment:",
        ]
    )
    # import-linter lists chains in no fixed order.
    result.stdout.fnmatch_lines(["-   proto.frameworks.telemetry -> proto.experiment.telemetry (l.1)"])
    result.stdout.fnmatch_lines(["-   proto.frameworks.telemetry -> proto.experiment.post_episode (l.2)"])


def test_methods_are_definitions_by_bare_and_qualified_name(project):
    project.makepyfile(
        test_method="""
        def test_the_method_is_found(fence):
            [method] = fence.definitions("post_episode")
            assert (method.kind, method.owner, method.line) == ("method", "TelemetrySubscriber", 5)
            assert fence.definitions("TelemetrySubscriber.post_episode") == [method]
            assert fence.definitions("*Subscriber.*") == fence.definitions("TelemetrySubscriber.*")


        def test_the_misplaced_method_fails(fence):
            fence.assert_defined_only_under("*.post_episode", "proto.experiment")


        def test_a_qualified_pattern_matching_nothing_fails(fence):
            fence.assert_defined_only_under("Nothing.post_episode", "proto.experiment")
        """
    )
    result = project.runpytest()
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines(
        [
            "1 definition(s) matching '*.post_episode' outside proto.experiment:",
            "proto/frameworks/telemetry/subscribers.py:5:5: DOM201 method TelemetrySubscriber.post_episode is "
            "defined outside proto.experiment; move it there",
        ]
    )
    result.stdout.fnmatch_lines(["no method or class-level binding matches 'Nothing.post_episode' in proto;*"])


def test_a_function_attached_to_a_class_is_a_definition(project):
    write(
        project.path,
        {
            # A runtime module that attaches a post-episode hook to a runtime class.
            "proto/frameworks/telemetry/patches.py": """\
                from proto.frameworks.telemetry.subscribers import TelemetrySubscriber


                def _flush(self):
                    return None


                TelemetrySubscriber.post_episode = _flush
                setattr(TelemetrySubscriber, "post_episode", _flush)


                def install():
                    TelemetrySubscriber.post_episode = lambda self: None
                    TelemetrySubscriber.post_episode = None  # no function
                """,
        },
    )
    project.makepyfile(
        test_attached="""
        def test_the_attachments_are_found(fence):
            found = fence.definitions("TelemetrySubscriber.post_episode")
            assert [(d.kind, d.attached, d.line, d.col) for d in found if d.module.endswith(".patches")] == [
                ("binding", True, 8, 20), ("binding", True, 9, 30), ("binding", True, 13, 24)
            ]
            assert [d.display_name for d in found] == ["TelemetrySubscriber.post_episode"] * 4


        def test_the_attached_methods_are_misplaced(fence):
            fence.assert_defined_only_under("*.post_episode", "proto.experiment")
        """
    )
    result = project.runpytest()
    result.assert_outcomes(passed=1, failed=1)
    message = "DOM201 binding TelemetrySubscriber.post_episode is defined outside proto.experiment; move it there"
    result.stdout.fnmatch_lines(
        [
            "*_ test_the_attached_methods_are_misplaced _*",
            "4 definition(s) matching '*.post_episode' outside proto.experiment:",
            f"proto/frameworks/telemetry/patches.py:8:21: {message}",
            f"proto/frameworks/telemetry/patches.py:9:31: {message}",
            f"proto/frameworks/telemetry/patches.py:13:25: {message}",
            "proto/frameworks/telemetry/subscribers.py:5:5: DOM201 method TelemetrySubscriber.post_episode is "
            "defined outside proto.experiment; move it there",
        ]
    )


def test_a_name_bound_by_assignment_is_a_definition(project):
    write(
        project.path,
        {
            # A runtime module that binds the reserved names without a def.
            "proto/frameworks/telemetry/setup.py": """\
                import functools


                def _setup(config):
                    return config


                init_telemetry = functools.partial(_setup, {})


                class Hooks:
                    post_episode = staticmethod(_setup)
                """,
        },
    )
    project.makepyfile(
        test_bindings=PLACEMENT_TESTS
        + """
    def test_the_bindings_are_found(fence):
        [experiment, runtime] = fence.definitions("init_telemetry")
        assert (experiment.kind, experiment.module) == ("function", "proto.experiment.telemetry")
        assert (runtime.kind, runtime.module, runtime.line, runtime.col) == (
            "binding", "proto.frameworks.telemetry.setup", 8, 0
        )
        [hook, method] = fence.definitions("*.post_episode")  # by module: setup, then subscribers
        assert (method.kind, method.display_name) == ("method", "TelemetrySubscriber.post_episode")
        assert (hook.kind, hook.owner, hook.display_name) == ("binding", "Hooks", "Hooks.post_episode")


    def test_the_class_level_binding_is_misplaced(fence):
        fence.assert_defined_only_under("Hooks.*", "proto.experiment")
    """
    )
    result = project.runpytest()
    result.assert_outcomes(passed=2, failed=2)
    result.stdout.fnmatch_lines(
        [
            "*_ test_init_telemetry _*",
            "1 definition(s) matching 'init_telemetry' outside proto.experiment:",
            "proto/frameworks/telemetry/setup.py:8:1: DOM201 binding init_telemetry is defined outside "
            "proto.experiment; move it there",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "*_ test_the_class_level_binding_is_misplaced _*",
            "proto/frameworks/telemetry/setup.py:12:5: DOM201 binding Hooks.post_episode is defined outside "
            "proto.experiment; move it there",
        ]
    )


def test_a_definition_on_a_line_that_is_not_ascii_is_placed_in_characters(project):
    # The AST counts UTF-8 bytes: "ééé" is six of them, three characters.
    setup = project.path / "proto/frameworks/setup.py"
    setup.write_text('s = "ééé"; init_telemetry = len\n', encoding="utf-8")
    project.makepyfile(
        test_columns="""
        def test_definitions_count_characters(fence):
            [definition] = [d for d in fence.definitions("init_telemetry") if d.module == "proto.frameworks.setup"]
            [finding] = fence.findings()
            assert (definition.line, definition.col) == (finding.line, finding.col) == (1, 11)


        def test_the_failure_points_where_the_finding_does(fence):
            fence.assert_defined_only_under("init_telemetry", "proto.experiment")
        """
    )
    result = project.runpytest()
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        ["proto/frameworks/setup.py:1:12: DOM201 binding init_telemetry is defined outside proto.experiment; *"]
    )


def test_findings_lists_every_domain_fence_finding(project):
    write(project.path, {"proto/frameworks/setup.py": "async def init_telemetry():\n    pass\n"})
    project.makepyfile(
        test_findings="""
        def test_findings(fence):
            [finding] = fence.findings()
            assert finding.describe() == (
                "proto/frameworks/setup.py:1:1: DOM201 function init_telemetry is defined outside "
                "proto.experiment; move it there"
            )
            assert finding.fingerprint == "DOM201:proto.frameworks.setup:init_telemetry"
            assert finding.contract == "experiment-owns-its-telemetry"
        """
    )
    project.runpytest().assert_outcomes(passed=1)


def check_command(*args: str, cwd: Path) -> tuple[int, str]:
    """``domain-fence ARGS`` in this process, from ``cwd``: its exit status and output."""
    import contextlib

    from click.testing import CliRunner

    from domain_fence.integrations.cli import main

    with contextlib.chdir(cwd):
        result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.output


def test_a_definition_check_accepts_passes_the_assertion_too(project):
    setup = project.path / "proto/frameworks/telemetry/setup.py"
    setup.write_text("def init_telemetry(config):  # noqa: DOM201\n    pass\n")
    project.makepyfile(
        test_placement=PLACEMENT_TESTS
        + """
    def test_definitions_are_a_raw_listing(fence):
        assert [d.module for d in fence.definitions("init_telemetry")] == [
            "proto.experiment.telemetry", "proto.frameworks.telemetry.setup"
        ]
    """
    )
    assert check_command("check", "--quiet", cwd=project.path)[0] == 0
    project.runpytest().assert_outcomes(passed=3)

    # Recorded in the placement contract's baseline instead: accepted by check and by the fixture.
    setup.write_text("def init_telemetry(config):\n    pass\n")
    assert check_command("check", "--quiet", cwd=project.path)[0] == 1
    project.runpytest().assert_outcomes(passed=2, failed=1)
    assert check_command("baseline", cwd=project.path)[0] == 0
    assert check_command("check", "--quiet", cwd=project.path)[0] == 0
    project.runpytest().assert_outcomes(passed=3)

    # What the baseline does not record still fails, alone.
    write(project.path, {"proto/frameworks/hooks.py": "class PostEpisodeHook:\n    pass\n"})
    result = project.runpytest()
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*_ test_post_episode_handlers _*",
            "1 definition(s) matching '*PostEpisode*' outside proto.experiment:",
            "proto/frameworks/hooks.py:1:1: DOM201 class PostEpisodeHook is defined outside proto.experiment; "
            "move it there",
        ]
    )
    assert "setup.py" not in result.stdout.str()


def test_arguments_of_the_wrong_type_fail_in_one_line(project):
    project.makepyfile(
        test_arguments="""
        def test_a_list(fence):
            fence.assert_defined_only_under("init_telemetry", ["proto.experiment"])


        def test_a_string_for_a_flag(fence):
            fence.assert_defined_only_under("nothing_here", "proto.experiment", allow_empty="no")
        """
    )
    result = project.runpytest("test_arguments.py")
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(
        [
            "*assert_defined_only_under(): module expressions are strings, one per argument, not [[]'proto.experiment']",
            "*assert_defined_only_under(): allow_empty is True or False, not 'no'",
        ],
        consecutive=False,
    )
    assert_no_traceback(result)


def test_a_pattern_no_definition_can_match_fails_as_in_the_configuration(project):
    # A blank or a lone dot in a pattern matches nothing ever: with allow_empty=True it
    # would pass forever. The fixture refuses it as the placement contract's symbols do.
    project.makepyfile(
        test_patterns="""
        import pytest

        @pytest.mark.parametrize("pattern", ["init_telemetry ", ".", "a b"])
        def test_pattern(fence, pattern):
            fence.assert_defined_only_under(pattern, "proto.experiment", allow_empty=True)


        def test_definitions(fence):
            fence.definitions("init telemetry")
        """
    )
    result = project.runpytest("test_patterns.py")
    result.assert_outcomes(failed=4)
    result.stdout.fnmatch_lines(
        [
            "*'init_telemetry ' is not a name pattern such as 'init_telemetry', '[*]PostEpisode[*]' or 'Class.method'",
            "*'.' is not a name pattern such as*",
            "*'a b' is not a name pattern such as*",
            "*'init telemetry' is not a name pattern such as*",
        ],
        consecutive=False,
    )
    assert_no_traceback(result)


def test_an_unknown_contract_fails_naming_the_known_ones(project):
    project.makepyfile(test_unknown="def test_unknown(fence):\n    fence.check('no-such-contract')\n")
    result = project.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*.importlinter: no contract 'no-such-contract' (contracts: experiment-owns-its-telemetry, runtime-knows-no-experiment)"
        ]
    )
    assert_no_traceback(result)


def test_an_unparsable_file_is_reported_not_skipped(project):
    write(project.path, {"proto/frameworks/broken.py": "def init_telemetry(:\n"})
    project.makepyfile(test_placement=PLACEMENT_TESTS)
    result = project.runpytest()
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "cannot vouch for files that could not be analysed:",
            "proto/frameworks/broken.py:1:1: DOM001 skipped: syntax error at line 1: *",
        ]
    )


# -- --domain-fence collection -------------------------------------------------------


def test_domain_fence_collects_each_contract_as_a_passing_item(project):
    result = project.runpytest("--domain-fence", "-v")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(
        [
            ".importlinter::experiment-owns-its-telemetry PASSED*",
            ".importlinter::runtime-knows-no-experiment PASSED*",
        ]
    )
    project.runpytest("--domain-fence", "-k", "runtime").assert_outcomes(passed=1, deselected=1)


def test_domain_fence_runs_what_the_arguments_select(project):
    write(project.path, {"proto/frameworks/telemetry/setup.py": "def init_telemetry(config):\n    pass\n"})
    project.makepyfile(test_placement=PLACEMENT_TESTS)
    (project.path / "tests").mkdir()
    (project.path / "tests/test_nothing.py").write_text("def test_nothing():\n    pass\n")

    def outcome(*args):
        return project.runpytest("--domain-fence", "-q", *args).parseoutcomes()

    # A node id, of a contract or of a test, runs that item alone: a failed one is run
    # again by the id pytest printed.
    assert outcome(".importlinter::runtime-knows-no-experiment") == {"passed": 1}
    assert outcome(".importlinter::experiment-owns-its-telemetry") == {"failed": 1}
    assert outcome("test_placement.py::test_post_episode_handlers") == {"passed": 1}
    # Test files alone run their tests; the configuration, named, its contracts.
    assert outcome("test_placement.py") == {"passed": 1, "failed": 1}
    assert outcome("test_placement.py", ".importlinter") == {"passed": 2, "failed": 2}
    # No argument, or a directory (whether it holds the configuration or not), runs every contract.
    assert outcome() == {"passed": 3, "failed": 2}
    assert outcome("tests") == {"passed": 2, "failed": 1}
    assert outcome(".") == {"passed": 3, "failed": 2}


def test_domain_fence_items_fail_with_the_contract_report(project):
    write(project.path, {"proto/frameworks/telemetry/setup.py": "def init_telemetry(config):\n    pass\n"})
    result = project.runpytest("--domain-fence", "-rf")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*_ experiment-owns-its-telemetry _*",
            "init_telemetry and post-episode handlers live under experiment BROKEN",
            "",
            "proto/frameworks/telemetry/setup.py:1:1: DOM201 function init_telemetry is defined "
            "outside proto.experiment; move it there",
            "*short test summary info*",
            "FAILED .importlinter::experiment-owns-its-telemetry*",
        ]
    )
    assert_no_traceback(result)


def test_domain_fence_reads_a_pyproject_configuration(pytester):
    pyproject = """\
        [tool.importlinter]
        root_package = "proto"
        contract_types = ["placement: domain_fence.integrations.importlinter.PlacementContract"]

        [[tool.importlinter.contracts]]
        name = "Experiment owns its telemetry"
        type = "placement"
        symbols = ["init_telemetry", "*PostEpisode*"]
        allowed_modules = ["proto.experiment"]
        require_match = true
        """
    write(pytester.path, {"pyproject.toml": pyproject, **PROJECT})
    result = pytester.runpytest("--domain-fence", "-v")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["pyproject.toml::Experiment owns its telemetry PASSED*"])


def test_without_the_flag_contracts_are_not_collected(project):
    project.makepyfile(test_placement=PLACEMENT_TESTS)
    result = project.runpytest("--collect-only", "-q")
    assert ".importlinter" not in result.stdout.str()
    result.stdout.fnmatch_lines(
        ["test_placement.py::test_init_telemetry", "test_placement.py::test_post_episode_handlers"]
    )


def test_domain_fence_with_an_invalid_contract_is_a_usage_error(project):
    (project.path / ".importlinter").write_text(CONFIG.replace("symbols =", "symbls ="))
    result = project.runpytest("--domain-fence")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: *.importlinter: [[]importlinter:contract:experiment-owns-its-telemetry[]] symbls: "
            "Unrecognized option. Did you mean 'symbols'?",
        ]
    )
    assert_no_traceback(result)


def test_domain_fence_items_report_an_unusable_project_in_one_line(project):
    (project.path / ".importlinter").write_text(CONFIG.replace("root_package = proto", "root_package = protp"))
    # With --domain-fence it is a usage error, as in every front end: no test runs.
    result = project.runpytest("--domain-fence")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: *.importlinter: [[]importlinter[]] root_packages: cannot find protp *"])
    assert_no_traceback(result)

    project.makepyfile(test_placement=PLACEMENT_TESTS)
    fixture = project.runpytest("test_placement.py")
    fixture.assert_outcomes(failed=2)
    fixture.stdout.fnmatch_lines(
        ["*.importlinter: [[]importlinter[]] root_packages: cannot find protp (looked in *, its src/ and sys.path)"]
    )
    assert_no_traceback(fixture)


def test_an_import_linter_contract_that_cannot_be_checked_is_a_usage_error(project):
    (project.path / ".importlinter").write_text(CONFIG.replace("    proto.frameworks\n", "    proto.nosuch\n"))
    message = (
        f"{project.path / '.importlinter'}: [importlinter:contract:runtime-knows-no-experiment]: "
        "Module 'proto.nosuch' does not exist."
    )
    assert check_command("check", "--quiet", cwd=project.path) == (2, f"domain-fence: error: {message}\n")
    project.makepyfile(test_placement=PLACEMENT_TESTS)
    # Selected, deselected, or another contract selected: one line, and nothing runs.
    for args in ([], ["-k", "experiment"], [".importlinter::experiment-owns-its-telemetry"]):
        result = project.runpytest("--domain-fence", *args)
        assert result.ret == pytest.ExitCode.USAGE_ERROR, args
        assert [line for line in result.stderr.lines if line.strip()] == [f"ERROR: {message}"]
        assert result.stdout.lines == []
    # Arguments that name only tests check no contract.
    project.runpytest("--domain-fence", "test_placement.py").assert_outcomes(passed=2)

    # In a test, the fixture fails in one line.
    project.makepyfile(test_contract="def test_contract(fence):\n    fence.check('runtime-knows-no-experiment')\n")
    fixture = project.runpytest("test_contract.py")
    fixture.assert_outcomes(failed=1)
    assert message in fixture.stdout.lines, fixture.stdout.str()
    assert_no_traceback(fixture)


def test_a_root_package_grimp_would_refuse_is_a_problem_before_any_graph_is_built(project):
    # proto has an __init__.py: grimp would import it to find proto.frameworks.
    (project.path / ".importlinter").write_text(
        CONFIG.replace("root_package = proto", "root_package = proto.frameworks")
    )
    message = (
        "*.importlinter: [[]importlinter[]] root_packages: 'proto.frameworks' is inside the regular package 'proto' *"
    )
    result = project.runpytest("--domain-fence")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: {message}"])
    assert_no_traceback(result)

    project.makepyfile(
        test_fence="def test_findings(fence):\n    fence.findings()\n\n\ndef test_graph(fence):\n    fence.graph\n"
    )
    fixture = project.runpytest("test_fence.py")
    fixture.assert_outcomes(failed=2)
    fixture.stdout.fnmatch_lines([message])
    assert_no_traceback(fixture)


def test_a_root_package_inside_a_regular_one_serves_contracts_without_a_graph(project):
    # Only the import graph's builder (grimp) cannot take it: placement reads sources.
    placement_only = CONFIG.split("\n\n[importlinter:contract:runtime-knows-no-experiment]")[0] + "\n"
    (project.path / ".importlinter").write_text(
        placement_only.replace("root_package = proto", "root_package = proto.frameworks").replace(
            "proto.experiment", "proto.frameworks.telemetry"
        )
    )
    project.makepyfile(test_fence="def test_definitions(fence):\n    assert fence.definitions('*post_episode*')\n")
    project.runpytest("test_fence.py").assert_outcomes(passed=1)


# -- options ---------------------------------------------------------------------------


def test_the_config_option_takes_a_project_directory_with_a_src_layout(pytester):
    write(pytester.path / "lab", {".importlinter": CONFIG, **{f"src/{k}": v for k, v in PROJECT.items()}})
    pytester.makepyfile(test_placement=PLACEMENT_TESTS)
    pytester.runpytest("--domain-fence-config", "lab").assert_outcomes(passed=2)
    result = pytester.runpytest("--domain-fence-config=lab/.importlinter", "--domain-fence", "-v")
    result.assert_outcomes(passed=4)
    result.stdout.fnmatch_lines(["lab/.importlinter::runtime-knows-no-experiment PASSED*"])


def test_the_ini_option_names_the_configuration(pytester):
    write(pytester.path / "lab", {"setup.cfg": CONFIG, **PROJECT})
    pytester.makeini("[pytest]\ndomain_fence_config = lab\n")
    pytester.makepyfile(test_placement=PLACEMENT_TESTS)
    pytester.runpytest().assert_outcomes(passed=2)


def test_a_missing_config_path_is_a_usage_error(pytester):
    result = pytester.runpytest("--domain-fence-config", "missing/.importlinter")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*error: argument --domain-fence-config: missing/.importlinter: no such file or directory"]
    )


def test_a_missing_ini_path_is_a_usage_error(pytester):
    pytester.makeini("[pytest]\ndomain_fence_config = nowhere\n")
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: domain_fence_config = nowhere: no such file or directory (*nowhere)"])


def test_a_directory_without_configuration_fails_the_test_in_one_line(pytester):
    pytester.makepyfile(test_placement=PLACEMENT_TESTS)
    result = pytester.runpytest()
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(
        ["*: no import-linter configuration found (looked for an [[]importlinter[]] section in *)"]
    )
    assert_no_traceback(result)


def test_the_plugin_can_be_disabled_by_name(project):
    project.makepyfile(test_placement=PLACEMENT_TESTS)
    result = project.runpytest("-p", "no:domain_fence")
    result.assert_outcomes(errors=2)
    result.stdout.fnmatch_lines(["*fixture 'fence' not found*"])


def test_the_session_keeps_what_a_check_read_out_of_the_collector(project):
    """What the checks read stays alive for the session: frozen before the collector
    resumes, so that its collections do not walk it again (see kept_until_exit)."""
    import gc

    gc.unfreeze()
    try:
        result = project.runpytest_inprocess("--domain-fence")
        frozen = gc.get_freeze_count()
        resumed = gc.isenabled()
    finally:
        gc.unfreeze()
    assert_no_traceback(result)
    result.assert_outcomes(passed=2)  # the two contracts
    assert resumed
    assert frozen > 0
