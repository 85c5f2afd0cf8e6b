"""Where values come from: the facts DOM105 reads.

For every function (and a module's top level), the values passed as keyword arguments
to calls (and given by position, before any starred argument), assigned to an
attribute of an object a local variable holds
(``event.label = x``), assigned to a field in ``__post_init__`` or a validator, or given
as a class-level field default, are traced back to the identifiers they are derived
from: names, attributes, subscript keys and the callees of calls an expression reads.
Local variables are followed, flow-sensitively, through assignments, augmented
assignments, tuple unpacking, ``for``/``with`` targets, comprehensions, f-strings,
literals and conditional expressions; ``if``/``try``/``match`` branches are merged and
loops are run to a fixpoint, so a variable reassigned from clean data before it is
passed carries nothing. A function's return value is traced too, so that a check can
follow a call one level into a helper; there a local variable stands for every value it
is ever assigned (flow-insensitive, and much cheaper: every function may be a helper).
Even so, tracing every function's return value costs a third of the whole, and a check
asks for few: by default only the helpers the module's own sinks call are traced
(``FlowFacts.every_return`` is False), and the rest when another module asks
(:meth:`FlowFacts.function_returns` says when they must be traced).

The facts are word-independent: every identifier is kept (interned, one per
identifier and sink), and matching them against a contract's words is left to the
check, so the fact cache stays valid whatever the configuration says. Which calls build
events is not known here either (that needs the whole project): the caller says which
callees' keywords to trace (``callees``: suffixes of the callee's last part, as
resolved, or every capitalized name but an exception's or a warning's), and the facts say which
they trace (:attr:`FlowFacts.callees`). A check that needs another callee's (its
event classes and emit functions, known from the module's other facts) has them traced
again, so they serve any configuration all the same. Most calls with keywords build
no event (``ValidationError(msg, code=...)``, ``super().__init__(**kwargs)``), and
following their values cost half of the tracing on a Django-shaped tree.

Tracing costs about as much as all the other facts of a file together, so these facts
are not extracted with the others: the index extracts them when the check asks
(``ProjectIndex.flows``), for the modules whose other facts show that they may build an
event and for the helpers those call, and caches them beside the file's other facts.
"""

import ast
import builtins
import sys
import threading
from bisect import bisect_left
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from contextlib import contextmanager
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

# Where a value goes.
KEYWORD = "keyword"  # ``Callee(name=value)``; a mapping whose keys are not known, ``Callee(**stats)``: see SPREAD
# ``Callee(value)``: a value given by position, named by its position among the arguments
# the callee takes (from 0, as a string: ``partial(X, value)`` gives X its "0")
ARGUMENT = "argument"
ATTRIBUTE = "attribute"  # ``local.name = value``, where ``local = Callee(...)``
FIELD = "field"  # a class-level default, or ``self.name = value`` in __post_init__/a validator
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
    kind: str  # READ, KEY, PARAMETER, CALL or NAMED
    callee: str = ""  # CALL: the callee, resolved through the module's imports

    @property
    def shown(self) -> str:
        """As written: ``self.primary_target``, ``stats['episode']``, ``get_stats()``."""
        if self.kind == KEY:
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
    # call is given (``X(**payload)``): see facts.ConstructionFact
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


def module_flows(
    module: str,
    tree: ast.Module,
    resolve: Resolve,
    keyword_calls: Iterable[tuple[ast.Call, str]],
    other_sink_scopes: Iterable[str],
    every_return: bool = False,
    callees: tuple[str, ...] = ALL_CALLEES,
    walrus_scopes: Iterable[str] = (),
    constructions: Mapping[ast.Call, tuple[str, str]] | None = None,
    payloads: Mapping[ast.stmt, list[PayloadSite]] | None = None,
    followed: Collection[ast.expr] = (),
    argument_calls: Iterable[tuple[ast.Call, str, str, str, int]] = (),
    builtin_getattr: bool = False,
) -> FlowFacts:
    """The flow facts of one module's tree. ``resolve`` gives what a dotted name refers
    to through the module's imports; ``keyword_calls`` are the calls with keywords and
    the qualnames of the scopes they are in, ``other_sink_scopes`` those of the scopes
    that set an attribute of a local a call was assigned to, or define a class (both
    found by the module's fact walk; ``walrus_scopes``, those with an assignment
    expression). A function that is none of these, nor around
    one, holds no sink: only its return value is traced, quickly, when asked for
    (``every_return``, or a sink of the module calls it); in one that is, only the
    statements that can bear on a keyword's, an attribute's or the return value are
    interpreted.

    Only the keywords of calls to ``callees`` (:func:`traced_callee`, of the callee as
    resolved) are traced: a check needs those of the calls that build an event or
    emit one, a few of the many calls with keywords. What a traced keyword's value is
    derived from does not depend on which other calls are traced: which calls are
    traced decides which functions are interpreted and which keyword sinks are kept,
    but a function interpreted is sliced as if every call were (any call with keywords
    may assign a variable, ``f(x=(label := ...))``, or read one that matters).

    ``constructions`` are the calls that build an instance of a class other than by
    calling it by name, with their form and the class, as the module's facts find
    them (facts.ConstructionFact): the fields they name are keyword sinks of that
    class, traced when the class's name is among ``callees``. ``payloads`` are the
    statements that put a key into a local dict a call is given (facts.local_dicts._Payloads):
    the value is traced there, as it is when put in (a variable reassigned after it
    changes nothing the dict holds), a keyword sink of that call's.

    A mapping whose keys are not known, unpacked into a call (``X(**stats)``) or given to
    a construction as its fields (``X.model_validate(stats)``), is a keyword sink of its
    own (:data:`SPREAD`), at the mapping; but not a local dict of ``followed`` (the
    names, in the calls, of the local dicts that ``payloads`` reads where their keys
    are put in: a mapping put into one whose keys are not known is a payload site).

    ``argument_calls`` are the calls given arguments by position whose values may be
    fields, as (call, scope, form, target, arguments before the fields: ``partial``'s
    class), as the module's facts find them (facts.arguments._arguments_given): for a target
    among ``callees``, the value given at each position before any starred argument is
    an :data:`ARGUMENT` sink. Those values seed a sliced function's statements for the
    calls traced alone: a call not traced holds no sink, and what its arguments are
    derived from need not be followed (a traced value's sources are those of the
    statements its own names lead to, whichever others are interpreted).

    With ``builtin_getattr`` (the module binds no ``getattr`` of its own), a call of
    ``getattr`` given a literal name reads that attribute (:data:`NAMED`)."""
    callees = callee_names(callees)
    constructions = constructions or {}
    every: dict[str, list[ast.Call]] = {}
    traced: dict[str, list[ast.Call]] = {}
    given: dict[str, list[ast.Call]] = {}  # scope -> its calls given traced arguments
    arguments: dict[ast.Call, tuple[str, str, int]] = {}
    for call, scope, form, target, skip in argument_calls:
        if callees == ALL_CALLEES or traced_callee(callees, target):
            arguments[call] = (target, form, skip)
            given.setdefault(scope, []).append(call)
    for call, scope in keyword_calls:
        every.setdefault(scope, []).append(call)
        if callees != ALL_CALLEES:
            reference = _dotted(call.func)
            built = constructions.get(call)
            if not (
                (reference is not None and traced_callee(callees, resolve(reference)))
                or (built is not None and traced_callee(callees, built[1]))
            ):
                continue
        traced.setdefault(scope, []).append(call)
    functions = frozenset(n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))
    collector = _Collector(
        module,
        resolve,
        functions,
        every,
        traced,
        other_sink_scopes,
        walrus_scopes,
        callees,
        constructions,
        payloads,
        frozenset(followed),
        arguments,
        given,
        builtin_getattr,
    )
    top = _Frame(collector, ())
    with _room_to_nest():
        for statement in tree.body:
            try:
                top.statement(statement)
            except RecursionError:  # nested deeper than MAX_NESTING: the rest of it is not traced
                collector.nesting = 0
    return collector.facts(every_return)


