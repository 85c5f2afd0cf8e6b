"""Local dicts unpacked into a call or given to a construction (see :class:`_Payloads`):
the keys each holds where the call is given it, when they are certain.
"""

from __future__ import annotations

import ast

from domain_fence.core.source.facts.constructions import MODEL_COPY, _Constructions, _constructions, _finder
from domain_fence.core.source.facts.module_constants import _DICT_READERS
from domain_fence.core.source.facts.records import MODULE_SCOPE
from domain_fence.core.source.facts.resolver import _Resolver
from domain_fence.core.source.facts.scopes import _block_path, _children, _may_precede, _own_statements
from domain_fence.core.source.facts.syntax import _argument_nodes, _end, _is_dict, _is_name, _simple_assignment
from domain_fence.core.source.facts.walk import _Walk
from domain_fence.core.source.flow import (
    MAPPING_VALIDATORS,
    key_written,
    spread_mappings,
    spread_name,
    unpacked_keywords,
)

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

# What a followed local may be used for besides being unpacked: reading it
# (_DICT_READERS), or adding keys.
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
