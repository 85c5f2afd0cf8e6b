"""Functions attached to a class from outside its body (``Class.name = value``,
``setattr(Class, "name", value)``): placement's definitions of ``Class.name`` (see
:func:`~.extraction.attached_names`).
"""

from __future__ import annotations

import ast
import unicodedata

from domain_fence.core.source.facts.class_body import _METHOD_FACTORIES
from domain_fence.core.source.facts.definitions import _defines_function
from domain_fence.core.source.facts.records import SETATTR, BoundName
from domain_fence.core.source.facts.scopes import _binding_sites, _run_time_blocks
from domain_fence.core.source.facts.syntax import _contains, _is_dunder, _simple_assignment, dotted_name
from domain_fence.core.source.facts.walk import _Walk

# The calls that make a method, or a function, of what they are given.
_ATTACHING_FACTORIES = frozenset({*_METHOD_FACTORIES, "partial", "partialmethod"})
_FUNCTION_NODES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _attached(walk: _Walk, bindings: dict[str, str], body: list[ast.stmt]) -> list[BoundName]:
    """The functions attached to a class from outside its body, where that runs (at
    module level, in a function, not under ``if TYPE_CHECKING:``): ``Class.name =
    value`` (annotated, chained, or paired in a tuple too) and ``setattr(Class, "name",
    value)`` with the builtin ``setattr`` and the name written as itself. A method of
    the class is defined there, as a ``def`` in its body would be: a binding of
    ``Class.name``, at the name (past the literal's opening quote).

    The class is one of the module's own or one it imports (at module level or in the
    function around), by name or through the modules it imports (``models.EvidenceLM``);
    an imported name names a class when spelt as one (``EvidenceLM``, not ``telemetry``
    or ``DEFAULTS``). What the value is: see :meth:`_AttachedNames.function`. Not a
    class: what a parameter or a variable holds (``self``, ``cls``), what a call
    returns, a module, an attribute of a class that is no class; nor is a dunder
    (``Class.__module__``) a method."""
    if not walk.attachments:
        return []
    names: _AttachedNames | None = None
    found = []
    for node, value, scope in walk.attachments:
        reference = dotted_name(node.value if isinstance(node, ast.Attribute) else node.args[0])
        if reference is None or reference.partition(".")[0] not in bindings:
            continue  # no name of a class the module knows (``self.x = ...``): most of them
        if type(node) is ast.Call and (walk.stars or walk.bound.get(SETATTR)):
            continue  # ``setattr`` may be another function
        written = _attached_name(node)
        if written is None:
            continue
        name, line, col = written
        names = names or _AttachedNames(walk, body)
        functions = names.enclosing(scope, node)
        owner = names.owner(reference, functions)
        renames = names.function(value, functions) if owner else None
        if owner and renames is not None:
            found.append(BoundName(owner, name, line, col, renames))
    return sorted(found, key=lambda binding: (binding.line, binding.col))


def _attached_name(node: ast.Attribute | ast.Call) -> tuple[str, int, int] | None:
    """The name an attachment sets, and its line and column."""
    if isinstance(node, ast.Attribute):
        if _is_dunder(node.attr):
            return None
        width = len(node.attr.encode("utf-8"))  # the name ends the target
        return node.attr, node.end_lineno or node.lineno, (node.end_col_offset or 0) - width
    key = node.args[1]  # see _Walk.attachment_through_call
    text = key.value if isinstance(key, ast.Constant) and isinstance(key.value, str) else ""
    if not text.isidentifier() or _is_dunder(text) or not unicodedata.is_normalized("NFKC", text):
        return None  # no name ``holder.name = `` could set
    if key.lineno != key.end_lineno or (key.end_col_offset or 0) - key.col_offset != len(text.encode("utf-8")) + 2:
        return None  # not written as the name between quotes (joined, escaped, prefixed)
    return text, key.lineno, key.col_offset + 1