# The traces running in this process (threads may trace at once), and the recursion
# limit to put back when the last one ends.
_ROOM_LOCK = threading.Lock()
_room: dict[str, int] = {"traces": 0, "before": 0, "set": 0}


@contextmanager
def _room_to_nest() -> Iterator[None]:
    """Room on the interpreter's stack for MAX_NESTING levels above the current
    frame, so that only the nesting limit cuts a trace. The limit is shared by every
    thread: it is raised, never lowered, while any trace runs, and put back as it was
    when the last one ends (unless something else changed it meanwhile)."""
    depth, frame = 0, sys._getframe()
    while frame.f_back is not None:
        depth, frame = depth + 1, frame.f_back
    needed = depth + MAX_NESTING * _FRAMES_PER_LEVEL + _UNCOUNTED_FRAMES
    with _ROOM_LOCK:
        if _room["traces"] == 0:
            _room["before"] = _room["set"] = sys.getrecursionlimit()
        _room["traces"] += 1
        if needed > sys.getrecursionlimit():
            sys.setrecursionlimit(needed)
            _room["set"] = needed
    try:
        yield
    finally:
        with _ROOM_LOCK:
            _room["traces"] -= 1
            if _room["traces"] == 0 and sys.getrecursionlimit() == _room["set"]:
                sys.setrecursionlimit(_room["before"])


# Methods that put their arguments into the object they are called on.
def unpacked_keywords(value: ast.expr) -> list[tuple[str, ast.expr | ast.keyword, ast.expr]]:
    """The keywords ``**value`` passes when ``value`` is a dict display with string keys
    or a ``dict(...)`` call (``**{"episode": n}``, ``**dict(epoch=n)``): each name, where
    it is written (the key, the keyword) and its value. The keys of a mapping given to
    ``dict`` (``dict(stats, epoch=n)``) are not known, its keywords are keys all the same."""
    if type(value) is ast.Dict:
        return [
            (key.value, _inside_quotes(key), item)
            for key, item in zip(value.keys, value.values, strict=True)
            if type(key) is ast.Constant and isinstance(key.value, str) and key.value.isidentifier()
        ]
    if type(value) is ast.Call and type(value.func) is ast.Name and value.func.id == "dict":
        return [(keyword.arg, keyword, keyword.value) for keyword in value.keywords if keyword.arg is not None]
    return []


def union_keywords(value: ast.expr) -> list[tuple[str, ast.expr | ast.keyword, ast.expr]]:
    """The keywords ``**value`` passes that :func:`unpacked_keywords` reads in a dict
    display or a ``dict(...)`` call on either side of ``|`` (``**(base | {"epoch": n})``,
    ``**({"epoch": n} | base)``, a chain of them): DOM104 names them. The union is traced
    whole by DOM105, a mapping whose keys are not known, as it was before they were read."""
    if type(value) is not ast.BinOp or type(value.op) is not ast.BitOr:
        return []
    found: list[tuple[str, ast.expr | ast.keyword, ast.expr]] = []
    for side in (value.left, value.right):
        found += union_keywords(side) if type(side) is ast.BinOp else unpacked_keywords(side)
    return found


def construction_keywords(
    call: ast.Call, form: str, unions: bool = False
) -> list[tuple[str, ast.expr | ast.keyword, ast.expr]]:
    """The fields a construction of ``form`` (facts.ConstructionFact) names: each name,
    where it is written and its value. ``model_validate`` names them in the mapping it
    is given, ``model_copy`` in its ``update`` mapping (a dict display or a ``dict(...)``
    call, as ``**`` unpacks them: :func:`unpacked_keywords`); the other forms as
    keywords, written out or unpacked (``model_construct``'s ``_fields_set`` is none).
    ``model_validate_strings`` reads a mapping as ``model_validate`` does;
    ``model_validate_json`` names its fields in a JSON text (the facts read a literal's),
    and its keywords are none."""
    method = form.rpartition(".")[2]
    if method in MAPPING_VALIDATORS:
        return unpacked_keywords(call.args[0]) if call.args else []
    if method == JSON_VALIDATOR:
        return []
    if method == "model_copy":
        return [entry for k in call.keywords if k.arg == "update" for entry in unpacked_keywords(k.value)]
    found: list[tuple[str, ast.expr | ast.keyword, ast.expr]] = []
    for keyword in call.keywords:
        if keyword.arg is None:
            found += unpacked_keywords(keyword.value)
            if unions:  # DOM104's names (see union_keywords)
                found += union_keywords(keyword.value)
        elif not (method == "model_construct" and keyword.arg == "_fields_set"):
            found.append((keyword.arg, keyword, keyword.value))
    return found


def spread_mappings(value: ast.expr) -> list[ast.expr]:
    """The mappings ``**value`` passes whose keys :func:`unpacked_keywords` does not
    know: ``value`` itself, unless it is a dict display (then each mapping the display
    unpacks: ``**{**stats, "lm_id": i}``) or a ``dict(...)`` call (the mapping it is
    given and those it unpacks: ``**dict(stats, epoch=n)``, ``**dict(**stats)``)."""
    if type(value) is ast.Dict:
        return [item for key, item in zip(value.keys, value.values, strict=True) if key is None]
    if type(value) is ast.Call and type(value.func) is ast.Name and value.func.id == "dict":
        given = [argument for argument in value.args if type(argument) is not ast.Starred]
        return given + [keyword.value for keyword in value.keywords if keyword.arg is None]
    return [value]


def construction_spreads(call: ast.Call, form: str) -> list[ast.expr]:
    """The mappings whose keys are not known that a construction of ``form`` takes its
    fields from, as :func:`construction_keywords` reads the known ones:
    ``X.model_validate(stats)``, ``x.model_copy(update=stats)``, ``cls(**stats)``."""
    method = form.rpartition(".")[2]
    if method in MAPPING_VALIDATORS:
        return spread_mappings(call.args[0]) if call.args and type(call.args[0]) is not ast.Starred else []
    if method == JSON_VALIDATOR:
        return []
    given = [k.value for k in call.keywords if (k.arg == "update" if method == "model_copy" else k.arg is None)]
    return [mapping for value in given for mapping in spread_mappings(value)]


def spread_name(mapping: ast.expr) -> str:
    """The name of the keyword sink of a mapping whose keys are not known (:data:`SPREAD`)."""
    return _intern(SPREAD + _shown(mapping))


def is_spread(name: str) -> bool:
    """Whether a sink's (or a payload site's) name is a mapping's, not a keyword's."""
    return name.startswith(SPREAD)


def key_written(key: ast.Constant) -> ast.expr:
    """Where a string key names a keyword (see :func:`_inside_quotes`)."""
    return _inside_quotes(key)


def _inside_quotes(key: ast.Constant) -> ast.expr:
    """Where a string key's name is written: past its opening quote when it is a plain
    one-line literal ("episode"), else at the literal."""
    width = len(str(key.value).encode("utf-8")) + 2
    if key.lineno != key.end_lineno or (key.end_col_offset or 0) - key.col_offset != width:
        return key
    return ast.Constant(
        key.value,
        lineno=key.lineno,
        col_offset=key.col_offset + 1,
        end_lineno=key.end_lineno,
        end_col_offset=(key.end_col_offset or 0) - 1,
    )


_MUTATORS = frozenset({"append", "extend", "insert", "add", "update", "setdefault", "appendleft"})
# The forms of the constructions whose call returns no instance of the class (the facts'
# PARTIAL and SUPER_INIT): a partial (``partial``, ``partial(cls)``, ...; not a call of a
# name bound to one, ``partial Name``), and what ``__init__`` returns.
_NO_INSTANCE = ("partial(", "super().__init__")


