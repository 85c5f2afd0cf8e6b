"""The facts of flow tracing and the words they are written in: where a value comes
from (a Source), where it goes (a Sink), and the shapes a trace holds while it runs."""

import ast
from collections.abc import Callable, Iterable
from typing import NamedTuple

MODULE_SCOPE = "<module>"  # as the facts name the top level of a module

# How a value reaches a source.
READ = "read"  # a name or attribute the expression reads
KEY = "key"  # a string subscript key: ``stats["episode"]``
PARAMETER = "parameter"  # a parameter of a declared function or method (the census can report it)
CALL = "call"  # a call: its callee's name, and its return value one level deep
# An attribute read by the builtin ``getattr`` given its name as a literal
# (``getattr(self.lm, "primary_target", None)``): read as ``self.lm.primary_target`` is,
# but named by a finding only where no other source is (one reported before these were
# read keeps its fingerprint).
NAMED = "named"
# A key read by a mapping's ``get``, ``pop`` or ``setdefault`` given a literal
# (``stats.get("epoch")``): shown as a KEY is, but named, as NAMED is, only where no other
# source is (a value reported before these were read keeps its fingerprint).
GOT = "got"
# The kinds named only where no other source is.
LATE = (NAMED, GOT)

# Where a value goes.
KEYWORD = "keyword"  # ``Callee(name=value)``; a mapping whose keys are not known, ``Callee(**stats)``: see SPREAD
# ``Callee(value)``: a value given by position, named by its position among the arguments
# the callee takes (from 0, as a string: ``partial(X, value)`` gives X its "0")
ARGUMENT = "argument"
ATTRIBUTE = "attribute"  # ``local.name = value``, where ``local = Callee(...)``
FIELD = "field"  # a class-level default, or ``self.name = value`` in __post_init__/a validator
# The form of a FIELD sink that is a validator's return value, placed at the value
# returned (the fix and a noqa comment go there), not at the field's name.
RETURNED = "return"
# The base of a CALL source ``super().name()``: its callee names the method as of the
# class the call is in, to be looked for in that class's bases.
SUPER = "super()"

# Pydantic's class methods that build an instance from the fields a mapping names
# (``X.model_validate({"a": 1})``), and the one that reads them from a JSON text.
MAPPING_VALIDATORS = ("model_validate", "model_validate_strings")
JSON_VALIDATOR = "model_validate_json"

# A keyword sink of a mapping whose keys are not known (``Callee(**stats)``,
# ``X.model_validate(stats)``, ``payload.update(stats)``): named SPREAD and the mapping
# as written, shortened (``**stats``, ``**asdict()``). No keyword's name starts so.
SPREAD = "**"

POST_INIT_METHODS = ("__post_init__", "__attrs_post_init__", "model_post_init")

# Expressions and blocks nested deeper than this are not traced (as if the interpreter's
# stack ran out, but at the same place whatever the stack holds when tracing starts:
# the facts of a file must not depend on who asked for them). A nesting level takes
# at most _FRAMES_PER_LEVEL frames of the interpreter's stack (``match`` -> branches ->
# run -> statement; a comprehension's target: value -> comprehension -> assign -> into
# -> value); unpacking targets, which are not counted, take one per bracket, and the
# parser allows 200 brackets.
MAX_NESTING = 300
_FRAMES_PER_LEVEL = 5
_UNCOUNTED_FRAMES = 400
VALIDATOR_DECORATORS = ("validator", "field_validator", "model_validator", "root_validator")

Resolve = Callable[[str], str]  # a dotted name as written -> as resolved through the module's imports


class Source(NamedTuple):
    """An identifier a value is derived from."""

    identifier: str  # what may carry a word: "primary_target", "get_stats", "episode"
    base: str  # what it is read from, shortened ("self", "stats", "...a.b.c"), or ""
    line: int
    kind: str  # READ, KEY, PARAMETER, CALL, NAMED or GOT
    callee: str = ""  # CALL: the callee, resolved through the module's imports

    @property
    def shown(self) -> str:
        """As written: ``self.primary_target``, ``stats['episode']``, ``get_stats()``."""
        if self.kind == KEY or self.kind == GOT:
            return f"{self.base}[{self.identifier!r}]"
        name = f"{self.base}.{self.identifier}" if self.base else self.identifier
        return f"{name}()" if self.kind == CALL else name


