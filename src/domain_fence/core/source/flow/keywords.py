"""The keywords a call is given, as written: unpacked from a dict display or a
``dict(...)`` call, named by a construction's form, or a mapping whose keys are not known."""

import ast

from domain_fence.core.source.flow.records import JSON_VALIDATOR, MAPPING_VALIDATORS, SPREAD
from domain_fence.core.source.flow.syntax import _intern, _shown


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
