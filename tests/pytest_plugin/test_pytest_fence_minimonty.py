"""The repository's own architecture, asserted through the `fence` fixture.

The fixture reads the repository's `.importlinter`, the configuration `lint-imports`
checks at the root, so these tests and `lint-imports` agree by construction.
"""

from __future__ import annotations

from domain_fence.testing import Definition, Fence


def test_init_telemetry_is_defined_only_under_experiment(fence: Fence):
    fence.assert_defined_only_under("init_telemetry", "minimonty.experiment")


def test_post_episode_handlers_are_defined_only_under_experiment(fence: Fence):
    fence.assert_defined_only_under("*PostEpisode*", "minimonty.experiment")


def test_definitions_name_where_each_symbol_lives(fence: Fence):
    [init] = fence.definitions("init_telemetry")
    assert (init.module, init.kind, init.name) == ("minimonty.experiment.telemetry", "function", "init_telemetry")
    # The `dev` extra installs minimonty as a copy, `pip install -e examples/minimonty`
    # in place: either way the path names the file the analysis read.
    assert init.path.endswith("minimonty/experiment/telemetry.py")
    assert init.location == f"{init.path}:{init.line}"
    assert [(d.module, d.kind, d.name) for d in fence.definitions("*PostEpisode*")] == [
        ("minimonty.experiment.post_episode", "class", "PostEpisodeStatsHandler")
    ]


def test_the_post_episode_method_is_a_definition_and_the_re_exports_are_not(fence: Fence):
    # PostEpisodeStatsHandler.post_episode is a method, found by its own name and by
    # its qualified name; minimonty.experiment re-exports init_telemetry and the handler.
    (method,) = fence.definitions("post_episode")
    assert (method.module, method.kind, method.owner, method.name) == (
        "minimonty.experiment.post_episode",
        "method",
        "PostEpisodeStatsHandler",
        "post_episode",
    )
    assert method.display_name == "PostEpisodeStatsHandler.post_episode"
    assert fence.definitions("*.post_episode") == [method]
    assert fence.definitions("*Handler.post_episode") == [method]
    assert fence.definitions("Other.post_episode") == []
    fence.assert_defined_only_under("*.post_episode", "minimonty.experiment")
    assert all(d.module != "minimonty.experiment" for d in fence.definitions("*"))
    assert isinstance(fence.definitions("init_telemetry")[0], Definition)


def test_every_contract_of_the_repository_is_kept(fence: Fence):
    for contract in (
        "domain-fence-layers",
        "facts-layers",
        "core-is-host-free",
        "runtime-knows-no-experiment",
        "experiment-owns-its-telemetry",
    ):
        assert fence.check(contract).kept


def test_the_repository_has_no_findings(fence: Fence):
    assert fence.findings() == []