class _Collector:
    """What every frame of a module found."""

    def __init__(
        self,
        module: str,
        resolve: Resolve,
        functions: frozenset[str],
        keyword_calls: dict[str, list[ast.Call]],
        traced_calls: dict[str, list[ast.Call]],
        other_sink_scopes: Iterable[str],
        walrus_scopes: Iterable[str] = (),
        callees: tuple[str, ...] = ALL_CALLEES,
        constructions: Mapping[ast.Call, tuple[str, str]] | None = None,
        payloads: Mapping[ast.stmt, list[PayloadSite]] | None = None,
        followed: frozenset[ast.expr] = frozenset(),
        arguments: Mapping[ast.Call, tuple[str, str, int]] | None = None,
        argument_calls: Mapping[str, list[ast.Call]] | None = None,
        builtin_getattr: bool = False,
    ) -> None:
        self.module = module
        self.builtin_getattr = builtin_getattr  # ``getattr`` is the builtin: see _Frame.named_read
        self.arguments = arguments or {}  # call -> (target, form, skip): see module_flows
        self.argument_calls = argument_calls or {}  # scope -> its calls given traced arguments
        self.followed = followed  # local dicts given to a call whose keys are traced where put in
        self.constructions = constructions or {}  # call -> (form, class built): see module_flows
        self.payloads = payloads or {}  # statement -> the keys it puts into a dict a call is given
        self.walrus_scopes = frozenset(walrus_scopes)
        self.callees = callees
        self.keyword_calls = keyword_calls  # scope -> its calls with keywords
        self.traced_calls = traced_calls  # scope -> those of them whose keywords are traced
        # scopes with traced calls (or calls given traced arguments), and those around them
        self.keyword_scopes = _prefixes((*traced_calls, *self.argument_calls))
        other_sink_scopes = set(other_sink_scopes)
        self.other_sink_scopes = _prefixes(other_sink_scopes)  # see module_flows
        # Interpreted whole: a function nested in one reads its variables.
        self.around_sink_scopes = {
            p for s in (*keyword_calls, *self.argument_calls, *other_sink_scopes) for p in _prefixes((s,)) if p != s
        }
        self.resolve = resolve
        self.functions = functions  # module-level functions: a call to one is resolved to this module
        # A loop body runs more than once: one sink per place, with what every pass found.
        self.sinks: dict[tuple[str, str, str, str, int, int, str], set[_Raw]] = {}
        # An ARGUMENT sink's value built by a call, where every pass agrees (see Sink.holds).
        self.holds: dict[tuple[str, str, str, str, int, int, str], str] = {}
        self.returns: dict[str, tuple[Source, ...]] = {}
        self.nesting = 0  # expressions and blocks the frames are inside (see MAX_NESTING)
        # qualname -> (definition, receiver) of each: return values traced when wanted
        self.untraced: dict[str, list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, str | None]]] = {}

    def sink(
        self,
        kind: str,
        target: str,
        scope: str,
        name: str,
        node: _Positioned,
        sources: Sources,
        form: str = "",
        holds: str = "",
    ) -> None:
        # A keyword of a call not traced may be met in a statement interpreted for
        # another: its value was not followed, so it is no sink.
        if kind == KEYWORD and self.callees != ALL_CALLEES and not traced_callee(self.callees, target):
            return
        if sources and target:
            key = (kind, _intern(target), _intern(scope), _intern(name), node.lineno, node.col_offset, form)
            self.sinks.setdefault(key, set()).update(sources)
            if kind == ARGUMENT:  # an instance known only when every pass agrees
                before = self.holds.get(key)
                self.holds[key] = holds if before is None or before == holds else ""

    def callee(self, reference: str, resolved: str, owner: str | None, receiver: str | None) -> str:
        """The callee of a call of ``reference``, for following it into a helper:
        ``self.helper`` of a method is the method of its class; a module-level function
        of this module is qualified with it."""
        head, dot, rest = reference.partition(".")
        if receiver is not None and owner is not None and head == receiver and dot and "." not in rest:
            return f"{self.module}.{owner}.{rest}"
        if head in self.functions:
            return f"{self.module}.{reference}"
        return resolved

    def facts(self, every_return: bool) -> FlowFacts:
        sinks = []
        for key, sources in self.sinks.items():
            kind, target, scope, name, line, col, form = key
            holds = _intern(self.holds.get(key, ""))
            sinks.append(Sink(kind, target, scope, name, line, col, _compact(sources), form, holds))
        sinks.sort(key=lambda s: (s.line, s.col, s.kind, s.name, s.target, s.scope, s.form))
        if every_return:
            wanted: Iterable[str] = self.untraced
        else:  # the helpers of this module a sink's value calls, as the check looks them up
            prefix = f"{self.module}."
            wanted = {
                _intern(s.callee[len(prefix) :])
                for sink in sinks
                for s in sink.sources
                if s.kind == CALL and s.callee.startswith(prefix)
            }
            # ``self.name`` read: a property of the class or of a base here, when a
            # method of that name is defined here at all.
            read = {s.callee.rpartition(".")[2] for sink in sinks for s in sink.sources if s.kind == READ and s.callee}
            wanted |= self.same_named_methods(wanted) | self.methods_named(read)
        for qualname in wanted:
            # Defined twice (a property's setter): the last definition that returns anything.
            for definition, receiver in self.untraced.get(qualname, ()):
                shape = _Shape.of(definition, receiver, inner=True)
                returned = shape.returned_sources(_arguments(definition.args))
                if returned:
                    self.returns[qualname] = _compact(returned)
            if not every_return:
                # Traced, and returns nothing; or not defined here (inherited, say): the
                # walk found every function whose return value it would trace.
                self.returns.setdefault(qualname, ())
        return FlowFacts(tuple(sinks), dict(sorted(self.returns.items())), every_return, self.callees)

    def same_named_methods(self, wanted: set[str]) -> set[str]:
        """The methods named as a wanted one is: ``self.name()`` or ``super().name()``
        may find a base's, here more often than not (else the module is traced again
        when the check looks it up)."""
        return self.methods_named({qualname.rpartition(".")[2] for qualname in wanted if "." in qualname})

    def methods_named(self, names: set[str]) -> set[str]:
        """The methods defined here whose own name is one of ``names``."""
        if not names:
            return set()
        return {qualname for qualname in self.untraced if "." in qualname and qualname.rpartition(".")[2] in names}


_State = tuple[dict[str, Sources], dict[str, str]]


