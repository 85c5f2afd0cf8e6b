"""The vocabulary contract reads ahead: the modules a check resolves names through
(bases, callees, the re-exports and star imports on the way) are read in batches
before the check, which then parses nothing one file at a time. Batches are what
the index parses in parallel."""

from __future__ import annotations

from pathlib import Path

import pytest

from domain_fence.core.families.config import parse_vocabulary
from domain_fence.core.families.vocabulary.events import all_vocabulary_findings, prefetch_covered
from domain_fence.core.index import project as index_module
from domain_fence.core.index.project import ProjectIndex
from domain_fence.core.source import factcache

FILES = {
    "pkg/__init__.py": "",
    "pkg/events/__init__.py": "from .base import *\n",
    "pkg/events/base.py": "class Event:\n    pass\n",
    "pkg/alias.py": "from pkg.events import Event as Base\n",
    "pkg/middle.py": "from pkg.alias import Base\n\nclass Stepped(Base):\n    pass\n",
    "pkg/runtime/__init__.py": "",
    "pkg/runtime/leaf.py": "from pkg.middle import Stepped\n\nclass Leaf(Stepped):\n    episode: int\n",
    "pkg/runtime/made.py": "from pkg import alias\n\nx = alias.Base(episode=1)\n",
    "pkg/unrelated.py": "class Other:\n    pass\n",
}


@pytest.fixture
def project(tmp_path: Path, monkeypatch) -> Path:
    monkeypatch.setattr(index_module, "_MEMORY", {})
    monkeypatch.setattr(factcache, "_OPEN", {})
    for name, text in FILES.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return tmp_path


def test_the_check_parses_nothing_the_read_ahead_did_not(project, monkeypatch):
    batches: list[list[str]] = []
    real = index_module._extract_all

    def recording(jobs, parallel):
        batches.append(sorted(job.module for job in jobs))
        return real(jobs, parallel)

    monkeypatch.setattr(index_module, "_extract_all", recording)
    config = parse_vocabulary(
        "c", "c", {"modules": "pkg.runtime.**", "event_bases": "pkg.events.base.Event", "words": "episode"}, project
    )
    index = ProjectIndex.build(project, ["pkg"], search_paths=[str(project)], cache_dir=None)

    prefetch_covered(config, index)
    read_ahead = [module for batch in batches for module in batch]
    batches.clear()
    findings = all_vocabulary_findings(config, index)

    assert [(f.code, f.symbol) for f in findings] == [
        ("DOM101", "pkg.runtime.leaf.Leaf.episode"),
        ("DOM104", "pkg.events.base.Event(episode)"),
    ]
    assert [batch for batch in batches if batch] == []  # nothing left to parse, file by file or otherwise
    # the chain of names: covered modules, their bases' and callees' modules, then
    # each re-export on the way to the class; never a module no name leads to
    assert "pkg.unrelated" not in read_ahead
    assert {"pkg.middle", "pkg.alias", "pkg.events", "pkg.events.base"} <= set(read_ahead)
