"""The placement core on annotated fixture files.

Each file of ``tests/fixtures/placement/monty`` marks the findings it must produce with
a trailing comment: ``# DOM201`` (at the line's indentation) or ``# DOM201: COL``.
Every other line must produce nothing.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from support import FIXTURES

from domain_fence.core.families.config import parse_placement
from domain_fence.core.families.placement.definitions import (
    Definition,
    bytes_filter,
    check_placement,
    definitions_in,
    module_placement_findings,
    scan_definitions,
)
from domain_fence.core.index.project import ProjectIndex

PROJECT = FIXTURES / "placement" / "monty"
SOURCES = PROJECT / "src"
FILES = sorted(p.relative_to(SOURCES).as_posix() for p in SOURCES.rglob("*.py"))

_EXPECTATION = re.compile(r"#\s*(DOM\d{3})(?::\s*(\d+))?\s*$")


def expected_findings(path: Path) -> list[tuple[int, int, str]]:
    """``(line, col, code)`` for each annotated line; a malformed annotation is an error."""
    expected = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if "# DOM" not in line:
            continue
        match = _EXPECTATION.search(line)
        if not match:
            raise ValueError(f"{path}:{number}: malformed expectation {line!r}")
        indentation = len(line) - len(line.lstrip())
        expected.append((number, int(match[2]) if match[2] else indentation, match[1]))
    return expected


def make_config(symbols=("init_telemetry", "*PostEpisode*"), allowed="tbp.monty.experiment", **options):
    raw = {"symbols": list(symbols), "allowed_modules": allowed, **options}
    return parse_placement("experiment-owns-its-telemetry", "placement", raw, PROJECT)


@pytest.fixture(scope="module")
def index() -> ProjectIndex:
    return ProjectIndex.build(PROJECT, ["tbp.monty"], cache_dir=None)  # nothing written into the repository


def module_of(relative: str) -> str:
    return relative.removesuffix(".py").removesuffix("/__init__").replace("/", ".")


@pytest.mark.parametrize("relative", FILES)
def test_annotated_file(relative: str, index: ProjectIndex):
    module = module_of(relative)
    findings = module_placement_findings(make_config(), index, module)
    assert [(f.line, f.col, f.code) for f in findings] == expected_findings(SOURCES / relative)
    assert all(f.path == f"src/{relative}" for f in findings)


def test_the_project_wide_check_agrees_with_the_per_module_view(index):
    config = make_config()
    result = check_placement(config, index)
    per_module = sorted(f for module in index.modules for f in module_placement_findings(config, index, module))
    assert list(result.findings) == per_module
    assert result.unmatched_patterns == ()


def test_messages_and_line_independent_fingerprints(index):
    findings = {f.symbol: f for f in check_placement(make_config(), index).findings if f.code == "DOM201"}
    setup = findings["tbp.monty.frameworks.telemetry.setup.init_telemetry"]
    assert setup.describe() == (
        "src/tbp/monty/frameworks/telemetry/setup.py:6:1: DOM201 function init_telemetry is defined "
        "outside tbp.monty.experiment; move it there"
    )
    assert setup.fingerprint == "DOM201:tbp.monty.frameworks.telemetry.setup:init_telemetry"
    assert setup.contract == "experiment-owns-its-telemetry"
    consumer = findings["tbp.monty.frameworks.telemetry.consumers.PostEpisodeTelemetryConsumer"]
    assert (
        consumer.message == "class PostEpisodeTelemetryConsumer is defined outside tbp.monty.experiment; move it there"
    )
    assert all(len(f"{f.code} {f.message}") < 100 for f in findings.values())
    # A class nested in a class body: by its qualified name, apart from a method's kind.
    nested = findings["tbp.monty.frameworks.models.evidence.EvidenceLM.PostEpisodeStats"]
    assert nested.message == "class EvidenceLM.PostEpisodeStats is defined outside tbp.monty.experiment; move it there"
    assert nested.fingerprint == "DOM201:tbp.monty.frameworks.models.evidence:EvidenceLM.PostEpisodeStats"
    assert (nested.line, nested.col, dict(nested.fields)["kind"]) == (8, 4, "class")


def test_a_binding_is_a_definition_with_a_fingerprint_of_its_own(index):
    findings = [f for f in check_placement(make_config(), index).findings if f.code == "DOM201"]
    module = "tbp.monty.frameworks.telemetry.bindings"
    bound = [f for f in findings if f.symbol == f"{module}.init_telemetry"]
    assert [(f.line, f.col) for f in bound] == [(17, 0), (18, 0), (19, 0), (20, 0), (21, 3), (81, 76)]
    assert bound[0].describe() == (
        "src/tbp/monty/frameworks/telemetry/bindings.py:17:1: DOM201 binding init_telemetry is defined "
        "outside tbp.monty.experiment; move it there"
    )
    # Apart from a def of the name (hooks.py), and numbered by the engine when repeated.
    assert {f.fingerprint for f in bound} == {f"DOM201:{module}:init_telemetry="}
    assert dict(bound[0].fields)["kind"] == "binding"
    hooks = {f.fingerprint for f in findings if f.path.endswith("/hooks.py")}
    assert "DOM201:tbp.monty.frameworks.models.hooks:init_telemetry" in hooks
    in_class = next(f for f in findings if f.symbol == f"{module}.Hooks.init_telemetry")
    assert (in_class.line, in_class.col, in_class.fingerprint) == (56, 4, f"DOM201:{module}:Hooks.init_telemetry=")
    assert in_class.message == "binding Hooks.init_telemetry is defined outside tbp.monty.experiment; move it there"


def test_an_unparsable_file_is_a_dom001_finding(index):
    [broken] = [f for f in check_placement(make_config(), index).findings if f.code == "DOM001"]
    assert broken.describe() == (
        "src/tbp/monty/frameworks/models/broken.py:1:1: DOM001 skipped: syntax error at line 1: invalid syntax"
    )
    assert broken.fingerprint == "DOM001:tbp.monty.frameworks.models.broken"


def test_definitions_are_module_level_functions_classes_their_methods_and_bindings():
    tree = ast.parse(
        "import os as init\n"
        "from x import PostEpisode\n"
        "init2 = PostEpisode\n"
        "@decorator\n"
        "class PostEpisodeA:\n"
        "    def method(self): pass\n"
        "    alias = method\n"
        "async def handler(): pass\n"
        "def outer():\n"
        "    def inner(): pass\n"
        "    local = inner\n"
        "on_a, (on_b, *on_c) = handler, (outer, x)\n"
        "init3 = init.path\n"
    )
    assert definitions_in("pkg.mod", "pkg/mod.py", tree) == [
        # Re-exports are bindings that name what they re-export (see the next test).
        Definition("pkg.mod", "pkg/mod.py", 1, 13, "binding", "init", renames="os"),
        Definition("pkg.mod", "pkg/mod.py", 3, 0, "binding", "init2", renames="PostEpisode"),
        Definition("pkg.mod", "pkg/mod.py", 5, 0, "class", "PostEpisodeA"),
        Definition("pkg.mod", "pkg/mod.py", 6, 4, "method", "method", "PostEpisodeA"),
        Definition("pkg.mod", "pkg/mod.py", 7, 4, "binding", "alias", "PostEpisodeA"),
        Definition("pkg.mod", "pkg/mod.py", 8, 0, "function", "handler"),
        Definition("pkg.mod", "pkg/mod.py", 9, 0, "function", "outer"),
        Definition("pkg.mod", "pkg/mod.py", 12, 0, "binding", "on_a"),
        Definition("pkg.mod", "pkg/mod.py", 12, 7, "binding", "on_b"),
        Definition("pkg.mod", "pkg/mod.py", 12, 14, "binding", "on_c"),
        Definition("pkg.mod", "pkg/mod.py", 13, 0, "binding", "init3", renames="path"),
    ]


def test_overload_signatures_are_not_definitions():
    """``@overload`` stubs exist for type checkers: the implementation is the one
    definition (and the one finding, and baseline entry)."""
    tree = ast.parse(
        "import typing\nfrom typing import overload\n"
        "@overload\ndef post_episode(x: int) -> int: ...\n"
        "@typing.overload\ndef post_episode(x: str) -> str: ...\n"
        "def post_episode(x): return x\n"
        "class Lm:\n"
        "    @overload\n    def post_episode(self, x: int) -> int: ...\n"
        "    def post_episode(self, x): return x\n"
    )
    assert [(d.kind, d.line) for d in definitions_in("m", "m.py", tree)] == [
        ("function", 7),
        ("class", 8),
        ("method", 11),
    ]


@pytest.mark.parametrize(
    ("source", "bound"),
    [
        # A re-export defines the name only when it gives it to what has another.
        ("from m import f\nhandler = f\n", True),
        ("import m\nhandler = m.f\n", True),
        ("import m.sub\nhandler = m.sub.f\n", True),
        ("from m import f as handler\n", True),
        ("import m.f as handler\n", True),
        ("from m import handler\nother = handler\n", False),
        ("import m\nhandler = m.handler\n", False),
        ("from m import handler as handler\n", False),
        ("import m.handler as handler\n", False),
        ("from m import (\n    f as\n    handler,\n)\n", True),
        ("if TYPE_CHECKING:\n    from m import f as handler\n", False),
        ("try:\n    from m import f as handler\nexcept ImportError:\n    pass\n", True),
        ("def g():\n    from m import f as handler\n", False),  # local
        ("class C:\n    from m import f as handler\n", False),  # an attribute of the class
        ("from m import f\ndef f(): pass\nhandler = f\n", True),  # f is (also) the module's own
        ("from m import f\nhandler = f()\n", True),  # a value made here
        ("from m import f\nhandler = staticmethod(f)\n", True),
        ("def f(): pass\nhandler = f\n", True),
        ("handler = print\n", True),  # bound here, to a builtin
        ("from m import *\nhandler = f\n", True),  # f is not known to be imported
        ("from m import f\nclass C:\n    handler = f\n", True),  # a class re-exports nothing
        ("handler: int\n", False),
        ("handler = make()\nhandler += 1\n", True),  # the first only
        # Data is no definition: nothing calls it.
        ("handler = 10\n", False),
        ("handler = -1.5\n", False),
        ("handler = ('a', b'b', {1: [True]}, f'x')\n", False),
        ("handler = None\n", True),  # a placeholder for what is assigned later
        ("handler = (f, 1)\n", True),
        ("class C:\n    handler = 'post'\n", False),
        ("class C(enum.Enum):\n    handler = auto()\n", False),  # an enumeration's member
        ("class C(IntFlag):\n    handler = 1 << 2\n", False),
        ("class C(Enum):\n    handler = staticmethod(f)\n", True),  # not a member: a method
        ("class C:\n    handler = auto()\n", True),
        ("if TYPE_CHECKING:\n    handler = int\n", False),
        ("if typing.TYPE_CHECKING:\n    handler = int\nelse:\n    other = int\n", False),
        ("class C:\n    if TYPE_CHECKING:\n        handler = int\n", False),
        ("def f():\n    global handler\n    handler = 1\n", False),
        ("for handler in x: pass\n", False),
        ("with x as handler: pass\n", False),
        ("(handler := 1)\n", False),
        ("x.handler = 1\nx[handler] = 1\n", False),
        ("__all__ = ['handler']\nclass C:\n    __slots__ = ('handler',)\n", False),  # dunders
    ],
)
def test_which_assignments_bind_a_name(source, bound):
    found = definitions_in("pkg.mod", "pkg/mod.py", ast.parse(source))
    names = [d.name for d in found if d.kind == "binding" and d.matches("handler")]
    assert names.count("handler") == int(bound), names


@pytest.mark.parametrize(
    ("source", "attached"),
    [
        # What is attached: a function, a class or a method, made or named here.
        ("from m import Lm\ndef f(self): pass\nLm.handler = f\n", "Lm"),
        ("from m import Lm\nLm.handler = lambda self: None\n", "Lm"),
        ("from m import Lm\nLm.handler = staticmethod(f)\n", "Lm"),
        ("from m import Lm\nLm.handler = functools.partialmethod(f, 1)\n", "Lm"),
        ("from m import Lm\nclass Stats: pass\nLm.handler = Stats\n", "Lm"),
        ("from m import Lm\nf = lambda self: None\nLm.handler = f\n", "Lm"),
        ("from m import Lm\nfrom h import reset\nLm.handler = reset\n", "Lm"),  # a helper, given the name
        ("from m import Lm\nimport h\nLm.handler = h.reset\n", "Lm"),
        ("from m import Lm, Other\nLm.handler = Other.reset\n", "Lm"),
        ("from m import Lm\nfrom h import handler\nLm.handler = handler\n", None),  # placed where defined
        ("from m import Lm\nLm.handler = None\n", None),
        ("from m import Lm\nLm.handler = 1\n", None),
        ("from m import Lm\nfrom h import HANDLER\nLm.handler = HANDLER\n", None),  # a constant, by its name
        ("from m import Lm\nLm.handler = make()\n", None),
        ("from m import Lm\nf = make()\nLm.handler = f\n", None),
        ("from m import Lm\nLm.handler = undefined\n", None),
        ("from m import Lm\nLm.handler = Lm.reset.__func__\n", None),
        # The class: one the module defines, or imports, however reached.
        ("class Lm: pass\nLm.handler = lambda self: None\n", "Lm"),
        ("class lm: pass\nlm.handler = lambda self: None\n", "lm"),  # its own: spelt as it may be
        ("class Lm:\n    class Inner: pass\nLm.Inner.handler = lambda self: None\n", "Lm.Inner"),
        ("from m import Lm as Alias\nAlias.handler = lambda self: None\n", "Lm"),
        ("import m\nm.Lm.handler = lambda self: None\n", "Lm"),
        ("import a.b as m\nm.Lm.handler = lambda self: None\n", "Lm"),
        ("import a.b\na.b.Lm.handler = lambda self: None\n", "Lm"),
        ("from a import b\nb.Lm.handler = lambda self: None\n", "Lm"),
        ("try:\n    from m import Lm\nexcept ImportError:\n    Lm = None\nLm.handler = lambda self: None\n", "Lm"),
        ("import m\nm.handler = lambda self: None\n", None),  # a module
        ("from m import lm\nlm.handler = lambda self: None\n", None),  # spelt as a module
        ("from m import LM\nLM.handler = lambda self: None\n", None),  # spelt as a constant
        ("from m import Lm\nLm.registry.handler = lambda self: None\n", None),  # no class
        ("Lm = make()\nLm.handler = lambda self: None\n", None),  # a variable
        ("def Lm(): pass\nLm.handler = lambda self: None\n", None),  # a function
        ("if TYPE_CHECKING:\n    from m import Lm\nLm.handler = lambda self: None\n", None),
        # Where: wherever it runs; a name bound in the function around is its own.
        ("from m import Lm\ndef f():\n    Lm.handler = lambda self: None\n", "Lm"),
        ("def f():\n    from m import Lm\n    Lm.handler = lambda self: None\n", "Lm"),
        ("from m import Lm\ndef f():\n    def g(self): pass\n    Lm.handler = g\n", "Lm"),
        ("from m import Lm\nclass C:\n    def f(self):\n        Lm.handler = lambda s: None\n", "Lm"),
        ("from m import Lm\nclass C:\n    Lm.handler = lambda s: None\n", "Lm"),
        ("from m import Lm\ndef f(Lm):\n    Lm.handler = lambda self: None\n", None),
        ("from m import Lm\ndef f(g):\n    Lm.handler = g\n", None),
        ("from m import Lm\ndef f():\n    class Lm: pass\n    Lm.handler = lambda self: None\n", None),
        ("from m import Lm\nclass C:\n    def f(self):\n        self.handler = lambda: None\n", None),
        ("from m import Lm\nclass C:\n    @classmethod\n    def f(cls):\n        cls.handler = lambda: None\n", None),
        ("from m import Lm\nif TYPE_CHECKING:\n    Lm.handler = lambda self: None\n", None),
        # The statement: an assignment that binds, or setattr with the name as a literal.
        ("from m import Lm\nLm.handler: Callable = lambda self: None\n", "Lm"),
        ("from m import Lm\nLm.other, Lm.handler = None, lambda self: None\n", "Lm"),
        ("from m import Lm\nLm.handler, Lm.other = make()\n", None),  # what is unpacked is not known
        ("from m import Lm\nLm.handler += [f]\n", None),
        ("from m import Lm\nLm.handler: Callable\n", None),
        ("from m import Lm\nfor Lm.handler in fs: pass\n", None),
        ("from m import Lm\nsetattr(Lm, 'handler', lambda self: None)\n", "Lm"),
        ("from m import Lm\nsetattr(Lm, 'hand' 'ler', lambda self: None)\n", None),
        ("from m import Lm\nsetattr(Lm, name, lambda self: None)\n", None),
        ("from m import Lm\ndef setattr(*a): pass\nsetattr(Lm, 'handler', lambda self: None)\n", None),
        ("from m import Lm\nfrom n import *\nsetattr(Lm, 'handler', lambda self: None)\n", None),
        ("from m import Lm\nLm.__handler__ = lambda self: None\n", None),  # a dunder
    ],
)
def test_which_attachments_define_a_method(source, attached):
    """A function attached to a class from outside its body is a binding in that class
    (``Lm.handler``), made where it is attached."""
    found = [d for d in definitions_in("pkg.mod", "pkg/mod.py", ast.parse(source)) if d.attached]
    assert [d.owner for d in found if d.matches("handler")] == ([attached] if attached else [])
    assert all(d.kind == "binding" for d in found)


def test_an_attachment_is_a_binding_of_the_class_with_a_fingerprint_of_its_own(index):
    findings = [f for f in check_placement(make_config(), index).findings if f.code == "DOM201"]
    module = "tbp.monty.frameworks.models.patches"
    attached = [f for f in findings if f.symbol == f"{module}.EvidenceLM.init_telemetry"]
    assert [(f.line, f.col) for f in attached][:3] == [(34, 11), (35, 21), (36, 11)]
    assert attached[1].describe() == (
        "src/tbp/monty/frameworks/models/patches.py:35:22: DOM201 binding EvidenceLM.init_telemetry is defined "
        "outside tbp.monty.experiment; move it there"
    )
    # Whichever its spelling, apart from a binding in the class body, numbered when repeated.
    assert {f.fingerprint for f in attached} == {f"DOM201:{module}:setattr:EvidenceLM.init_telemetry"}
    assert dict(attached[0].fields) == {"allowed": "tbp.monty.experiment", "kind": "binding", "name": "init_telemetry"}
    # An imported class is named as imported, by its own name.
    aliased = next(f for f in findings if f.path.endswith("/patches.py") and f.line == 49)
    assert (aliased.symbol, aliased.col) == (f"{module}.EvidenceLM.init_telemetry", 3)
    # A class body's binding and an attachment of one name: two findings, two fingerprints.
    tree = ast.parse("class Lm:\n    handler = staticmethod(f)\nLm.handler = staticmethod(f)\n")
    [body, outside] = [d for d in definitions_in("m", "m.py", tree) if d.kind == "binding"]
    assert (body.fingerprint_name, outside.fingerprint_name) == ("Lm.handler=", "setattr:Lm.handler")
    assert body.display_name == outside.display_name == "Lm.handler"


def test_kinds_count_a_binding_where_it_is():
    """What a binding binds is not known statically: at module level it counts as a
    function or class, in a class body as a method."""
    tree = ast.parse("init_telemetry = make()\nclass C:\n    init_telemetry = staticmethod(f)\n")
    [module_level, in_class] = [d for d in definitions_in("m", "m.py", tree) if d.kind == "binding"]
    for kinds, expected in [
        ({"function"}, (True, False)),
        ({"class"}, (True, False)),
        ({"method"}, (False, True)),
        ({"function", "class", "method"}, (True, True)),
    ]:
        assert (module_level.counted_in(frozenset(kinds)), in_class.counted_in(frozenset(kinds))) == expected


def test_kinds_restrict_findings_and_matches(index):
    classes_only = make_config(kinds="class")
    result = check_placement(classes_only, index)
    found = [f for f in result.findings if f.code == "DOM201"]
    assert {f.message.split()[0] for f in found} == {"class", "binding"}
    # A binding counts where a class could be bound: at module level, not in a class body.
    assert not any(f.message.startswith("binding Hooks.") for f in found)
    assert result.unmatched_patterns == ()
    # Defined with def only, init_telemetry matches nothing under kinds = class.
    defs_only = make_config(kinds="class", symbols=("init_telemetry_defaults",))
    assert check_placement(defs_only, index).unmatched_patterns == ("init_telemetry_defaults",)
    methods_only = [f for f in check_placement(make_config(kinds="method"), index).findings if f.code == "DOM201"]
    assert {f.message.split()[1] for f in methods_only if f.path.endswith("/bindings.py")} == {
        "Hooks.init_telemetry",
        "Hooks.OnPostEpisode",
        "Hooks.Inner.PostEpisodeX",
    }
    # A function attached to a class from outside its body is a method of the class.
    assert {f.path.rsplit("/", 1)[1] for f in methods_only} == {
        "annotated.py",
        "bindings.py",
        "patches.py",
        "type_checking_aliases.py",
    }
    assert not any(f.path.endswith("/patches.py") for f in found)
    # A nested class is a class: kinds = class counts it, kinds = method does not.
    assert "class EvidenceLM.Cfg.PostEpisodeMode" in {" ".join(f.message.split()[:2]) for f in found}
    nested = ("EvidenceLM.PostEpisodeRows", "EvidenceLM.Cfg.PostEpisode*")  # nothing attaches these
    methods = check_placement(make_config(kinds="method", symbols=nested), index)
    assert [f for f in methods.findings if f.code == "DOM201"] == []
    # The files that cannot be parsed may define the wildcard's match, as far as their
    # bytes tell: their DOM001s are the contract's, and it is not said to match nothing.
    assert methods.unmatched_patterns == nested[:1]
    assert sorted(f.path.rsplit("/", 1)[1] for f in methods.findings if f.code == "DOM001") == [
        "broken.py",
        "broken_elsewhere.py",
    ]


def test_unmatched_patterns_keep_configuration_order(index):
    result = check_placement(make_config(symbols=("zzz_missing", "init_telemetry", "*PostEpsiode*")), index)
    assert result.unmatched_patterns == ("zzz_missing", "*PostEpsiode*")


def test_matching_is_case_sensitive(index):
    names = {d.name for d in scan_definitions(index, ["*postepisode*"]).definitions}
    assert names == {"postepisodeconsumer"}


def test_allowed_modules_use_import_linter_expressions(index):
    # `X.**` excludes X itself; a plain name includes its submodules.
    descendants_only = check_placement(make_config(allowed="tbp.monty.experiment.**"), index)
    assert not any(f.symbol.startswith("tbp.monty.experiment.") for f in descendants_only.findings)
    handlers_only = check_placement(make_config(allowed="tbp.monty.experiment.handlers"), index)
    assert "tbp.monty.experiment.telemetry.init_telemetry" in {f.symbol for f in handlers_only.findings}
    several = check_placement(make_config(allowed=["tbp.monty.experiment", "tbp.monty.frameworks.*.setup"]), index)
    symbols = {f.symbol for f in several.findings}
    assert "tbp.monty.frameworks.telemetry.setup.init_telemetry" not in symbols
    assert "tbp.monty.frameworks.telemetry.consumers.PostEpisodeSummary" in symbols
    summary = next(f for f in several.findings if f.symbol.endswith(".PostEpisodeSummary"))
    assert summary.message == (
        "class PostEpisodeSummary is defined outside tbp.monty.experiment, tbp.monty.frameworks.*.setup; move it there"
    )


@pytest.mark.parametrize(
    ("patterns", "data", "could_match"),
    [
        (["init_telemetry"], b"def init_telemetry(): pass", True),
        (["init_telemetry"], b"def init_telemetry_defaults(): pass", False),  # the whole name must match
        (["*View"], b"class CsrfViewMiddleware: pass", False),
        (["*View"], b"class CsrfViewMiddleware: pass\nclass AView: pass", True),
        (["HttpResponse*"], b"class MyHttpResponse: pass", False),
        (["on_?"], b"def on_ab(): pass", False),
        (["on_?"], b"def on_a(): pass", True),
        (["on_?"], "def on_é(): pass".encode(), True),  # one character, two bytes
        (["*_[ab]"], b"def on_c(): pass", True),  # a bracket set lets any name characters through
        (["init.telemetry"], b"def init_telemetry(): pass", False),  # no name holds a dot
        (["init_telemetry"], b"def setup(): pass", False),
        (["*PostEpisode*"], b"class XPostEpisodeY: pass", True),
        (["*PostEpisode*"], b"class Post_Episode: pass", False),
        (["*"], b"", False),  # no definition at all
        (["*"], b"x = 1\n", True),  # a binding
        (["*"], b"try:\n    pass\nfinally:\n    pass\n", False),  # keywords bind nothing
        (["*"], b"async def f(): pass", True),
        (["on_[ab]*"], b"def on_a(): pass", True),
        (["[]a]x"], b"def ax(): pass", True),  # bracket sets are never used as literals
        (["init_telemetry"], b"init_telemetry = setup\n", True),  # a binding
        (["init_telemetry"], b"init_telemetry: Callable = setup\n", True),
        (["init_telemetry"], b"a, *init_telemetry = setup\n", True),
        (["init_telemetry"], b"(\n    a,\n    init_telemetry  # comment\n) = setup\n", True),
        (["init_telemetry"], b"init_telemetry\\\n    = setup\n", True),
        (["init_telemetry"], b"init_telemetry(config)\nx.init_telemetry()\n", False),  # calls
        (["init_telemetry"], b"my_init_telemetry = setup\n", False),  # the whole name must match
        # Ends a line, as a name in a bracketed target may: let through, though an import.
        (["init_telemetry"], b"from x import init_telemetry\n", True),
        (["init_telemetry"], b"if x:\n    def\t\\\n  init_telemetry(): pass", True),  # blanks, a continuation
        (["init_telemetry"], b"def init_telemetry\r\n", True),
        (["init_telemetry"], "def ｉnit_telemetry(): pass".encode(), True),  # read NFKC-normalised
        (["init_telemetry"], "def init_télémétrie(): pass".encode(), False),  # non-ASCII, normalised: no match
        (["*View"], "class ÉtatView: pass".encode(), True),
        (["*View"], b"# -*- coding: latin-1 -*-\nclass \xc9tatView: pass", True),
        (["*View"], b"\xef\xbb\xbfclass AView: pass", True),  # a byte order mark
        (["*View"], b"class AView: pass\n\xff\xfe", True),  # undecodable: parsed, to say why
        # A function attached to a class: by assignment, or given to setattr by name.
        (["init_telemetry"], b"Lm.init_telemetry = setup\n", True),
        (["init_telemetry"], b"Lm.init_telemetry(config)\n", False),
        (["init_telemetry"], b"setattr(Lm, 'init_telemetry', setup)\n", True),
        (["Lm.init_*"], b'setattr(\n    Lm,\n    "init_telemetry",\n    setup,\n)\n', True),
        (["init_telemetry"], b"setattr(Lm, 'init_telemetry_defaults', setup)\n", False),
        (["init_telemetry"], b"log('init_telemetry')\n", False),  # a string, where no setattr is
        (["init_telemetry"], "# café\nsetattr(Lm, 'init_telemetry', setup)\n".encode(), True),  # read as text
    ],
)
def test_bytes_filter_never_skips_a_file_that_could_match(patterns, data, could_match):
    assert bytes_filter(patterns)(data) is could_match


def test_prepare_reads_together_the_files_that_may_match_and_no_other(monkeypatch):
    # Checked module by module, the candidates would be parsed one at a time. The
    # allowed modules' are left to the scan, which reads them only while a pattern
    # they may define is matched nowhere.
    from domain_fence.core.families import Context
    from domain_fence.core.families.placement import PLACEMENT

    fresh = ProjectIndex.build(PROJECT, ["tbp.monty"], cache_dir=None)
    batches: list[list[str]] = []
    prefetch = fresh.prefetch
    monkeypatch.setattr(fresh, "prefetch", lambda modules: (batches.append(list(modules)), prefetch(batches[-1])))
    context = Context(PROJECT, ("tbp.monty",), fresh)
    modules = sorted(fresh.modules)
    PLACEMENT.prepare(make_config(), context, modules)
    assert len(batches) == 1
    read = set(batches[0])
    assert read and read < set(modules)
    assert not any(m.startswith("tbp.monty.experiment") for m in read)
    assert all(
        b"init_telemetry" in fresh.modules[m].read_bytes() or b"PostEpisode" in fresh.modules[m].read_bytes()
        for m in read
    )