class _Frame:
    """One function body, class body or module top level, interpreted over the sources
    of its local variables."""

    def __init__(
        self,
        collector: _Collector,
        scope: tuple[str, ...],
        *,
        receiver: str | None = None,
        owner: str | None = None,
        methods_of: str | None = None,
        in_function: bool = False,
        env: dict[str, Sources] | None = None,
        field_method: tuple[str, ...] | None = None,
    ) -> None:
        self.collector = collector
        self.scope = scope
        self.qualname = ".".join(scope) or MODULE_SCOPE
        self.receiver = receiver  # ``self`` of a method
        self.owner = owner  # qualname of the class of a method
        self.methods_of = methods_of  # a class body: qualname of the class its ``def``s are methods of
        self.in_function = in_function  # a function body, or nested in one: nothing here is declared
        self.env: dict[str, Sources] = env if env is not None else {}
        self.built: dict[str, str] = {}  # local -> callee whose call result it holds
        # In __post_init__ (()) or a validator (the fields its return value goes to).
        self.field_method = field_method
        self.returned: set[_Raw] = set()
        self.loops = 0  # loops around the current statement
        self.last_call: tuple[ast.Call | None, str] = (None, "")  # the call evaluated last, resolved
        # In a function sliced by _Slice: the statements that can matter; None: all.
        self.slice: _Slice | None = None

    # Statements ---------------------------------------------------------------

    def run(self, statements: Iterable[ast.stmt]) -> None:
        collector = self.collector
        collector.nesting += 1
        if collector.nesting > MAX_NESTING:
            raise RecursionError("nested deeper than traced")
        for statement in statements:
            self.statement(statement)
        collector.nesting -= 1

    def statement(self, node: ast.stmt) -> None:
        kind = type(node)
        payloads = self.collector.payloads
        if payloads and node in payloads:  # before it runs: what the value is derived from as it is put in
            for site in payloads[node]:
                sources = self.value(site.value)
                self.collector.sink(KEYWORD, site.target, self.qualname, site.name, site.where, sources, site.form)
        if self.slice is not None and kind in _SIMPLE and not self.slice.matters(node):
            return
        if kind is ast.Assign:
            self.assignment(node.targets, node.value)  # type: ignore[attr-defined]
        elif kind is ast.AnnAssign:
            if node.value is not None:  # type: ignore[attr-defined]
                self.assignment([node.target], node.value)  # type: ignore[attr-defined]
        elif kind is ast.AugAssign:
            sources = self.value(node.value)  # type: ignore[attr-defined]
            target = node.target  # type: ignore[attr-defined]
            if isinstance(target, ast.Name):
                self.env[target.id] = self.value(target) | sources
            else:
                self.assign(target, sources | self.value(target), None)
        elif kind is ast.Return:
            if node.value is not None:  # type: ignore[attr-defined]
                self.returned |= self.value(node.value)  # type: ignore[attr-defined]
        elif kind is ast.If:
            self.value(node.test)  # type: ignore[attr-defined]
            self.branches([node.body, node.orelse])  # type: ignore[attr-defined]
        elif kind is ast.While:
            self.value(node.test)  # type: ignore[attr-defined]
            self.loop(node.body, node.orelse, None, _EMPTY)  # type: ignore[attr-defined]
        elif kind is ast.For or kind is ast.AsyncFor:
            self.loop(node.body, node.orelse, node.target, self.value(node.iter))  # type: ignore[attr-defined]
        elif kind is ast.With or kind is ast.AsyncWith:
            for item in node.items:  # type: ignore[attr-defined]
                sources = self.value(item.context_expr)
                if item.optional_vars is not None:
                    self.assign(item.optional_vars, sources, None)
            self.run(node.body)  # type: ignore[attr-defined]
        elif kind is ast.Try or kind is ast.TryStar:
            self.attempt(node)  # type: ignore[arg-type]
        elif kind is ast.Match:
            self.match(node)  # type: ignore[arg-type]
        elif kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
            self.function(node)  # type: ignore[arg-type]
        elif kind is ast.ClassDef:
            self.klass(node)  # type: ignore[arg-type]
        elif kind is ast.Expr:
            self.value(node.value)  # type: ignore[attr-defined]
        elif kind is ast.Import or kind is ast.ImportFrom:
            for alias in node.names:  # type: ignore[attr-defined]
                name = (alias.asname or alias.name).split(".", 1)[0]
                self.env[name] = frozenset(((name, node, READ, ""),))
        else:  # raise, assert, del, global, pass, ...
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.expr):
                    self.value(child)

    def assignment(self, targets: list[ast.expr], value: ast.expr) -> None:
        """``targets = value``: a literal tuple unpacked into a tuple of targets gives each
        its own element's sources."""
        if isinstance(value, (ast.Tuple, ast.List)) and not any(isinstance(e, ast.Starred) for e in value.elts):
            parts = [self.value(element) for element in value.elts]
            whole = frozenset().union(*parts)
            for target in targets:
                if isinstance(target, (ast.Tuple, ast.List)) and len(target.elts) == len(parts):
                    for element, item, sources in zip(target.elts, value.elts, parts, strict=True):
                        self.assign(element, sources, item)
                else:
                    self.assign(target, whole, value)
            return
        sources = self.value(value)
        for target in targets:
            self.assign(target, sources, value)

    def assign(self, target: ast.expr, sources: Sources, value: ast.expr | None) -> None:
        if isinstance(target, ast.Name):
            self.env[target.id] = sources
            built = self.constructed(value)
            if built:
                self.built[target.id] = built
            else:
                self.built.pop(target.id, None)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self.assign(element, sources, None)
        elif isinstance(target, ast.Starred):
            self.assign(target.value, sources, None)
        elif isinstance(target, ast.Attribute):
            self.attribute_assignment(target, sources)
        elif isinstance(target, ast.Subscript):
            self.value(target.slice)
            self.into(target.value, sources)

    def into(self, holder: ast.expr, sources: Sources) -> None:
        """``holder[key] = value``, ``holder.append(value)``: a local container holds it now."""
        if isinstance(holder, ast.Name) and holder.id in self.env:
            self.env[holder.id] = self.env.get(holder.id, _EMPTY) | sources
        else:
            self.value(holder)

    def attribute_assignment(self, target: ast.Attribute, sources: Sources) -> None:
        holder = target.value
        if not isinstance(holder, ast.Name):
            self.value(holder)
            return
        if holder.id in self.built:
            self.collector.sink(ATTRIBUTE, self.built[holder.id], self.qualname, target.attr, target, sources)
        elif self.field_method is not None and holder.id == self.receiver and self.owner is not None:
            self.collector.sink(FIELD, self.owner, self.qualname, target.attr, target, sources)

    def constructed(self, value: ast.expr | None) -> str:
        """The callee of ``value`` when it is a call of a dotted name (for ``x.f = ...``)."""
        if not isinstance(value, ast.Call):
            return ""
        call, resolved = self.last_call
        if call is value:
            return resolved
        reference = _dotted(value.func)
        return self.collector.resolve(reference) if reference else ""

    def save(self) -> _State:
        return dict(self.env), dict(self.built)

    def restore(self, state: _State) -> None:
        self.env, self.built = dict(state[0]), dict(state[1])

    def branches(self, blocks: list[list[ast.stmt]], exhaustive: bool = True) -> None:
        """Run each block from the same state; afterwards a variable holds what any
        block (or, when no block need run, the state before) left in it."""
        before = self.save()
        ends = [] if exhaustive else [before]
        for block in blocks:
            self.restore(before)
            self.run(block)
            ends.append((self.env, self.built))
        self.env, self.built = _merge_states(ends)

    def loop(self, body: list[ast.stmt], orelse: list[ast.stmt], target: ast.expr | None, each: Sources) -> None:
        """Run the body until the variables hold nothing new (it may also run zero
        times). Nested loops get fewer passes, so the cost stays bounded."""
        self.loops += 1
        passes = 4 if self.loops <= 2 else 2 if self.loops <= 4 else 1
        for _ in range(passes):
            before = self.save()
            if target is not None:
                self.assign(target, each, None)
            self.run(body)
            self.env, self.built = _merge_states([before, (self.env, self.built)])
            if self.env == before[0]:
                break
        self.loops -= 1
        self.run(orelse)

    def attempt(self, node: ast.Try | ast.TryStar) -> None:
        before = self.save()
        self.run(node.body)
        self.run(node.orelse)
        ends = [(self.env, self.built)]
        for handler in node.handlers:
            # A handler may start anywhere in the body: from what the body may have left.
            self.env, self.built = _merge_states([before, ends[0]])
            if handler.type is not None:
                self.value(handler.type)
            if handler.name:
                self.env[handler.name] = _EMPTY
            self.run(handler.body)
            ends.append((self.env, self.built))
        self.env, self.built = _merge_states(ends)
        self.run(node.finalbody)

    def match(self, node: ast.Match) -> None:
        subject = self.value(node.subject)
        for case in node.cases:
            for capture in _captures(case.pattern):
                self.env[capture] = self.env.get(capture, _EMPTY) | subject
            if case.guard is not None:
                self.value(case.guard)
        self.branches([case.body for case in node.cases], exhaustive=False)

    def function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for expression in [*node.decorator_list, *node.args.defaults, *node.args.kw_defaults]:
            if expression is not None:
                self.value(expression)
        self.env[node.name] = _EMPTY
        owner = self.methods_of
        receiver = _receiver(node) if owner else None
        declared = not self.in_function
        field_method = _field_method(node) if owner else None
        qualname = ".".join((*self.scope, node.name))
        if field_method is None:
            # What a caller may want, the return value, is found quickly (flow-insensitively),
            # when it is wanted: see _Collector.facts.
            self.collector.untraced.setdefault(_intern(qualname), []).append((node, receiver))
            if qualname not in self.collector.keyword_scopes and qualname not in self.collector.other_sink_scopes:
                return  # no sink here
        frame = _Frame(
            self.collector,
            (*self.scope, node.name),
            receiver=receiver,
            owner=owner,
            in_function=True,
            # A nested function reads its enclosing function's variables as they are here.
            env=dict(self.env) if self.in_function else {},
            field_method=field_method,
        )
        for parameter in _arguments(node.args):
            name = parameter.arg
            kind = PARAMETER if declared else READ
            frame.env[name] = _EMPTY if name == receiver else frozenset(((name, parameter, kind, ""),))
        # Run whole when a scope inside it may hold a sink (it reads this one's variables),
        # or when an expression assigns a variable (``f((label := ...))``), which a slice
        # of statements would miss.
        whole = qualname in self.collector.around_sink_scopes or qualname in self.collector.walrus_scopes
        if field_method is None and not whole:
            shape = _Shape.of(node, receiver)
            calls, given = self.collector.keyword_calls, self.collector.argument_calls
            frame.slice = _Slice(calls.get(qualname, []), shape, receiver, given.get(qualname, []))
        nesting = self.collector.nesting
        try:
            frame.run(node.body)
        except RecursionError:  # nested deeper than MAX_NESTING: not traced
            self.collector.nesting = nesting
            return
        if frame.returned and field_method is not None:
            self.collector.returns[_intern(frame.qualname)] = _compact(frame.returned)
            for name in field_method:
                self.collector.sink(FIELD, owner or "", frame.qualname, name, node, frozenset(frame.returned))

    def klass(self, node: ast.ClassDef) -> None:
        for expression in [*node.bases, *(k.value for k in node.keywords), *node.decorator_list]:
            self.value(expression)
        self.env[node.name] = _EMPTY
        qualname = ".".join((*self.scope, node.name))
        body = _Frame(
            self.collector,
            (*self.scope, node.name),
            methods_of=qualname,
            in_function=self.in_function,
        )
        collector = self.collector
        collector.nesting += 1
        if collector.nesting > MAX_NESTING:
            raise RecursionError("nested deeper than traced")
        for statement in node.body:
            target, value = _field_assignment(statement)
            if target is None or value is None:
                body.statement(statement)
                continue
            sources = body.value(value)  # a field default
            collector.sink(FIELD, qualname, qualname, target.id, target, sources)
            body.env[target.id] = sources
        collector.nesting -= 1

    # Expressions ----------------------------------------------------------------

    def value(self, node: ast.expr) -> Sources:
        """What the value of ``node`` is derived from; calls with keywords inside it are sinks."""
        kind = type(node)
        if kind is ast.Constant:
            return _EMPTY
        if kind is ast.Name:
            return self.name(node.id, node)  # type: ignore[attr-defined]
        collector = self.collector
        collector.nesting += 1
        if collector.nesting > MAX_NESTING:
            raise RecursionError("nested deeper than traced")
        if kind is ast.Attribute:
            found = self.attribute(node)  # type: ignore[arg-type]
        elif kind is ast.Call:
            found = self.call(node)  # type: ignore[arg-type]
        elif kind is ast.Subscript:
            found = self.subscript(node)  # type: ignore[arg-type]
        elif kind in _COMPREHENSIONS:
            found = self.comprehension(node)
        elif kind is ast.NamedExpr:
            found = self.value(node.value)  # type: ignore[attr-defined]
            self.env[node.target.id] = found  # type: ignore[attr-defined]
        elif kind is ast.Lambda:
            found = self.lambda_value(node)  # type: ignore[arg-type]
        else:
            found = _EMPTY
            for name in _expression_fields(kind):
                child = getattr(node, name)
                if type(child) is list:
                    for item in child:
                        if item is not None:
                            found = found | self.value(item.value if type(item) is ast.keyword else item)
                elif child is not None:
                    found = found | self.value(child)
        collector.nesting -= 1
        return found

    def name(self, name: str, node: ast.expr) -> Sources:
        found = self.env.get(name)
        if found is not None:
            return found
        if name in _BUILTINS:
            return _EMPTY  # no knowledge
        # A global, or (rarely) a local read before any assignment on this path: its name.
        return frozenset(((name, node, READ, ""),))

    def attribute(self, node: ast.Attribute) -> Sources:
        """Every attribute of a chain is read: ``self.config.episode`` reads ``config``
        and ``episode``. ``self.name`` in a method names, as its callee, the method
        ``self.name()`` would call (``module.Owner.name``): the check follows it as a
        call when that is a property."""
        attributes = []
        base: ast.expr = node
        while isinstance(base, ast.Attribute):
            attributes.append(base)
            base = base.value
        if isinstance(base, ast.Name):
            found = self.name(base.id, base)
            if base.id == self.receiver and self.owner is not None:
                first = attributes.pop()
                member = f"{self.collector.module}.{self.owner}.{first.attr}"
                found = found | {(first.attr, first, READ, member)}
        else:
            found = self.value(base)
        return found | frozenset((attribute.attr, attribute, READ, "") for attribute in attributes)

    def subscript(self, node: ast.Subscript) -> Sources:
        found = self.value(node.value) | self.value(node.slice)
        key = node.slice
        if isinstance(key, ast.Constant) and isinstance(key.value, str) and key.value.isidentifier():
            found |= {(key.value, node, KEY, "")}
        return found

    def call(self, node: ast.Call) -> Sources:
        func = node.func
        found: set[_Raw] = set()
        reference = _dotted(func)
        resolved = ""
        inherited = self.super_method(func)
        if inherited:
            found.add((func.attr, node, CALL, inherited))  # type: ignore[attr-defined]
        elif reference is None:
            found |= self.value(func)
        else:
            resolved = self.collector.resolve(reference)
            if isinstance(func, ast.Attribute):
                found |= self.value(func.value)
            elif func.id in self.env:  # type: ignore[attr-defined]
                found |= self.env[func.id]  # type: ignore[attr-defined]
            if not (isinstance(func, ast.Name) and func.id in _BUILTINS and func.id not in self.env):
                callee = self.collector.callee(reference, resolved, self.owner, self.receiver)
                name = reference.rsplit(".", 1)[-1]
                found.add((name, node, CALL, callee))
            elif func.id == "getattr" and self.collector.builtin_getattr:
                read = self.named_read(node)
                if read is not None:
                    found.add(read)
        arguments = [self.value(argument) for argument in node.args]
        for sources in arguments:
            found |= sources
        given = self.collector.arguments.get(node)
        if given is not None:
            self.given(node, arguments, *given)
        if self.field_method is not None and self.is_setattr_on_self(node):
            field_name = node.args[1].value  # type: ignore[attr-defined]
            self.collector.sink(FIELD, self.owner or "", self.qualname, field_name, node, arguments[2])
        given_by_name: list[Sources] = []
        for keyword in node.keywords:
            sources = self.value(keyword.value)
            given_by_name.append(sources)
            found |= sources
            if resolved and keyword.arg is not None:
                self.collector.sink(KEYWORD, resolved, self.qualname, keyword.arg, keyword, sources)
            elif resolved:
                for name, where, value in unpacked_keywords(keyword.value):
                    self.collector.sink(KEYWORD, resolved, self.qualname, name, where, self.value(value))
                for mapping in spread_mappings(keyword.value):
                    self.spread(resolved, mapping, sources if mapping is keyword.value else None)
        construction = self.collector.constructions.get(node)
        if construction is not None:  # the fields it names are the class's keywords
            form, built = construction
            for name, where, value in construction_keywords(node, form):
                self.collector.sink(KEYWORD, built, self.qualname, name, where, self.value(value), form)
            for mapping in construction_spreads(node, form):
                self.spread(built, mapping, None, form)
        if isinstance(func, ast.Attribute) and func.attr in _MUTATORS and isinstance(func.value, ast.Name):
            filled = [*arguments, *given_by_name]  # ``parts.update(v=...)`` fills it too
            self.into(func.value, frozenset().union(*filled) if filled else _EMPTY)
        self.last_call = (node, resolved)
        return frozenset(found)

    def named_read(self, node: ast.Call) -> _Raw | None:
        """``getattr(x, "name")`` or ``getattr(x, "name", default)``, the builtin given a
        literal identifier: a read of the attribute ``name`` of ``x``, as ``x.name`` is
        (:meth:`attribute`: in a method, ``self``'s names its member), at the call (what
        ``x`` and the default are derived from are the call's arguments')."""
        given = node.args
        if node.keywords or not 2 <= len(given) <= 3 or any(type(a) is ast.Starred for a in given):
            return None
        holder, key = given[0], given[1]
        if type(key) is not ast.Constant or type(key.value) is not str or not key.value.isidentifier():
            return None
        read = ast.copy_location(ast.Attribute(holder, key.value, ast.Load()), node)
        member = ""
        if type(holder) is ast.Name and holder.id == self.receiver and self.owner is not None:
            member = f"{self.collector.module}.{self.owner}.{key.value}"
        return (key.value, read, NAMED, member)

    def given(self, node: ast.Call, arguments: list[Sources], target: str, form: str, skip: int) -> None:
        """The values ``node`` gives by position, before any starred argument (where the
        others go is not known), each an ARGUMENT sink of ``target`` named by its position
        after the first ``skip`` (``partial``'s class)."""
        for position, argument in enumerate(node.args):
            if type(argument) is ast.Starred:
                break
            if position >= skip:
                name = str(position - skip)
                holds = self.instance(argument)
                self.collector.sink(ARGUMENT, target, self.qualname, name, argument, arguments[position], form, holds)

    def instance(self, node: ast.expr) -> str:
        """What ``node`` is an instance of, when a call builds it: the callee as resolved
        (the class, for a construction), of the call itself or of the one every path
        assigned the local it names; else ""."""
        if isinstance(node, ast.Name):
            return self.built.get(node.id, "")
        if not isinstance(node, ast.Call):
            return ""
        collector = self.collector
        if node in collector.constructions:
            form, built = collector.constructions[node]
        elif node in collector.arguments:
            built, form, _ = collector.arguments[node]
        else:
            reference = _dotted(node.func)
            return collector.resolve(reference) if reference else ""
        # ``partial(X, ...)`` builds no instance yet, ``super().__init__(...)`` returns none.
        return "" if form == "partial" or form.startswith(_NO_INSTANCE) else built

    def spread(self, target: str, mapping: ast.expr, sources: Sources | None, form: str = "") -> None:
        """A mapping whose keys are not known goes into ``target``: a keyword sink of its
        own (SPREAD), unless it is a local dict whose keys are traced where they are put
        in (a payload). ``sources``: what it is derived from, when already known."""
        collector = self.collector
        if mapping in collector.followed:
            return
        if collector.callees != ALL_CALLEES and not traced_callee(collector.callees, target):
            return  # no sink (see _Collector.sink): its name need not be spelt
        found = self.value(mapping) if sources is None else sources
        if found:
            collector.sink(KEYWORD, target, self.qualname, spread_name(mapping), mapping, found, form)

    def super_method(self, func: ast.expr) -> str:
        """``module.Owner.name`` for ``super().name`` (or ``super(Owner, self).name``) in
        a method of Owner, else "": the check looks for ``name`` in Owner's bases
        (the source's base is SUPER)."""
        if type(func) is not ast.Attribute or self.owner is None or self.receiver is None:
            return ""
        call = func.value
        if type(call) is not ast.Call or type(call.func) is not ast.Name or call.func.id != "super":
            return ""
        if "super" in self.env or call.keywords:
            return ""
        args = call.args
        if args and not (len(args) == 2 and type(args[0]) is ast.Name and args[0].id == self.owner.rsplit(".", 1)[-1]):
            return ""  # another class's bases
        return f"{self.collector.module}.{self.owner}.{func.attr}"

    def is_setattr_on_self(self, node: ast.Call) -> bool:
        """``object.__setattr__(self, "name", value)`` (frozen dataclasses)."""
        args = node.args
        return (
            len(args) == 3
            and _dotted(node.func) == "object.__setattr__"
            and isinstance(args[0], ast.Name)
            and args[0].id == self.receiver
            and isinstance(args[1], ast.Constant)
            and isinstance(args[1].value, str)
        )

    def comprehension(self, node: ast.expr) -> Sources:
        saved = dict(self.env)
        found: set[_Raw] = set()
        for generator in node.generators:  # type: ignore[attr-defined]
            each = self.value(generator.iter)
            found |= each
            self.assign(generator.target, each, None)
            for condition in generator.ifs:
                found |= self.value(condition)
        if isinstance(node, ast.DictComp):
            found |= self.value(node.key) | self.value(node.value)
        else:
            found |= self.value(node.elt)  # type: ignore[attr-defined]
        inner, self.env = self.env, saved
        # Its ``for`` targets are its own; what else it binds or fills is the function's:
        # ``(name := ...)`` binds in the enclosing function, ``out.append(...)`` fills a
        # local. It may run no iteration: what held before may hold after.
        own = _bound_names(generator.target for generator in node.generators)  # type: ignore[attr-defined]
        for name, sources in inner.items():
            if name not in own and saved.get(name) is not sources:
                self.env[name] = saved.get(name, _EMPTY) | sources
        return frozenset(found)

    def lambda_value(self, node: ast.Lambda) -> Sources:
        saved = dict(self.env)
        for parameter in _arguments(node.args):
            self.env[parameter.arg] = _EMPTY
        found = self.value(node.body)
        self.env = saved
        return found


