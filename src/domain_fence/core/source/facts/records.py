"""The facts extracted from one module: named tuples (cheaper than frozen dataclasses to
create, hash and pickle), kept by the index and pickled by the fact cache (whose
unpickler builds these classes alone, by module and name: moving one is a new
``FACTS_VERSION``), and the constants their fields hold.
"""

# Annotations evaluated, not postponed (no ``from __future__ import annotations``):
# typing.NamedTuple compiles each postponed one into a ForwardRef as the module is
# imported, on every run: about a third of what creating these classes costs.
from dataclasses import dataclass
from typing import NamedTuple

from domain_fence.core.source.reading import Unreadable

MODULE_SCOPE = "<module>"
BINDING = "binding"  # the kind of a definition by assignment
ALIAS_KEYWORDS = ("alias", "validation_alias", "serialization_alias")
FUNCTIONAL_CLASS_FACTORIES = ("TypedDict", "NamedTuple", "namedtuple")

# How an attribute is set other than by assignment (AttributeSetFact's form).
SETATTR, OBJECT_SETATTR = "setattr", "object.__setattr__"


class Text(NamedTuple):
    """A string or a name at a place in the file (1-based line, 0-based column)."""

    text: str
    line: int
    col: int


class AttributeFact(NamedTuple):
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


class ReceiverStringFact(NamedTuple):
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


class ClassFact(NamedTuple):
    """A class statement: its bases, its attributes and what its methods set."""

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


class CallFact(NamedTuple):
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


class ConstructionFact(NamedTuple):
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


class AttributeSetFact(NamedTuple):
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


class PositionalFact(NamedTuple):
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


class EmitterFact(NamedTuple):
    """A module-level function (certain as for its signature: see :func:`_signatures`),
    or a method (see :func:`_method_emitters`: ``self`` none of its parameters here),
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


class ModuleFacts(NamedTuple):
    """What a module defines and binds: its classes and its top-level names. Its dicts
    are never changed once built: a default one is shared by every instance."""

    module: str
    unreadable: Unreadable | None = None
    classes: dict[str, ClassFact] = {}  # qualname -> fact of its last statement  # noqa: RUF012
    # The class statements a later one of the same qualname rebinds (``try``/``except``
    # and ``if``/``else`` versions of a class), in source order.
    redefined: tuple[ClassFact, ...] = ()
    bindings: dict[str, str] = {}  # top-level name -> dotted target  # noqa: RUF012
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
    constants: dict[str, str] = {}  # noqa: RUF012
    # What the calls given arguments by position call, resolved like ``calls`` (the class
    # built, for a construction passing them on: ``cls(...)``, ``partial(X, ...)``), once
    # each, sorted: whether one is an event or an emit function, whose values DOM105
    # traces, is the check's question (see :func:`_arguments_given`).
    argument_callees: tuple[str, ...] = ()
    # module-level function -> the parameters it takes by position, where that is certain
    # (see :func:`_signatures`): which one a position binds in a call of an emit function
    signatures: dict[str, tuple[str, ...]] = {}  # noqa: RUF012
    # module-level function -> the classes it constructs from its own ``**`` parameter
    # (see :func:`_emitters`): an emit function when one of them is an event
    emitters: dict[str, EmitterFact] = {}  # noqa: RUF012
    # Such methods (``Class.name``, of a class defined outside any function; see
    # :func:`_method_emitters`), and the calls of one on its class's own instance:
    # (scope, the callee as written: ``self._publish``) -> the method, sorted
    method_emitters: dict[str, EmitterFact] = {}  # noqa: RUF012
    own_emitter_calls: dict[tuple[str, str], str] = {}  # noqa: RUF012
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


class DefinitionFact(NamedTuple):
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


class MemberFact(NamedTuple):
    """An attribute a class declares, at its first declaration."""

    owner: str  # qualname of the class
    name: Text
    class_level: bool  # in the class body; False for ``self.<name> = ...`` in a method


class DeclarationFacts(NamedTuple):
    """Every name a module declares outside function bodies (locals are not declarations)."""

    module: str
    unreadable: Unreadable | None = None
    definitions: tuple[DefinitionFact, ...] = ()  # in source order
    members: tuple[MemberFact, ...] = ()  # one per (owner, name), in source order


class TopLevelDefinition(NamedTuple):
    """A function or class the module defines at module level (placement)."""

    kind: str  # "function" or "class"
    name: str
    line: int  # of the ``def``/``class`` keyword, after any decorators
    col: int  # of that keyword (of ``async`` for ``async def``)


# Dataclasses, not named tuples: a method and a nested class of the same fields would be
# equal tuples. Never built itself: it generates the methods its subclasses share (its
# __eq__ compares instances of one class alone, its __repr__ names theirs), each subclass only
# the frozen ones, which guard their own class alone.
@dataclass(frozen=True)
class _InClassBody:
    """A definition in the body of a class, named after it (``Outer.name``)."""

    owner: str  # qualname of the class whose body defines it: "Outer.Inner" in a nested class
    name: str
    line: int  # of the ``def`` or ``class`` keyword, after any decorators
    col: int

    @property
    def qualname(self) -> str:
        return f"{self.owner}.{self.name}"


@dataclass(frozen=True, init=False, repr=False, eq=False)
class MethodDefinition(_InClassBody):
    """A function defined in the body of a class defined at module level (placement)."""


@dataclass(frozen=True, init=False, repr=False, eq=False)
class NestedClassDefinition(_InClassBody):
    """A class defined in the body of a class defined at module level (or of a class
    nested in one), for placement: importable as ``Outer.Inner`` as a method is."""


class BoundName(NamedTuple):
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


class ImportFact(NamedTuple):
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


class FileFacts(NamedTuple):
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


class ImportFacts(NamedTuple):
    """A file's imports alone, as :class:`FileFacts` has them, and whether it can be
    analysed: what a contract needs of a file another passes over (see
    ``families.vocabulary.prefilter``)."""

    module: str
    unreadable: Unreadable | None
    imports: tuple[ImportFact, ...] = ()
    escaping_imports: tuple[int, ...] = ()
