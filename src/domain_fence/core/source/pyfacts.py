"""What one module says: its imports, its classes and their attributes, the calls it
makes with keyword arguments, the names it declares and its module-level definitions.

:func:`extract` walks a module's tree once and extracts what every family needs,
so the tree can be dropped at once: the index keeps (and caches on disk) these
facts, never trees. It is a pure function of the module's name, whether it is a
package, and its tree. The declarations are a separate value: only the vocabulary
contract's opt-in scopes read them, and they are the bulk of the facts, so the
cache decodes them only when asked. The flow facts DOM105 reads are extracted apart
(:func:`flow_facts`), for the few modules that need them. Names are resolved only as
far as this module can see (``from .base import Event as E`` makes ``E`` mean
``pkg.base.Event``); following re-exports into other modules is left to the caller,
which has the whole project.

The walk visits statements, and the expressions of each statement only to find
calls: every import, class and definition is a statement, so this finds them all
while touching far fewer nodes than a walk of every node would.
"""

from __future__ import annotations

import ast
import builtins
import re
import unicodedata
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from string import Formatter
from typing import TypeGuard

from domain_fence.core.source.flow import (
    ALL_CALLEES,
    JSON_VALIDATOR,
    MAPPING_VALIDATORS,
    RAISED,
    FlowFacts,
    Given,
    PayloadSite,
    callee_names,
    construction_keywords,
    construction_spreads,
    is_spread,
    key_written,
    module_flows,
    spread_mappings,
    spread_name,
    traced_callee,
    union_keywords,
    unpacked_keywords,
)
from domain_fence.core.source.keys import json_keys, nested_keys
from domain_fence.core.source.modules import resolve_relative
from domain_fence.core.source.reading import Unreadable

MODULE_SCOPE = "<module>"
BINDING = "binding"  # the kind of a definition by assignment
ALIAS_KEYWORDS = ("alias", "validation_alias", "serialization_alias")
FUNCTIONAL_CLASS_FACTORIES = ("TypedDict", "NamedTuple", "namedtuple")
_METHOD_FACTORIES = ("property", "staticmethod", "classmethod", "cached_property")
_FIELD_SPECIFIERS = ("Field", "field", "attrib", "ib")  # pydantic, dataclasses, attrs
_FACTORY_KEYWORDS = ("default_factory", "factory")  # pydantic and dataclasses, attrs
_FACTORY_OPTIONS = ("total", "rename", "defaults", "module", "closed", "extra_items")
# How an attribute is set other than by assignment (AttributeSetFact's form).
SETATTR, OBJECT_SETATTR = "setattr", "object.__setattr__"


@dataclass(frozen=True)
class Text:
    """A string or a name at a place in the file (1-based line, 0-based column)."""

    text: str
    line: int
    col: int


@dataclass(frozen=True)
class AttributeFact:
    """A class-level attribute: annotated, assigned, or a functional-form field; or a
    method serialized as a field (``@computed_field``)."""

    name: Text
    strings: tuple[Text, ...] = ()  # string values: ``= "x"``, ``Literal["x"]``
    aliases: tuple[Text, ...] = ()  # ``Field(alias="x", validation_alias=...)`` strings
    # ``= KIND`` (or ``Field(default=KIND)``) naming a module-level string constant: its
    # name, where the value names it; the constant's string is then in ``strings``, at
    # that place (see :meth:`_Resolver.class_fact`). ``= KINDS["reset"]``, an entry of a
    # module-level table of strings: spelled ``KINDS['reset']`` (see
    # :meth:`_Resolver.table_constants`), read alike.
    constant: Text | None = None
    # ``= END_OF_RUN`` (or ``= Kinds.RESET``, ``Field(default=...)``) naming what the
    # module imports: that name resolved through its imports (see
    # :meth:`_Resolver.imported_reference`), with ``constant`` where it is written; a
    # string constant of another module it may name is the check's question.
    reference: str = ""
    # Annotated ``ClassVar[...]``: an attribute of the class, no field of its instances
    # (neither pydantic nor dataclasses emit it); its kind string still counts.
    class_var: bool = False
    # A method pydantic serializes as a field (``@computed_field``): its name at its
    # ``def`` keyword, as the census's definitions have it (``name`` is where the name
    # itself is written).
    method: Text | None = None
    # (the template, the value where it is written) for a value folded from names the
    # module imports (``kind = PREFIX + "Done"`` after ``from .kinds import PREFIX``), as a
    # keyword's (see CallFact.templates); one folded from the module's own constants is
    # among ``strings``, where the value is written (see :meth:`_Resolver.folded_value`).
    templates: tuple[tuple[tuple[str, ...], Text], ...] = ()


# How a class takes positional arguments, as far as its own statement tells (see
# :func:`_init_order`); a class whose ``init`` is none of these takes them as is not known.
DATACLASS = "dataclass"  # a dataclass: its own fields (``init_fields``), after its bases'
NAMEDTUPLE = "namedtuple"  # a class-form NamedTuple: its fields, in order
INHERITED = "inherited"  # a plain class defining no constructor: as its one base does


@dataclass(frozen=True)
class ReceiverStringFact:
    """A string a method sets on its own instance: ``self.kind = "EpisodeEnd"`` (an
    annotated assignment too), ``setattr(self, "kind", ...)``, ``object.__setattr__(self,
    "kind", ...)`` or ``super().__setattr__("kind", ...)`` in a method of a class defined
    outside any function (or a function nested in one), where nothing else in the method
    binds ``self`` (see :meth:`_Constructions.receiver_class`) and ``setattr``,
    ``object`` and ``super`` are the builtins. Whether the attribute holds the class's
    kind is the check's question (its ``kind_attributes``)."""

    scope: str  # qualname of the method (or of the function nested in it) setting it
    name: Text  # the attribute, where the target (or the string naming it) is written
    # (the module constant it names, or None; the string, where it is written), read as a
    # keyword's kind is (:meth:`_Resolver.keep_string`): a literal's literal parts, and
    # the string folded from module constants where it differs, at the same place; each
    # branch of a conditional expression on its own.
    strings: tuple[tuple[str | None, Text], ...]
    # (the name resolved through the module's imports, the name as written and where) for
    # a name the module imports, or an attribute of one (``self.kind = Kinds.RESET``), as
    # a keyword's (see CallFact.references): another module's constant it may name is the
    # check's question.
    references: tuple[tuple[str, Text], ...] = ()
    # (how a fingerprint spells it, what the message notes, the string) for each string a
    # local variable of the method holds where it is set (``self.kind = kind`` after
    # ``kind = "EpisodeEnd" if done else "Step"``: spelled ``kind:'EpisodeEnd'``, noted
    # " (through local kind)"), at each literal assigned to it, read as a keyword's
    # (see CallFact.held and :class:`_LocalStrings`).
    held: tuple[tuple[str, str, Text], ...] = ()
    # Set on the class (``cls.kind = "..."`` in a class method, ``setattr(cls, "kind",
    # ...)``), not on an instance.
    on_class: bool = False
    # (the template, the value where it is written) for a string folded from names the
    # module imports, as a keyword's (see CallFact.templates).
    templates: tuple[tuple[tuple[str, ...], Text], ...] = ()


@dataclass(frozen=True)
class ClassFact:
    qualname: str  # "Outer.Inner"; a class in a function is "function.Inner"
    line: int
    col: int
    bases: tuple[str, ...]  # dotted references, resolved through this module's imports
    attributes: tuple[AttributeFact, ...]
    init: str = ""  # DATACLASS, NAMEDTUPLE, INHERITED, or "" (not known)
    # DATACLASS, NAMEDTUPLE: the fields the class's own body declares, in order, each
    # with whether it is taken by position (not ``kw_only``, not ``init=False``)
    init_fields: tuple[tuple[str, bool], ...] = ()
    # The strings its methods set on their instance (``self.kind = "..."``), in source order.
    receiver_strings: tuple[ReceiverStringFact, ...] = ()
    # The strings the class's own body binds to names for certain (``RESET =
    # "PostEpisodeReset"`` in an Enum, ``DONE = "EpochDone"``): what ``Class.NAME``
    # holds, read where another module gives it as an event's kind (see
    # :func:`_class_constants`).
    constants: tuple[tuple[str, str], ...] = ()
    # The class's scope binds a name that decides what an enumeration's member holds
    # (``__new__``, ``__init__``, ``_generate_next_value_``: see :func:`_binds_value_hooks`):
    # the value of a member of an enumeration with such a class is not known.
    value_hooks: bool = False


@dataclass(frozen=True)
class CallFact:
    """A call with keyword arguments whose callee is a dotted name (keywords unpacked from
    a mapping whose keys are not known, ``f(**stats)``, too: DOM105 traces that mapping)."""

    callee: str  # resolved through this module's imports
    scope: str  # qualname of the enclosing function or class, or MODULE_SCOPE
    keywords: tuple[Text, ...]  # those named (none, when the call only unpacks such mappings)
    # (position in ``keywords``, the string) for each keyword given a literal string
    # (``kind="post_episode"``): a kind set at construction (DOM103). Only literals are
    # kept, as every call of every file has these facts.
    strings: tuple[tuple[int, Text], ...] = ()
    # (position, the constant's name, its string where the keyword's value names it) for
    # each keyword given a module-level string constant (``kind=KIND`` after
    # ``KIND = "post_episode"``, or ``KIND = PREFIX + "End"``; see
    # :meth:`_Resolver.string_constant`), or an entry of a module-level table of strings,
    # named as the subscript reading it (``kind=KINDS["reset"]``: ``KINDS['reset']``, see
    # :meth:`_Resolver.table_constants`).
    constants: tuple[tuple[int, str, Text], ...] = ()
    # (position, how a fingerprint spells it, what the message notes, the string) for each
    # string a keyword is given otherwise (see :meth:`_Resolver.keep_string`): folded from
    # module constants where the keyword's value is written (``kind=f"{PREFIX}Start"``;
    # spelled as the string, noted ""), or held by a local variable of the function, at
    # each literal assigned to it (``kind=kind`` after ``kind = "EpisodeEnd" if done else
    # "Step"``: spelled ``kind:'EpisodeEnd'``, noted " (through local kind)"; see
    # :class:`_LocalStrings`).
    held: tuple[tuple[int, str, str, Text], ...] = ()
    # (position, the name resolved through this module's imports, the name as written
    # and where) for each keyword given a name this module imports, or an attribute of
    # one (``kind=END_OF_RUN``, ``kind=Kinds.RESET``, ``kind=kinds.END_OF_RUN``), bound
    # nowhere else in the module: it may name a string constant of another module (or a
    # class's), which the check looks up when the keyword is a kind (see
    # :meth:`_Resolver.keep_string`); or such a name subscripted with a literal string,
    # which it may name a table of strings by (``kind=KINDS["reset"]`` after ``from
    # .kinds import KINDS``: ``pkg.kinds.KINDS['reset']``, written ``KINDS['reset']``;
    # see :meth:`_Resolver.table_reference`).
    references: tuple[tuple[int, str, Text], ...] = ()
    # (position, the template, the value where it is written) for each keyword given a
    # string folded from a name this module imports (``kind=f"{PREFIX}Start"``,
    # ``PREFIX + "Start"``, ``"{}Start".format(PREFIX)``, ``"%sStart" % PREFIX`` after
    # ``from .kinds import PREFIX``), as a module constant is folded where the module holds
    # none: the literal parts, with the names as resolved between them (``("",
    # "pkg.kinds.PREFIX", "Start")``; see :meth:`_Resolver.template`). What each name
    # holds is the check's question, and the string is known when each holds one.
    templates: tuple[tuple[int, tuple[str, ...], Text], ...] = ()
    # (the keyword, how a fingerprint spells the key's place, the key where it is written)
    # for each key a keyword's value holds (``stats={"episode": n}``: ``stats``,
    # ``stats['episode']``): a literal string key of a dict display or a ``dict(...)``
    # call, to any depth of those and of list and tuple displays (:func:`~.keys.nested_keys`),
    # and the keys of a local dict given as the value (``stats=stats``, see
    # :meth:`_Payloads.given_as_value`), in source order. Whether they reach an event is
    # the check's question.
    keys: tuple[tuple[str, str, Text], ...] = ()


@dataclass(frozen=True)
class ConstructionFact:
    """A call that builds an instance of a class other than by calling the class by
    name, and the fields it names: ``X.model_construct(a=1)``, ``X.model_validate({"a":
    1})``, ``partial(X, a=1)``, ``cls(a=1)`` in a class method, ``type(self)(a=1)``,
    ``self.__class__(a=1)`` and ``super().__init__(a=1)`` in a method,
    ``x.model_copy(update={"a": 1})`` and ``dataclasses.replace(x, a=1)`` where ``x`` is known to hold an instance of X,
    and a call of a local alias of X (``Event = X; Event(a=1)``, form ``local Event``; see
    :class:`_Constructions`). Whether X is an event is the check's question.

    Also the keys of a dict a local variable holds, unpacked into a call (``X(**payload)``
    after ``payload = {"a": 1}``: form ``**payload``, X the callee as for a CallFact) or
    given to one of the constructions above (``X.model_validate(payload)``: form
    ``model_validate(payload)``; ``partial(X, **payload)``: ``partial(**payload)``), each
    where the key is written (see :class:`_Payloads`)."""

    built: str  # the class, resolved through this module's imports (``module.Class`` for a method's own)
    form: str  # how: "model_construct", "cls.model_validate", "partial", "type(self)", ...; fingerprints name it
    scope: str  # as CallFact's
    keywords: tuple[Text, ...]  # the fields named, as CallFact's keywords
    strings: tuple[tuple[int, Text], ...] = ()  # as CallFact's
    constants: tuple[tuple[int, str, Text], ...] = ()  # as CallFact's
    held: tuple[tuple[int, str, str, Text], ...] = ()  # as CallFact's
    references: tuple[tuple[int, str, Text], ...] = ()  # as CallFact's
    templates: tuple[tuple[int, tuple[str, ...], Text], ...] = ()  # as CallFact's
    # As CallFact's, below the fields named; for ``model_validate_json`` given a literal,
    # the keys of its JSON object (:func:`~.keys.json_keys`), whose own keys are the fields.
    keys: tuple[tuple[str, str, Text], ...] = ()


@dataclass(frozen=True)
class AttributeSetFact:
    """An attribute set on a local variable known to hold an instance of a class
    (``event.episode = n``, ``setattr(event, "epoch", n)``, ``object.__setattr__(event,
    "epoch", n)``, where every binding of ``event`` in the function is an assignment of
    a construction of the same class: see :meth:`_Constructions.instance_of`). Whether
    the class is an event is the check's question."""

    built: str  # the class, resolved through this module's imports
    form: str  # "" for an assignment, else SETATTR or OBJECT_SETATTR
    scope: str  # as CallFact's
    holder: Text  # the local, where it is written (where the flow facts' ATTRIBUTE sink is)
    name: Text  # the attribute, where its name is written (inside the quotes of a string)


@dataclass(frozen=True)
class PositionalFact:
    """A call that may build an instance of a class, given strings by position
    (``Stats("EpisodeEnd", 3)``): by the class's name (the name capitalized), or as
    ``cls(...)``, ``type(self)(...)``, ``self.__class__(...)`` or ``partial(X, ...)``
    (see :class:`_Constructions`). Which field each position binds, and so whether a
    string is a kind, is the check's question: it needs the class's fields."""

    callee: str  # resolved through this module's imports (the class built, for a construction)
    form: str  # "" for a call by name, else the construction's form (see ConstructionFact)
    scope: str  # as CallFact's
    # (position among the positional arguments, the literal string there), read as a
    # keyword's is; positions after a starred argument are not known, and not kept. A
    # module constant is not read here: knowing that nothing rebinds it walks the whole
    # module, which many calls given a name by position would make every file pay.
    strings: tuple[tuple[int, Text], ...] = ()


@dataclass(frozen=True)
class EmitterFact:
    """A module-level function (certain as for its signature: see :func:`_signatures`)
    that constructs a class unpacking its own ``**`` parameter (``Event(**fields)``,
    ``Event(kind=kind, **fields)``, ``Event.model_validate(fields)``): the keywords its
    callers give it become that instance's fields. Whether a class is an event, and so
    whether the function emits one (read as if ``emit_functions`` named it), is the
    check's question."""

    built: tuple[str, ...]  # the classes, resolved through this module's imports, sorted
    # The parameters those constructions are given under their own name (``kind=kind``),
    # sorted: a kind given by position to the function is one only where it is passed on.
    passed: tuple[str, ...] = ()
    # Every parameter it names (positional and keyword-only), sorted: a keyword so named
    # binds the parameter, not the ``**`` one, and reaches the event only when passed on
    # (``publish(kind, *, throttle=0, **fields)`` called with ``throttle=n``).
    named: tuple[str, ...] = ()
    # The parameters it takes by position, in order: what a value given by position binds.
    positional: tuple[str, ...] = ()


@dataclass(frozen=True)
class ModuleFacts:
    module: str
    unreadable: Unreadable | None = None
    classes: dict[str, ClassFact] = field(default_factory=dict)  # qualname -> fact of its last statement
    # The class statements a later one of the same qualname rebinds (``try``/``except``
    # and ``if``/``else`` versions of a class), in source order.
    redefined: tuple[ClassFact, ...] = ()
    bindings: dict[str, str] = field(default_factory=dict)  # top-level name -> dotted target
    star_imports: tuple[str, ...] = ()  # modules imported with ``from x import *``
    calls: tuple[CallFact, ...] = ()
    # Callees of calls assigned to a local whose attribute the same scope sets
    # (``event = Recognized()`` then ``event.label = ...``), resolved like ``calls``.
    constructed: tuple[str, ...] = ()
    constructions: tuple[ConstructionFact, ...] = ()  # in source order
    positional: tuple[PositionalFact, ...] = ()  # in source order
    attribute_sets: tuple[AttributeSetFact, ...] = ()  # in source order
    # module-level name -> the string it holds wherever it is read (see
    # :meth:`_Resolver.string_constant`): what another module imports as an event's kind;
    # and a table's entry, spelled as a subscript (``KINDS['reset']``), -> the string the
    # table holds there (see :meth:`_Resolver.table_constants`)
    constants: dict[str, str] = field(default_factory=dict)
    # What the calls given arguments by position call, resolved like ``calls`` (the class
    # built, for a construction passing them on: ``cls(...)``, ``partial(X, ...)``), once
    # each, sorted: whether one is an event or an emit function, whose values DOM105
    # traces, is the check's question (see :func:`_arguments_given`).
    argument_callees: tuple[str, ...] = ()
    # module-level function -> the parameters it takes by position, where that is certain
    # (see :func:`_signatures`): which one a position binds in a call of an emit function
    signatures: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # module-level function -> the classes it constructs from its own ``**`` parameter
    # (see :func:`_emitters`): an emit function when one of them is an event
    emitters: dict[str, EmitterFact] = field(default_factory=dict)
    # The methods (``Class.name``, of a class defined outside any function) decorated
    # ``@property`` or ``@functools.cached_property`` (under any name the module binds):
    # reading ``self.name`` calls them (DOM105 follows one into its return value).
    properties: tuple[str, ...] = ()  # sorted

    def statements(self, qualname: str) -> tuple[ClassFact, ...]:
        """Every class statement binding ``qualname``, in source order."""
        last = self.classes.get(qualname)
        if last is None:
            return ()
        return (*(fact for fact in self.redefined if fact.qualname == qualname), last)


@dataclass(frozen=True)
class DefinitionFact:
    """A class, function or method defined outside any function body."""

    # "class", "function" or "method"; "lambda" for ``name = lambda ...:`` at module or
    # class level, a definition for its parameters only (DOM112), not for its name (the
    # name is a "binding", see :func:`_bindings`, when the census counts it)
    kind: str
    qualname: str  # "Outer.method"
    # at the ``class``/``def`` keyword (or the assignment of a functional class, or a
    # lambda's or binding's target)
    name: Text
    parameters: tuple[Text, ...] = ()  # every parameter of a function or method, in order


@dataclass(frozen=True)
class MemberFact:
    """An attribute a class declares, at its first declaration."""

    owner: str  # qualname of the class
    name: Text
    class_level: bool  # in the class body; False for ``self.<name> = ...`` in a method


@dataclass(frozen=True)
class DeclarationFacts:
    """Every name a module declares outside function bodies (locals are not declarations)."""

    module: str
    unreadable: Unreadable | None = None
    definitions: tuple[DefinitionFact, ...] = ()  # in source order
    members: tuple[MemberFact, ...] = ()  # one per (owner, name), in source order


@dataclass(frozen=True)
class TopLevelDefinition:
    """A function or class the module defines at module level (placement)."""

    kind: str  # "function" or "class"
    name: str
    line: int  # of the ``def``/``class`` keyword, after any decorators
    col: int  # of that keyword (of ``async`` for ``async def``)


@dataclass(frozen=True)
class MethodDefinition:
    """A function defined in the body of a class defined at module level (placement)."""

    owner: str  # qualname of the class: "Outer.Inner" for a method of a nested class
    name: str
    line: int  # of the ``def`` keyword, after any decorators
    col: int

    @property
    def qualname(self) -> str:
        return f"{self.owner}.{self.name}"


@dataclass(frozen=True)
class NestedClassDefinition:
    """A class defined in the body of a class defined at module level (or of a class
    nested in one), for placement: importable as ``Outer.Inner`` as a method is."""

    owner: str  # qualname of the class whose body defines it
    name: str
    line: int  # of the ``class`` keyword, after any decorators
    col: int

    @property
    def qualname(self) -> str:
        return f"{self.owner}.{self.name}"


@dataclass(frozen=True)
class BoundName:
    """A name bound by assignment at module level, or in the body of a class defined at
    module level (or of a class nested in one), for placement: ``init_telemetry = _setup``,
    ``post_episode = staticmethod(_handle)`` (see :func:`bound_names`)."""

    owner: str  # qualname of the class whose body binds it; "" at module level
    name: str
    line: int  # of the name: the assignment's line, unless its target spans lines
    col: int  # of the name
    # Of a re-export (``from .helpers import setup as init_telemetry``, ``Alias =
    # imported.Handler``): the name of what it binds anew ("" for any other binding).
    # It defines nothing unless its name matches a pattern and this one none (a
    # helper given a reserved name): see ``matched_patterns``.
    renames: str = ""

    @property
    def qualname(self) -> str:
        return f"{self.owner}.{self.name}" if self.owner else self.name


@dataclass(frozen=True)
class ImportFact:
    """One name an import statement imports (the per-file boundary view, DOM301)."""

    line: int  # of the statement, the line grimp records for the import
    col: int  # of the imported name: the offending token
    source: str  # ``import a.b`` -> "a.b"; ``from ..x import y`` -> the absolute "pkg.x"
    name: str | None  # "y" for ``from ... import y`` ("*" for a star); None for ``import``
    type_checking: bool  # under ``if TYPE_CHECKING:``
    name_line: int = 0  # of the imported name, when the statement spans lines (0: ``line``)
    end_col: int = 0  # where the imported name ends

    @property
    def at_line(self) -> int:
        return self.name_line or self.line


@dataclass(frozen=True)
class FileFacts:
    """What the families need from one file (but its declarations); plain data, so it
    can be cached."""

    module: str
    is_package: bool
    names: ModuleFacts  # vocabulary: classes, bindings, calls
    top_level: tuple[TopLevelDefinition, ...] = ()  # placement
    methods: tuple[MethodDefinition, ...] = ()  # placement
    bound: tuple[BoundName, ...] = ()  # placement: names bound by assignment
    nested_classes: tuple[NestedClassDefinition, ...] = ()  # placement
    # placement: functions attached to a class from outside its body (see attached_names)
    attached: tuple[BoundName, ...] = ()
    imports: tuple[ImportFact, ...] = ()  # boundary, per file
    escaping_imports: tuple[int, ...] = ()  # lines of relative imports above the top-level package

    @property
    def unreadable(self) -> Unreadable | None:
        return self.names.unreadable


@dataclass(frozen=True)
class ImportFacts:
    """A file's imports alone, as :class:`FileFacts` has them, and whether it can be
    analysed: what a contract needs of a file another passes over (see
    ``families.vocabulary.prefilter``)."""

    module: str
    unreadable: Unreadable | None
    imports: tuple[ImportFact, ...] = ()
    escaping_imports: tuple[int, ...] = ()