_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)


def _bound_names(targets: Iterable[ast.expr]) -> set[str]:
    """The names assigning to ``targets`` binds (``for a, (b, *c) in ...``)."""
    names: set[str] = set()
    pending = list(targets)
    while pending:
        target = pending.pop()
        if isinstance(target, ast.Name):
            names.add(target.id)
        elif isinstance(target, (ast.Tuple, ast.List)):
            pending.extend(target.elts)
        elif isinstance(target, ast.Starred):
            pending.append(target.value)
    return names


_BUILTINS = frozenset(dir(builtins)) - {"__name__", "__file__", "__doc__"}
_NOT_EXPRESSIONS = frozenset({"ctx", "op", "ops", "id", "attr", "arg", "kind", "conversion", "type_comment"})
_FIELDS: dict[type, tuple[str, ...]] = {}


def _expression_fields(kind: type) -> tuple[str, ...]:
    """The fields of an expression kind that may hold expressions (or keywords)."""
    fields = _FIELDS.get(kind)
    if fields is None:
        every: tuple[str, ...] = getattr(kind, "_fields", ())
        fields = _FIELDS[kind] = tuple(f for f in every if f not in _NOT_EXPRESSIONS)
    return fields


def _merge_states(states: list[_State]) -> _State:
    env: dict[str, Sources] = {}
    for state_env, _ in states:
        for name, sources in state_env.items():
            env[name] = env[name] | sources if name in env else sources
    # An object is known to be built by a callee only when every path agrees.
    built = dict(states[0][1]) if states else {}
    for _, state_built in states[1:]:
        built = {name: callee for name, callee in built.items() if state_built.get(name) == callee}
    return env, built


