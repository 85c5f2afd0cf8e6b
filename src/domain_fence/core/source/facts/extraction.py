"""The entry points: every family's facts about a module from one walk of its tree
(:func:`extract`, :func:`extract_traced`), its flow facts (:func:`flow_facts`), its
imports alone (:func:`import_facts`) and the functions it attaches to classes
(:func:`attached_names`).
"""

from __future__ import annotations

import ast

from domain_fence.core.source.facts.arguments import _arguments_given, _positional, _positions
from domain_fence.core.source.facts.attachments import _attached
from domain_fence.core.source.facts.callables import (
    _certain_functions,
    _emitters,
    _method_emitters,
    _own_method,
    _properties,
    _signatures,
)
from domain_fence.core.source.facts.constructions import _attribute_sets, _constructions, _finder
from domain_fence.core.source.facts.definitions import (
    _bindings,
    _top_level_classes,
    method_definitions,
    nested_class_definitions,
    top_level_definitions,
)
from domain_fence.core.source.facts.local_dicts import _Payloads, _payloads
from domain_fence.core.source.facts.local_strings import _LocalStrings
from domain_fence.core.source.facts.module_constants import _string_constants
from domain_fence.core.source.facts.receiver_strings import _receiver_strings
from domain_fence.core.source.facts.records import (
    BINDING,
    MODULE_SCOPE,
    BoundName,
    ConstructionFact,
    DeclarationFacts,
    DefinitionFact,
    FileFacts,
    ImportFacts,
    ModuleFacts,
    Text,
)
from domain_fence.core.source.facts.resolver import _Resolver
from domain_fence.core.source.facts.scopes import _module_statements
from domain_fence.core.source.facts.syntax import type_checking_aliases
from domain_fence.core.source.facts.walk import _Context, _StatementsOnly, _Walk
from domain_fence.core.source.flow import (
    ALL_CALLEES,
    FlowFacts,
    Given,
    PayloadSite,
    callee_names,
    traced_callee,
)
from domain_fence.core.source.reading import Unreadable


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
    facts, declarations, walked = extract_walked(module, is_package, tree)
    return facts, declarations, walked_flows(walked, every_return, callees)


# What :func:`extract_walked` walked: the module, its tree, the walk and its resolver.
Walked = tuple[str, ast.Module, _Walk, _Resolver]


def extract_walked(module: str, is_package: bool, tree: ast.Module) -> tuple[FileFacts, DeclarationFacts, Walked]:
    """:func:`extract`, and its walk, from which :func:`walked_flows` gives the flow
    facts later as :func:`extract_traced` gives them: not read again if asked for."""
    walk, statements, resolver = _walked(module, is_package, tree)
    facts, declarations = _facts(module, is_package, tree, walk, statements, resolver)
    return facts, declarations, (module, tree, walk, resolver)


def walked_flows(walked: Walked, every_return: bool = False, callees: tuple[str, ...] = ALL_CALLEES) -> FlowFacts:
    """:func:`flow_facts` of the module :func:`extract_walked` walked, from its walk."""
    module, tree, walk, resolver = walked
    return _flows(module, tree, walk, resolver, every_return, callees)


def file_facts(module: str, is_package: bool, tree: ast.Module | Unreadable | None) -> FileFacts:
    """The facts of :func:`extract` but the declarations."""
    return extract(module, is_package, tree)[0]


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


def attached_names(module: str, tree: ast.Module) -> list[BoundName]:
    """The functions ``tree`` attaches to a class from outside the class's body, as
    :func:`extract` finds them (see :func:`_attached`)."""
    walk, _, resolver = _walked(module, False, tree)
    return _attached(walk, resolver.bindings, tree.body)


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
    method_emitters, own_emitter_calls = _method_emitters(walk, resolver)
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
        method_emitters=method_emitters,
        own_emitter_calls=own_emitter_calls,
        properties=_properties(walk, resolver),
    )
    bound = list(_bindings(tree.body, walk.type_checking_aliases))
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
    # Imported when a body is first traced: a run whose flow facts all come from the
    # cache never loads the interpreter.
    from domain_fence.core.source.flow.tracing import module_flows

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
        # ``getattr`` the builtin: bound nowhere in the module, which star-imports nothing
        builtin_getattr=not resolver.unbound_prefix and not resolver.binding_counts().get("getattr"),
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
    return flows._replace(given=tuple(strings)) if strings else flows


def _walked(module: str, is_package: bool, tree: ast.Module) -> tuple[_Walk, list[ast.stmt], _Resolver]:
    """The module's statements walked once, and how its names resolve."""
    walk = _Walk(module, is_package, type_checking_aliases(tree.body))
    statements = list(_module_statements(tree))
    walk.functional_classes(statements)
    walk.body(tree.body, 1, (), _Context())
    local_classes = _top_level_classes(statements)
    bindings, walk.stars = walk.bindings(statements, local_classes)
    constants, tables = ({}, {}) if walk.stars else _string_constants(tree, walk.type_checking_aliases)
    resolver = _Resolver(module, bindings, local_classes, bool(walk.stars), tree, constants, tables)
    resolver._binding_counts = walk.bound  # the walk visited every node
    return walk, statements, resolver