class _AttachedNames:
    """What the names an attachment reads are bound to: in the functions around it, or
    at module level (read when first asked)."""

    def __init__(self, walk: _Walk, body: list[ast.stmt]) -> None:
        self.walk = walk
        self.body = body
        self._module: dict[str, tuple[str, str]] | None = None
        self._sites: dict[ast.AST, dict[str, list[ast.AST]]] = {}

    def enclosing(self, scope: tuple[str, ...], node: ast.expr) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
        """The functions around ``node`` (in ``scope``), the innermost first."""
        found = []
        for end in range(len(scope), 0, -1):
            for function in self.walk.functions.get(scope[:end], ()):
                if _contains(function, node):
                    found.append(function)
                    break
        return found

    def bound(self, name: str, functions: list[ast.FunctionDef | ast.AsyncFunctionDef]) -> tuple[str, str] | None:
        """What ``name`` is bound to where it is read: ``("class", name)`` or
        ``("function", name)`` for the module's own class or function (``("local",
        name)`` for one a function around defines), ``("imported", the name imported)``;
        None for anything else (a parameter, a variable, nothing)."""
        for function in functions:
            sites = self.sites(function).get(name)
            if sites:
                if all(type(site) is ast.alias for site in sites):
                    return "imported", _imported_name(sites[0])  # type: ignore[arg-type]
                if all(type(site) in _FUNCTION_NODES for site in sites):
                    return "local", name
                return None
        if self._module is None:
            self._module = _module_bound(self.body, self.walk.type_checking_aliases)
        return self._module.get(name)

    def sites(self, function: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, list[ast.AST]]:
        found = self._sites.get(function)
        if found is None:
            found = self._sites[function] = {}
            for name, site in _binding_sites(function):
                if site is not function:  # its own name is bound around it
                    found.setdefault(name, []).append(site)
        return found

    def owner(self, reference: str, functions: list[ast.FunctionDef | ast.AsyncFunctionDef]) -> str | None:
        """The qualified name of the class ``reference`` names (``EvidenceLM``,
        ``Outer.Inner``): one of the module's own, or one it imports, after the modules
        it is reached through (``models.EvidenceLM``); None when it names no class."""
        head, *rest = reference.split(".")
        bound = self.bound(head, functions)
        if bound is None or bound[0] not in ("class", "imported"):
            return None
        path = [head if bound[0] == "class" else bound[1], *rest]
        if bound[0] == "imported":
            path = _past_modules(path)
        if not path or not all(map(_class_like, path[1:])):
            return None  # a module, or an attribute of a class that is no class
        return ".".join(path)

    def function(self, value: ast.expr, functions: list[ast.FunctionDef | ast.AsyncFunctionDef]) -> str | None:
        """What ``value`` attaches when it is a function, a class or a method: "" for
        one made here (a lambda, ``staticmethod(...)``, ``classmethod(...)``,
        ``property(...)``, ``partial(...)``, a function or class of the module or of a
        function around, a name the module binds to a lambda or a partial), the name of
        one imported (``helpers.reset``, ``Handler.post_episode``: placed where it is
        defined when a pattern names it, see :class:`BoundName`); None for anything
        else: data, ``None``, what a call returns, a parameter, a variable, a name
        spelt as a constant (``DEFAULTS``)."""
        if type(value) is ast.Lambda:
            return ""
        if type(value) is ast.Call:
            callee = dotted_name(value.func)
            return "" if callee is not None and callee.rsplit(".", 1)[-1] in _ATTACHING_FACTORIES else None
        reference = dotted_name(value)
        bound = self.bound(reference.partition(".")[0], functions) if reference is not None else None
        if reference is None or bound is None:
            return None
        kind, original = bound
        head, *through = reference.split(".")
        if not through:
            return "" if kind != "imported" else None if _constant_like(original) else original
        last = through.pop()
        if kind == "imported":
            path = _past_modules([original, *through])
        elif kind == "class":
            path = [head, *through]
        else:
            return None
        if not all(map(_class_like, path[1:])) or _is_dunder(last) or _constant_like(last):
            return None  # an attribute of what is no class, a dunder, a constant
        return last


def _module_bound(body: list[ast.stmt], aliases: frozenset[str]) -> dict[str, tuple[str, str]]:
    """What the module binds at run time that an attachment may name (see
    :meth:`_AttachedNames.bound`): its classes, then its functions, then what it
    imports, then the names it binds to a lambda, a partial or a function of its own."""
    classes: set[str] = set()
    functions: set[str] = set()
    imported: dict[str, str] = {}
    assigned: list[ast.stmt] = []
    pending = list(body)
    while pending:
        node = pending.pop()
        if type(node) is ast.ClassDef:
            classes.add(node.name)
        elif type(node) is ast.FunctionDef or type(node) is ast.AsyncFunctionDef:
            functions.add(node.name)
        elif type(node) is ast.Import or type(node) is ast.ImportFrom:
            for alias in node.names:
                if alias.name != "*":
                    imported.setdefault(alias.asname or alias.name.split(".", 1)[0], _imported_name(alias))
        elif type(node) is ast.Assign or type(node) is ast.AnnAssign:
            assigned.append(node)
        else:
            for block in _run_time_blocks(node, aliases):
                pending += block
    bound: dict[str, tuple[str, str]] = {name: ("imported", original) for name, original in imported.items()}
    for node in assigned:
        target, value = _simple_assignment(node)
        if target and value is not None and _defines_function(value, classes | functions):
            bound.setdefault(target, ("function", target))
    bound.update((name, ("function", name)) for name in functions)
    bound.update((name, ("class", name)) for name in classes)
    return bound


def _imported_name(alias: ast.alias) -> str:
    """The name of what an import binds: ``b`` for ``from a import b as c`` or ``import
    a.b as c``, ``a`` for ``import a.b``."""
    return alias.name.rsplit(".", 1)[-1] if alias.asname else alias.name.split(".", 1)[0]


def _past_modules(path: list[str]) -> list[str]:
    """``path`` from its first part spelt as a class (``models.evidence.EvidenceLM`` ->
    ``EvidenceLM``): what comes before are the modules it is reached through."""
    for index, part in enumerate(path):
        if _class_like(part):
            return path[index:]
    return []


def _class_like(name: str) -> bool:
    """Spelt as a class is: ``EvidenceLM``, ``_Hooks``; not ``telemetry`` or ``DEFAULTS``."""
    bare = name.lstrip("_")
    return bare[:1].isupper() and not bare.isupper()


def _constant_like(name: str) -> bool:
    """Spelt as a constant is: ``DEFAULTS``, ``_MAX_STEPS``."""
    return name.lstrip("_").isupper()