def _compact(sources: Iterable[_Raw]) -> tuple[Source, ...]:
    """One source per identifier, kind and callee (the first by line), in line order."""
    first: dict[tuple[str, str, str], Source] = {}
    # A total order: the sources come from a set, whose order may differ from run to run.
    # The end's line too: in a chain split over lines, ``.filter`` read twice starts and
    # ends at the same columns, and only its last line tells the two apart.
    for identifier, node, kind, callee in sorted(sources, key=_source_order):
        key = (identifier, kind, callee)
        if key not in first:
            # Identifiers come interned from the parser; what is built here is interned so
            # that pickle writes each once per file.
            base = _intern(_base(node))
            first[key] = Source(identifier, base, node.lineno, kind, _intern(callee) if callee else "")
    return tuple(first.values())


def _source_order(source: _Raw) -> tuple[int, int, int, int, str, str, str]:
    identifier, node, kind, callee = source
    return (node.lineno, node.col_offset, node.end_lineno or 0, node.end_col_offset or 0, identifier, kind, callee)


def _base(node: _Positioned) -> str:
    """What a source is read from: ``self`` for ``self.primary_target`` and
    ``self.summary()``, ``stats`` for ``stats['episode']``; nothing for a name."""
    kind = type(node)
    if kind is ast.Attribute or kind is ast.Subscript:
        base = node.value  # type: ignore[union-attr]
    elif kind is ast.Call and type(node.func) is ast.Attribute:  # type: ignore[union-attr]
        base = node.func.value  # type: ignore[union-attr]
    else:
        return ""
    return base.id if type(base) is ast.Name else _shown(base)


