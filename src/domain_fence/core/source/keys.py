"""The keys written inside a value an event is given: what a field's dict carries.

A keyword's value (``stats={"episode": n}``) is a field of the event, and the keys of a
dict display or a ``dict(...)`` call given as one reach every subscriber as surely as
the keyword's name does. :func:`nested_keys` finds them, to any depth of dict displays,
``dict(...)`` calls, list and tuple displays and list comprehensions, each where it is
written; :func:`json_keys` the keys of a JSON object written as a string literal
(``model_validate_json('{"episode": 1}')``), whose own keys are the fields. Each key is
placed in the value by the subscripts that lead to the object holding it (``['inner']``,
``[]`` for an item of a list), which the facts prefix with the keyword and follow with
the key (``stats['inner']['episode']``).
"""

from __future__ import annotations

import ast
import json
from collections.abc import Iterator

from domain_fence.core.source.flow import key_written

# A key: the subscripts that lead to the object holding it ("" for the value itself),
# the key, and where it is written (1-based line, 0-based column in UTF-8 bytes, as the
# tree counts).
Key = tuple[str, str, int, int]


def nested_keys(value: ast.expr) -> list[Key]:
    """The string keys written in ``value`` (below the keyword it is given to), in source
    order: a dict display's literal string keys and those of the displays it unpacks
    (``{**{"episode": n}}``), a ``dict(...)`` call's keywords, and so on down the values
    of those keys, the items of list and tuple displays and the item of a list
    comprehension. A key that is no literal string is not read, nor what it holds; nor is
    any other value (a name, a call, a conditional expression)."""
    found: list[Key] = []
    pending: list[tuple[ast.expr, str]] = [(value, "")]
    while pending:  # machine-written values nest deep: no recursion
        node, path = pending.pop()
        if type(node) is ast.Dict:
            for key, item in zip(node.keys, node.values, strict=True):
                if key is None:
                    pending.append((item, path))
                elif type(key) is ast.Constant and type(key.value) is str and key.value:
                    written = key_written(key)
                    found.append((path, key.value, written.lineno, written.col_offset))
                    pending.append((item, f"{path}[{key.value!r}]"))
        elif type(node) is ast.Call and type(node.func) is ast.Name and node.func.id == "dict":
            for keyword in node.keywords:
                if keyword.arg is None:
                    pending.append((keyword.value, path))
                else:
                    found.append((path, keyword.arg, keyword.lineno, keyword.col_offset))
                    pending.append((keyword.value, f"{path}[{keyword.arg!r}]"))
        elif type(node) is ast.List or type(node) is ast.Tuple:
            pending += [(item, f"{path}[]") for item in node.elts if type(item) is not ast.Starred]
        elif type(node) is ast.ListComp:
            pending.append((node.elt, f"{path}[]"))
    return sorted(found, key=lambda key: (key[2], key[3]))


def json_keys(literal: ast.expr) -> list[tuple[str, Key]]:
    """The keys of the JSON object a string (or bytes) literal holds, in order, each
    with the key of the object itself it is under (a field), placed below it as
    :func:`nested_keys` places its keys; the object's own keys with "" and the path "".
    Nothing when the literal holds no JSON object. Each is placed inside the literal
    when the literal is written on one line without a prefix (``b`` aside) or an
    escape, so that its text is the value's; else at the literal."""
    if type(literal) is not ast.Constant:
        return []
    value = literal.value
    prefix = 0
    if type(value) is bytes:
        try:
            value = value.decode("utf-8")
        except UnicodeDecodeError:
            return []
        prefix = 1
    if type(value) is not str:
        return []
    try:
        parsed = json.loads(value)
    except (ValueError, RecursionError):
        return []
    if type(parsed) is not dict:
        return []
    width = len(value.encode("utf-8")) + 2 + prefix
    one_line = literal.lineno == literal.end_lineno and (literal.end_col_offset or 0) - literal.col_offset == width
    found: list[tuple[str, Key]] = []
    for field, path, key, offset in _object_keys(value):
        col = literal.col_offset + prefix + 1 + len(value[:offset].encode("utf-8")) if one_line else literal.col_offset
        found.append((field, (path, key, literal.lineno, col)))
    return found


def _object_keys(text: str) -> Iterator[tuple[str, str, str, int]]:
    """(the key of the outermost object it is under, the path below that key to the
    object holding it, the key, where its name starts in ``text``) for each key of the
    valid JSON object ``text``, in order: past the key's opening quote, or at the quote
    when the key is written with escapes."""
    stack: list[list[str]] = []  # the containers open: ["{", the key being given] or ["[", ""]
    expecting_key = False
    index = 0
    while index < len(text):
        char = text[index]
        if char == '"':
            end = index + 1
            while text[end] != '"':
                end += 2 if text[end] == "\\" else 1
            if expecting_key:
                key = json.loads(text[index : end + 1])
                field = stack[0][1] if len(stack) > 1 else ""
                path = "".join("[]" if kind == "[" else f"[{given!r}]" for kind, given in stack[1:-1])
                yield field, path, key, index + 1 if text[index + 1 : end] == key else index
                stack[-1][1] = key
                expecting_key = False
            index = end + 1
            continue
        if char == "{":
            stack.append(["{", ""])
            expecting_key = True
        elif char == "[":
            stack.append(["[", ""])
        elif char == "}" or char == "]":
            stack.pop()
        elif char == ",":
            expecting_key = stack[-1][0] == "{"
        index += 1