def import_facts(module: str, is_package: bool, tree: ast.Module | Unreadable) -> ImportFacts:
    """The imports of ``module``'s tree, from a walk over its statements alone (the
    same walk as :func:`extract`'s, without the expressions: a fraction of its cost)."""
    if isinstance(tree, Unreadable):
        return ImportFacts(module, tree)
    walk = _StatementsOnly(module, is_package)
    walk.body(tree.body, 1, (), _Context())
    return ImportFacts(module, None, tuple(walk.import_facts), tuple(walk.escaping))


def extract(module: str, is_package: bool, tree: ast.Module | Unreadable | None) -> tuple[FileFacts, DeclarationFacts]:
    """Every family's facts about ``module`` from its tree, in one walk (but its flow
    facts: see :func:`flow_facts`)."""
    if tree is None or isinstance(tree, Unreadable):
        unreadable = tree if isinstance(tree, Unreadable) else None
        return FileFacts(module, is_package, ModuleFacts(module, unreadable)), DeclarationFacts(module, unreadable)
    return _facts(module, is_package, tree, *_walked(module, is_package, tree))


def extract_traced(
    module: str, is_package: bool, tree: ast.Module, every_return: bool = False, callees: tuple[str, ...] = ALL_CALLEES
) -> tuple[FileFacts, DeclarationFacts, FlowFacts]:
    """:func:`extract` and :func:`flow_facts` from one walk: for a file that will likely
    need both, cheaper than reading it again when its flow facts are asked for."""
    walk, statements, resolver = _walked(module, is_package, tree)
    facts, declarations = _facts(module, is_package, tree, walk, statements, resolver)
    return facts, declarations, _flows(module, tree, walk, resolver, every_return, callees)


def _facts(
    module: str, is_package: bool, tree: ast.Module, walk: _Walk, statements: list[ast.stmt], resolver: _Resolver
) -> tuple[FileFacts, DeclarationFacts]:
    classes = [resolver.functional_class(statement) for statement in statements]
    # Not kept on the walk: it holds the finder, which the walk keeps (see _Constructions).
    held = _LocalStrings(_finder(walk, resolver), resolver, walk.string_locals) if walk.string_locals else None
    set_strings = _receiver_strings(walk, resolver, held)
    classes += [
        resolver.class_fact(
            node, scope, attributes, set_strings.get(node, ()), (*scope, node.name) in walk.walrus_scopes
        )
        for node, scope, attributes in walk.classes
    ]
    dicts = _Payloads(_finder(walk, resolver), walk.dict_locals) if walk.dict_locals else None
    calls = [c for c in (resolver.call(node, scope, held, dicts) for node, scope in walk.calls) if c is not None]
    constructions = [
        fact
        for fact in (resolver.construction(*item, held, dicts) for item in _constructions(walk, resolver, tree))
        if fact is not None
    ]
    # The same local unpacked twice alike into the same class names its keys once.
    unpacked: dict[tuple[str, str, str, tuple[Text, ...]], ConstructionFact] = {}
    for _, scope, form, built, entries, _, _ in _payloads(walk, resolver, tree):
        payload = resolver.payload(built, form, scope, entries)
        if payload is not None:
            unpacked.setdefault((payload.built, payload.form, payload.scope, payload.keywords), payload)
    constructions += unpacked.values()
    positional = [fact for fact in (resolver.positional(*item) for item in _positional(walk, resolver)) if fact]
    attribute_sets = _attribute_sets(walk, resolver)
    ordered = sorted((c for c in classes if c), key=lambda c: (c.line, c.col))
    certain = _certain_functions(walk, resolver)
    last = {c.qualname: c for c in ordered}  # a name bound twice is bound to its last class at run time
    names = ModuleFacts(
        module=module,
        classes=last,
        redefined=tuple(c for c in ordered if last[c.qualname] is not c),
        bindings=resolver.bindings,
        star_imports=tuple(walk.stars),
        calls=tuple(sorted(calls, key=lambda c: [(k.line, k.col) for k in c.keywords])),
        constructed=tuple(sorted({c for c in map(resolver.resolve, walk.constructed()) if c})),
        constructions=tuple(sorted(constructions, key=lambda c: [(k.line, k.col) for k in c.keywords])),
        positional=tuple(sorted(positional, key=_positions)),
        attribute_sets=tuple(sorted(attribute_sets, key=lambda a: (a.name.line, a.name.col))),
        constants={**resolver.string_constants(), **resolver.table_constants()},
        argument_callees=tuple(sorted({target for _, _, _, target, _ in _arguments_given(walk, resolver)})),
        signatures=_signatures(certain),
        emitters=_emitters(walk, resolver, certain),
        properties=_properties(walk, resolver),
    )
    bound = list(_bindings(tree.body))
    facts = FileFacts(
        module=module,
        is_package=is_package,
        names=names,
        top_level=tuple(top_level_definitions(tree.body)),
        methods=tuple(method_definitions(tree.body)),
        nested_classes=tuple(nested_class_definitions(tree.body)),
        bound=tuple(binding.fact for binding in bound),
        attached=tuple(_attached(walk, resolver.bindings, tree.body)),
        imports=tuple(walk.import_facts),
        escaping_imports=tuple(walk.escaping),
    )
    # The census's definitions (DOM113) take the bindings that evidently define a
    # function, class or method; the others may hold any value (``EPISODE_TIMEOUT = 10``).
    census = [
        DefinitionFact(BINDING, b.fact.qualname, Text(b.fact.name, b.fact.line, b.fact.col)) for b in bound if b.evident
    ]
    return facts, walk.declarations(census)


def flow_facts(
    module: str,
    is_package: bool,
    tree: ast.Module | Unreadable | None,
    every_return: bool = False,
    callees: tuple[str, ...] = ALL_CALLEES,
) -> FlowFacts:
    """Where the values ``module`` passes come from (DOM105, :mod:`.flow`). Tracing them
    costs about as much as every other fact together, and only the modules that build
    events (and the helpers those call) need them: the index extracts them when asked.
    Every function's return value is traced with ``every_return`` only; else those of
    the helpers the module's own sinks call. The keywords of the calls to ``callees``
    only are traced (:func:`~.flow.traced_callee`)."""
    if tree is None or isinstance(tree, Unreadable):
        return FlowFacts()
    walk, _, resolver = _walked(module, is_package, tree)
    return _flows(module, tree, walk, resolver, every_return, callees)


def _flows(
    module: str,
    tree: ast.Module,
    walk: _Walk,
    resolver: _Resolver,
    every_return: bool = False,
    callees: tuple[str, ...] = ALL_CALLEES,
) -> FlowFacts:
    keyword_calls = ((call, ".".join(scope) or MODULE_SCOPE) for call, scope in walk.calls)
    # Where an attribute sink (an attribute set on a local built by a call) or a field
    # sink (a class's defaults) can be.
    other_sink_scopes = {
        ".".join(scope) for scope, local, _ in walk.assigned_calls if (scope, local) in walk.attribute_holders
    }
    other_sink_scopes.update(".".join(scope) for _, scope, _ in walk.classes)
    walrus_scopes = {".".join(scope) for scope in walk.walrus_scopes}
    constructions = {call: (form, built) for call, _, form, built in _constructions(walk, resolver, tree)}
    payloads: dict[ast.stmt, list[PayloadSite]] = {}  # where each key of an unpacked local is put in
    followed: list[ast.expr] = []  # the locals so unpacked, where each call is given one
    for _, _, form, built, entries, given, merged in _payloads(walk, resolver, tree):
        if merged:  # traced whole where it is given, as before its keys were read
            continue
        followed.append(given)
        for name, where, value, statement in entries:
            payloads.setdefault(statement, []).append(PayloadSite(name, where, value, built, form))
    arguments = _arguments_given(walk, resolver)
    flows = module_flows(
        module,
        tree,
        resolver.resolve_dotted,
        keyword_calls,
        other_sink_scopes,
        every_return,
        callees,
        walrus_scopes,
        constructions,
        payloads,
        followed,
        arguments,
    )
    # The literal strings given by position to the calls by name whose arguments are
    # traced (a kind given to an emit function: DOM103), read as a construction's are
    # (see PositionalFact): only here, as every call of every file given a string
    # would pay for them among the facts.
    traced = callee_names(callees)
    strings = [
        Given(target, scope, position, text.text, text.line, text.col, *method)
        for call, scope, form, target, skip in arguments
        if not form and (traced == ALL_CALLEES or traced_callee(traced, target))
        for fact in (resolver.positional(call, scope, form, target, skip),)
        if fact is not None
        for method in (_own_method(walk, resolver, call, scope),)
        for position, text in fact.strings
    ]
    return replace(flows, given=tuple(strings)) if strings else flows


def _own_method(walk: _Walk, resolver: _Resolver, call: ast.Call, scope: str) -> tuple[str, tuple[str, ...]]:
    """(the class, the parameters after ``self``) when ``call`` is ``self.name(...)``
    on the instance of a method's class (``self`` as :meth:`_Constructions.receiver_class`
    knows it: a method of a class defined outside any function, its receiver bound
    nowhere else in it), and that class statement's own scope binds ``name`` once, by
    one ``def`` in its body with no decorator (a decorator may take other parameters),
    which no method of it sets on ``self`` (an instance's attribute hides the method);
    else ("", ()). Its parameters are those taken by position, as a function's are
    (see :func:`_signatures`), but the first: ``self``, which the call does not give.
    Which method an instance of a subclass overriding it calls is not known: the
    class's own is taken, as DOM105 takes ``self.helper()`` (see ``derived``)."""
    func = call.func
    if type(func) is not ast.Attribute or type(func.value) is not ast.Name or scope == MODULE_SCOPE:
        return "", ()
    owner = _finder(walk, resolver).receiver_class(func.value.id, call, tuple(scope.split(".")), classes=False)
    if owner is None:
        return "", ()
    qualname, name = owner.removeprefix(f"{resolver.module}."), func.attr
    for node, outer, _ in walk.classes:
        if ".".join((*outer, node.name)) == qualname and _contains(node, call):
            parameters = _method_parameters(node, name)
            if parameters is None or _set_on_instances(walk, qualname, name):
                return "", ()
            return qualname, parameters
    return "", ()


def _method_parameters(node: ast.ClassDef, name: str) -> tuple[str, ...] | None:
    """The parameters the method ``name`` of the class statement ``node`` takes by
    position after its receiver, when its scope binds ``name`` once, by a ``def`` in
    its body with no decorator; else None."""
    defined = [
        s for s in node.body if (type(s) is ast.FunctionDef or type(s) is ast.AsyncFunctionDef) and s.name == name
    ]
    if len(defined) != 1 or defined[0].decorator_list:
        return None
    bound = 0
    for statement in _class_scope(node.body):
        kind = type(statement)
        if kind is ast.FunctionDef or kind is ast.AsyncFunctionDef or kind is ast.ClassDef:
            bound += statement.name == name  # type: ignore[attr-defined]
        else:
            bound += sum(1 for bound_name, _ in _binding_sites(statement) if bound_name == name)
    arguments = defined[0].args
    positional = [argument.arg for argument in (*arguments.posonlyargs, *arguments.args)]
    return tuple(positional[1:]) if bound == 1 and positional else None


def _set_on_instances(walk: _Walk, owner: str, name: str) -> bool:
    """Whether a method of the class ``owner`` sets the attribute ``name`` on its instance."""
    return any(
        not member.class_level and member.owner == owner and member.name.text == name
        for member in (*walk.members, *walk.other_members)
    )


def _walked(module: str, is_package: bool, tree: ast.Module) -> tuple[_Walk, list[ast.stmt], _Resolver]:
    """The module's statements walked once, and how its names resolve."""
    walk = _Walk(module, is_package)
    statements = list(_module_statements(tree))
    walk.functional_classes(statements)
    walk.body(tree.body, 1, (), _Context())
    local_classes = _top_level_classes(statements)
    bindings, walk.stars = walk.bindings(statements, local_classes)
    constants, tables = ({}, {}) if walk.stars else _string_constants(tree)
    resolver = _Resolver(module, bindings, local_classes, bool(walk.stars), tree, constants, tables)
    resolver._binding_counts = walk.bound  # the walk visited every node
    return walk, statements, resolver


def file_facts(module: str, is_package: bool, tree: ast.Module | Unreadable | None) -> FileFacts:
    """The facts of :func:`extract` but the declarations."""
    return extract(module, is_package, tree)[0]