def _intern(text: str) -> str:
    # Interned strings are one object, which pickle writes once per file.
    return sys.intern(text)


def _dotted(node: ast.expr) -> str | None:
    kind = type(node)
    if kind is ast.Name:
        return node.id  # type: ignore[attr-defined, no-any-return]
    parts = []
    while kind is ast.Attribute:
        parts.append(node.attr)  # type: ignore[attr-defined]
        node = node.value  # type: ignore[attr-defined]
        kind = type(node)
    if kind is not ast.Name:
        return None
    parts.append(node.id)  # type: ignore[attr-defined]
    return ".".join(reversed(parts))


def _shown(node: ast.expr) -> str:
    """``self.primary_target``, ``lm.graph[...]``, ``stats()``: short, for messages."""
    reference = _dotted(node)
    if reference is not None:
        return _shorten(reference)
    if isinstance(node, ast.Attribute):
        return f"{_shown_base(node.value)}.{node.attr}"
    return _shown_base(node)


def _shown_base(node: ast.expr) -> str:
    if isinstance(node, ast.Subscript):
        base = _dotted(node.value)
        return f"{_shorten(base)}[...]" if base else "(...)[...]"
    if isinstance(node, ast.Call):
        base = _dotted(node.func)
        return f"{_shorten(base)}()" if base else "(...)()"
    return _shorten(_dotted(node) or "(...)")


def _shorten(reference: str) -> str:
    """The last three parts of a long dotted name."""
    parts = reference.split(".")
    return reference if len(parts) <= 3 else "..." + ".".join(parts[-3:])


def _prefixes(scopes: Iterable[str]) -> set[str]:
    """The scopes and every scope around them: ``A.f.g`` -> ``A``, ``A.f``, ``A.f.g``."""
    found: set[str] = set()
    for scope in scopes:
        parts = scope.split(".")
        found.update(".".join(parts[:end]) for end in range(1, len(parts) + 1))
    return found


# The blocks of statements each kind of statement holds (a nested definition's are its own).
_BLOCKS: dict[type, tuple[str, ...]] = {
    ast.If: ("body", "orelse"),
    ast.For: ("body", "orelse"),
    ast.AsyncFor: ("body", "orelse"),
    ast.While: ("body", "orelse"),
    ast.With: ("body",),
    ast.AsyncWith: ("body",),
    ast.Try: ("body", "handlers", "orelse", "finalbody"),
    ast.TryStar: ("body", "handlers", "orelse", "finalbody"),
    ast.ExceptHandler: ("body",),
    ast.Match: ("cases",),
    ast.match_case: ("body",),
}

# Statements without a body: a sliced function skips those that cannot matter.
_SIMPLE = frozenset({ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.Return, ast.Delete, ast.Raise, ast.Assert})


class _Slice:
    """The statements of a function that can bear on a sink: those holding a call with
    keywords, and those assigning (or filling, ``x.append(...)``, ``x[k] = ...``) a
    variable that a keyword value, an attribute value or an object set reads, or an
    object an attribute is set on, directly or through other variables. The rest change
    nothing a sink sees (the return value is traced apart, by
    :meth:`_Shape.returned_sources`). Every call with keywords seeds it, traced or not:
    which calls are traced must not change what a traced one's value is derived from.
    The values given by position seed it for the calls given traced arguments alone
    (``given``): seeding every call's would interpret most statements, and a value's
    sources are those of the statements its own names lead to, which every slice
    holding it interprets."""

    def __init__(
        self, calls: list[ast.Call], shape: "_Shape", receiver: str | None, given: list[ast.Call] | None = None
    ) -> None:
        given = given or []  # the calls given traced arguments (see module_flows)
        self.calls = sorted({(c.lineno, c.col_offset) for c in (*calls, *given)})
        seeds: list[ast.expr] = [k.value for c in calls for k in c.keywords] + shape.set_values
        seeds += [argument for c in given for argument in c.args]
        # ``X.model_validate({...})``: the mapping names fields (see construction_keywords)
        seeds += [
            c.args[0] for c in calls if c.args and type(c.func) is ast.Attribute and c.func.attr in MAPPING_VALIDATORS
        ]
        names: set[str] = set()
        pending = [*shape.holders, *(n for seed in seeds for n in _names_read(seed))]
        while pending:
            name = pending.pop()
            if name not in names:
                names.add(name)
                for value in shape.assigned.get(name, ()):
                    pending += _names_read(value)
        self.names = frozenset(names)

    def matters(self, node: ast.stmt) -> bool:
        start = bisect_left(self.calls, (node.lineno, node.col_offset))
        if start < len(self.calls) and self.calls[start] <= (node.end_lineno or 0, node.end_col_offset or 0):
            return True  # holds a call with keywords
        kind = type(node)
        if kind is ast.Assign:
            if any(self.assigns(target) for target in node.targets):  # type: ignore[attr-defined]
                return True
        elif kind is ast.AugAssign or kind is ast.AnnAssign:
            if self.assigns(node.target):  # type: ignore[attr-defined]
                return True
        elif kind is ast.Expr:
            value = node.value  # type: ignore[attr-defined]
            if type(value) is ast.NamedExpr:
                return True
            func = value.func if type(value) is ast.Call else None
            if (
                type(func) is ast.Attribute
                and func.attr in _MUTATORS
                and type(func.value) is ast.Name
                and func.value.id in self.names
            ):
                return True
        # A comprehension filling a local, wherever it is (``_ = [out.append(x) for ...]``).
        return any(target.id in self.names for target, _ in _inner_bindings(node) if type(target) is ast.Name)

    def assigns(self, target: ast.expr) -> bool:
        kind = type(target)
        if kind is ast.Name:
            return target.id in self.names  # type: ignore[attr-defined]
        if kind is ast.Tuple or kind is ast.List:
            return any(self.assigns(element) for element in target.elts)  # type: ignore[attr-defined]
        if kind is ast.Starred:
            return self.assigns(target.value)  # type: ignore[attr-defined]
        if kind is ast.Attribute or kind is ast.Subscript:
            holder = target.value  # type: ignore[attr-defined]
            return type(holder) is not ast.Name or holder.id in self.names
        return True


def _names_read(node: ast.expr) -> list[str]:
    names = []
    pending: list[ast.AST] = [node]
    while pending:
        current = pending.pop()
        kind = type(current)
        if kind is ast.Name:
            names.append(current.id)  # type: ignore[attr-defined]
            continue
        for name in _expression_fields(kind):
            child = getattr(current, name)
            if type(child) is list:
                pending += [c for c in child if isinstance(c, ast.AST)]
            elif isinstance(child, ast.AST):
                pending.append(child)
    return names


