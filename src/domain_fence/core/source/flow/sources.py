"""Sources as a trace keeps them, and as the facts give them: merged where branches
meet, and made compact, one per identifier, in a total order."""

import ast
from collections.abc import Iterable

from domain_fence.core.source.flow.records import Source, Sources, _Positioned, _Raw, _State
from domain_fence.core.source.flow.syntax import _intern, _shown


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