def dotted_name(node: ast.expr) -> str | None:
    """``a.b.C`` for a Name or a chain of Attributes, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


@dataclass(frozen=True)
class _Context:
    """Where a statement is, for the facts that depend on it."""

    in_function: bool = False  # inside a function body: nothing here is declared
    owner: str | None = None  # qualname of the class whose methods are declared here
    receiver: str | None = None  # ``self`` of the method whose attributes are assigned here
    member_owner: str | None = None  # the class those attributes belong to
    type_checking: bool = False  # under ``if TYPE_CHECKING:``


class _Walk:
    """One walk over a module's statements, collecting the raw material of its facts.

    Statement nesting is bounded by the parser (100 levels), so the walk over
    statements recurses; expressions, which machine-written code nests arbitrarily
    deep, are walked with an explicit stack.
    """

    def __init__(self, module: str, is_package: bool) -> None:
        self.module = module
        self.is_package = is_package
        # How many times each name is bound anywhere in the module, as _binding_sites
        # counts them, counted on the way (a walk of its own costs more than this one).
        self.bound: dict[str, int] = {}
        self.imports: list[tuple[int, int, ast.Import | ast.ImportFrom]] = []  # (depth, order, node)
        self.import_facts: list[ImportFact] = []
        self.escaping: list[int] = []
        self.classes: list[tuple[ast.ClassDef, tuple[str, ...], tuple[AttributeFact, ...]]] = []
        self.calls: list[tuple[ast.Call, tuple[str, ...]]] = []
        self.definitions: list[DefinitionFact] = []
        self.members: list[MemberFact] = []  # declared by an assignment (or in the class body)
        # Declared otherwise (``__slots__``, ``for self.x in``, ``with ... as self.x``,
        # ``self.x += 1``, ``setattr(self, "x", v)``): a name's member where no assignment
        # declares it, so that those already reported stay where they are.
        self.other_members: list[MemberFact] = []
        self.stars: list[str] = []  # modules star-imported, once the bindings are known
        # ``local = call(...)`` and ``local.attribute = ...``, by scope (see ``constructed``)
        self.assigned_calls: list[tuple[tuple[str, ...], str, ast.expr]] = []  # (scope, local, callee)
        self.attribute_holders: set[tuple[tuple[str, ...], str]] = set()  # (scope, local)
        # ``local.name = ...`` (an Attribute target) and ``setattr(local, "name", ...)``,
        # ``object.__setattr__(local, "name", ...)`` (a Call), by scope (see _attribute_sets)
        self.attribute_sets: list[tuple[ast.Attribute | ast.Call, tuple[str, ...]]] = []
        self.walrus_scopes: set[tuple[str, ...]] = set()  # scopes with an assignment expression
        # Every function by its scope, and the class of each method of a class defined
        # outside any function (what ``cls`` and ``self`` are: see _Constructions).
        self.functions: dict[tuple[str, ...], list[ast.FunctionDef | ast.AsyncFunctionDef]] = {}
        self.methods: dict[ast.FunctionDef | ast.AsyncFunctionDef, str] = {}
        self.found_constructions: list[tuple[ast.Call, str, str, str]] | None = None  # see _constructions
        self.found_payloads: list[_Payload] | None = None  # see _payloads
        self.finder: _Constructions | None = None  # see _finder
        self.positional_calls: list[tuple[ast.Call, tuple[str, ...]]] = []  # given a string by position
        # Given arguments by position (the first not starred): see _arguments_given.
        self.argument_calls: list[tuple[ast.Call, tuple[str, ...]]] = []
        self.found_arguments: list[_ArgumentCall] | None = None  # see _arguments_given
        # Names some statement assigns what may be a string (see _LocalStrings): only a
        # keyword given one of these may be given a local variable's string.
        self.string_locals: set[str] = set()
        # Names some statement assigns a name or an attribute (see _Constructions.alias):
        # only a call of one of these may be a call of a local alias of a class.
        self.alias_locals: set[str] = set()
        # Names some statement assigns a dict display or a ``dict(...)`` call: only a
        # keyword given one of these may be given a local dict's keys (see _Payloads).
        self.dict_locals: set[str] = set()
        # What may be a string set on a method's receiver (see _receiver_strings):
        # (class qualname, scope, receiver, the attribute, the value, how it is set).
        self.receiver_sets: list[tuple[str, tuple[str, ...], str, Text, ast.expr, str]] = []
        # ``holder.name = value`` (an Attribute target) and ``setattr(holder, "name",
        # value)`` (a Call) that run, with what is set, by scope: what may attach a
        # function to a class (see _attached).
        self.attachments: list[tuple[ast.Attribute | ast.Call, ast.expr, tuple[str, ...]]] = []

    def constructed(self) -> list[ast.expr]:
        """The callees of calls assigned to a local that the same scope sets an attribute
        of: the objects whose attributes the flow facts may make sinks (``ATTRIBUTE``)."""
        return [callee for scope, local, callee in self.assigned_calls if (scope, local) in self.attribute_holders]

    def functional_classes(self, statements: list[ast.stmt]) -> None:
        """``X = TypedDict("X", {...})`` at module level declares class X and its fields."""
        for statement in statements:
            target, value = _simple_assignment(statement)
            if target and isinstance(value, ast.Call) and _names_functional_class(value):
                self.definitions.append(DefinitionFact("class", target, _text(statement, target)))
                self.members += [MemberFact(target, f.name, True) for f in _functional_fields(value)]

    def body(self, statements: list[ast.stmt], depth: int, scope: tuple[str, ...], context: _Context) -> None:
        for statement in statements:
            self.statement(statement, depth, scope, context)

    def statement(self, node: ast.stmt, depth: int, scope: tuple[str, ...], context: _Context) -> None:
        # `type(node) is`: faster than isinstance on this hot path, and mypy narrows it
        inner, inner_context = scope, context
        kind = type(node)
        if kind is ast.ClassDef or kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
            self.bound[node.name] = self.bound.get(node.name, 0) + 1  # type: ignore[attr-defined]
        elif kind is ast.Global or kind is ast.Nonlocal:
            for name in node.names:  # type: ignore[attr-defined]
                self.bound[name] = self.bound.get(name, 0) + 1
        if type(node) is ast.ClassDef:
            inner = (*scope, node.name)
            attributes = tuple(_attributes(node.body))
            self.classes.append((node, scope, attributes))
            if not context.in_function:
                qualname = ".".join(inner)
                self.definitions.append(DefinitionFact("class", qualname, _text(node, node.name)))
                self.members += [MemberFact(qualname, a.name, True) for a in attributes]
                self.other_members += [MemberFact(qualname, slot, True) for slot in _slots(node.body)]
                inner_context = _Context(owner=qualname, type_checking=context.type_checking)
        elif type(node) is ast.FunctionDef or type(node) is ast.AsyncFunctionDef:
            inner = (*scope, node.name)
            self.functions.setdefault(inner, []).append(node)
            inner_context = self.function(node, inner, context)
        elif type(node) is ast.Import or type(node) is ast.ImportFrom:
            self.import_statement(node, depth, context)
        elif context.receiver and type(node) in _DECLARING_MEMBERS:
            owner = context.member_owner or ""  # set with the receiver
            self.receiver_members(node, context.receiver, owner, scope, context.type_checking)
        elif (
            not context.in_function
            and not context.type_checking  # bound for type checkers only: never called
            and (type(node) is ast.Assign or type(node) is ast.AnnAssign)
            and type(node.value) is ast.Lambda
        ):  # ``name = lambda ...:`` defines a function (a method in a class)
            self.bound_lambda(node, node.value, scope)
        if type(node) in _ASSIGNING:
            self.local_assignment(node, scope)
            if (kind is ast.Assign or kind is ast.AnnAssign) and not context.type_checking:
                self.attachment(node, scope)  # type: ignore[arg-type]
        elif type(node) is ast.Expr and type(node.value) is ast.Call and len(node.value.args) == 3:
            self.set_through_call(node.value, scope)
            if not context.type_checking:
                self.attachment_through_call(node.value, scope)
        for name in node._fields:
            value = getattr(node, name)
            if type(value) is list:
                if not value:
                    continue
                first = value[0]
                if isinstance(first, ast.stmt):
                    self.body(value, depth + 1, inner, self.block_context(node, name, inner_context))
                elif isinstance(first, (ast.excepthandler, ast.match_case)):
                    for item in value:  # ``except E:`` and ``case P if G:`` hold statements too
                        handler = type(item) is ast.ExceptHandler
                        if handler and item.name:
                            self.bound[item.name] = self.bound.get(item.name, 0) + 1
                        for expression in (item.type,) if handler else (item.pattern, item.guard):
                            self.expressions(expression, inner)
                        self.body(item.body, depth + 2, inner, inner_context)
                else:
                    for item in value:
                        if isinstance(item, ast.AST):
                            self.expressions(item, inner)
            elif isinstance(value, ast.AST):
                self.expressions(value, inner)

    @staticmethod
    def block_context(node: ast.stmt, field_name: str, context: _Context) -> _Context:
        if type(node) is ast.If and field_name == "body" and not context.type_checking and _is_type_checking(node.test):
            return _Context(context.in_function, context.owner, context.receiver, context.member_owner, True)
        return context

    def function(
        self, node: ast.FunctionDef | ast.AsyncFunctionDef, inner: tuple[str, ...], context: _Context
    ) -> _Context:
        """Declare a function or method; the context of its body."""
        if not context.in_function:
            kind = "method" if context.owner else "function"
            if context.owner:
                self.methods[node] = context.owner
            name = _text(node, node.name)
            self.definitions.append(DefinitionFact(kind, ".".join(inner), name, _parameters(node.args)))
            receiver = _receiver(node) if context.owner else None
            return _Context(True, None, receiver, context.owner if receiver else None, context.type_checking)
        if context.receiver and any(arg.arg == context.receiver for arg in _argument_nodes(node.args)):
            return _Context(True, None, None, None, context.type_checking)  # a nested function with its own ``self``
        return context

    def bound_lambda(self, node: ast.Assign | ast.AnnAssign, value: ast.Lambda, scope: tuple[str, ...]) -> None:
        """The parameters of ``name = lambda ...:`` outside a function body, as those of
        a function (or a method) of that name."""
        parameters = _parameters(value.args)
        # ``a = b = lambda x: ...`` binds one function under two names: its parameters
        # are declared once, under the first.
        for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
            if type(target) is ast.Name:
                name = _text(target, target.id)
                self.definitions.append(DefinitionFact("lambda", ".".join((*scope, target.id)), name, parameters))
                return

    def receiver_members(
        self, node: ast.stmt, receiver: str, owner: str, scope: tuple[str, ...] = (), type_checking: bool = False
    ) -> None:
        """The attributes of ``owner`` a statement of its method declares on ``receiver``,
        and the values that may be strings it sets them to (not in a method defined for
        type checkers only: it never runs)."""
        if type(node) is ast.Assign or type(node) is ast.AnnAssign:
            value = node.value
            may_be_string = value is not None and (type(value) in _SET_VALUES or _is_str_format(value))
            strings = value if may_be_string and not type_checking else None
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                self.members += [MemberFact(owner, a, False) for a in _receiver_attributes(target, receiver)]
                if strings is not None and type(target) is ast.Attribute and _is_name(target.value, receiver):
                    self.receiver_sets.append((owner, scope, receiver, _text(target, target.attr), strings, ""))
            return
        if type(node) is ast.Expr:
            found = _setattr_call(node.value, receiver)
            if found is not None:
                named, value, through = found
                self.other_members.append(MemberFact(owner, named, False))
                if (type(value) in _SET_VALUES or _is_str_format(value)) and not type_checking:
                    self.receiver_sets.append((owner, scope, receiver, named, value, through))
            return
        if type(node) is ast.AugAssign or type(node) is ast.For or type(node) is ast.AsyncFor:
            targets = [node.target]
        else:  # ``with ... as self.x``
            targets = [item.optional_vars for item in getattr(node, "items", ()) if item.optional_vars is not None]
        for target in targets:
            self.other_members += [MemberFact(owner, a, False) for a in _receiver_attributes(target, receiver)]

    def local_assignment(self, node: ast.stmt, scope: tuple[str, ...]) -> None:
        """Note ``local = call(...)`` and the locals whose attributes ``node`` assigns
        (on the hot path: the usual ``name = value`` costs two type checks)."""
        value: ast.expr | None = None
        sets = True  # an assignment sets an attribute target; a loop's or a ``with``'s, not here
        if type(node) is ast.Assign:
            targets, value = node.targets, node.value
        elif type(node) is ast.AnnAssign:
            targets, value = [node.target], node.value
            sets = value is not None
        elif type(node) is ast.AugAssign:
            targets = [node.target]
        elif type(node) is ast.For or type(node) is ast.AsyncFor:
            targets, sets = [node.target], False
        else:
            targets = [item.optional_vars for item in getattr(node, "items", ()) if item.optional_vars is not None]
            sets = False
        for target in targets:
            kind = type(target)
            if kind is ast.Attribute:
                if type(target.value) is ast.Name:  # type: ignore[attr-defined]
                    self.attribute_holders.add((scope, target.value.id))  # type: ignore[attr-defined]
                    if sets:
                        self.attribute_sets.append((target, scope))  # type: ignore[arg-type]
            elif kind is not ast.Name:
                for attribute in _attribute_targets(target):
                    self.attribute_holders.add((scope, attribute.value.id))  # type: ignore[attr-defined]
                    if sets:
                        self.attribute_sets.append((attribute, scope))
        if type(value) is ast.Call:
            self.assigned_calls += [(scope, t.id, value.func) for t in targets if type(t) is ast.Name]
            if type(value.func) is ast.Name and value.func.id == "dict":
                self.dict_locals.update(t.id for t in targets if type(t) is ast.Name)
        elif type(value) is ast.Dict:
            self.dict_locals.update(t.id for t in targets if type(t) is ast.Name)
        elif type(value) is ast.Tuple or type(value) is ast.List:
            self.assigned_calls += [(scope, local, call.func) for local, call in _calls_assigned(targets, value)]
        elif type(value) in _HELD_VALUES:
            names = [t.id for t in targets if type(t) is ast.Name]
            self.string_locals.update(names)
            if type(value) is ast.Name:
                self.alias_locals.update(names)
        elif type(value) is ast.Attribute:
            self.alias_locals.update(t.id for t in targets if type(t) is ast.Name)

    def set_through_call(self, call: ast.Call, scope: tuple[str, ...]) -> None:
        """Note ``setattr(local, "name", v)`` and ``object.__setattr__(local, "name", v)``
        (a statement given three arguments)."""
        func, (holder, name, _) = call.func, call.args
        if type(holder) is not ast.Name or type(name) is not ast.Constant or type(name.value) is not str:
            return
        if (type(func) is ast.Name and func.id == SETATTR) or _setattr_through(func) == "object":
            self.attribute_sets.append((call, scope))

    def attachment(self, node: ast.Assign | ast.AnnAssign, scope: tuple[str, ...]) -> None:
        """Note ``holder.name = value`` where the value may be a function (``a.x, a.y =
        f, g`` pairs each target with its value)."""
        value = node.value
        if type(value) not in _ATTACHED_VALUES:  # None: an annotation alone
            return
        for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
            if isinstance(target, ast.Attribute):
                self.attachments.append((target, value, scope))  # type: ignore[arg-type]
            elif (
                isinstance(target, _SEQUENCES) and isinstance(value, _SEQUENCES) and len(target.elts) == len(value.elts)
            ):
                pairs = zip(target.elts, value.elts, strict=True)
                self.attachments += [(t, v, scope) for t, v in pairs if isinstance(t, ast.Attribute)]

    def attachment_through_call(self, call: ast.Call, scope: tuple[str, ...]) -> None:
        """Note ``setattr(holder, "name", value)`` (a statement given three arguments)."""
        func, (holder, name, value) = call.func, call.args
        named = type(name) is ast.Constant and type(name.value) is str
        if named and type(func) is ast.Name and func.id == SETATTR and type(holder) in (ast.Name, ast.Attribute):
            self.attachments.append((call, value, scope))

    def import_statement(self, node: ast.Import | ast.ImportFrom, depth: int, context: _Context) -> None:
        self.imports.append((depth, len(self.imports), node))
        line, type_checking = node.lineno, context.type_checking
        if not isinstance(node, ast.ImportFrom):
            self.import_facts += [import_fact(line, alias, alias.name, None, type_checking) for alias in node.names]
            return
        source = import_source(self.module, self.is_package, node)
        if source is None:
            self.escaping.append(line)
            return
        self.import_facts += [import_fact(line, alias, source, alias.name, type_checking) for alias in node.names]

    def expressions(self, node: ast.AST | None, scope: tuple[str, ...]) -> None:
        """Record the calls in an expression (a lambda is no new scope)."""
        if node is None:
            return
        pending = [node]
        bound = self.bound
        while pending:
            current = pending.pop()
            kind = type(current)
            if kind is ast.Name:
                if type(current.ctx) is not ast.Load:  # type: ignore[attr-defined]
                    bound[current.id] = bound.get(current.id, 0) + 1  # type: ignore[attr-defined]
                continue  # its only child is its context
            if kind in _BINDING_NODES:
                name = _bound_name(current)
                if name:
                    bound[name] = bound.get(name, 0) + 1
            if kind is ast.Call:
                # Only those with keywords make CallFacts; ``X.model_validate({...})``
                # may make a ConstructionFact.
                if current.keywords or _validates_mapping(current):  # type: ignore[attr-defined, arg-type]
                    self.calls.append((current, scope))  # type: ignore[arg-type]
                given = current.args  # type: ignore[attr-defined]
                if given and type(given[0]) is not ast.Starred:
                    self.argument_calls.append((current, scope))  # type: ignore[arg-type]
                    if _may_pass_kinds(current):  # type: ignore[arg-type]
                        self.positional_calls.append((current, scope))  # type: ignore[arg-type]
            elif kind is ast.comprehension:  # ``[... for local.attribute in ...]`` assigns it too
                self.attribute_holders.update((scope, h) for h in _attribute_holders(current.target))  # type: ignore[attr-defined]
            elif kind is ast.NamedExpr:
                self.walrus_scopes.add(scope)
            fields = _FIELDS.get(kind)
            for name in _node_fields(kind) if fields is None else fields:
                value = getattr(current, name)
                if type(value) is list:
                    pending += value  # what is not a node (a dict's None key, a name) has no fields
                elif value is not None:
                    pending.append(value)

    def bindings(self, statements: list[ast.stmt], local_classes: set[str]) -> tuple[dict[str, str], list[str]]:
        """What each top-level name refers to: local classes, names imported anywhere in
        the module (module level first, breadth first), and module-level aliases such as
        ``Event = schemas.TelemetryEvent``."""
        bindings: dict[str, str] = {name: f"{self.module}.{name}" for name in sorted(local_classes)}
        stars: list[str] = []
        # Breadth-first order is (depth, order of the depth-first walk).
        for _, _, node in sorted(self.imports, key=lambda item: (item[0], item[1])):
            if not isinstance(node, ast.ImportFrom):
                for alias in node.names:
                    if alias.asname:
                        bindings.setdefault(alias.asname, alias.name)
                    else:
                        top = alias.name.split(".")[0]
                        bindings.setdefault(top, top)
                continue
            source = import_source(self.module, self.is_package, node)
            if source is None:
                continue
            for alias in node.names:
                if alias.name == "*":
                    stars.append(source)
                else:
                    bindings.setdefault(alias.asname or alias.name, f"{source}.{alias.name}")
        for statement in statements:
            target, value = _simple_assignment(statement)
            if target and isinstance(value, (ast.Name, ast.Attribute)):
                reference = dotted_name(value)
                if reference and reference != target:
                    bindings.setdefault(target, _resolve(reference, bindings, self.module, local_classes))
        return bindings, stars

    def declarations(self, bindings: list[DefinitionFact] | None = None) -> DeclarationFacts:
        """The module's declarations; ``bindings``: the definitions by assignment the
        census counts (see :func:`_bindings`)."""
        first: dict[tuple[str, str], MemberFact] = {}
        for members in (self.members, self.other_members):  # an assignment first, wherever it is
            for member in sorted(members, key=_place):
                first.setdefault((member.owner, member.name.text), member)
        definitions = [*self.definitions, *(bindings or ())]
        return DeclarationFacts(
            module=self.module,
            definitions=tuple(sorted(definitions, key=lambda d: (d.name.line, d.name.col))),
            members=tuple(sorted(first.values(), key=_place)),
        )


class _StatementsOnly(_Walk):
    """The walk over statements, without the expressions in them (the calls)."""

    def expressions(self, node: ast.AST | None, scope: tuple[str, ...]) -> None:
        return

    def local_assignment(self, node: ast.stmt, scope: tuple[str, ...]) -> None:
        return

    def set_through_call(self, call: ast.Call, scope: tuple[str, ...]) -> None:
        return

    def attachment(self, node: ast.Assign | ast.AnnAssign, scope: tuple[str, ...]) -> None:
        return

    def attachment_through_call(self, call: ast.Call, scope: tuple[str, ...]) -> None:
        return


# Fields that never hold a node: skipping them (and the operator and context nodes)
# keeps the walk over expressions to the nodes that can hold a call.
_NOT_NODES = frozenset(
    {
        "ctx",
        "op",
        "ops",
        "id",
        "attr",
        "arg",
        "kind",
        "conversion",
        "type_comment",
        "level",
        "module",
        "name",
        "asname",
        "rest",
        "kwd_attrs",
        "is_async",
        "simple",
        "tag",
        "str",  # a t-string's Interpolation (Python 3.14): the text of its expression
    }
)
_LEAVES = (ast.Constant, ast.MatchSingleton)
_FIELDS: dict[type[ast.AST], tuple[str, ...]] = {}


def _children(node: ast.AST) -> list[ast.AST]:
    """The nodes right below ``node`` (the walk's hot loop inlines this)."""
    children: list[ast.AST] = []
    for name in _node_fields(type(node)):
        value = getattr(node, name)
        if type(value) is list:
            # Only a dict's keys hold a non-node (None, for ``**spread``): the fields
            # holding names are not walked (_NOT_NODES).
            children += value if None not in value else [item for item in value if item is not None]
        elif value is not None:
            children.append(value)
    return children


def _node_fields(kind: type[ast.AST]) -> tuple[str, ...]:
    fields = _FIELDS.get(kind)
    if fields is None:
        if not issubclass(kind, ast.AST):  # None, or a string in a list of names
            fields = ()
        else:
            fields = () if issubclass(kind, _LEAVES) else tuple(f for f in kind._fields if f not in _NOT_NODES)
        _FIELDS[kind] = fields
    return fields


class _Resolver:
    """Names of this module resolved through its bindings."""

    def __init__(
        self,
        module: str,
        bindings: dict[str, str],
        local_classes: set[str],
        has_star_imports: bool,
        tree: ast.Module | None = None,
        constants: dict[str, ast.expr] | None = None,
        tables: dict[str, ast.Dict] | None = None,
    ) -> None:
        self.module = module
        self.bindings = bindings
        self.local_classes = local_classes
        # An unbound name may come from a star import: keep it module-qualified so the
        # resolver of the whole project can look for it there.
        self.unbound_prefix = f"{module}." if has_star_imports else ""
        self.tree = tree
        self.constants = constants or {}  # module-level name -> the string expression assigned to it
        self.tables = tables or {}  # module-level name -> the dict display assigned to it
        self._binding_counts: dict[str, int] | None = None
        self._folded: dict[str, str] | None = None  # see string_constant
        self._tables: dict[str, str] | None = None  # see table_constants
        self._changed: frozenset[str] | None = None  # see only_read

    def binding_counts(self) -> dict[str, int]:
        """How many times each name is bound anywhere in the module (in any scope),
        counted once, when first asked: only a module that may use what it tells does."""
        if self._binding_counts is None:
            counts: dict[str, int] = {}
            for name, _ in _binding_sites(self.tree) if self.tree is not None else ():
                counts[name] = counts.get(name, 0) + 1
            self._binding_counts = counts
        return self._binding_counts

    def string_constant(self, name: str) -> str | None:
        """The string ``name`` holds wherever the module reads it: it is bound once in the
        whole module, at module level (not for type checkers only), to a literal string
        (``KIND = "post_episode"``) or one folded from literals and such constants
        (``END_KIND = PREFIX + "End"``, ``f"{PREFIX}Start"``, ``KIND = OTHER``: see
        :func:`_literal_text`), and the module star-imports nothing, so no other binding
        can shadow it."""
        if name not in self.constants:
            return None
        return self.string_constants().get(name)

    def string_constants(self) -> dict[str, str]:
        """Every module-level name :meth:`string_constant` gives a string."""
        if self._folded is None:
            # Every constant at once, in source order, each from those before it (at
            # module level a name read before it is bound is not bound yet): no chain
            # of constants is followed by recursion.
            counts = self.binding_counts()
            folded: dict[str, str] = {}
            for constant, value in self.constants.items():
                if counts.get(constant) == 1:
                    text = _literal_text(value, folded.get)
                    if text is not None:
                        folded[constant] = text
            self._folded = folded
        return self._folded

    def table_constants(self) -> dict[str, str]:
        """The string each entry of each table of strings the module holds, spelled as
        the subscript that reads it (``KINDS['reset']``, the key's ``repr``): a
        module-level name bound once in the whole module, as a constant is
        (:meth:`string_constant`), to a dict display whose keys are all literals, which
        every use of the name in the module only reads (:meth:`only_read`). Each string
        key is an entry, holding the string its last value spells (a literal, or one
        folded from the module's constants); a key whose last value is no such string
        holds none known. Worked out once, when first asked."""
        if self._tables is None:
            counts = self.binding_counts()
            found: dict[str, str] = {}
            for name, display in self.tables.items():
                if counts.get(name) == 1 and self.only_read(name):
                    for key, text in _table_entries(display, self.string_constant).items():
                        found[_table_spelled(name, key)] = text
            self._tables = found
        return self._tables

    def table_string(self, spelled: str) -> str | None:
        """The string a table of the module holds at ``spelled`` (``KINDS['reset']``, see
        :func:`_table_spelled`), or None."""
        if spelled.partition("[")[0] not in self.tables:  # most subscripts read no table
            return None
        return self.table_constants().get(spelled)

    def table_reference(self, spelled: str) -> str | None:
        """``spelled`` (``KINDS['reset']``) resolved through the module's imports, when
        the table is a name the module imports (:meth:`imported_reference`) and only
        reads (:meth:`only_read`): another module's table it may name is the check's
        question (what that module changes of it is its own: see
        :meth:`table_constants`). An attribute of an imported module
        (``kinds.KINDS['reset']``) is not read."""
        name, bracket, key = spelled.partition("[")
        reference = self.imported_reference(name)
        return f"{reference}{bracket}{key}" if reference is not None and self.only_read(name) else None

    def only_read(self, name: str) -> bool:
        """Whether every use of the module-level name ``name`` in the module reads what
        it holds and gives it to no other code (:func:`_changing_uses`), worked out for
        every name at once, by one walk of the module, when a module with a table first
        asks."""
        if self._changed is None:
            self._changed = _changing_uses(self.tree) if self.tree is not None else frozenset()
        return name not in self._changed

    def imported_reference(self, reference: str) -> str | None:
        """What the dotted name ``reference`` names, resolved through this module's
        bindings (``END_OF_RUN``, ``Kinds.RESET``, ``kinds.END_OF_RUN``), when the
        module binds its first name once, by an import, an alias or a class statement:
        nothing else (a parameter, a local variable, a second import) can give it
        another value. Another module's constant it may name is the check's question."""
        head = reference.partition(".")[0]
        if head not in self.bindings or self.binding_counts().get(head) != 1:
            return None
        return self.resolve_dotted(reference)

    def resolve(self, node: ast.expr) -> str | None:
        reference = dotted_name(node)
        if reference is None:
            return None
        return self.resolve_dotted(reference)

    def resolve_dotted(self, reference: str) -> str:
        head = reference.split(".", 1)[0]
        if head not in self.bindings and head not in self.local_classes:
            return self.unbound_prefix + reference
        return _resolve(reference, self.bindings, self.module, self.local_classes)

    def class_fact(
        self,
        node: ast.ClassDef,
        scope: tuple[str, ...],
        attributes: tuple[AttributeFact, ...],
        receiver_strings: tuple[ReceiverStringFact, ...] = (),
        walrus: bool = False,  # the class's scope holds an assignment expression
    ) -> ClassFact:
        bases = []
        for base in node.bases:
            if isinstance(base, ast.Subscript):  # Generic[T], BaseModel[...]
                base = base.value
            reference = self.resolve(base)
            if reference:
                bases.append(reference)
        qualname = ".".join((*scope, node.name))
        statements = list(_class_scope(node.body))  # read by both, walked once
        annotated = not self.collects_fields(node)
        class_vars = {(t.line, t.col) for t in self.class_variables(statements, annotated)}
        folding = _folding_values(statements) if self.constants or self.bindings else {}
        attributes = tuple(
            replace(a, class_var=True) if (a.name.line, a.name.col) in class_vars else a
            for a in (self.folded_value(self.constant_value(a), folding) for a in attributes)
        )
        attributes += tuple(self.computed_fields(statements))
        init, fields = self.init_order(node)
        counts = self.binding_counts()
        # ``Class.NAME`` is this class's only where nothing else binds its name (nor
        # that of a class it is nested in).
        named_once = all(counts.get(part) == 1 for part in qualname.split("."))
        constants = _class_constants(node.body, self.string_constant) if named_once else ()
        hooks = any(counts.get(name) for name in _VALUE_HOOKS) and _binds_value_hooks(statements, walrus)
        return ClassFact(
            qualname,
            node.lineno,
            node.col_offset,
            tuple(bases),
            attributes,
            init,
            fields,
            receiver_strings,
            constants,
            hooks,
        )

    def class_variables(self, statements: list[ast.stmt], annotated: bool = False) -> Iterator[Text]:
        """The names the statements of a class's scope (:func:`_class_scope`) annotate
        ``ClassVar`` (or ``ClassVar[...]``: ``typing.ClassVar``, or imported under another
        name; in a string, as ``dataclasses`` reads one: the dotted name it starts with).
        With ``annotated``, also those annotated ``Annotated[ClassVar[...], ...]`` (any
        module's ``Annotated``, nested in another too; in a string, the dotted names of
        ``"Annotated[ClassVar[...`` as pydantic reads one), which a pydantic model takes
        as a class variable and a dataclass or an attrs class as a field (see
        :meth:`collects_fields`)."""
        for statement in statements:
            if type(statement) is ast.AnnAssign and type(statement.target) is ast.Name:
                annotation = statement.annotation
                if type(annotation) is ast.Constant and type(annotation.value) is str:
                    name = self.string_annotation(annotation.value, annotated)
                else:
                    name = self.resolve(_unsubscripted(annotation)) or ""
                    while annotated and name.rpartition(".")[2] == _ANNOTATED and type(annotation) is ast.Subscript:
                        inner = annotation.slice
                        annotation = inner.elts[0] if type(inner) is ast.Tuple and inner.elts else inner
                        name = self.resolve(_unsubscripted(annotation)) or ""
                if name.rpartition(".")[2] == _NOT_A_FIELD:
                    yield _text(statement.target, statement.target.id)

    def string_annotation(self, written: str, annotated: bool) -> str:
        """The name a string annotation starts with, resolved (``"ClassVar[int]"``); with
        ``annotated``, past ``Annotated[`` (``"Annotated[ClassVar[int], ...]"``)."""
        found = _STRING_ANNOTATION.match(written)
        name = self.resolve_dotted("".join(found[1].split())) if found else ""
        while found and annotated and name.rpartition(".")[2] == _ANNOTATED:
            found = _STRING_SUBSCRIPT.match(written, found.end())
            name = self.resolve_dotted("".join(found[1].split())) if found else ""
        return name

    def collects_fields(self, node: ast.ClassDef) -> bool:
        """Whether a decorator of the class statement collects its fields as dataclasses
        and attrs do: a ``dataclass`` of any module (``dataclasses``', pydantic's), or one
        of ``attr``'s or ``attrs``' (``attrs.define``, ``attr.s``). These take an
        attribute annotated ``Annotated[ClassVar[...], ...]`` as a field; pydantic's
        models (no decorator) take it as a class variable."""
        for decorator in node.decorator_list:
            name = self.resolve(decorator.func if type(decorator) is ast.Call else decorator) or ""
            if name.rpartition(".")[2] == "dataclass" or name.partition(".")[0] in _ATTRS_MODULES:
                return True
        return False

    def computed_fields(self, statements: list[ast.stmt]) -> Iterator[AttributeFact]:
        """The methods among the statements of a class's scope (:func:`_class_scope`)
        decorated by pydantic's ``computed_field`` (``@computed_field``,
        ``@pydantic.computed_field``, ``@computed_field(alias="...")``, under another name
        too): fields of what the model serializes, named where the ``def`` names them
        (after ``def`` and one space: the tree holds no place for a function's name)."""
        for statement in statements:
            if type(statement) is not ast.FunctionDef and type(statement) is not ast.AsyncFunctionDef:
                continue
            if _is_dunder(statement.name):
                continue
            for decorator in statement.decorator_list:
                call = decorator if type(decorator) is ast.Call else None
                name = self.resolve(call.func if call is not None else decorator) or ""
                if name.rpartition(".")[2] == _COMPUTED_FIELD:
                    keyword = "async def " if type(statement) is ast.AsyncFunctionDef else "def "
                    method = _text(statement, statement.name)
                    written = Text(statement.name, method.line, method.col + len(keyword))
                    yield AttributeFact(written, aliases=_aliases(call), method=method)
                    break

    def constant_value(self, attribute: AttributeFact) -> AttributeFact:
        """A class-level value naming a module constant (``kind = KIND``) holds its string
        (:meth:`string_constant`), read where the name is written; or nothing known."""
        named = attribute.constant
        if named is None:
            return attribute
        found: Callable[[str], str | None]  # what another module's it may name resolves to
        if _is_table_spelled(named.text):  # ``kind = KINDS["reset"]``
            text = self.table_string(named.text)
            found = self.table_reference
        else:
            text = self.string_constant(named.text)
            found = self.imported_reference
        if text is None:
            reference = found(named.text)
            return replace(attribute, constant=named if reference else None, reference=reference or "")
        return replace(attribute, strings=(*attribute.strings, Text(text, named.line, named.col)))

    def folded_value(self, attribute: AttributeFact, folding: dict[tuple[int, int], ast.expr]) -> AttributeFact:
        """A class-level value folded from constants (``kind = PREFIX + "Done"``,
        ``f"{PREFIX}Done"``, a literal formatted; ``folding``: such values, by where the
        name they are assigned to is written), read as a keyword's kind is
        (:meth:`keep_string`): from the module's constants, its string among ``strings``
        where the value is written, unless its literal parts alone spell it; from names
        the module imports, a template (``templates``)."""
        value = folding.get((attribute.name.line, attribute.name.col))
        if value is None:
            return attribute
        place = (value.lineno, value.col_offset)
        folded = _literal_text(value, self.string_constant) if self.constants else None
        if folded is not None and all(folded != t.text for t in attribute.strings if (t.line, t.col) == place):
            return replace(attribute, strings=(*attribute.strings, _text(value, folded)))
        template = self.template(value) if self.bindings else None
        if template is None:
            return attribute
        return replace(attribute, templates=((template, _text(value, "".join(template[::2]))),))

    def call(
        self,
        node: ast.Call,
        scope: tuple[str, ...],
        held: _LocalStrings | None = None,
        dicts: _Payloads | None = None,
    ) -> CallFact | None:
        """The keywords a call names, the strings they are given (:meth:`keep_string`;
        a local variable's through ``held``) and the keys their values hold
        (:func:`_given_keys`; a local dict's through ``dicts``)."""
        found: list[Text] = []
        kept = _Kept()
        keys: list[tuple[str, str, Text]] = []
        for keyword in node.keywords:
            if keyword.arg is not None:
                self.keep_string(kept, len(found), keyword.value, held, node, scope)
                found.append(Text(keyword.arg, keyword.lineno, keyword.col_offset))
                keys += _given_keys(keyword.arg, keyword.value, dicts, node, scope)
                continue
            # ``**{"episode": n}`` names its keywords too, and ``**(base | {"episode": n})``
            for name, at, value in unpacked_keywords(keyword.value) + union_keywords(keyword.value):
                self.keep_string(kept, len(found), value, held, node, scope)
                found.append(Text(name, at.lineno, at.col_offset))
                keys += _given_keys(name, value, dicts, node, scope)
        keywords = tuple(found)
        callee = self.resolve(node.func) if node.keywords else None
        if not callee:
            return None
        return CallFact(callee, ".".join(scope) or MODULE_SCOPE, keywords, *kept.facts(), keys=tuple(keys))

    def construction(
        self,
        node: ast.Call,
        scope: str,
        form: str,
        built: str,
        held: _LocalStrings | None = None,
        dicts: _Payloads | None = None,
    ) -> ConstructionFact | None:
        """The fields a construction names (:func:`~.flow.construction_keywords`), read
        as a call's keywords are; those a JSON literal given to ``model_validate_json``
        names, and the keys below them (:func:`~.keys.json_keys`)."""
        found: list[Text] = []
        kept = _Kept()
        keys: list[tuple[str, str, Text]] = []
        where = () if scope == MODULE_SCOPE else tuple(scope.split("."))
        for name, at, value in construction_keywords(node, form, unions=True):
            self.keep_string(kept, len(found), value, held, node, where)
            found.append(Text(name, at.lineno, at.col_offset))
            keys += _given_keys(name, value, dicts, node, where)
        if form.rpartition(".")[2] == JSON_VALIDATOR:
            for field_name, (path, key, line, col) in json_keys(node.args[0]):
                if not field_name:
                    if key.isidentifier():
                        found.append(Text(key, line, col))
                elif field_name.isidentifier():
                    keys.append((field_name, f"{field_name}{path}[{key!r}]", Text(key, line, col)))
        if not found and not keys and not construction_spreads(node, form):  # no field, not even an unknown mapping's
            return None
        return ConstructionFact(built, form, scope, tuple(found), *kept.facts(), keys=tuple(keys))

    def payload(self, built: str, form: str, scope: str, entries: tuple[PayloadEntry, ...]) -> ConstructionFact | None:
        """The keys of a local dict unpacked into a call (:class:`_Payloads`), read as a
        construction's fields are, where each is written (a value that names another
        local variable is not followed); None when it holds none (a mapping whose keys
        are not known put in names none)."""
        found: list[Text] = []
        kept = _Kept()
        keys: list[tuple[str, str, Text]] = []
        for name, at, value, _ in entries:
            if is_spread(name):
                continue
            self.keep_string(kept, len(found), value)
            found.append(Text(name, at.lineno, at.col_offset))
            keys += _given_keys(name, value)
        return ConstructionFact(built, form, scope, tuple(found), *kept.facts(), keys=tuple(keys)) if found else None

    def positional(self, call: ast.Call, scope: str, form: str, built: str, skip: int) -> PositionalFact | None:
        """The literal strings ``call`` gives by position (after the first ``skip``
        arguments: ``partial``'s class); None when it gives none."""
        strings: list[tuple[int, Text]] = []
        for position, argument in enumerate(call.args[skip:]):
            if type(argument) is ast.Starred:
                break  # where the arguments after it go is not known
            if isinstance(argument, _STRING_NODES):
                strings += [(position, text) for text in _string_value(argument)]
        return PositionalFact(built, form, scope, tuple(strings)) if strings else None

    def init_order(self, node: ast.ClassDef) -> tuple[str, tuple[tuple[str, bool], ...]]:
        """How the class takes positional arguments, as far as its statement tells:
        (DATACLASS or NAMEDTUPLE, its own fields in order), (INHERITED, ()), or ("", ())
        when it is not certain: a metaclass or class arguments, a constructor of its own
        (``__init__``, ``__new__``, ``__init_subclass__``), another decorator than
        ``dataclasses.dataclass``, one given ``init``, ``kw_only`` or arguments it cannot
        read, or a body whose fields it cannot read (see :func:`_declared_fields`)."""
        if node.keywords or _defines_constructor(node.body):
            return "", ()
        if not node.decorator_list:
            if len(node.bases) == 1 and self.resolve(_unsubscripted(node.bases[0])) in _NAMEDTUPLE_BASES:
                fields = _declared_fields(node.body, self, dataclass=False)
                return ("", ()) if fields is None else (NAMEDTUPLE, fields)
            return INHERITED, ()
        if len(node.decorator_list) != 1:
            return "", ()
        decorator = node.decorator_list[0]
        options = decorator if type(decorator) is ast.Call else None
        if self.resolve(options.func if options is not None else decorator) != _DATACLASS_DECORATOR:
            return "", ()
        if options is not None and (
            options.args
            or any(
                keyword.arg is None
                or (keyword.arg == "init" and not _is_constant(keyword.value, True))
                or (keyword.arg == "kw_only" and not _is_constant(keyword.value, False))
                for keyword in options.keywords
            )
        ):
            return "", ()
        fields = _declared_fields(node.body, self, dataclass=True)
        return ("", ()) if fields is None else (DATACLASS, fields)

    def keep_string(
        self,
        kept: _Kept,
        position: int,
        value: ast.expr,
        held: _LocalStrings | None = None,
        call: ast.expr | None = None,
        scope: tuple[str, ...] = (),
    ) -> None:
        """Note the string a keyword is given, read as a kind string in a class body is:
        a literal (its literal parts, an interpolated value read as a space: ``strings``),
        or a module-level constant holding one (``constants``); and in ``held``, the
        string of such a literal folded from module constants (``f"{PREFIX}Start"``,
        ``PREFIX + "Start"``), and those a local variable of ``call``'s function holds
        (:class:`_LocalStrings`; ``call``: the call given it, or the value a method sets
        on its receiver). A literal formatted (``"{}Start".format(PREFIX)``, ``"%sStart"
        % PREFIX``) is folded as an f-string is; one folded from names the module imports
        is kept as a template (``templates``, see :meth:`template`)."""
        kind = type(value)
        if kind is ast.Constant or kind is ast.JoinedStr or kind is ast.BinOp or _is_str_format(value):
            # most values are names, attributes or calls: skipped at once
            texts = _string_value(value)
            kept.strings += [(position, text) for text in texts]
            if kind is ast.Constant:
                return
            folded = _literal_text(value, self.string_constant) if self.constants else None
            # what the literal parts alone spell is kept as it was (its fingerprint
            # too): the folded string is reported where they are not.
            if folded is not None and all(folded != text.text for text in texts):
                kept.held.append((position, repr(folded), "", _text(value, folded)))
            elif self.bindings:
                template = self.template(value)
                if template is not None:
                    kept.templates.append((position, template, _text(value, "".join(template[::2]))))
        elif kind is ast.Name:
            name = value.id  # type: ignore[attr-defined]
            text = self.string_constant(name) if name in self.constants else None
            if text is not None:
                kept.constants.append((position, name, Text(text, value.lineno, value.col_offset)))
                return
            if held is not None and call is not None:
                for constant, string in held.strings(name, call, scope):
                    spelled = f"{name}:{constant or repr(string.text)}"
                    note = f" (from {constant}, through local {name})" if constant else f" (through local {name})"
                    kept.held.append((position, spelled, note, string))
            self.keep_reference(kept, position, value)
        elif kind is ast.Attribute:
            self.keep_reference(kept, position, value)
        elif kind is ast.Subscript:
            self.keep_table_string(kept, position, value)  # type: ignore[arg-type]

    def keep_table_string(self, kept: _Kept, position: int, value: ast.Subscript) -> None:
        """Note the string a table of the module holds where a keyword is given one of
        its entries (``kind=KINDS["reset"]``: ``constants``, spelled ``KINDS['reset']``,
        see :meth:`table_constants`), or the entry of a table the module imports
        (``references``, see :meth:`table_reference`), at the subscript."""
        spelled = _table_subscript(value)
        if spelled is None:
            return
        text = self.table_string(spelled)
        if text is not None:
            kept.constants.append((position, spelled, Text(text, value.lineno, value.col_offset)))
            return
        reference = self.table_reference(spelled)
        if reference is not None:
            kept.references.append((position, reference, Text(spelled, value.lineno, value.col_offset)))

    def template(self, value: ast.expr) -> tuple[str, ...] | None:
        """What ``value`` spells when folded (:func:`_literal_text`) from the module's
        string constants and names it imports (:meth:`imported_reference`), these left
        as slots: the literal parts, each name as resolved between them (``("",
        "pkg.kinds.PREFIX", "Start")`` for ``f"{PREFIX}Start"``); None when it names no
        such name, or folds to no string. A name that holds no string (as the check finds
        it) leaves the string unknown, an f-string's too."""
        references: list[str] = []

        def slot(name: str) -> str | None:
            text = self.string_constant(name)
            if text is not None:
                return text
            reference = self.imported_reference(name)
            if reference is None:
                return None
            references.append(reference)
            return f"{_SLOT}{len(references) - 1}{_SLOT}"

        folded = _literal_text(value, slot)
        if folded is None or not references:
            return None
        pieces = folded.split(_SLOT)
        for index in range(1, len(pieces), 2):
            if not pieces[index].isdecimal() or int(pieces[index]) >= len(references):
                return None  # a literal holding the slot's mark: not read
            pieces[index] = references[int(pieces[index])]
        return tuple(pieces) if len(pieces) % 2 else None

    def keep_reference(self, kept: _Kept, position: int, value: ast.expr) -> None:
        """Note a name the module imports (or an attribute of one) a keyword is given:
        it may name another module's string constant (:meth:`imported_reference`)."""
        written = dotted_name(value)
        reference = self.imported_reference(written) if written else None
        if written and reference:
            kept.references.append((position, reference, Text(written, value.lineno, value.col_offset)))

    def functional_class(self, statement: ast.stmt) -> ClassFact | None:
        """``X = TypedDict("X", {...})`` and the NamedTuple/namedtuple forms."""
        target, value = _simple_assignment(statement)
        if not (target and isinstance(value, ast.Call)):
            return None
        callee = self.resolve(value.func)
        if not callee or callee.rsplit(".", 1)[-1] not in FUNCTIONAL_CLASS_FACTORIES:
            return None
        return ClassFact(target, statement.lineno, statement.col_offset, (callee,), tuple(_functional_fields(value)))


def _given_keys(
    keyword: str,
    value: ast.expr,
    dicts: _Payloads | None = None,
    call: ast.Call | None = None,
    scope: tuple[str, ...] = (),
) -> list[tuple[str, str, Text]]:
    """(``keyword``, how a fingerprint spells the key's place, the key where it is
    written) for each key ``value`` holds (see CallFact.keys): written in it
    (:func:`~.keys.nested_keys`), or, given ``dicts``, put into the local dict ``value``
    names where ``call`` is given it (and the keys written in what each is given)."""
    if type(value) is ast.Name:  # on the path of every keyword: most values are names, or hold no key
        if dicts is None or call is None or value.id not in dicts.candidates:
            return []
        found: list[tuple[str, str, Text]] = []
        for name, at, item, _ in dicts.given_as_value(value, call, scope) or ():
            if not is_spread(name):
                spelled = f"{keyword}[{name!r}]"
                found.append((keyword, spelled, Text(name, at.lineno, at.col_offset)))
                found += _written_keys(keyword, spelled, item)
        return found
    if type(value) in _HOLDING_KEYS or _is_dict(value):
        return _written_keys(keyword, keyword, value)
    return []


def _written_keys(keyword: str, spelled: str, value: ast.expr) -> list[tuple[str, str, Text]]:
    """The keys written in ``value``, given to ``keyword`` at the place ``spelled``."""
    return [(keyword, f"{spelled}{path}[{key!r}]", Text(key, line, col)) for path, key, line, col in nested_keys(value)]


# What may hold keys written in it, besides a ``dict(...)`` call (see keys.nested_keys).
_HOLDING_KEYS = frozenset({ast.Dict, ast.List, ast.Tuple, ast.ListComp})


_STRING_NODES = (ast.Constant, ast.JoinedStr, ast.BinOp)
# Marks a name's slot in a string folded from imported names (see _Resolver.template).
_SLOT = "\x00"
# What a local variable whose strings are read may be assigned (see _LocalStrings).
_HELD_VALUES = frozenset({ast.Constant, ast.JoinedStr, ast.BinOp, ast.IfExp, ast.Name})
# What a method may set on its instance that may be a kind (see _receiver_strings): those,
# an attribute of an imported name (``self.kind = Kinds.RESET``), and a table's entry
# (``self.kind = KINDS["reset"]``).
_SET_VALUES = _HELD_VALUES | {ast.Attribute, ast.Subscript}


@dataclass
class _Kept:
    """The strings the keywords of one call are given (see _Resolver.keep_string)."""

    strings: list[tuple[int, Text]] = field(default_factory=list)
    constants: list[tuple[int, str, Text]] = field(default_factory=list)
    held: list[tuple[int, str, str, Text]] = field(default_factory=list)
    references: list[tuple[int, str, Text]] = field(default_factory=list)
    templates: list[tuple[int, tuple[str, ...], Text]] = field(default_factory=list)

    def facts(
        self,
    ) -> tuple[
        tuple[tuple[int, Text], ...],
        tuple[tuple[int, str, Text], ...],
        tuple[tuple[int, str, str, Text], ...],
        tuple[tuple[int, str, Text], ...],
        tuple[tuple[int, tuple[str, ...], Text], ...],
    ]:
        return (
            tuple(self.strings),
            tuple(self.constants),
            tuple(self.held),
            tuple(self.references),
            tuple(self.templates),
        )


def _folding_values(statements: list[ast.stmt]) -> dict[tuple[int, int], ast.expr]:
    """The values that the statements of a class's scope (:func:`_class_scope`) assign,
    or give a field specifier as its default (see :func:`_default_value`), that may be
    folded from names (``PREFIX + "Done"``, ``f"{PREFIX}Done"``, ``"{}Done".format(PREFIX)``;
    not a literal alone), by where each name they are assigned to is written."""
    found: dict[tuple[int, int], ast.expr] = {}
    for statement in statements:
        if type(statement) is ast.Assign:
            targets = statement.targets
        elif type(statement) is ast.AnnAssign:
            targets = [statement.target]
        else:
            continue
        value = _default_value(statement.value)
        if value is None or type(value) is ast.Constant or not _may_spell(value):
            continue
        for target in targets:
            for name in _target_names(target):
                found[(name.lineno, name.col_offset)] = value
    return found


# The names that decide what an enumeration's member holds, bound in a class of it.
_VALUE_HOOKS = frozenset({"__new__", "__init__", "_generate_next_value_"})


def _binds_value_hooks(statements: list[ast.stmt], walrus: bool) -> bool:
    """Whether the statements of a class's scope (:func:`_class_scope`) bind one of
    :data:`_VALUE_HOOKS`, in any way (a ``def``, an assignment, an import, ...). An
    assignment's value binds a name of the scope only by an assignment expression
    (``walrus``: the scope holds one): else its targets alone are looked at (a class
    body assigns many values, and each would be walked)."""
    for statement in statements:
        kind = type(statement)
        if kind is ast.FunctionDef or kind is ast.AsyncFunctionDef or kind is ast.ClassDef:
            names: Iterable[str] = (statement.name,)  # type: ignore[attr-defined]
        elif not walrus and (kind is ast.Assign or kind is ast.AnnAssign or kind is ast.AugAssign):
            targets = statement.targets if kind is ast.Assign else [statement.target]  # type: ignore[attr-defined]
            names = (name for target in targets for name, _ in _binding_sites(target))
        else:
            names = (name for name, _ in _binding_sites(statement))
        if any(name in _VALUE_HOOKS for name in names):
            return True
    return False


def _class_constants(body: list[ast.stmt], constant: Callable[[str], str | None]) -> tuple[tuple[str, str], ...]:
    """The names a class body binds to a string, each for certain: by one simple
    assignment in the body itself (not in an ``if``, a loop or a method), of a literal
    or one folded from the module's string constants (``DONE = PREFIX + "Done"``;
    ``constant``), where nothing else in the class's scope binds the name."""
    candidates: list[tuple[str, str]] = []
    for statement in body:
        target, value = _simple_assignment(statement)
        if target and (_may_spell(value) or type(value) is ast.Name):
            text = _literal_text(value, constant)
            if text is not None:
                candidates.append((target, text))
    if not candidates:  # the usual class: no second look at its body
        return ()
    counts: dict[str, int] = {}
    for statement in body:
        kind = type(statement)
        if kind is ast.FunctionDef or kind is ast.AsyncFunctionDef or kind is ast.ClassDef:
            names = [statement.name]  # type: ignore[attr-defined]
        else:  # a definition nested in a block counts its own names too: only fewer are kept
            names = [name for name, _ in _binding_sites(statement)]
        for name in names:
            counts[name] = counts.get(name, 0) + 1
    return tuple((name, text) for name, text in candidates if counts.get(name) == 1)


def _string_constants(tree: ast.Module) -> tuple[dict[str, ast.expr], dict[str, ast.Dict]]:
    """Module-level names assigned what may be a string (``KIND = "post_episode"``,
    ``END_KIND = PREFIX + "End"``, ``f"{PREFIX}Start"``, ``KIND = OTHER``), in source
    order, outside the blocks that run for type checkers only (and in ``if``/``try``
    blocks, as before: not in loops or ``with``); and those assigned a dict display
    whose keys are all literals, which may be a table of strings (``KINDS = {"reset":
    "EpisodeReset"}``). What each holds, and whether it is bound only there, is asked
    later (:meth:`_Resolver.string_constant`, :meth:`_Resolver.table_constants`)."""
    found: dict[str, ast.expr] = {}
    tables: dict[str, ast.Dict] = {}
    pending = list(reversed(tree.body))  # in source order
    while pending:
        statement = pending.pop()
        kind = type(statement)
        if kind is ast.If or kind is ast.Try or kind is ast.TryStar:
            for block in reversed(list(_run_time_blocks(statement))):
                pending += reversed(block)
            continue
        target, value = _simple_assignment(statement)
        if target and (_may_spell(value) or type(value) is ast.Name):
            found[target] = value
        elif target and type(value) is ast.Dict and value.keys and all(type(k) is ast.Constant for k in value.keys):
            tables[target] = value
    return found, tables


def _table_entries(display: ast.Dict, constant: Callable[[str], str | None]) -> dict[str, str]:
    """The string each string key of a table's display holds: what its last value
    spells (:func:`_literal_text`, the module's constants folded in), a key whose last
    value spells none left out."""
    entries: dict[str, str] = {}
    for key, value in zip(display.keys, display.values, strict=True):
        if type(key) is ast.Constant and type(key.value) is str:
            text = _literal_text(value, constant)
            if text is None:
                entries.pop(key.value, None)
            else:
                entries[key.value] = text
    return entries


def _table_spelled(name: str, key: str) -> str:
    """How a table's entry is spelled in the facts, fingerprints and messages: as the
    subscript reading it, the key's quotes as ``repr`` writes them (``KINDS['reset']``)."""
    return f"{name}[{key!r}]"


def _is_table_spelled(text: str) -> bool:
    """Whether a name as kept is a table's entry (:func:`_table_spelled`): no name is."""
    return text.endswith("]")


def _table_subscript(value: ast.expr) -> str | None:
    """``NAME["key"]`` spelled as a table's entry (:func:`_table_spelled`): a name
    subscripted with a literal string; else None."""
    if type(value) is not ast.Subscript:
        return None
    table, key = value.value, value.slice
    if type(table) is not ast.Name or type(key) is not ast.Constant or type(key.value) is not str:
        return None
    return _table_spelled(table.id, key.value)


def _changing_uses(tree: ast.Module) -> frozenset[str]:
    """The names some use in the module may change what they hold by, or give it to
    other code that might: every read of a name but as the mapping a subscript reads
    (``KINDS["reset"]``, not ``KINDS["reset"] = ...`` or ``del``), the object of a
    method that only reads (``get``, ``keys``, ``values``, ``items``, ``copy``), the
    container ``in`` looks into, or a mapping unpacked (``{**KINDS}``, ``f(**KINDS)``:
    a copy of its items). Binding a name (``KINDS |= ...`` too) is counted apart
    (:meth:`_Resolver.binding_counts`)."""
    allowed: set[int] = set()  # ids of the Name nodes read so
    reads: list[ast.Name] = []
    pending: list[ast.AST] = [tree]
    while pending:
        node = pending.pop()
        kind = type(node)
        if kind is ast.Name:
            if type(node.ctx) is ast.Load:  # type: ignore[attr-defined]
                reads.append(node)  # type: ignore[arg-type]
            continue
        if kind is ast.Subscript:
            if type(node.ctx) is ast.Load:  # type: ignore[attr-defined]
                allowed.add(id(node.value))  # type: ignore[attr-defined]
        elif kind is ast.Attribute:
            if node.attr in _DICT_READERS:  # type: ignore[attr-defined]
                allowed.add(id(node.value))  # type: ignore[attr-defined]
        elif kind is ast.Compare:
            compared = zip(node.ops, node.comparators, strict=True)  # type: ignore[attr-defined]
            allowed.update(id(c) for op, c in compared if type(op) in (ast.In, ast.NotIn))
        elif kind is ast.Dict:  # ``{**KINDS}`` copies it
            allowed.update(id(v) for k, v in zip(node.keys, node.values, strict=True) if k is None)  # type: ignore[attr-defined]
        elif kind is ast.keyword and node.arg is None:  # type: ignore[attr-defined]  # ``f(**KINDS)`` too
            allowed.add(id(node.value))  # type: ignore[attr-defined]
        pending += _children(node)
    return frozenset(read.id for read in reads if id(read) not in allowed)


# Constructions (see ConstructionFact) -------------------------------------------------

# Pydantic's class methods that build an instance from the fields they are given.
MODEL_CONSTRUCT, MODEL_VALIDATE, MODEL_COPY = "model_construct", "model_validate", "model_copy"
_BUILDING_METHODS = (MODEL_CONSTRUCT, *MAPPING_VALIDATORS, JSON_VALIDATOR)
# What a method's receiver stands for, as the form of a construction names it.
CLS, TYPE_SELF, SELF_CLASS = "cls", "type(self)", "self.__class__"
# How a construction through a local alias of a class names it (``local Event``): no
# name of Python, nor any other form.
LOCAL = "local"
SUPER_INIT = "super().__init__"
PARTIAL, REPLACE = "partial", "replace"
_PARTIALS = frozenset({"functools.partial"})
_REPLACES = frozenset({"dataclasses.replace", "copy.replace"})
_PARTIALS_REPLACES = _PARTIALS | _REPLACES
# Methods whose first parameter is the class (implicitly, for the dunders).
_CLASS_RECEIVING = frozenset({"__new__", "__init_subclass__", "__class_getitem__"})


def _validates_mapping(call: ast.Call) -> bool:
    """``X.model_validate({...})``, ``X.model_validate(dict(...))``: the mapping's keys
    name the fields, as keywords would; ``X.model_validate(payload)``: those of the
    local dict it holds may (see :class:`_Payloads`); ``X.model_validate(stats)``: a
    mapping whose keys are not known gives the fields all the same (DOM105 traces it).
    ``model_validate_strings`` alike; ``X.model_validate_json('{...}')``: the keys of
    the JSON object a literal holds name them."""
    func = call.func
    if type(func) is not ast.Attribute or not call.args:
        return False
    if func.attr == JSON_VALIDATOR:
        return type(call.args[0]) is ast.Constant
    return func.attr in MAPPING_VALIDATORS and type(call.args[0]) is not ast.Starred


def _constructions(walk: _Walk, resolver: _Resolver, tree: ast.Module) -> list[tuple[ast.Call, str, str, str]]:
    """(call, scope, form, class built) of each construction among the calls the walk
    found, once per walk (the facts and the flow facts both ask)."""
    if walk.found_constructions is None:
        finder = _finder(walk, resolver)
        found = []
        for call, scope in walk.calls:
            construction = finder.construction(call, scope)
            if construction is not None:
                found.append((call, ".".join(scope) or MODULE_SCOPE, *construction))
        walk.found_constructions = found
    return walk.found_constructions


class _Constructions:
    """Which calls build an instance of a class other than by calling it by name, and
    of which class, from this module alone (whether it is an event is the check's
    question). Only what is known soundly:

    - a class method's ``cls`` is its class, a method's ``self`` an instance of it,
      for the methods of a class defined outside any function, when nothing else in
      the method (nested functions included) binds that name (``type(self)`` also
      needs ``type`` bound nowhere in the module); a subclass's instance is one of
      an event when the class is an event; so is what such a method's
      ``super().__init__(...)`` initializes (``super`` bound nowhere in the module);
    - a local variable holds an instance of X when every binding of its name in the
      function (nested scopes included) is an assignment, in the function's own
      scope, of ``X(...)``, ``X.model_construct(...)`` or ``X.model_validate(...)``,
      with the same X, and the name is no parameter (a ``global`` or ``nonlocal``
      declaration counts as a binding);
    - a local variable is an alias of X when its one binding in the function is an
      assignment of X, a dotted name the function binds nowhere (``Event =
      TelemetryEvent``; see :meth:`local_alias`): a call of it (``Event(...)``,
      ``Event.model_construct(...)``, ``partial(Event, ...)``) builds an X, with the
      form ``local Event``.
    """

    def __init__(self, walk: _Walk, resolver: _Resolver) -> None:
        # What it reads of the walk, not the walk: the walk keeps this finder, and a
        # reference cycle would outlive the file in a process whose cyclic collector
        # is off (the console script's and its parsing workers': each file's tree kept).
        self.functions = walk.functions
        self.methods = walk.methods
        self.resolver = resolver
        self.receivers = {_receiver(method) for method in walk.methods}
        self._bound: dict[ast.AST, dict[str, int]] = {}  # node -> bindings of each name in it
        self._locals: dict[tuple[ast.AST, str], str | None] = {}
        self.aliases = walk.alias_locals
        self._aliases: dict[tuple[ast.AST, str], str | None] = {}  # see alias

    def construction(self, call: ast.Call, scope: tuple[str, ...]) -> tuple[str, str] | None:
        """(form, class) when ``call`` is a construction; on the path of every call with
        keywords, so most are turned away by their callee's shape."""
        func = call.func
        kind = type(func)
        if kind is ast.Attribute:
            attr = func.attr  # type: ignore[attr-defined]
            if attr in _BUILDING_METHODS:
                found = self.class_of(func.value, call, scope)  # type: ignore[attr-defined]
                if found is None:
                    return None
                label, built = found
                return (f"{label}.{attr}" if label else attr), built
            if attr == MODEL_COPY:
                if not any(keyword.arg == "update" for keyword in call.keywords):
                    return None
                instance = self.instance_of(func.value, call, scope)  # type: ignore[attr-defined]
                return None if instance is None else (MODEL_COPY, instance)
            if attr == "__class__":
                found = self.class_of(func, call, scope)
                return None if found is None or not found[0] else found
            if attr == "__init__":
                return self.initialized(func.value, call, scope)  # type: ignore[attr-defined]
            if attr not in (PARTIAL, REPLACE):
                return None
        elif kind is ast.Name:
            name = func.id  # type: ignore[attr-defined]
            if name in self.receivers or name in self.aliases:
                found = self.class_of(func, call, scope)
                if found is not None and found[0]:
                    return found
                if name in self.receivers:
                    return None
            # ``partial``/``replace``, or either imported under another name (``from
            # functools import partial as p``): resolved below.
            if name not in (PARTIAL, REPLACE) and self.resolver.bindings.get(name) not in _PARTIALS_REPLACES:
                return None
        elif kind is ast.Call:
            found = self.class_of(func, call, scope)
            return None if found is None or not found[0] else found
        else:
            return None
        callee = self.resolver.resolve(func)
        if callee in _PARTIALS and call.args:
            found = self.class_of(call.args[0], call, scope)
            if found is None:
                return None
            label, built = found
            return (f"{PARTIAL}({label})" if label else PARTIAL), built
        if callee in _REPLACES and call.args:
            instance = self.instance_of(call.args[0], call, scope)
            return None if instance is None else (REPLACE, instance)
        return None

    def initialized(self, node: ast.expr, call: ast.Call, scope: tuple[str, ...]) -> tuple[str, str] | None:
        """``super().__init__(...)`` called by a method of its own (not a nested
        function's), with the builtin ``super``: it initializes an instance of the
        method's class, given the fields it names."""
        if not (
            type(node) is ast.Call
            and type(node.func) is ast.Name
            and node.func.id == "super"
            and not node.args
            and not node.keywords
        ):
            return None
        function = self.innermost(call, scope)
        owner = self.methods.get(function) if function is not None else None
        if owner is None or self.resolver.binding_counts().get("super"):
            return None
        return SUPER_INIT, f"{self.resolver.module}.{owner}"

    def class_of(self, node: ast.expr, call: ast.Call, scope: tuple[str, ...]) -> tuple[str, str] | None:
        """(how it is named, the class) for an expression naming a class: a dotted name
        (named as written: ""), a class method's ``cls``, ``type(self)`` or
        ``self.__class__`` in a method."""
        kind = type(node)
        if kind is ast.Name and node.id in self.receivers:  # type: ignore[attr-defined]
            owner = self.receiver_class(node.id, call, scope, classes=True)  # type: ignore[attr-defined]
            if owner is not None:
                return CLS, owner
        elif kind is ast.Attribute and node.attr == "__class__" and type(node.value) is ast.Name:  # type: ignore[attr-defined]
            owner = self.receiver_class(node.value.id, call, scope, classes=False)  # type: ignore[attr-defined]
            return None if owner is None else (SELF_CLASS, owner)
        elif kind is ast.Call:
            if not (
                type(node.func) is ast.Name  # type: ignore[attr-defined]
                and node.func.id == "type"  # type: ignore[attr-defined]
                and len(node.args) == 1  # type: ignore[attr-defined]
                and not node.keywords  # type: ignore[attr-defined]
                and type(node.args[0]) is ast.Name  # type: ignore[attr-defined]
            ):
                return None
            owner = self.receiver_class(node.args[0].id, call, scope, classes=False)  # type: ignore[attr-defined]
            if owner is None or self.resolver.binding_counts().get("type"):
                return None  # not a method's receiver, or not the builtin ``type``
            return TYPE_SELF, owner
        if kind is ast.Name and node.id in self.aliases:  # type: ignore[attr-defined]
            aliased = self.alias(node.id, call, scope)  # type: ignore[attr-defined]
            if aliased is not None:
                return f"{LOCAL} {node.id}", aliased  # type: ignore[attr-defined]
        reference = dotted_name(node)
        return None if reference is None else ("", self.resolver.resolve_dotted(reference))

    def alias(self, name: str, node: ast.expr, scope: tuple[str, ...]) -> str | None:
        """What the local variable ``name`` is an alias of where ``node`` is (in the
        function ``scope`` names): see :meth:`local_alias`."""
        function = self.innermost(node, scope)
        if function is None:
            return None
        key = (function, name)
        if key not in self._aliases:
            self._aliases[key] = self.local_alias(function, name)
        return self._aliases[key]

    def local_alias(self, function: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> str | None:
        """The dotted name, resolved as a callee is, that ``function`` binds the local
        ``name`` to (``Event = TelemetryEvent``, ``make = events.StepEvent``), when that
        is its only binding in the function (nested scopes included: no parameter, no
        second assignment, loop, import or ``global``), a simple assignment in the
        function's own statements, of a name or an attribute of one the function binds
        nowhere (``cls_ = self.event_type``, an alias of another local: not followed).
        Whether it names a class, an event, is the check's question."""
        bound = self.bindings(function)
        if bound.get(name) != 1:
            return None
        for statement in _own_statements(function.body):
            target, value = _simple_assignment(statement)
            if target != name:
                continue
            reference = dotted_name(value) if type(value) is ast.Name or type(value) is ast.Attribute else None
            if reference is None or bound.get(reference.partition(".")[0]):
                return None
            return self.resolver.resolve_dotted(reference)
        return None  # bound otherwise: a parameter, a loop, an import, ...

    def instance_of(self, node: ast.expr, call: ast.Call, scope: tuple[str, ...]) -> str | None:
        """The class ``node`` holds an instance of: a method's ``self``, a local variable
        assigned constructions of one class alone, or a construction itself
        (``X(...)``, ``X.model_construct(...)``, ``X.model_validate(...)``)."""
        if type(node) is ast.Call:
            return self.constructed_class(node)
        if type(node) is not ast.Name:
            return None
        name = node.id
        if name in self.receivers:
            owner = self.receiver_class(name, call, scope, classes=False)
            if owner is not None:
                return owner
        return self.local_instance(name, call, scope)

    def local_instance(self, name: str, node: ast.expr, scope: tuple[str, ...]) -> str | None:
        """The class the local variable ``name`` holds an instance of where ``node`` is
        (in the function ``scope`` names): see :meth:`local_class`."""
        function = self.innermost(node, scope)
        if function is None:
            return None
        key = (function, name)
        if key not in self._locals:
            self._locals[key] = self.local_class(function, name)
        return self._locals[key]

    def constructed_class(self, value: ast.Call) -> str | None:
        """The class a call of a dotted name builds, as :meth:`local_class` reads an
        assignment's value: ``X(...)``, ``X.model_construct(...)``, ``X.model_validate(...)``
        (whether X is a class, an event, is the check's question)."""
        func = value.func
        if isinstance(func, ast.Attribute) and func.attr in _BUILDING_METHODS:
            func = func.value
        reference = dotted_name(func)
        return None if reference is None else self.resolver.resolve_dotted(reference)

    def receiver_class(self, name: str, call: ast.expr, scope: tuple[str, ...], classes: bool) -> str | None:
        """The class (``module.Qualname``) of the method ``call`` is in (or nested in)
        whose receiver ``name`` is, when it receives the class (``classes``) or an
        instance, and nothing else in it binds ``name``."""
        for end in range(len(scope), 0, -1):
            for function in self.functions.get(scope[:end], ()):
                if not _contains(function, call):
                    continue
                owner = self.methods.get(function)
                if owner is None:
                    break  # a nested function: its receiver is the enclosing method's
                if _receiver(function) != name or _receives_class(function) != classes:
                    return None
                if self.bindings(function).get(name) != 1:  # its parameter alone
                    return None
                return f"{self.resolver.module}.{owner}"
        return None

    def innermost(self, node: ast.expr, scope: tuple[str, ...]) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        for function in self.functions.get(scope, ()):
            if _contains(function, node):
                return function
        return None

    def local_class(self, function: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> str | None:
        assigned = {}  # target node -> the class reference assigned, as written
        for statement in _own_statements(function.body):
            target, value = _simple_assignment(statement)
            if target != name or not isinstance(value, ast.Call):
                continue
            func = value.func
            if isinstance(func, ast.Attribute) and func.attr in _BUILDING_METHODS:
                func = func.value
            reference = dotted_name(func)
            node = statement.targets[0] if isinstance(statement, ast.Assign) else statement.target  # type: ignore[attr-defined]
            if reference is None:
                return None
            assigned[node] = reference
        if len(set(assigned.values())) != 1:
            return None
        if self.bindings(function).get(name) != len(assigned):
            return None  # bound otherwise too (a parameter, a loop, a nested scope, ...)
        return self.resolver.resolve_dotted(next(iter(assigned.values())))

    def bindings(self, node: ast.AST) -> dict[str, int]:
        found = self._bound.get(node)
        if found is None:
            found = self._bound[node] = {}
            for name, _ in _binding_sites(node):
                found[name] = found.get(name, 0) + 1
        return found


def _attribute_sets(walk: _Walk, resolver: _Resolver) -> list[AttributeSetFact]:
    """The attributes the walk saw set on a local variable of a function that holds an
    instance of one class wherever the function reads it (:meth:`_Constructions.local_instance`,
    asked only of the locals the same scope assigns a call): ``event.episode = n``,
    ``setattr(event, "epoch", n)``, ``object.__setattr__(event, "epoch", n)`` (``setattr``
    and ``object`` the builtins: bound nowhere in the module, which star-imports nothing)."""
    if not walk.attribute_sets:
        return []
    assigned = {(scope, local) for scope, local, _ in walk.assigned_calls}
    finder: _Constructions | None = None
    found = []
    for node, scope in walk.attribute_sets:
        if isinstance(node, ast.Attribute):
            holder, attribute = node.value, node.attr
            width = len(attribute.encode("utf-8"))
            line, col = node.end_lineno or node.lineno, (node.end_col_offset or 0) - width
            form = ""
        else:
            holder, key = node.args[0], node.args[1]  # see _Walk.set_through_call
            if not (isinstance(key, ast.Constant) and isinstance(key.value, str) and key.value.isidentifier()):
                continue
            attribute, written = key.value, key_written(key)
            line, col = written.lineno, written.col_offset
            form = SETATTR if type(node.func) is ast.Name else OBJECT_SETATTR
        if type(holder) is not ast.Name or (scope, holder.id) not in assigned:
            continue
        if form and (resolver.unbound_prefix or resolver.binding_counts().get(form.partition(".")[0])):
            continue  # ``setattr`` or ``object`` may not be the builtin
        finder = finder or _finder(walk, resolver)
        built = finder.local_instance(holder.id, holder, scope)
        if built:
            where = Text(holder.id, holder.lineno, holder.col_offset)
            found.append(
                AttributeSetFact(built, form, ".".join(scope) or MODULE_SCOPE, where, Text(attribute, line, col))
            )
    return found


def _receiver_strings(
    walk: _Walk, resolver: _Resolver, held: _LocalStrings | None = None
) -> dict[ast.ClassDef, tuple[ReceiverStringFact, ...]]:
    """The strings the methods of each class statement set on their instance, or a class
    method on its class (see ReceiverStringFact): the receiver must be the method's own
    (nothing else in it binds the name, :meth:`_Constructions.receiver_class`), the
    function setting it the builtin (bound nowhere in the module, which star-imports
    nothing; on a class, ``setattr`` alone: ``object.__setattr__`` and
    ``super().__setattr__`` set no class's attribute); the strings are read as a
    keyword's kind is (:meth:`_Resolver.keep_string`), each branch of a conditional
    expression on its own, a local variable's through ``held``, and a value that holds
    none is left out."""
    if not walk.receiver_sets:
        return {}
    finder: _Constructions | None = None
    statements: dict[str, list[ast.ClassDef]] = {}  # qualname -> the class statements binding it
    for node, scope, _ in walk.classes:
        statements.setdefault(".".join((*scope, node.name)), []).append(node)
    found: dict[ast.ClassDef, list[ReceiverStringFact]] = {}
    for owner, scope, receiver, name, value, through in walk.receiver_sets:
        if through and (resolver.unbound_prefix or resolver.binding_counts().get(through)):
            continue  # ``setattr``, ``object`` or ``super`` may not be the builtin
        if not _may_be_kept(value, resolver, held):
            continue  # ``self.name = name``, ``self.size = other.size``: most are neither
        kept = _Kept()
        pending = [value]
        while pending:  # a conditional expression's branches, in source order
            current = pending.pop()
            if type(current) is ast.IfExp:
                pending += [current.orelse, current.body]
            else:
                resolver.keep_string(kept, 0, current, held, current, scope)
        strings: list[tuple[str | None, Text]] = [(None, text) for _, text in kept.strings]
        strings += [(constant, text) for _, constant, text in kept.constants]
        # Folded from module constants (noted ""), or held by a local variable.
        strings += [(None, text) for _, _, note, text in kept.held if not note]
        locals_held = [(spelled, note, text) for _, spelled, note, text in kept.held if note]
        references = [(reference, written) for _, reference, written in kept.references]
        templates = [(template, written) for _, template, written in kept.templates]
        if not strings and not references and not locals_held and not templates:
            continue  # most values are no strings (``self.name = name``): turned away first
        finder = finder or _finder(walk, resolver)
        on_class = False
        if finder.receiver_class(receiver, value, scope, classes=False) is None:
            if through in ("object", "super") or finder.receiver_class(receiver, value, scope, classes=True) is None:
                continue  # not the method's own instance, nor its own class
            on_class = True
        statement = next((node for node in statements.get(owner, ()) if _contains(node, value)), None)
        if statement is not None:
            ordered = tuple(sorted(strings, key=_string_place))
            fact = ReceiverStringFact(
                ".".join(scope),
                name,
                ordered,
                tuple(references),
                tuple(sorted(locals_held, key=lambda h: (h[2].line, h[2].col))),
                on_class,
                tuple(templates),
            )
            found.setdefault(statement, []).append(fact)
    return {node: tuple(sorted(facts, key=lambda f: (f.name.line, f.name.col))) for node, facts in found.items()}


def _may_be_kept(value: ast.expr, resolver: _Resolver, held: _LocalStrings | None = None) -> bool:
    """Whether :meth:`_Resolver.keep_string` may note anything of ``value``: not for a
    name the module binds neither to a string constant nor by an import, an alias or a
    class, and that no statement assigns what may be a string (a local's, ``held``),
    nor for an attribute of such a name, nor for a subscript of anything but a name the
    module binds to a dict display or by an import (a table's entry, maybe)."""
    kind = type(value)
    if kind is ast.Name:
        name = value.id  # type: ignore[attr-defined]
        return name in resolver.constants or name in resolver.bindings or (held is not None and name in held.candidates)
    if kind is ast.Subscript:
        table = value.value  # type: ignore[attr-defined]
        return type(table) is ast.Name and (table.id in resolver.tables or table.id in resolver.bindings)
    if kind is ast.Attribute:
        head = value
        while type(head) is ast.Attribute:
            head = head.value
        return type(head) is ast.Name and head.id in resolver.bindings
    return True


def _string_place(held: tuple[str | None, Text]) -> tuple[int, int]:
    return held[1].line, held[1].col


def _finder(walk: _Walk, resolver: _Resolver) -> _Constructions:
    """The walk's finder of constructions, made once (it keeps what it found)."""
    if walk.finder is None:
        walk.finder = _Constructions(walk, resolver)
    return walk.finder


# Local dicts unpacked into a call (see _Payloads) --------------------------------------

# A key put into a local dict: its name, where it is written, its value, and the
# statement that puts it in (where the flow facts trace the value). A mapping whose keys
# are not known put in (``payload.update(stats)``) is one too, named as flow.SPREAD says,
# written where the mapping is, and its own value.
PayloadEntry = tuple[str, ast.expr | ast.keyword, ast.expr, ast.stmt]
# (call, scope, form, class built or callee, the keys the call is given, the local's name
# where the call is given it, whether the function merges keys into it with ``|=``)
_Payload = tuple[ast.Call, str, str, str, tuple[PayloadEntry, ...], ast.Name, bool]
# A followed local dict (see _Payloads._local): the statement creating it, the keys put
# in, the ids of its uses that are none of those allowed, and whether ``|=`` merges keys in.
_Local = tuple[ast.stmt, list[PayloadEntry], frozenset[int], bool]
# What a followed local may be used for besides being unpacked: reading it, or adding keys.
_DICT_READERS = frozenset({"get", "keys", "values", "items", "copy"})
_DICT_ADDERS = frozenset({"update", "setdefault"})


def _payload_names(call: ast.Call, form: str) -> list[tuple[ast.Name, str]]:
    """(the local's name, form) for each name ``call`` passes as a mapping of fields: unpacked
    (``**payload``), or as the mapping a construction of ``form`` reads
    (``model_validate(payload)``, ``model_copy(update=payload)``)."""
    method = form.rpartition(".")[2]
    if method in MAPPING_VALIDATORS:
        first = call.args[0] if call.args else None
        return [(first, f"{form}({first.id})")] if type(first) is ast.Name else []
    if method == MODEL_COPY:
        return [
            (k.value, f"{form}(update={k.value.id})")
            for k in call.keywords
            if k.arg == "update" and type(k.value) is ast.Name
        ]
    return [
        (k.value, f"{form}(**{k.value.id})" if form else f"**{k.value.id}")
        for k in call.keywords
        if k.arg is None and type(k.value) is ast.Name
    ]


def _payloads(walk: _Walk, resolver: _Resolver, tree: ast.Module) -> list[_Payload]:
    """The calls given the keys of a local dict (:class:`_Payloads`), once per walk."""
    if walk.found_payloads is None:
        constructions = {call: (form, built) for call, _, form, built in _constructions(walk, resolver, tree)}
        finder = _finder(walk, resolver)
        payloads = _Payloads(finder)
        found: list[_Payload] = []
        for call, scope in walk.calls:
            form, built = constructions.get(call, ("", ""))
            uses = _payload_names(call, form)
            if not uses:
                continue
            if not form:  # unpacked into a call of the callee as written
                built = resolver.resolve(call.func) or ""
            function = finder.innermost(call, scope) if built else None
            if function is None:  # at module level or in a class body: a global
                continue
            for given, how in uses:
                entries = payloads.entries(function, given.id, call)
                if entries is not None:  # followed, whatever it holds
                    merged = payloads.merges(function, given.id)
                    found.append((call, ".".join(scope) or MODULE_SCOPE, how, built, entries, given, merged))
        walk.found_payloads = found
    return walk.found_payloads


class _Payloads:
    """The keys of a dict a function's local variable holds where a call is given it,
    when they are certain (a key named in the ``payload`` below is in the dict the call
    is given, whichever branch ran):

    - the name is bound once in the function, nested scopes included (no parameter, no
      loop, ``global``, ``nonlocal``, ``del``, augmented or second assignment, no
      binding in a nested function), to a dict display or a ``dict(...)`` call, but
      for the keys merged into it with ``|=`` in the function's own statements;
    - every other use of it reads it (``payload[k]``, ``k in payload``, ``get``,
      ``keys``, ``values``, ``items``, ``copy``), unpacks it (``**payload``, into a call
      or a dict display), gives it to ``model_validate`` or as ``model_copy``'s
      ``update``, or adds keys (``payload[k] = v``, ``update``, ``setdefault``): nothing
      can take a key out (``del payload[k]``, ``pop``, ``clear``) or give the dict to
      code that might (another name, a call, a return);
    - the keys are those written as string literals that are identifiers: in the
      display or as ``dict``'s keywords, by ``payload["k"] = v``,
      ``payload.update(k=v)``, ``payload.update({"k": v})``,
      ``payload.setdefault("k", v)`` and ``payload |= {"k": v}`` (or ``|= dict(k=v)``)
      in the function's own statements (not a nested
      function's), each where it is added in a statement that ends before the call
      and may have run when it runs (a key added later, in a loop, is not known, nor
      one added in a branch the call's excludes, :func:`_may_precede`; one added in a
      branch before it is, as the event may carry it);
    - so are the mappings whose keys are not known put in alike (``{**stats}``,
      ``dict(stats)``, ``payload.update(stats)``, ``payload |= stats``): each is an
      entry named as flow.SPREAD says, whose value is the mapping.

    A dict given as a keyword's value (``Event(stats=stats)``, the keys nested in a
    field: :meth:`given_as_value`) is given whole to the callee: it is followed there
    when that is the one use of the name beside those above.
    """

    def __init__(self, finder: _Constructions, candidates: set[str] | None = None) -> None:
        self.finder = finder
        # The names a keyword's value may name a local dict by (the walk's dict_locals).
        self.candidates = candidates or set()
        self._found: dict[tuple[ast.AST, str], _Local | None] = {}

    def entries(
        self, function: ast.FunctionDef | ast.AsyncFunctionDef, name: str, call: ast.Call, given: ast.Name | None = None
    ) -> tuple[PayloadEntry, ...] | None:
        """What the local dict ``name`` holds where ``call`` is given it; None when that
        is not certain (not followed). ``given``: the name as the call is given it as a
        keyword's value, a use the others need not allow."""
        found = self._followed(function, name)
        if found is None:
            return None
        creation, entries, others, _ = found
        if others and others != {id(given)}:
            return None
        start = (call.lineno, call.col_offset)
        if _end(creation) > start:
            return None
        at_call = _block_path(function.body, start)
        return tuple(
            entry for entry in entries if _end(entry[3]) <= start and _may_precede(entry[3], function.body, at_call)
        )

    def merges(self, function: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> bool:
        """Whether the function merges keys into the followed local dict ``name`` with
        ``|=``: DOM105 traces such a dict whole where it is given, as it did before
        these keys were read (no finding it had moves to the keys)."""
        found = self._followed(function, name)
        return found is not None and found[3]

    def _followed(self, function: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> _Local | None:
        key = (function, name)
        if key not in self._found:
            self._found[key] = self._local(function, name)
        return self._found[key]

    def given_as_value(
        self, given: ast.Name, call: ast.Call, scope: tuple[str, ...]
    ) -> tuple[PayloadEntry, ...] | None:
        """What the local dict ``given`` names holds where ``call`` is given it as a
        keyword's value, as :meth:`entries` tells."""
        function = self.finder.innermost(call, scope)
        return None if function is None else self.entries(function, given.id, call, given)

    def _local(self, function: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> _Local | None:
        if any(argument.arg == name for argument in _argument_nodes(function.args)):
            return None  # a parameter: what it holds is the caller's (``**kwargs``, most often)
        creation: ast.stmt | None = None
        entries: list[PayloadEntry] = []
        merged = 0  # ``payload |= ...``: a binding of the name that keeps the dict
        for statement in _own_statements(function.body):
            kind = type(statement)
            if kind is ast.Assign or kind is ast.AnnAssign:
                target, value = _simple_assignment(statement)
                if target == name:
                    if value is None or not _is_dict(value):
                        return None
                    creation = statement
                    entries += [(k, at, v, statement) for k, at, v in _dict_entries(value)]
                    entries += [_spread_entry(m, statement) for m in _dict_spreads(value)]
                elif kind is ast.Assign:
                    for subscript in statement.targets:  # type: ignore[attr-defined]
                        if type(subscript) is ast.Subscript and _is_name(subscript.value, name):
                            key = _string_key(subscript.slice)
                            if key is not None:
                                entries.append((*key, statement.value, statement))  # type: ignore[attr-defined]
            elif kind is ast.Expr and type(statement.value) is ast.Call:  # type: ignore[attr-defined]
                added = statement.value  # type: ignore[attr-defined]
                func = added.func
                if type(func) is not ast.Attribute or not _is_name(func.value, name):
                    continue
                if func.attr == "update":
                    entries += [(k, at, v, statement) for k, at, v in _update_entries(added)]
                    entries += [_spread_entry(m, statement) for m in _update_spreads(added)]
                elif func.attr == "setdefault" and len(added.args) == 2:
                    key = _string_key(added.args[0])
                    if key is not None:
                        entries.append((*key, added.args[1], statement))
            elif kind is ast.AugAssign and type(statement.op) is ast.BitOr and _is_name(statement.target, name):  # type: ignore[attr-defined]
                merged += 1
                entries += _merged_entries(statement.value, statement)  # type: ignore[attr-defined]
        # Whether the name is bound elsewhere (walking the whole function) is asked last:
        # most names unpacked are not assigned a dict display (``**options``).
        if creation is None or self.finder.bindings(function).get(name) != 1 + merged:
            return None
        others = _other_uses(function, name)
        return None if len(others) > 1 else (creation, entries, others, merged > 0)


# Local variables given a string (see _LocalStrings) ------------------------------------

# A string a local variable may hold: the module constant it is read from (None for a
# literal), and the string, where it is written.
_Held = tuple[str | None, Text]


class _LocalStrings:
    """The strings a local variable of a function may hold where a call is given it
    (``kind = "EpisodeEnd" if done else "Step"; Event(kind=kind)``), or where a method
    sets it on its receiver (``self.kind = kind``), when they are certain:

    - the name is bound in the function (nested scopes included) only by simple
      assignments in its own statements (``kind = ...``, ``kind: str = ...``): no
      parameter, ``global``, ``nonlocal``, loop, ``with`` or ``except`` target,
      assignment expression, ``del``, augmented or unpacking assignment, nor a binding
      in a nested function or comprehension;
    - each value assigned is a literal string, an f-string or literals joined with
      ``+`` (module constants folded in: :func:`_literal_text`), a module-level string
      constant (:meth:`_Resolver.string_constant`), or a conditional expression of
      those, each branch read on its own;
    - of those, the assignments that end before the call and may have run when it runs
      (not one in a branch the call's excludes, :func:`_may_precede`; one later in a
      loop around the call is not followed), each literal where it is written.

    A call in a nested function (a closure's variable) is not followed."""

    def __init__(self, finder: _Constructions, resolver: _Resolver, candidates: set[str]) -> None:
        self.finder = finder
        self.resolver = resolver
        self.candidates = candidates
        self._found: dict[tuple[ast.AST, str], list[tuple[ast.stmt, list[_Held]]] | None] = {}

    def strings(self, name: str, call: ast.expr, scope: tuple[str, ...]) -> list[_Held]:
        if name not in self.candidates:  # most names given to a keyword: turned away at once
            return []
        function = self.finder.innermost(call, scope)
        if function is None:  # at module level (a module constant) or in a class body
            return []
        key = (function, name)
        if key not in self._found:
            self._found[key] = self._local(function, name)
        found = self._found[key]
        if not found:
            return []
        start = (call.lineno, call.col_offset)
        at_call = _block_path(function.body, start)
        return [
            held
            for statement, strings in found
            if _end(statement) <= start and _may_precede(statement, function.body, at_call)
            for held in strings
        ]

    def _local(
        self, function: ast.FunctionDef | ast.AsyncFunctionDef, name: str
    ) -> list[tuple[ast.stmt, list[_Held]]] | None:
        if any(argument.arg == name for argument in _argument_nodes(function.args)):
            return None  # a parameter: what it holds is the caller's
        assigned: list[tuple[ast.stmt, list[_Held]]] = []
        for statement in _own_statements(function.body):
            kind = type(statement)
            if kind is not ast.Assign and kind is not ast.AnnAssign:
                continue
            target, value = _simple_assignment(statement)
            if target != name:
                continue
            strings = self.values(value) if value is not None else None
            if strings is None:
                return None
            assigned.append((statement, strings))
        # Whether the name is bound otherwise (walking the whole function) is asked last.
        if not assigned or self.finder.bindings(function).get(name) != len(assigned):
            return None
        return assigned

    def values(self, value: ast.expr) -> list[_Held] | None:
        """The strings an assigned value may be, in source order; None when one may be
        anything else."""
        found: list[_Held] = []
        pending = [value]
        while pending:
            current = pending.pop()
            kind = type(current)
            if kind is ast.IfExp:
                pending += [current.orelse, current.body]  # type: ignore[attr-defined]
            elif kind is ast.Name:
                text = self.resolver.string_constant(current.id)  # type: ignore[attr-defined]
                if text is None:
                    return None
                found.append((current.id, _text(current, text)))  # type: ignore[attr-defined]
            elif kind is ast.Constant or kind is ast.JoinedStr or kind is ast.BinOp:
                text = _literal_text(current, self.resolver.string_constant)
                if text is None:
                    return None
                found.append((None, _text(current, text)))
            else:
                return None
        return found


def _end(statement: ast.stmt) -> tuple[int, int]:
    return statement.end_lineno or statement.lineno, statement.end_col_offset or 0


# A statement's place among a function's blocks: each compound statement around it, and
# which of its blocks holds it ("body", "orelse", "finalbody", a handler's or a case's index).
_Path = list[tuple[ast.stmt, str | int]]


def _block_path(body: list[ast.stmt], position: tuple[int, int]) -> _Path:
    """The compound statements around ``position`` in ``body`` (not entering nested
    functions or classes), outermost first, with the block of each that holds it."""
    path: _Path = []
    block: list[ast.stmt] | None = body
    while block is not None:
        around = next((s for s in block if (s.lineno, s.col_offset) <= position <= _end(s)), None)
        block = None
        if around is None or type(around) not in _BLOCK_STATEMENTS:
            break
        for which, statements in _named_blocks(around):
            if statements and (statements[0].lineno, statements[0].col_offset) <= position <= _end(statements[-1]):
                path.append((around, which))
                block = statements
                break
    return path


def _named_blocks(statement: ast.stmt) -> Iterator[tuple[str | int, list[ast.stmt]]]:
    if type(statement) is ast.Match:
        for index, case in enumerate(statement.cases):
            yield index, case.body
        return
    for name in ("body", "orelse", "finalbody"):
        yield name, getattr(statement, name, [])
    for index, handler in enumerate(getattr(statement, "handlers", ())):
        yield index, handler.body


def _may_precede(statement: ast.stmt, body: list[ast.stmt], at_call: _Path) -> bool:
    """Whether ``statement``, which ends before the call, may have run when the call runs:
    not when the two are in blocks of one statement that exclude each other (``if`` and
    ``else``, two ``case``s, an ``except`` and the ``else`` or another ``except``). A
    loop around both could run the first in an earlier pass: that is not followed."""
    here = _block_path(body, (statement.lineno, statement.col_offset))
    for (around, which), (call_around, call_which) in zip(here, at_call, strict=False):
        if around is not call_around:
            return True  # the statement's block ends before the call's begins
        if which == call_which:
            continue
        kind = type(around)
        if kind is ast.If or kind is ast.Match:
            return False
        if kind is ast.Try or kind is ast.TryStar:  # a handler may follow part of the body
            return which == "body" or call_which == "finalbody"
        return True  # a loop's ``else`` after its body
    return True


def _is_name(node: ast.expr, name: str) -> bool:
    return type(node) is ast.Name and node.id == name


def _is_dict(value: ast.expr) -> bool:
    """A dict display, or a ``dict(...)`` call."""
    if type(value) is ast.Dict:
        return True
    return type(value) is ast.Call and type(value.func) is ast.Name and value.func.id == "dict"


def _string_key(node: ast.expr) -> tuple[str, ast.expr] | None:
    """(the name, where it is written) when ``node`` is a string literal that can name
    a keyword."""
    if type(node) is ast.Constant and type(node.value) is str and node.value.isidentifier():
        return node.value, key_written(node)
    return None


def _dict_entries(value: ast.expr) -> list[tuple[str, ast.expr | ast.keyword, ast.expr]]:
    """The keys a dict display or a ``dict(...)`` call certainly holds: string keys,
    ``dict``'s keywords, and those of a display unpacked in either."""
    if type(value) is ast.Dict:
        found = unpacked_keywords(value)
        for key, item in zip(value.keys, value.values, strict=True):
            if key is None:
                found += unpacked_keywords(item)
        return found
    return _keyword_entries(value.keywords) if type(value) is ast.Call else []


def _keyword_entries(keywords: list[ast.keyword]) -> list[tuple[str, ast.expr | ast.keyword, ast.expr]]:
    found: list[tuple[str, ast.expr | ast.keyword, ast.expr]] = []
    for keyword in keywords:
        if keyword.arg is not None:
            found.append((keyword.arg, keyword, keyword.value))
        else:
            found += unpacked_keywords(keyword.value)
    return found


def _update_entries(call: ast.Call) -> list[tuple[str, ast.expr | ast.keyword, ast.expr]]:
    """The keys ``payload.update(...)`` certainly adds: of a dict display or a
    ``dict(...)`` call given, and its keywords."""
    found = unpacked_keywords(call.args[0]) if len(call.args) == 1 else []
    return found + _keyword_entries(call.keywords)


# The mappings whose keys are not known that a dict display or a ``dict(...)`` call
# (``_dict_spreads``) or ``payload.update(...)`` (``_update_spreads``) puts into a local
# dict: what the functions above leave out.


def _dict_spreads(value: ast.expr) -> list[ast.expr]:
    if type(value) is ast.Dict:
        return [
            m for key, item in zip(value.keys, value.values, strict=True) if key is None for m in spread_mappings(item)
        ]
    if type(value) is ast.Call:
        return [a for a in value.args if type(a) is not ast.Starred] + _keyword_spreads(value.keywords)
    return []


def _keyword_spreads(keywords: list[ast.keyword]) -> list[ast.expr]:
    return [mapping for keyword in keywords if keyword.arg is None for mapping in spread_mappings(keyword.value)]


def _update_spreads(call: ast.Call) -> list[ast.expr]:
    found = spread_mappings(call.args[0]) if len(call.args) == 1 and type(call.args[0]) is not ast.Starred else []
    return found + _keyword_spreads(call.keywords)


def _merged_entries(value: ast.expr, statement: ast.stmt) -> list[PayloadEntry]:
    """What ``payload |= value`` puts in: as a dict display or a ``dict(...)`` call given
    would be assigned, else ``value`` whole, a mapping whose keys are not known."""
    if not _is_dict(value):
        return [_spread_entry(value, statement)]
    entries = [(k, at, v, statement) for k, at, v in _dict_entries(value)]
    return entries + [_spread_entry(m, statement) for m in _dict_spreads(value)]


def _spread_entry(mapping: ast.expr, statement: ast.stmt) -> PayloadEntry:
    return spread_name(mapping), mapping, mapping, statement


def _other_uses(function: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> frozenset[int]:
    """The ids of the reads of ``name`` in ``function`` (nested scopes too) that are none
    of the uses :class:`_Payloads` allows, which cannot take a key out of the dict it
    holds."""
    allowed: set[int] = set()  # ids of the Name nodes used so
    reads: list[ast.Name] = []
    pending: list[ast.AST] = list(function.body)
    while pending:
        node = pending.pop()
        kind = type(node)
        if kind is ast.Name:
            if node.id == name and type(node.ctx) is ast.Load:  # type: ignore[attr-defined]
                reads.append(node)  # type: ignore[arg-type]
            continue
        if kind is ast.Call:
            func = node.func  # type: ignore[attr-defined]
            if type(func) is ast.Attribute and _is_name(func.value, name) and func.attr in _DICT_READERS | _DICT_ADDERS:
                allowed.add(id(func.value))
            if type(func) is ast.Attribute and func.attr in MAPPING_VALIDATORS and node.args:  # type: ignore[attr-defined]
                allowed.add(id(node.args[0]))  # type: ignore[attr-defined]
            for keyword in node.keywords:  # type: ignore[attr-defined]
                if keyword.arg is None or (keyword.arg == "update" and type(func) is ast.Attribute):
                    allowed.add(id(keyword.value))
        elif kind is ast.Dict:
            allowed.update(id(v) for k, v in zip(node.keys, node.values, strict=True) if k is None)  # type: ignore[attr-defined]
        elif kind is ast.Subscript:
            if type(node.ctx) is not ast.Del:  # type: ignore[attr-defined]
                allowed.add(id(node.value))  # type: ignore[attr-defined]
        elif kind is ast.Compare:
            compared = zip(node.ops, node.comparators, strict=True)  # type: ignore[attr-defined]
            allowed.update(id(c) for op, c in compared if type(op) in (ast.In, ast.NotIn))
        pending += _children(node)
    return frozenset(id(read) for read in reads if id(read) not in allowed)


# Strings given by position (see PositionalFact) -----------------------------------------


def _may_pass_kinds(call: ast.Call) -> bool:
    """Whether ``call`` may build an instance of a class given a literal string by
    position: it is given one before any starred argument, and its callee is a name or
    attribute (the class, ``cls``, ``partial``, ``self.__class__``) or a call
    (``type(self)``). Most are not: :func:`_positional` keeps those that are."""
    kind = type(call.func)
    if kind is not ast.Name and kind is not ast.Attribute and kind is not ast.Call:
        return False
    for argument in call.args:
        argument_kind = type(argument)
        if argument_kind is ast.Starred:
            return False
        if argument_kind is ast.Constant:
            if type(argument.value) is str:  # type: ignore[attr-defined]
                return True
        elif argument_kind is ast.JoinedStr or argument_kind is ast.BinOp:  # ``f"..."``, ``"a" + "b"``
            return True
    return False


def _positional(walk: _Walk, resolver: _Resolver) -> Iterator[tuple[ast.Call, str, str, str, int]]:
    """(call, scope, form, class, arguments before the fields) of each call among the
    walk's that gives strings by position to what may be a class: a capitalized name
    (not an exception's or a warning's), or a construction that passes its positional
    arguments on to the class's (``cls``, ``type(self)``, ``self.__class__``,
    ``partial``, a local alias of the class: see :class:`_Constructions`)."""
    finder = _finder(walk, resolver) if walk.positional_calls else None
    for call, scope in walk.positional_calls:
        func = call.func
        last = func.id if type(func) is ast.Name else func.attr if type(func) is ast.Attribute else ""
        if last[:1].isupper() and not last.endswith(RAISED):
            built = resolver.resolve(func)
            if built:
                yield call, ".".join(scope) or MODULE_SCOPE, "", built, 0
            if type(func) is not ast.Name or func.id not in walk.alias_locals:
                continue  # a local alias's call is the class's too (below)
        construction = finder.construction(call, scope) if finder is not None else None
        if construction is None:
            continue
        form, built = construction
        aliased = form.startswith(LOCAL) and "." not in form  # ``Event(...)``, not ``Event.model_construct(...)``
        if form.startswith(PARTIAL) or form in (CLS, TYPE_SELF, SELF_CLASS) or aliased:
            yield call, ".".join(scope) or MODULE_SCOPE, form, built, int(form.startswith(PARTIAL))


# (call, scope, form, what it builds or calls, arguments before the fields): see _arguments_given
_ArgumentCall = tuple[ast.Call, str, str, str, int]
# The constructions that pass their positional arguments on to the class they build
# (``partial`` after the class, and a call of a local alias of the class): the others
# take none of its fields by position.
_PASSING_ON = frozenset({CLS, TYPE_SELF, SELF_CLASS, SUPER_INIT})
_BUILTIN_NAMES = frozenset(dir(builtins))


def _arguments_given(walk: _Walk, resolver: _Resolver) -> list[_ArgumentCall]:
    """(call, scope, form, target, arguments before the fields) of each call the walk saw
    given arguments by position whose values may be an event's fields (DOM105): a call
    of a dotted name (the target as resolved through the module's imports, the form
    ""), but a builtin's the module binds nowhere; or a construction that passes its
    positional arguments on to the class it builds (``cls``, ``type(self)``,
    ``self.__class__``, ``super().__init__``, ``partial(X, ...)`` after ``X``, a local
    alias of the class: see :class:`_Constructions`), the target the class. Once per
    walk (the facts and the flow facts both ask)."""
    if walk.found_arguments is None:
        found: list[_ArgumentCall] = []
        finder = _finder(walk, resolver) if walk.argument_calls else None
        counts = resolver.binding_counts()
        resolved: dict[str, str] = {}  # a file calls the same few names again and again
        for call, scope in walk.argument_calls:
            func = call.func
            # A builtin the module binds nowhere (``len(x)``) builds nothing: no construction
            # is called by such a name (``cls``, a local alias, ``partial`` are none).
            if type(func) is ast.Name and func.id in _BUILTIN_NAMES and not counts.get(func.id):
                continue
            where = ".".join(scope) or MODULE_SCOPE
            construction = finder.construction(call, scope) if finder is not None else None
            if construction is not None:
                form, built = construction
                aliased = (
                    form.startswith(LOCAL) and "." not in form
                )  # ``Event(...)``, not ``Event.model_construct(...)``
                if form in _PASSING_ON or form.startswith(PARTIAL) or aliased:
                    found.append((call, where, form, built, int(form.startswith(PARTIAL))))
                continue
            reference = dotted_name(func)
            if reference is not None:
                target = resolved.get(reference)
                if target is None:
                    target = resolved[reference] = resolver.resolve_dotted(reference)
                found.append((call, where, "", target, 0))
        walk.found_arguments = found
    return walk.found_arguments


# A module-level function whose definition is certain (see _certain_functions): its name, its ``def``
_Certain = tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]


def _signatures(certain: list[_Certain]) -> dict[str, tuple[str, ...]]:
    """The parameters each function the module defines at module level takes by
    position (positional-only, then the others before ``*``), in order, where that is
    certain (:func:`_certain_functions`). Which parameter an argument given by position
    binds, in a call of an emit function (a kind given by position: DOM103)."""
    found = {
        name: tuple(a.arg for a in (*function.args.posonlyargs, *function.args.args)) for name, function in certain
    }
    return dict(sorted(found.items()))


def _certain_functions(walk: _Walk, resolver: _Resolver) -> list[_Certain]:
    """The functions the module defines at module level whose definition is certain:
    one ``def`` binds its name (``async def`` too, in a module-level ``if`` or ``try``
    too), with no decorator (a decorator may take other parameters, or build nothing),
    nothing else in the module binds it, and the module star-imports nothing."""
    if walk.stars:
        return []
    counts = resolver.binding_counts()
    found = []
    for scope, functions in walk.functions.items():
        if len(scope) != 1 or len(functions) != 1 or counts.get(scope[0]) != 1:
            continue
        function = functions[0]
        if function not in walk.methods and not function.decorator_list:
            found.append((scope[0], function))
    return found


def _emitters(walk: _Walk, resolver: _Resolver, certain: list[_Certain]) -> dict[str, EmitterFact]:
    """The module-level functions, certain as for their signatures
    (:func:`_certain_functions`), that construct a class unpacking their own ``**``
    parameter in their own body (not a nested function's), which nothing there binds
    again: ``X(**fields)``, ``X(kind=kind, **fields)`` or ``X.model_validate(fields)``
    (see EmitterFact). Read from the calls the walk found in their scope: no walk of
    its own, but of the body of a function found so, for what binds the parameter."""
    spreads: dict[tuple[str, ...], str] = {
        (name,): function.args.kwarg.arg for name, function in certain if function.args.kwarg is not None
    }
    if not spreads:
        return {}
    built: dict[str, set[str]] = {}
    passed: dict[str, set[str]] = {}
    for call, scope in walk.calls:
        spread = spreads.get(scope)
        found = _built_from(call, spread, resolver) if spread is not None else None
        if found is not None:
            built.setdefault(scope[0], set()).add(found)
            named = passed.setdefault(scope[0], set())
            named.update(k.arg for k in call.keywords if k.arg is not None and _is_name(k.value, k.arg))
    return {
        name: _emitter(walk.functions[(name,)][0], classes, passed[name])
        for name, classes in sorted(built.items())
        if _bound_once(walk.functions[(name,)][0], spreads[(name,)])
    }


def _emitter(function: ast.FunctionDef | ast.AsyncFunctionDef, built: set[str], passed: set[str]) -> EmitterFact:
    arguments = function.args
    positional = tuple(a.arg for a in (*arguments.posonlyargs, *arguments.args))
    named = tuple(sorted({*positional, *(a.arg for a in arguments.kwonlyargs)}))
    return EmitterFact(tuple(sorted(built)), tuple(sorted(passed)), named, positional)


def _bound_once(function: ast.FunctionDef | ast.AsyncFunctionDef, parameter: str) -> bool:
    """Nothing in ``function`` binds ``parameter`` but the parameter itself."""
    return sum(1 for bound, _ in _binding_sites(function) if bound == parameter) == 1


def _built_from(call: ast.Call, spread: str, resolver: _Resolver) -> str | None:
    """The class ``call`` constructs from the mapping ``spread`` names, resolved through
    the module's imports: ``X(..., **spread)``, ``X.model_validate(spread)``; else None."""
    func = call.func
    if any(k.arg is None and _is_name(k.value, spread) for k in call.keywords):
        return resolver.resolve(func)
    if type(func) is ast.Attribute and func.attr in MAPPING_VALIDATORS and call.args and _is_name(call.args[0], spread):
        return resolver.resolve(func.value)
    return None


def _positions(fact: PositionalFact) -> list[tuple[int, int]]:
    return [(text.line, text.col) for _, text in fact.strings]


# How a class takes positional arguments (see _Resolver.init_order) ----------------------

_DATACLASS_DECORATOR = "dataclasses.dataclass"
_DATACLASS_FIELD = "dataclasses.field"
_NAMEDTUPLE_BASES = frozenset({"typing.NamedTuple", "typing_extensions.NamedTuple"})
_CONSTRUCTORS = frozenset({"__init__", "__new__", "__init_subclass__"})
# What an annotation's outermost name says of the attribute it annotates, in a dataclass.
_NOT_A_FIELD, _KEYWORDS_AFTER = "ClassVar", "KW_ONLY"
_MARKERS = (_NOT_A_FIELD, _KEYWORDS_AFTER, "InitVar")


def _unsubscripted(node: ast.expr) -> ast.expr:
    return node.value if type(node) is ast.Subscript else node


def _is_constant(node: ast.expr, value: bool) -> bool:
    return type(node) is ast.Constant and node.value is value


def _defines_constructor(body: list[ast.stmt]) -> bool:
    """A class body that defines or binds ``__init__``, ``__new__`` or
    ``__init_subclass__``, in any of its blocks."""
    for statement in body:
        kind = type(statement)
        if kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
            if statement.name in _CONSTRUCTORS:  # type: ignore[attr-defined]
                return True
        elif kind is ast.Assign or kind is ast.AnnAssign or kind is ast.AugAssign:
            targets = statement.targets if kind is ast.Assign else [statement.target]  # type: ignore[attr-defined]
            if any(name.id in _CONSTRUCTORS for target in targets for name in _target_names(target)):
                return True
        elif kind in _BLOCK_STATEMENTS and any(_defines_constructor(block) for block in _blocks(statement)):
            return True
    return False


def _declared_fields(body: list[ast.stmt], resolver: _Resolver, dataclass: bool) -> tuple[tuple[str, bool], ...] | None:
    """The fields a dataclass's (or a NamedTuple's) own body declares, in order, each
    with whether ``__init__`` takes it by position; None when that is not certain.

    A field is an annotated name (``kind: str``, with a value or not), ``InitVar``
    included, ``ClassVar`` not; after ``_: KW_ONLY``, or given ``field(kw_only=True)``
    or ``field(init=False)``, it is not taken by position. Not certain: a statement
    that may declare one out of sight (an ``if``, ``try``, ``for``, ``with`` or
    ``match`` block), an annotation written as a string naming ``ClassVar``,
    ``InitVar`` or ``KW_ONLY``, options given to ``field(...)`` that are not literal
    booleans, and in a NamedTuple any such marker."""
    fields: list[tuple[str, bool]] = []
    keywords_only = False
    for statement in body:
        kind = type(statement)
        if kind is not ast.AnnAssign:
            if kind in _BLOCK_STATEMENTS:
                return None
            continue
        target = statement.target  # type: ignore[attr-defined]
        if type(target) is not ast.Name:
            continue
        marker = _annotation_marker(statement.annotation, resolver)  # type: ignore[attr-defined]
        if marker is None or (marker and not dataclass):
            return None
        if marker == _NOT_A_FIELD:
            continue
        if marker == _KEYWORDS_AFTER:
            keywords_only = True
            continue
        by_position, init = not keywords_only, True
        value = statement.value  # type: ignore[attr-defined]
        if dataclass and type(value) is ast.Call and resolver.resolve(value.func) == _DATACLASS_FIELD:
            for keyword in value.keywords:
                if keyword.arg is None:
                    return None
                if keyword.arg in ("init", "kw_only"):
                    given = keyword.value
                    if not (type(given) is ast.Constant and type(given.value) is bool):
                        return None
                    if keyword.arg == "init":
                        init = given.value
                    else:  # ``kw_only`` given to the field overrides KW_ONLY
                        by_position = not given.value
        fields.append((target.id, by_position and init))
    return tuple(fields)


_BLOCK_STATEMENTS = frozenset(
    {ast.If, ast.Try, ast.TryStar, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Match}
)


def _annotation_marker(annotation: ast.expr, resolver: _Resolver) -> str | None:
    """``ClassVar``, ``KW_ONLY`` or ``InitVar`` when the annotation is one of them (or
    a subscript of one), "" when it is none, None when a string names one."""
    if type(annotation) is ast.Constant and type(annotation.value) is str:
        return None if any(marker in annotation.value for marker in _MARKERS) else ""
    name = resolver.resolve(_unsubscripted(annotation))
    last = name.rpartition(".")[2] if name else ""
    return last if last in _MARKERS else ""


def _receives_class(method: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return method.name in _CLASS_RECEIVING or "classmethod" in _decorator_names(method)


def _contains(outer: ast.stmt, inner: ast.expr) -> bool:
    start = (outer.lineno, outer.col_offset)
    end = (outer.end_lineno or outer.lineno, outer.end_col_offset or 0)
    return start <= (inner.lineno, inner.col_offset) <= end


def _own_statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements of a function's own scope: in its blocks, not in nested
    functions or classes."""
    pending = list(reversed(body))
    while pending:
        statement = pending.pop()
        yield statement
        if not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for block in _blocks(statement):
                pending += reversed(block)


_TYPE_PARAMETERS = tuple(getattr(ast, name) for name in ("TypeVar", "ParamSpec", "TypeVarTuple") if hasattr(ast, name))


# The nodes below a statement that bind a name (see _bound_name).
_BINDING_NODES = frozenset({ast.arg, ast.alias, ast.MatchAs, ast.MatchStar, ast.MatchMapping, *_TYPE_PARAMETERS})


def _bound_name(node: ast.AST) -> str | None:
    """The name one of the _BINDING_NODES binds (None: none, as ``import *``)."""
    kind = type(node)
    if kind is ast.arg:
        return node.arg  # type: ignore[attr-defined, no-any-return]
    if kind is ast.alias:
        if node.name == "*":  # type: ignore[attr-defined]
            return None
        return node.asname or node.name.split(".", 1)[0]  # type: ignore[attr-defined, no-any-return]
    if kind is ast.MatchMapping:
        return node.rest  # type: ignore[attr-defined, no-any-return]
    return node.name  # type: ignore[attr-defined, no-any-return]


def _binding_sites(root: ast.AST) -> Iterator[tuple[str, ast.AST]]:
    """Every place in ``root`` (nested scopes included) that binds a name: assigned,
    deleted, a parameter, imported, defined, caught, captured by a pattern, declared
    ``global`` or ``nonlocal``, a type parameter."""
    pending = [root]
    while pending:
        node = pending.pop()
        kind = type(node)
        if kind is ast.Name:
            if type(node.ctx) is not ast.Load:  # type: ignore[attr-defined]
                yield node.id, node  # type: ignore[attr-defined]
            continue
        if kind is ast.arg:
            yield node.arg, node  # type: ignore[attr-defined]
        elif kind is ast.alias:
            if node.name != "*":  # type: ignore[attr-defined]
                yield (node.asname or node.name.split(".", 1)[0]), node  # type: ignore[attr-defined]
        elif kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef) or kind in _TYPE_PARAMETERS:
            yield node.name, node  # type: ignore[attr-defined]
        elif kind is ast.ExceptHandler or kind is ast.MatchAs or kind is ast.MatchStar:
            if node.name:  # type: ignore[attr-defined]
                yield node.name, node  # type: ignore[attr-defined]
        elif kind is ast.MatchMapping:
            if node.rest:  # type: ignore[attr-defined]
                yield node.rest, node  # type: ignore[attr-defined]
        elif kind is ast.Global or kind is ast.Nonlocal:
            for name in node.names:  # type: ignore[attr-defined]
                yield name, node
        pending += _children(node)


def _top_level_classes(statements: list[ast.stmt]) -> set[str]:
    """Names of the classes a module defines at its top level, functional forms too."""
    names = set()
    for statement in statements:
        if isinstance(statement, ast.ClassDef):
            names.add(statement.name)
        target, value = _simple_assignment(statement)
        if target and isinstance(value, ast.Call) and _names_functional_class(value):
            names.add(target)
    return names


def top_level_definitions(body: list[ast.stmt]) -> Iterator[TopLevelDefinition]:
    """Module-level functions and classes, for placement. A definition inside an
    ``if``/``try``/``with``/``for``/``while``/``match`` block at module level binds a
    module global, so it is module-level; a function or class body is a new scope."""
    for node in body:
        if type(node) is ast.ClassDef:
            yield TopLevelDefinition("class", node.name, node.lineno, node.col_offset)
        elif type(node) is ast.FunctionDef or type(node) is ast.AsyncFunctionDef:
            if not _is_overload(node):
                yield TopLevelDefinition("function", node.name, node.lineno, node.col_offset)
        elif type(node) is ast.Match:
            for case in node.cases:
                yield from top_level_definitions(case.body)
        else:
            for block in ("body", "orelse", "finalbody"):
                yield from top_level_definitions(getattr(node, block, []))
            for handler in getattr(node, "handlers", ()):
                yield from top_level_definitions(handler.body)


def bound_names(body: list[ast.stmt]) -> Iterator[BoundName]:
    """The names bound by assignment that placement counts as definitions, in source
    order (see :func:`_bindings`)."""
    for binding in _bindings(body):
        yield binding.fact


@dataclass(frozen=True)
class _Binding:
    fact: BoundName
    # Evidently a function, class or method: at module level a lambda, a partial or a
    # module's own function or class under another name (:func:`_defines_function`),
    # in a class body what is no attribute but a method (``staticmethod(f)``, an alias
    # of a method: :func:`_is_method_like`).
    evident: bool


def _bindings(body: list[ast.stmt]) -> list[_Binding]:
    """Names bound by assignment (``=`` with plain names as targets, in tuples and
    lists too, starred or not, and annotated assignments with a value) at module level
    and in the bodies of the module-level classes and of the classes nested in them;
    where :func:`top_level_definitions` and :func:`method_definitions` find the
    ``def``s and ``class``es, in the same blocks.

    Not bindings: what a function body binds (local), augmented assignments (they
    rebind a name bound already), annotations without a value, what is bound under
    ``if TYPE_CHECKING:`` (never at run time), and dunders (``__all__``). At module
    level, an assignment that only names something imported (``Alias =
    imported.Handler``: the head of the reference is bound by an import and by no
    ``def`` or ``class`` of the module) is a re-export, as ``from x import Handler as
    Alias`` is: a binding that names what it re-exports (``BoundName.renames``, through
    the module's own import aliases), which defines nothing unless it gives a name a
    pattern matches to something no pattern names. A class body re-exports nothing:
    what it binds is an attribute of the class.
    """
    imported, local = _module_names(body)
    found = _module_bindings(body, {name: imported[name] for name in imported.keys() - local}, local)
    return sorted(found, key=lambda binding: (binding.fact.line, binding.fact.col))


def _module_names(body: list[ast.stmt]) -> tuple[dict[str, str], set[str]]:
    """The names module-level imports bind (each with the name of what it binds: ``b``
    for ``from a import b as c`` or ``import a.b as c``), and those module-level ``def``
    and ``class`` statements bind."""
    imported: dict[str, str] = {}
    local: set[str] = set()
    pending = list(body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname is None:
                    imported[alias.name.split(".")[0]] = alias.name.split(".")[0]
                else:
                    imported[alias.asname] = alias.name.rsplit(".", 1)[-1]
        elif isinstance(node, ast.ImportFrom):
            imported.update((alias.asname or alias.name, alias.name) for alias in node.names if alias.name != "*")
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            local.add(node.name)
        else:
            for block in _blocks(node):
                pending += block
    return imported, local


def _assigned(node: ast.stmt) -> tuple[list[ast.expr], ast.expr] | None:
    """The targets and value of an assignment that binds (``=``, or an annotated
    assignment with a value); None for any other statement."""
    if type(node) is ast.Assign:
        return node.targets, node.value
    if type(node) is ast.AnnAssign and node.value is not None:
        return [node.target], node.value
    return None


def _bound_targets(target: ast.expr) -> Iterator[ast.Name]:
    """The plain names a target binds: ``a``, ``a, (b, *c)``, ``[a, b]``; not
    ``a.b`` or ``a[0]``, which bind no name, nor a dunder (``__all__``, ``__slots__``:
    what Python reads of a module or class, not a symbol it defines)."""
    if isinstance(target, ast.Name):
        if not _is_dunder(target.id):
            yield target
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from _bound_targets(element)
    elif isinstance(target, ast.Starred):
        yield from _bound_targets(target.value)


def _module_bindings(body: list[ast.stmt], reexported: dict[str, str], local: set[str]) -> Iterator[_Binding]:
    for node in body:
        assigned = _assigned(node)
        if assigned is not None:
            targets, value = assigned
            reference = dotted_name(value)
            renames = ""
            if reference is not None and reference.split(".", 1)[0] in reexported:  # a re-export
                head, dot, rest = reference.partition(".")
                renames = rest.rsplit(".", 1)[-1] if dot else reexported[head]
            if _is_data(value):
                continue  # a constant: data, which nothing calls (``POST_EPISODE_TIMEOUT = 10``)
            evident = not renames and _defines_function(value, local)
            for target in targets:
                for name in _bound_targets(target):
                    yield _Binding(BoundName("", name.id, name.lineno, name.col_offset, renames), evident)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            yield from _renaming_imports(node)
        elif isinstance(node, ast.ClassDef):
            yield from _class_bindings(node.body, node.name, enum=_is_enum(node))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue  # a new scope: what it binds is local
        else:
            for block in _run_time_blocks(node):
                yield from _module_bindings(block, reexported, local)


def _renaming_imports(node: ast.Import | ast.ImportFrom) -> Iterator[_Binding]:
    """The names a module-level import binds under a name of its own (``import a.b as
    c``, ``from a import b as c``): re-exports, which define nothing unless the new name
    matches a pattern the old one does not (see :class:`BoundName`)."""
    for alias in node.names:
        original = alias.name.rsplit(".", 1)[-1]
        if alias.asname is None or alias.asname == original or _is_dunder(alias.asname):
            continue
        # The new name ends the alias (``b as c``), unless the alias spans lines.
        if alias.end_lineno == alias.lineno and alias.end_col_offset is not None:
            line, col = alias.lineno, alias.end_col_offset - len(alias.asname)
        else:
            line, col = alias.lineno, alias.col_offset
        yield _Binding(BoundName("", alias.asname, line, col, original), False)


def _is_data(value: ast.expr) -> bool:
    """A constant (a number, string, bytes or bool; ``None`` and ``...`` stand for what
    is assigned later) or a display of constants: data, not something to call."""
    if type(value) is ast.Constant:
        return value.value is not None and value.value is not Ellipsis
    if type(value) is ast.UnaryOp and type(value.operand) is ast.Constant:
        return isinstance(value.operand.value, (int, float, complex)) and not isinstance(value.operand.value, bool)
    if type(value) in (ast.Tuple, ast.List, ast.Set):
        return all(map(_is_data, value.elts))  # type: ignore[attr-defined]
    if type(value) is ast.Dict:
        return all(k is not None and _is_data(k) for k in value.keys) and all(map(_is_data, value.values))
    if type(value) is ast.JoinedStr:
        return all(type(part) is ast.Constant for part in value.values)
    return False


# Bases whose subclasses' plain class attributes are their members (data).
_ENUM_BASES = frozenset({"Enum", "IntEnum", "StrEnum", "Flag", "IntFlag", "ReprEnum"})


def _is_enum(node: ast.ClassDef) -> bool:
    """A class derived from one of the standard enumerations, by the name written."""
    return any((dotted_name(base) or "").rsplit(".", 1)[-1] in _ENUM_BASES for base in node.bases)


def _defines_function(value: ast.expr, local: set[str]) -> bool:
    """A module-level value that evidently is a function or class: a lambda, a
    ``partial(...)``, or a function or class of the module's own (``local``) by name."""
    if isinstance(value, ast.Lambda):
        return True
    if isinstance(value, ast.Call):
        return (dotted_name(value.func) or "").rsplit(".", 1)[-1] == "partial"
    return isinstance(value, ast.Name) and value.id in local


def _class_bindings(
    body: list[ast.stmt], owner: str, methods: set[str] | None = None, enum: bool = False
) -> Iterator[_Binding]:
    """The bindings of a class body, and those of the classes it nests (``enum``: the
    body is an enumeration's)."""
    if methods is None:
        methods = {s.name for s in body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}
    for node in body:
        assigned = _assigned(node)
        if assigned is not None:
            targets, value = assigned
            # What DOM111 leaves out as no attribute (``_attributes``): a method.
            method_like = _is_method_like(value, methods)
            if type(node) is ast.AnnAssign and not method_like:
                continue  # an annotated field (a dataclass's, a model's): an attribute, not a definition
            if not method_like and (enum or _is_data(value)):
                continue  # an enumeration's member, a constant: data, which nothing calls
            method_like = method_like and type(node) is ast.Assign
            for target in targets:
                for name in _bound_targets(target):
                    yield _Binding(BoundName(owner, name.id, name.lineno, name.col_offset), method_like)
        elif isinstance(node, ast.ClassDef):
            yield from _class_bindings(node.body, f"{owner}.{node.name}", enum=_is_enum(node))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        else:
            for block in _run_time_blocks(node):
                yield from _class_bindings(block, owner, methods, enum)


def _run_time_blocks(node: ast.stmt) -> Iterator[list[ast.stmt]]:
    """The blocks of a compound statement that run: not the branch of ``if
    TYPE_CHECKING:`` (nor the ``else`` of ``if not TYPE_CHECKING:``) that exists for type
    checkers only."""
    if isinstance(node, ast.If):
        if _is_type_checking(node.test):
            yield node.orelse
            return
        test = node.test
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and _is_type_checking(test.operand):
            yield node.body
            return
    yield from _blocks(node)


# What an assignment may set that can be a function: a lambda, a name, an attribute, a
# call; a tuple or list pairs targets with values (``a.x, a.y = f, g``).
_ATTACHED_VALUES = frozenset({ast.Lambda, ast.Name, ast.Attribute, ast.Call, ast.Tuple, ast.List})
_SEQUENCES = (ast.Tuple, ast.List)
# The calls that make a method, or a function, of what they are given.
_ATTACHING_FACTORIES = frozenset({*_METHOD_FACTORIES, "partial", "partialmethod"})
_FUNCTION_NODES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def attached_names(module: str, tree: ast.Module) -> list[BoundName]:
    """The functions ``tree`` attaches to a class from outside the class's body, as
    :func:`extract` finds them (see :func:`_attached`)."""
    walk, _, resolver = _walked(module, False, tree)
    return _attached(walk, resolver.bindings, tree.body)


def _attached(walk: _Walk, bindings: dict[str, str], body: list[ast.stmt]) -> list[BoundName]:
    """The functions attached to a class from outside its body, where that runs (at
    module level, in a function, not under ``if TYPE_CHECKING:``): ``Class.name =
    value`` (annotated, chained, or paired in a tuple too) and ``setattr(Class, "name",
    value)`` with the builtin ``setattr`` and the name written as itself. A method of
    the class is defined there, as a ``def`` in its body would be: a binding of
    ``Class.name``, at the name (past the literal's opening quote).

    The class is one of the module's own or one it imports (at module level or in the
    function around), by name or through the modules it imports (``models.EvidenceLM``);
    an imported name names a class when spelt as one (``EvidenceLM``, not ``telemetry``
    or ``DEFAULTS``). What the value is: see :meth:`_AttachedNames.function`. Not a
    class: what a parameter or a variable holds (``self``, ``cls``), what a call
    returns, a module, an attribute of a class that is no class; nor is a dunder
    (``Class.__module__``) a method."""
    if not walk.attachments:
        return []
    names: _AttachedNames | None = None
    found = []
    for node, value, scope in walk.attachments:
        reference = dotted_name(node.value if isinstance(node, ast.Attribute) else node.args[0])
        if reference is None or reference.partition(".")[0] not in bindings:
            continue  # no name of a class the module knows (``self.x = ...``): most of them
        if type(node) is ast.Call and (walk.stars or walk.bound.get(SETATTR)):
            continue  # ``setattr`` may be another function
        written = _attached_name(node)
        if written is None:
            continue
        name, line, col = written
        names = names or _AttachedNames(walk, body)
        functions = names.enclosing(scope, node)
        owner = names.owner(reference, functions)
        renames = names.function(value, functions) if owner else None
        if owner and renames is not None:
            found.append(BoundName(owner, name, line, col, renames))
    return sorted(found, key=lambda binding: (binding.line, binding.col))


def _attached_name(node: ast.Attribute | ast.Call) -> tuple[str, int, int] | None:
    """The name an attachment sets, and its line and column."""
    if isinstance(node, ast.Attribute):
        if _is_dunder(node.attr):
            return None
        width = len(node.attr.encode("utf-8"))  # the name ends the target
        return node.attr, node.end_lineno or node.lineno, (node.end_col_offset or 0) - width
    key = node.args[1]  # see _Walk.attachment_through_call
    text = key.value if isinstance(key, ast.Constant) and isinstance(key.value, str) else ""
    if not text.isidentifier() or _is_dunder(text) or not unicodedata.is_normalized("NFKC", text):
        return None  # no name ``holder.name = `` could set
    if key.lineno != key.end_lineno or (key.end_col_offset or 0) - key.col_offset != len(text.encode("utf-8")) + 2:
        return None  # not written as the name between quotes (joined, escaped, prefixed)
    return text, key.lineno, key.col_offset + 1


class _AttachedNames:
    """What the names an attachment reads are bound to: in the functions around it, or
    at module level (read when first asked)."""

    def __init__(self, walk: _Walk, body: list[ast.stmt]) -> None:
        self.walk = walk
        self.body = body
        self._module: dict[str, tuple[str, str]] | None = None
        self._sites: dict[ast.AST, dict[str, list[ast.AST]]] = {}

    def enclosing(self, scope: tuple[str, ...], node: ast.expr) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
        """The functions around ``node`` (in ``scope``), the innermost first."""
        found = []
        for end in range(len(scope), 0, -1):
            for function in self.walk.functions.get(scope[:end], ()):
                if _contains(function, node):
                    found.append(function)
                    break
        return found

    def bound(self, name: str, functions: list[ast.FunctionDef | ast.AsyncFunctionDef]) -> tuple[str, str] | None:
        """What ``name`` is bound to where it is read: ``("class", name)`` or
        ``("function", name)`` for the module's own class or function (``("local",
        name)`` for one a function around defines), ``("imported", the name imported)``;
        None for anything else (a parameter, a variable, nothing)."""
        for function in functions:
            sites = self.sites(function).get(name)
            if sites:
                if all(type(site) is ast.alias for site in sites):
                    return "imported", _imported_name(sites[0])  # type: ignore[arg-type]
                if all(type(site) in _FUNCTION_NODES for site in sites):
                    return "local", name
                return None
        if self._module is None:
            self._module = _module_bound(self.body)
        return self._module.get(name)

    def sites(self, function: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, list[ast.AST]]:
        found = self._sites.get(function)
        if found is None:
            found = self._sites[function] = {}
            for name, site in _binding_sites(function):
                if site is not function:  # its own name is bound around it
                    found.setdefault(name, []).append(site)
        return found

    def owner(self, reference: str, functions: list[ast.FunctionDef | ast.AsyncFunctionDef]) -> str | None:
        """The qualified name of the class ``reference`` names (``EvidenceLM``,
        ``Outer.Inner``): one of the module's own, or one it imports, after the modules
        it is reached through (``models.EvidenceLM``); None when it names no class."""
        head, *rest = reference.split(".")
        bound = self.bound(head, functions)
        if bound is None or bound[0] not in ("class", "imported"):
            return None
        path = [head if bound[0] == "class" else bound[1], *rest]
        if bound[0] == "imported":
            path = _past_modules(path)
        if not path or not all(map(_class_like, path[1:])):
            return None  # a module, or an attribute of a class that is no class
        return ".".join(path)

    def function(self, value: ast.expr, functions: list[ast.FunctionDef | ast.AsyncFunctionDef]) -> str | None:
        """What ``value`` attaches when it is a function, a class or a method: "" for
        one made here (a lambda, ``staticmethod(...)``, ``classmethod(...)``,
        ``property(...)``, ``partial(...)``, a function or class of the module or of a
        function around, a name the module binds to a lambda or a partial), the name of
        one imported (``helpers.reset``, ``Handler.post_episode``: placed where it is
        defined when a pattern names it, see :class:`BoundName`); None for anything
        else: data, ``None``, what a call returns, a parameter, a variable, a name
        spelt as a constant (``DEFAULTS``)."""
        if type(value) is ast.Lambda:
            return ""
        if type(value) is ast.Call:
            callee = dotted_name(value.func)
            return "" if callee is not None and callee.rsplit(".", 1)[-1] in _ATTACHING_FACTORIES else None
        reference = dotted_name(value)
        bound = self.bound(reference.partition(".")[0], functions) if reference is not None else None
        if reference is None or bound is None:
            return None
        kind, original = bound
        head, *through = reference.split(".")
        if not through:
            return "" if kind != "imported" else None if _constant_like(original) else original
        last = through.pop()
        if kind == "imported":
            path = _past_modules([original, *through])
        elif kind == "class":
            path = [head, *through]
        else:
            return None
        if not all(map(_class_like, path[1:])) or _is_dunder(last) or _constant_like(last):
            return None  # an attribute of what is no class, a dunder, a constant
        return last


def _module_bound(body: list[ast.stmt]) -> dict[str, tuple[str, str]]:
    """What the module binds at run time that an attachment may name (see
    :meth:`_AttachedNames.bound`): its classes, then its functions, then what it
    imports, then the names it binds to a lambda, a partial or a function of its own."""
    classes: set[str] = set()
    functions: set[str] = set()
    imported: dict[str, str] = {}
    assigned: list[ast.stmt] = []
    pending = list(body)
    while pending:
        node = pending.pop()
        if type(node) is ast.ClassDef:
            classes.add(node.name)
        elif type(node) is ast.FunctionDef or type(node) is ast.AsyncFunctionDef:
            functions.add(node.name)
        elif type(node) is ast.Import or type(node) is ast.ImportFrom:
            for alias in node.names:
                if alias.name != "*":
                    imported.setdefault(alias.asname or alias.name.split(".", 1)[0], _imported_name(alias))
        elif type(node) is ast.Assign or type(node) is ast.AnnAssign:
            assigned.append(node)
        else:
            for block in _run_time_blocks(node):
                pending += block
    bound: dict[str, tuple[str, str]] = {name: ("imported", original) for name, original in imported.items()}
    for node in assigned:
        target, value = _simple_assignment(node)
        if target and value is not None and _defines_function(value, classes | functions):
            bound.setdefault(target, ("function", target))
    bound.update((name, ("function", name)) for name in functions)
    bound.update((name, ("class", name)) for name in classes)
    return bound


def _imported_name(alias: ast.alias) -> str:
    """The name of what an import binds: ``b`` for ``from a import b as c`` or ``import
    a.b as c``, ``a`` for ``import a.b``."""
    return alias.name.rsplit(".", 1)[-1] if alias.asname else alias.name.split(".", 1)[0]


def _past_modules(path: list[str]) -> list[str]:
    """``path`` from its first part spelt as a class (``models.evidence.EvidenceLM`` ->
    ``EvidenceLM``): what comes before are the modules it is reached through."""
    for index, part in enumerate(path):
        if _class_like(part):
            return path[index:]
    return []


def _class_like(name: str) -> bool:
    """Spelt as a class is: ``EvidenceLM``, ``_Hooks``; not ``telemetry`` or ``DEFAULTS``."""
    bare = name.lstrip("_")
    return bare[:1].isupper() and not bare.isupper()


def _constant_like(name: str) -> bool:
    """Spelt as a constant is: ``DEFAULTS``, ``_MAX_STEPS``."""
    return name.lstrip("_").isupper()


def import_fact(line: int, alias: ast.alias, source: str, name: str | None, type_checking: bool) -> ImportFact:
    name_line = alias.lineno if alias.lineno != line else 0
    return ImportFact(line, alias.col_offset, source, name, type_checking, name_line, alias.end_col_offset or 0)


def method_definitions(body: list[ast.stmt]) -> Iterator[MethodDefinition]:
    """The methods of the module-level classes (those :func:`top_level_definitions`
    finds) and of the classes nested in them, in source order."""
    for node in _module_level_classes(body):
        yield from _methods(node.body, node.name)


def nested_class_definitions(body: list[ast.stmt]) -> Iterator[NestedClassDefinition]:
    """The classes defined in the bodies of the module-level classes (in their
    ``if``/``try`` blocks too) and of the classes nested in them, in source order: not
    those a method's body defines, which are local to it."""
    for node in _module_level_classes(body):
        yield from _nested_classes(node.body, node.name)


def _nested_classes(body: list[ast.stmt], owner: str) -> Iterator[NestedClassDefinition]:
    for node in body:
        if isinstance(node, ast.ClassDef):
            yield NestedClassDefinition(owner, node.name, node.lineno, node.col_offset)
            yield from _nested_classes(node.body, f"{owner}.{node.name}")
        elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for block in _blocks(node):
                yield from _nested_classes(block, owner)


def _blocks(node: ast.stmt) -> Iterator[list[ast.stmt]]:
    """The statement lists of a compound statement that are not a new scope."""
    if type(node) not in _BLOCK_STATEMENTS:  # most statements: asked of each one
        return
    if isinstance(node, ast.Match):
        for case in node.cases:
            yield case.body
        return
    for block in ("body", "orelse", "finalbody"):
        statements = getattr(node, block, None)
        if isinstance(statements, list):
            yield statements
    for handler in getattr(node, "handlers", ()):
        yield handler.body


def _module_level_classes(body: list[ast.stmt]) -> Iterator[ast.ClassDef]:
    for node in body:
        if isinstance(node, ast.ClassDef):
            yield node
        elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for block in _blocks(node):
                yield from _module_level_classes(block)


def _methods(body: list[ast.stmt], owner: str) -> Iterator[MethodDefinition]:
    """Functions of a class body (in ``if``/``try`` blocks of it too), and those of
    the classes it nests; what a method's own body defines is local, not a method."""
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if not _is_overload(node):
                yield MethodDefinition(owner, node.name, node.lineno, node.col_offset)
        elif isinstance(node, ast.ClassDef):
            yield from _methods(node.body, f"{owner}.{node.name}")
        else:
            for block in _blocks(node):
                yield from _methods(block, owner)


# What a decorator making a method a property resolves to: the builtin (bound by no
# import), and the standard library's caching one.
_PROPERTY_DECORATORS = frozenset({"property", "functools.cached_property"})


def _properties(walk: _Walk, resolver: _Resolver) -> tuple[str, ...]:
    """The qualnames of the methods (of classes defined outside any function) that a
    decorator makes a property: ``@property``, ``@functools.cached_property`` (``from
    functools import cached_property as memoized`` too). A module binding ``property``
    itself, or star-importing, gives it another meaning, or none known."""
    found = set()
    for method, owner in walk.methods.items():
        for decorator in method.decorator_list:
            if resolver.resolve(decorator) in _PROPERTY_DECORATORS:
                found.add(f"{owner}.{method.name}")
                break
    return tuple(sorted(found))


def _is_overload(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """An ``@overload`` (``@typing.overload``) signature: for type checkers only, replaced
    at run time by the implementation that follows, which alone is the definition."""
    return any((dotted_name(d) or "").rsplit(".", 1)[-1] == "overload" for d in node.decorator_list)


def import_source(module: str, is_package: bool, node: ast.ImportFrom) -> str | None:
    if node.level == 0:
        return node.module
    return resolve_relative(module, is_package, node.level, node.module)


def _module_statements(tree: ast.Module) -> Iterator[ast.stmt]:
    """Module-level statements, including those inside ``if``/``try`` blocks."""
    pending = deque(tree.body)  # a queue: list.pop(0) is quadratic on machine-written modules
    while pending:
        statement = pending.popleft()
        yield statement
        if isinstance(statement, ast.If):
            pending += statement.body + statement.orelse
        elif isinstance(statement, ast.Try):
            pending += statement.body + statement.orelse + statement.finalbody
            for handler in statement.handlers:
                pending += handler.body


def _simple_assignment(statement: ast.stmt) -> tuple[str | None, ast.expr | None]:
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
        return statement.targets[0].id, statement.value
    if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name) and statement.value is not None:
        return statement.target.id, statement.value
    return None, None


def _resolve(reference: str, bindings: dict[str, str], module: str, local_classes: set[str]) -> str:
    head, dot, rest = reference.partition(".")
    if head in local_classes:
        return f"{module}.{reference}"
    if head in bindings:
        return bindings[head] + dot + rest
    return reference


def _is_type_checking(test: ast.expr) -> bool:
    """``if TYPE_CHECKING:`` or ``if typing.TYPE_CHECKING:``."""
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


_CLASS_BODY_BLOCKS = (
    ast.If,
    ast.Try,
    ast.TryStar,
    ast.With,
    ast.AsyncWith,
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.Match,
)


def _attributes(body: list[ast.stmt]) -> Iterator[AttributeFact]:
    """Class-level attributes that are not methods or dunders."""
    methods = {s.name for s in body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}
    for statement in _class_scope(body):
        if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            name = statement.target
            if not _is_dunder(name.id):
                literals, specifiers = _annotation_parts(statement.annotation)
                strings = literals + _default_strings(statement.value)
                aliases = _aliases(statement.value) + tuple(text for call in specifiers for text in _aliases(call))
                yield AttributeFact(
                    _text(name, name.id), _distinct(strings), aliases, _default_constant(statement.value)
                )
        elif isinstance(statement, ast.Assign):
            if _is_method_like(statement.value, methods):
                continue
            for target in statement.targets:
                for name in _target_names(target):
                    if not _is_dunder(name.id):
                        yield AttributeFact(
                            _text(name, name.id),
                            _default_strings(statement.value),
                            _aliases(statement.value),
                            _default_constant(statement.value),
                        )


_COMPUTED_FIELD = "computed_field"
# The dotted name a string annotation starts with (``"ClassVar[int]"``, ``"typing.ClassVar"``).
_STRING_ANNOTATION = re.compile(r"\s*([^\W\d]\w*(?:\s*\.\s*[^\W\d]\w*)*)")
# The dotted name a subscript in a string annotation starts with (``[ClassVar[int], ...]``).
_STRING_SUBSCRIPT = re.compile(r"\s*\[\s*([^\W\d]\w*(?:\s*\.\s*[^\W\d]\w*)*)")
_ANNOTATED = "Annotated"
_ATTRS_MODULES = frozenset({"attr", "attrs"})


def _class_scope(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements of a class body and of its own blocks (``if``, ``try``, ``with``...:
    the class's scope), in source order."""
    pending = list(reversed(body))  # a stack in source order (pop(0) is quadratic)
    while pending:
        statement = pending.pop()
        if isinstance(statement, _CLASS_BODY_BLOCKS):
            inner = sorted((s for block in _blocks(statement) for s in block), key=lambda s: (s.lineno, s.col_offset))
            pending += reversed(inner)
        else:
            yield statement


def _target_names(target: ast.expr) -> list[ast.Name]:
    if isinstance(target, ast.Name):
        return [target]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [name for element in target.elts for name in _target_names(element)]
    return []


def _is_dunder(name: str) -> bool:
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


def _is_method_like(value: ast.expr, methods: set[str]) -> bool:
    if isinstance(value, ast.Lambda):
        return True
    if isinstance(value, ast.Name) and value.id in methods:
        return True  # an alias of a method defined in the class
    if isinstance(value, ast.Call):
        callee = dotted_name(value.func)
        return callee is not None and callee.rsplit(".", 1)[-1] in _METHOD_FACTORIES
    return False


def _text(node: ast.stmt | ast.expr | ast.arg, text: str) -> Text:
    return Text(text, node.lineno, node.col_offset)


def _string_value(value: ast.expr | None) -> tuple[Text, ...]:
    """The string ``value`` spells: a literal, or the literal parts of an f-string or
    of literals joined with ``+`` (``f"post_episode"``, ``"post_" + "episode"``)."""
    text = _literal_text(value) if value is not None else None
    return (_text(value, text),) if value is not None and text is not None else ()


def _literal_text(value: ast.expr, constant: Callable[[str], str | None] | None = None) -> str | None:
    """The string ``value`` spells, of literals joined with ``+`` and f-strings (an
    interpolated value read as a space); with ``constant``, a name it gives a string
    (a module constant) is read as that string too, joined or interpolated as it is
    (``PREFIX + "End"``, ``f"{PREFIX}Start"``; not formatted: ``f"{PREFIX!r}"``)."""
    operands = []
    while isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add):  # a + b + c nests to the left
        operands.append(value.right)
        value = value.left
    operands.append(value)
    parts = [_literal_part(operand, constant) for operand in reversed(operands)]
    return None if any(part is None for part in parts) else "".join(parts)  # type: ignore[arg-type]


def _literal_part(value: ast.expr, constant: Callable[[str], str | None] | None = None) -> str | None:
    if isinstance(value, ast.Constant):
        return value.value if isinstance(value.value, str) else None
    if isinstance(value, ast.JoinedStr):  # what is interpolated is unknown: a space stands for it
        return "".join(_interpolated(p, constant) for p in value.values)
    if constant is None:
        return None
    kind = type(value)
    if kind is ast.Name:
        return constant(value.id)  # type: ignore[attr-defined]
    if kind is ast.BinOp and type(value.op) is ast.Mod:  # type: ignore[attr-defined]
        return _percent_formatted(value, constant)  # type: ignore[arg-type]
    if kind is ast.Call:
        return _str_formatted(value, constant)  # type: ignore[arg-type]
    return None


def _is_str_format(value: ast.expr) -> bool:
    """``"{}Start".format(...)``: ``str.format`` called on a literal string."""
    if type(value) is not ast.Call:
        return False
    function = value.func
    return (
        type(function) is ast.Attribute
        and function.attr == "format"
        and type(function.value) is ast.Constant
        and type(function.value.value) is str
    )


def _may_spell(value: ast.expr | None) -> TypeGuard[ast.expr]:
    """Whether ``value`` may spell a string :func:`_literal_text` folds: a literal, an
    f-string, an operation (``+``, ``%``) or ``str.format`` on a literal."""
    return isinstance(value, _STRING_NODES) or (value is not None and _is_str_format(value))


def _str_formatted(call: ast.Call, constant: Callable[[str], str | None]) -> str | None:
    """What ``"{}Start".format(PREFIX)`` spells, each argument folded as a value of
    :func:`_literal_text` is (``constant``): only where every field the template names
    is one of them, plainly replaced (``{}``, ``{0}``, ``{name}``, or with ``!s``; no
    format spec, attribute or index), none unpacked (``*args``, ``**kwargs``)."""
    if not _is_str_format(call) or any(type(a) is ast.Starred for a in call.args):
        return None
    if any(keyword.arg is None for keyword in call.keywords):
        return None
    template: str = call.func.value.value  # type: ignore[attr-defined]
    try:
        fields = list(Formatter().parse(template))
    except ValueError:
        return None
    parts, automatic, numbered = [], 0, False
    for literal, name, spec, conversion in fields:
        parts.append(literal)
        if name is None:
            continue
        if spec or conversion not in (None, "s"):
            return None
        if name == "":
            if numbered:
                return None
            argument, automatic = (call.args[automatic] if automatic < len(call.args) else None), automatic + 1
        elif name.isdecimal():
            if automatic:
                return None
            numbered = True
            argument = call.args[int(name)] if int(name) < len(call.args) else None
        else:
            argument = next((k.value for k in call.keywords if k.arg == name), None)
        text = _literal_text(argument, constant) if argument is not None else None
        if text is None:
            return None
        parts.append(text)
    return "".join(parts)


def _percent_formatted(operation: ast.BinOp, constant: Callable[[str], str | None]) -> str | None:
    """What ``"%sEnd" % PREFIX`` (or ``% (A, B)``) spells, each value folded as one of
    :func:`_literal_text` is (``constant``): only where the template is a literal whose
    every conversion is a plain ``%s`` (or ``%%``), one for each value given."""
    if type(operation.left) is not ast.Constant or type(operation.left.value) is not str:
        return None
    given = operation.right.elts if type(operation.right) is ast.Tuple else [operation.right]
    texts = [_literal_text(item, constant) for item in given]
    if any(text is None for text in texts):
        return None
    pieces = operation.left.value.split("%")
    parts, position, index = [pieces[0]], 0, 1
    while index < len(pieces):
        piece = pieces[index]
        if piece == "" and index + 1 < len(pieces):  # ``%%``
            parts.append("%" + pieces[index + 1])
            index += 2
            continue
        if not piece.startswith("s") or position >= len(texts):
            return None
        parts += [texts[position], piece[1:]]  # type: ignore[list-item]
        position, index = position + 1, index + 1
    return "".join(parts) if position == len(texts) else None


def _interpolated(part: ast.expr, constant: Callable[[str], str | None] | None) -> str:
    if isinstance(part, ast.Constant) and isinstance(part.value, str):
        return part.value
    if (
        constant is not None
        and type(part) is ast.FormattedValue
        and type(part.value) is ast.Name
        and part.conversion in (-1, ord("s"))
        and part.format_spec is None
    ):
        return constant(part.value.id) or " "
    return " "


def _distinct(texts: tuple[Text, ...]) -> tuple[Text, ...]:
    """One of each string: ``kind: Literal["x"] = "x"`` names one kind."""
    first: dict[str, Text] = {}
    for text in texts:
        first.setdefault(text.text, text)
    return tuple(first.values())


def _default_strings(value: ast.expr | None) -> tuple[Text, ...]:
    """The string a field defaults to: ``= "x"``, or given to a field specifier
    (``Field(default="x")``, ``Field("x")``, ``field(default="x")``)."""
    return _string_value(_default_value(value))


def _default_constant(value: ast.expr | None) -> Text | None:
    """The name a field defaults to (``= KIND``, ``Field(default=KIND)``), which may be
    a module-level string constant; or the dotted name (``= Kinds.RESET``), which may
    name another module's, or a class's; or a name subscripted with a literal string,
    spelled as a table's entry (``= KINDS["reset"]``: ``KINDS['reset']``), which may be
    one of the module's tables or another module's."""
    default = _default_value(value)
    if type(default) is ast.Name:
        return _text(default, default.id)
    if type(default) is ast.Subscript:  # ``= KINDS["reset"]``: a table's entry, maybe
        spelled = _table_subscript(default)
        return _text(default, spelled) if spelled else None
    dotted = dotted_name(default) if type(default) is ast.Attribute else None
    return _text(default, dotted) if default is not None and dotted else None


def _default_value(value: ast.expr | None) -> ast.expr | None:
    """What a field defaults to: the value assigned, or given to a field specifier as
    its default, or returned by the lambda without parameters given as its factory
    (``Field(default_factory=lambda: "x")``, attrs' ``factory``)."""
    if isinstance(value, ast.Call) and (dotted_name(value.func) or "").rsplit(".", 1)[-1] in _FIELD_SPECIFIERS:
        defaults = [keyword.value for keyword in value.keywords if keyword.arg == "default"]
        if defaults or value.args:
            return defaults[0] if defaults else value.args[0]
        factories = [keyword.value for keyword in value.keywords if keyword.arg in _FACTORY_KEYWORDS]
        factory = factories[0] if factories else None
        if type(factory) is ast.Lambda and not _argument_nodes(factory.args):
            return factory.body
        return None
    return value


def _annotation_parts(annotation: ast.expr) -> tuple[tuple[Text, ...], list[ast.Call]]:
    """The strings of ``Literal["a", "b"]`` (also inside ``ClassVar[Literal[...]]``),
    and the calls in ``Annotated[...]``'s metadata (``Annotated[str, Field(alias="a")]``:
    pydantic reads a field's aliases there as from its value)."""
    found, calls = [], []
    for node in ast.walk(annotation):
        if not isinstance(node, ast.Subscript):
            continue
        name = (dotted_name(node.value) or "").rsplit(".", 1)[-1]
        if name == "Literal":
            found += [
                _text(item, item.value)
                for item in ast.walk(node.slice)
                if isinstance(item, ast.Constant) and isinstance(item.value, str)
            ]
        elif name == "Annotated" and isinstance(node.slice, ast.Tuple):
            calls += [item for item in node.slice.elts[1:] if isinstance(item, ast.Call)]
    return tuple(found), calls


def _aliases(value: ast.expr | None) -> tuple[Text, ...]:
    """String aliases given to a field specifier: ``Field(alias="a")``,
    ``validation_alias=AliasChoices("b", AliasPath("c", 0))``, ``serialization_alias``."""
    if not isinstance(value, ast.Call):
        return ()
    return tuple(
        _text(node, node.value)
        for keyword in value.keywords
        if keyword.arg in ALIAS_KEYWORDS
        for node in ast.walk(keyword.value)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    )


def _functional_fields(call: ast.Call) -> Iterator[AttributeFact]:
    """Field names of ``TypedDict("X", {"a": int})``, ``NamedTuple("X", [("a", int)])``,
    ``namedtuple("X", "a b")`` / ``namedtuple("X", ["a", "b"])`` and keyword forms."""
    spec = call.args[1] if len(call.args) > 1 else None
    for keyword in call.keywords:
        if keyword.arg in ("fields", "field_names"):
            spec = keyword.value
        elif keyword.arg and keyword.arg not in _FACTORY_OPTIONS:
            yield AttributeFact(Text(keyword.arg, keyword.lineno, keyword.col_offset))
    if isinstance(spec, ast.Dict):
        for key in spec.keys:
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                yield AttributeFact(_text(key, key.value))
    elif isinstance(spec, (ast.List, ast.Tuple)):
        for element in spec.elts:
            if isinstance(element, (ast.Tuple, ast.List)) and element.elts:
                element = element.elts[0]
            if isinstance(element, ast.Constant) and isinstance(element.value, str):
                yield AttributeFact(_text(element, element.value))
    elif isinstance(spec, ast.Constant) and isinstance(spec.value, str):
        for name in spec.value.replace(",", " ").split():
            yield AttributeFact(_text(spec, name))


def _names_functional_class(call: ast.Call) -> bool:
    callee = dotted_name(call.func)
    return callee is not None and callee.rsplit(".", 1)[-1] in FUNCTIONAL_CLASS_FACTORIES


def _parameters(arguments: ast.arguments) -> tuple[Text, ...]:
    return tuple(_text(arg, arg.arg) for arg in _argument_nodes(arguments))


def _argument_nodes(arguments: ast.arguments) -> list[ast.arg]:
    every = [*arguments.posonlyargs, *arguments.args, arguments.vararg, *arguments.kwonlyargs, arguments.kwarg]
    return [arg for arg in every if arg is not None]


def _receiver(method: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    """The name of a method's ``self`` (or ``cls``); None for a static method."""
    positional = [*method.args.posonlyargs, *method.args.args]
    if not positional or "staticmethod" in _decorator_names(method):
        return None
    return positional[0].arg


def _decorator_names(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """Last parts of the decorators' names: ``staticmethod``, ``setter``, ``cache``."""
    names = (dotted_name(d.func if isinstance(d, ast.Call) else d) for d in function.decorator_list)
    return {name.rsplit(".", 1)[-1] for name in names if name}


_ASSIGNING = frozenset({ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor, ast.With, ast.AsyncWith})
_DECLARING_MEMBERS = _ASSIGNING | {ast.Expr}  # in a method: ``self.x = ...`` and the like, ``setattr(self, ...)``


def _place(member: MemberFact) -> tuple[int, int]:
    return member.name.line, member.name.col


def _slots(body: list[ast.stmt]) -> Iterator[Text]:
    """The names ``__slots__`` lists in a class body (as ``_attributes`` reads it, in
    ``if`` branches too): a string, or strings in a tuple, list or set display, or the
    keys of a dict display (``{"name": "its docstring"}``); ``__dict__`` and
    ``__weakref__`` are no attributes of their own."""
    pending = list(reversed(body))
    while pending:
        statement = pending.pop()
        if isinstance(statement, ast.If):
            pending += reversed(statement.body + statement.orelse)
            continue
        target, value = _simple_assignment(statement)
        if target != "__slots__" or value is None:
            continue
        if isinstance(value, (ast.Tuple, ast.List, ast.Set)):
            elements = value.elts
        elif isinstance(value, ast.Dict):
            elements = [key for key in value.keys if key is not None]
        else:
            elements = [value]
        for element in elements:
            if isinstance(element, ast.Constant) and isinstance(element.value, str) and not _is_dunder(element.value):
                yield _text(element, element.value)


def _setattr_name(call: ast.expr, receiver: str) -> Text | None:
    """The literal name ``setattr(self, "x", v)``, ``object.__setattr__(self, "x", v)``
    or ``super().__setattr__("x", v)`` sets on ``receiver`` (at its string)."""
    found = _setattr_call(call, receiver)
    return found[0] if found is not None else None


def _setattr_call(call: ast.expr, receiver: str) -> tuple[Text, ast.expr, str] | None:
    """(the literal name, the value, the function as its builtin is named: ``setattr``,
    ``object`` or ``super``) of ``setattr(self, "x", v)``, ``object.__setattr__(self,
    "x", v)`` or ``super().__setattr__("x", v)`` on ``receiver`` (the name at its string)."""
    if type(call) is not ast.Call or len(call.args) < 2 or call.keywords:
        return None
    function, (first, second, *rest) = call.func, call.args
    through = SETATTR if isinstance(function, ast.Name) and function.id == SETATTR else _setattr_through(function)
    if through == SETATTR or through == "object":
        on_receiver, name, value = isinstance(first, ast.Name) and first.id == receiver and len(rest) == 1, second, rest
    elif through == "super()":  # bound to the receiver already
        on_receiver, name, value, through = not rest, first, [second], "super"
    else:
        return None
    if on_receiver and isinstance(name, ast.Constant) and isinstance(name.value, str) and name.value.isidentifier():
        return _text(name, name.value), value[0], through
    return None


def _setattr_through(function: ast.expr) -> str | None:
    """``"object"`` for ``object.__setattr__``, ``"super()"`` for ``super().__setattr__``."""
    if not (isinstance(function, ast.Attribute) and function.attr == "__setattr__"):
        return None
    value = function.value
    if isinstance(value, ast.Name) and value.id == "object":
        return "object"
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "super":
        return "super()"
    return None


def _attribute_targets(target: ast.expr) -> Iterator[ast.Attribute]:
    """The attributes of locals a tuple, list or starred ``target`` assigns:
    ``event.label`` in ``event.label, count = ...``."""
    if isinstance(target, ast.Attribute):
        if isinstance(target.value, ast.Name):
            yield target
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from _attribute_targets(element)
    elif isinstance(target, ast.Starred):
        yield from _attribute_targets(target.value)


def _attribute_holders(target: ast.expr) -> Iterator[str]:
    """The locals ``target`` assigns an attribute of: ``event`` for ``event.label``."""
    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
        yield target.value.id
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from _attribute_holders(element)
    elif isinstance(target, ast.Starred):
        yield from _attribute_holders(target.value)


def _calls_assigned(targets: list[ast.expr], value: ast.Tuple | ast.List) -> Iterator[tuple[str, ast.Call]]:
    """``(local, call)`` for ``a, b = f(), g()``, element by element, as the flow facts
    pair them (a starred element pairs nothing)."""
    if any(isinstance(element, ast.Starred) for element in value.elts):
        return
    for target in targets:
        if isinstance(target, (ast.Tuple, ast.List)) and len(target.elts) == len(value.elts):
            for element, item in zip(target.elts, value.elts, strict=True):
                if isinstance(element, ast.Name) and isinstance(item, ast.Call):
                    yield element.id, item


def _receiver_attributes(target: ast.expr, receiver: str) -> Iterator[Text]:
    """``self.<name>`` targets of an assignment, as Texts."""
    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == receiver:
        yield _text(target, target.attr)
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from _receiver_attributes(element, receiver)
    elif isinstance(target, ast.Starred):
        yield from _receiver_attributes(target.value, receiver)
