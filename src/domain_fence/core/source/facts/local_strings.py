"""Local variables given a string (see :class:`_LocalStrings`): the strings one holds
where a call is given it, or a method sets it on its receiver.
"""

from __future__ import annotations

import ast

from domain_fence.core.source.facts.constructions import _Constructions
from domain_fence.core.source.facts.folding import _literal_text
from domain_fence.core.source.facts.records import Text
from domain_fence.core.source.facts.resolver import _Resolver
from domain_fence.core.source.facts.scopes import _block_path, _may_precede, _own_statements
from domain_fence.core.source.facts.syntax import _argument_nodes, _end, _simple_assignment, _text

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