class _Shape:
    """What one statement-level scan of a function finds: the locals it sets an
    attribute of (``event.label = ...``), its return values, and the values each local
    variable is assigned."""

    def __init__(self) -> None:
        self.holders: list[str] = []  # locals an attribute is set on
        self.set_values: list[ast.expr] = []  # the values set
        self.returns: list[ast.expr] = []
        self.assigned: dict[str, list[ast.expr]] = {}

    @classmethod
    def of(
        cls, function: ast.FunctionDef | ast.AsyncFunctionDef, receiver: str | None, inner: bool = False
    ) -> "_Shape":
        """``inner``: also what the statements' expressions bind or fill (see
        :func:`_inner_bindings`), as a helper's return value needs."""
        shape = cls()
        pending: list[ast.AST] = list(function.body)
        while pending:
            statement = pending.pop()
            kind = type(statement)
            if inner:
                for target, values in _inner_bindings(statement):
                    for value in values:
                        shape.assign(target, value, receiver)
            if kind is ast.Return:
                value = statement.value  # type: ignore[attr-defined]
                if value is not None and type(value) is not ast.Constant:
                    shape.returns.append(value)
            elif kind is ast.Assign:
                for target in statement.targets:  # type: ignore[attr-defined]
                    shape.assign(target, statement.value, receiver)  # type: ignore[attr-defined]
            elif kind is ast.Expr and type(statement.value) is ast.NamedExpr and not inner:  # type: ignore[attr-defined]
                named = statement.value  # type: ignore[attr-defined]
                shape.assign(named.target, named.value, receiver)
            elif kind is ast.Expr and type(statement.value) is ast.Call:  # type: ignore[attr-defined]
                call = statement.value  # type: ignore[attr-defined]
                func = call.func
                if type(func) is ast.Attribute and func.attr in _MUTATORS and type(func.value) is ast.Name:
                    # ``x.append(value)`` fills x
                    filled = shape.assigned.setdefault(func.value.id, [])
                    filled += [*call.args, *(k.value for k in call.keywords)]
            elif kind is ast.AugAssign or kind is ast.AnnAssign:
                if statement.value is not None:  # type: ignore[attr-defined]
                    shape.assign(statement.target, statement.value, receiver)  # type: ignore[attr-defined]
            elif kind is ast.For or kind is ast.AsyncFor:
                shape.assign(statement.target, statement.iter, receiver)  # type: ignore[attr-defined]
            elif kind is ast.With or kind is ast.AsyncWith:
                for item in statement.items:  # type: ignore[attr-defined]
                    if item.optional_vars is not None:
                        shape.assign(item.optional_vars, item.context_expr, receiver)
            for name in _BLOCKS.get(kind, ()):
                pending += getattr(statement, name)
        return shape

    def assign(self, target: ast.expr, value: ast.expr, receiver: str | None) -> None:
        kind = type(target)
        if kind is ast.Name:
            self.assigned.setdefault(target.id, []).append(value)  # type: ignore[attr-defined]
        elif kind is ast.Tuple or kind is ast.List:
            for element in target.elts:  # type: ignore[attr-defined]
                self.assign(element, value, receiver)
        elif kind is ast.Starred:
            self.assign(target.value, value, receiver)  # type: ignore[attr-defined]
        elif kind is ast.Subscript:  # ``x[k] = value`` fills x
            container = target.value  # type: ignore[attr-defined]
            if isinstance(container, ast.Name):
                self.assigned.setdefault(container.id, []).append(value)
        elif kind is ast.Attribute:
            holder = target.value  # type: ignore[attr-defined]
            if isinstance(holder, ast.Name) and holder.id != receiver:
                self.holders.append(holder.id)
                self.set_values.append(value)

    def returned_sources(self, parameters: list[ast.arg]) -> set[_Raw]:
        """What the return values are derived from, flow-insensitively: a local stands
        for every value it is ever assigned. The parameters are the caller's business."""
        found: set[_Raw] = set()
        bound = {parameter.arg for parameter in parameters}
        followed: set[str] = set()
        pending: list[ast.AST] = list(self.returns)
        while pending:
            node = pending.pop()
            kind = type(node)
            if kind is ast.Name:
                name = node.id  # type: ignore[attr-defined]
                if name in self.assigned:
                    if name not in followed:
                        followed.add(name)
                        pending += self.assigned[name]
                elif name not in bound and name not in _BUILTINS:
                    found.add((name, node, READ, ""))  # type: ignore[arg-type]
                continue
            if kind is ast.Constant:
                continue
            if kind is ast.Attribute:
                found.add((node.attr, node, READ, ""))  # type: ignore[attr-defined, arg-type]
            elif kind is ast.Subscript:
                key = node.slice  # type: ignore[attr-defined]
                if isinstance(key, ast.Constant) and isinstance(key.value, str) and key.value.isidentifier():
                    found.add((key.value, node, KEY, ""))  # type: ignore[arg-type]
            elif kind is ast.Call:
                reference = _dotted(node.func)  # type: ignore[attr-defined]
                if reference is not None and reference not in _BUILTINS:
                    found.add((reference.rsplit(".", 1)[-1], node, CALL, ""))  # type: ignore[arg-type]
                    if type(node.func) is ast.Name:  # type: ignore[attr-defined]
                        pending += node.args + [k.value for k in node.keywords]  # type: ignore[attr-defined]
                        continue
            elif kind in _COMPREHENSIONS:
                for generator in node.generators:  # type: ignore[attr-defined]
                    bound.update(n.id for n in ast.walk(generator.target) if isinstance(n, ast.Name))
            elif kind is ast.Lambda:
                bound.update(parameter.arg for parameter in _arguments(node.args))  # type: ignore[attr-defined]
            for name in _expression_fields(kind):
                child = getattr(node, name)
                if type(child) is list:
                    pending += [c.value if type(c) is ast.keyword else c for c in child if isinstance(c, ast.AST)]
                elif isinstance(child, ast.AST):
                    pending.append(child)
        return found


def _inner_bindings(statement: ast.AST) -> Iterator[tuple[ast.expr, list[ast.expr]]]:
    """What the expressions of ``statement`` itself bind or fill, as (the local, its
    values): an assignment expression (``(name := value)``) anywhere in them, and a local
    container a comprehension fills (``[out.append(x) for ...]``); not in the statements it
    holds (walked on their own), nor in a function, class or lambda it defines (their
    own scopes)."""
    kind = type(statement)
    if kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
        return
    blocks = _BLOCKS.get(kind, ())
    # (node, the names the comprehensions around it bind: None outside any)
    pending: list[tuple[ast.AST, frozenset[str] | None]] = []
    for name, child in ast.iter_fields(statement):
        if name not in blocks:
            pending += [
                (item, None) for item in (child if type(child) is list else [child]) if isinstance(item, ast.AST)
            ]
    while pending:
        node, own = pending.pop()
        kind = type(node)
        if kind is ast.NamedExpr:
            yield node.target, [node.value]  # type: ignore[attr-defined]
        elif kind is ast.Call and own is not None:
            func = node.func  # type: ignore[attr-defined]
            # A name a comprehension binds is its own (``[found.append(x) for found in ...]``).
            filled = func.value if type(func) is ast.Attribute and func.attr in _MUTATORS else None
            if type(filled) is ast.Name and filled.id not in own:
                yield filled, [*node.args, *(k.value for k in node.keywords)]  # type: ignore[attr-defined]
        if kind is not ast.Lambda:
            if kind in _COMPREHENSIONS:
                bound = _bound_names(generator.target for generator in node.generators)  # type: ignore[attr-defined]
                own = (own or frozenset()) | bound
            pending += [(child, own) for child in ast.iter_child_nodes(node)]


def _captures(pattern: ast.pattern) -> list[str]:
    return [
        name
        for node in ast.walk(pattern)
        for name in (getattr(node, "name", None), getattr(node, "rest", None))
        if isinstance(name, str)
    ]


def _arguments(arguments: ast.arguments) -> list[ast.arg]:
    every = [*arguments.posonlyargs, *arguments.args, arguments.vararg, *arguments.kwonlyargs, arguments.kwarg]
    return [arg for arg in every if arg is not None]


def _receiver(method: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    positional = [*method.args.posonlyargs, *method.args.args]
    if not positional or any(_dotted(d) == "staticmethod" for d in method.decorator_list):
        return None
    return positional[0].arg


def _field_method(method: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[str, ...] | None:
    """For ``__post_init__``: (); for a validator: the fields it names (its return value
    becomes their value); None for any other method."""
    if method.name in POST_INIT_METHODS:
        return ()
    for decorator in method.decorator_list:
        func = decorator.func if isinstance(decorator, ast.Call) else decorator
        name = (_dotted(func) or "").rsplit(".", 1)[-1]
        if name in VALIDATOR_DECORATORS:
            args = decorator.args if isinstance(decorator, ast.Call) else []
            return tuple(a.value for a in args if isinstance(a, ast.Constant) and isinstance(a.value, str))
    return None


def _field_assignment(statement: ast.stmt) -> tuple[ast.Name | None, ast.expr | None]:
    """A class-level ``name = value`` or ``name: T = value`` (not a method alias)."""
    if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
        return statement.target, statement.value
    if (
        isinstance(statement, ast.Assign)
        and len(statement.targets) == 1
        and isinstance(statement.targets[0], ast.Name)
        and not isinstance(statement.value, ast.Lambda)
    ):
        return statement.targets[0], statement.value
    return None, None
