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

Everything the rest of the core uses is imported from here, but the entry point, which
facts.extraction imports from ``tracing`` when a body is first traced. The package's modules,
each importing only those listed after it (the flow-layers contract in ``.importlinter``):

- ``tracing``: the entry point, :func:`module_flows`;
- ``frame``: statements interpreted; ``values``: what an expression's value is derived
  from, and what binding it does;
- ``collector``: what every frame of a module found, made into its facts;
- ``shapes``: what a statement-level scan of a function finds (its slice, its return
  values); ``keywords``: the keywords a call is given, as written;
- ``sources``: sources merged and made compact; ``syntax``: questions asked of the tree;
- ``records``: the facts, the classes the fact cache pickles.
"""

from domain_fence.core.source.flow.keywords import (
    construction_keywords,
    construction_spreads,
    is_spread,
    key_written,
    spread_mappings,
    spread_name,
    union_keywords,
    unpacked_keywords,
)
from domain_fence.core.source.flow.records import (
    ALL_CALLEES,
    ARGUMENT,
    ATTRIBUTE,
    CALL,
    CAPITALIZED,
    FIELD,
    GOT,
    JSON_VALIDATOR,
    KEY,
    KEYWORD,
    LATE,
    MAPPING_VALIDATORS,
    MAX_NESTING,
    MODULE_SCOPE,
    NAMED,
    PARAMETER,
    POST_INIT_METHODS,
    RAISED,
    READ,
    RETURNED,
    SPREAD,
    SUPER,
    VALIDATOR_DECORATORS,
    FlowFacts,
    Given,
    PayloadSite,
    Resolve,
    Sink,
    Source,
    callee_names,
    traced_callee,
)

__all__ = [
    "ALL_CALLEES",
    "ARGUMENT",
    "ATTRIBUTE",
    "CALL",
    "CAPITALIZED",
    "FIELD",
    "GOT",
    "JSON_VALIDATOR",
    "KEY",
    "KEYWORD",
    "LATE",
    "MAPPING_VALIDATORS",
    "MAX_NESTING",
    "MODULE_SCOPE",
    "NAMED",
    "PARAMETER",
    "POST_INIT_METHODS",
    "RAISED",
    "READ",
    "RETURNED",
    "SPREAD",
    "SUPER",
    "VALIDATOR_DECORATORS",
    "FlowFacts",
    "Given",
    "PayloadSite",
    "Resolve",
    "Sink",
    "Source",
    "callee_names",
    "construction_keywords",
    "construction_spreads",
    "is_spread",
    "key_written",
    "spread_mappings",
    "spread_name",
    "traced_callee",
    "union_keywords",
    "unpacked_keywords",
]
