"""The string a value spells, folded: literals joined with ``+`` and f-strings (an
interpolated value read as a space); given what a name holds (a module's string
constants), names, and ``str.format`` and ``%`` on a literal too.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import TypeGuard

from domain_fence.core.source.facts.records import Text
from domain_fence.core.source.facts.syntax import _text

_STRING_NODES = (ast.Constant, ast.JoinedStr, ast.BinOp)


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
    from string import Formatter  # only here: a rare call, and importing string costs every run

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