class Sink(NamedTuple):
    """A value going into a keyword, an attribute or a field, and its sources."""

    kind: str  # KEYWORD, ATTRIBUTE or FIELD
    # the callee (KEYWORD), the callee that built the object (ATTRIBUTE), the class
    # qualname (FIELD); the class built, for a KEYWORD of a construction (``form``)
    target: str
    scope: str  # qualname of the enclosing function or class, or MODULE_SCOPE
    name: str  # the keyword, attribute or field; for a mapping whose keys are not known, see SPREAD
    line: int
    col: int
    sources: tuple[Source, ...]  # sorted by line
    # A field named by a construction other than a call of the class by name
    # (``X.model_construct(name=...)``, ``cls(name=...)``), or a key of a local dict a
    # call is given (``X(**payload)``): see facts.ConstructionFact; a validator's value
    # returned (RETURNED, a FIELD)
    form: str = ""
    # ARGUMENT: what the value is an instance of when a call builds it, as resolved
    # (``emit(Recognized(...))``, or a local every path assigns such a call); else "".
    # An event given by position is no field of the one built: its own construction is.
    holds: str = ""


class Given(NamedTuple):
    """A literal string given by position to a call whose arguments are traced (the
    literal parts of an f-string or a ``+``, as the facts read a kind): whether it binds
    a parameter holding a kind is the check's question (DOM103, for an emit function)."""

    target: str  # the callee, resolved through the module's imports
    scope: str
    position: int  # among the positional arguments, from 0
    text: str
    line: int
    col: int
    # For a method a class calls on its own instance (``self.emit(...)``, see
    # facts.callables._own_method): the class (its qualname) and the parameters the method's
    # definition takes by position after ``self``; else "" and ().
    owner: str = ""
    parameters: tuple[str, ...] = ()


class PayloadSite(NamedTuple):
    """A key put into a local dict that a call is given (facts.local_dicts._Payloads): the
    statement putting it in is where its value is traced, and its value is a keyword
    sink of the call's ``target`` (``form``: how the call is given the dict)."""

    name: str  # the key; a mapping whose keys are not known put in (``payload.update(stats)``): see SPREAD
    where: ast.expr | ast.keyword  # where it is written
    value: ast.expr
    target: str  # the callee as resolved, or the class a construction builds
    form: str  # ``**payload``, ``model_validate(payload)``, ``partial(**payload)``, ...


class FlowFacts(NamedTuple):
    """Where the values a module passes come from: its sinks and its functions' returns
    (``returns`` is never changed once built: the default one is shared)."""

    sinks: tuple[Sink, ...] = ()
    # qualname of a function or method -> what its return values are derived from; with
    # every_return False, only the helpers the module's own sinks call are here, and a
    # helper found to return nothing is kept, as ()
    returns: dict[str, tuple[Source, ...]] = {}  # noqa: RUF012
    every_return: bool = True
    # The calls whose keywords (and values given by position) were traced: those whose
    # callee's last part ends with one of these (see :func:`traced_callee`); ALL_CALLEES,
    # every call.
    callees: tuple[str, ...] = ("",)
    # The literal strings given by position to those of them called by name, in source order.
    given: tuple[Given, ...] = ()

    def covers(self, names: Iterable[str]) -> bool:
        """Whether the keywords of every call of a callee whose last part is one of
        ``names`` were traced."""
        return all(traced_callee(self.callees, name) for name in names)

    def function_returns(self, qualname: str) -> tuple[Source, ...] | None:
        """What the return values of ``qualname`` are derived from: None when nothing
        (or no such function), the empty tuple when these facts cannot tell (its return
        value was not traced: the caller traces every return and asks again)."""
        found = self.returns.get(qualname)
        if found is not None:
            return found or None
        return None if self.every_return else ()


ALL_CALLEES: tuple[str, ...] = ("",)  # every name ends with ""
# Among callees, every name that starts with a capital letter (a class, most often),
# but an exception's or a warning's, which are raised rather than emitted
# (``ValidationError(msg, code=...)``). An event is a class, so a file is traced for
# these before the project's event classes are known. No identifier ends with it.
CAPITALIZED = "<Capitalized>"
RAISED = ("Error", "Exception", "Warning")


def callee_names(names: Iterable[str]) -> tuple[str, ...]:
    """``names`` as :attr:`FlowFacts.callees` holds them: sorted, once each."""
    found = set(names)
    return ALL_CALLEES if "" in found else tuple(sorted(found))


def traced_callee(callees: tuple[str, ...], callee: str) -> bool:
    """Whether the keywords given to ``callee`` (a dotted name) are traced when only the
    callees ``callees`` are: its last part ends with one of them (``CharField`` with
    ``Field``), or is capitalized as :data:`CAPITALIZED` says and they hold it."""
    last = callee.rpartition(".")[2]
    if any(last.endswith(name) for name in callees):
        return True
    return last[:1].isupper() and CAPITALIZED in callees and not last.endswith(RAISED)


# While a body is interpreted a source is (identifier, node, kind, callee): cheap to make
# and compare; only those that reach a sink or a return become a Source.
_Positioned = ast.expr | ast.stmt | ast.arg | ast.keyword
_Raw = tuple[str, _Positioned, str, str]
Sources = frozenset[_Raw]
_EMPTY: Sources = frozenset()

# A frame's locals at one point: what each is derived from, and the callee whose call built it.
_State = tuple[dict[str, Sources], dict[str, str]]
