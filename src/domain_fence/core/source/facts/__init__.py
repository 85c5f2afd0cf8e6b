"""What one module says: its imports, its classes and their attributes, the calls it
makes with keyword arguments, the names it declares and its module-level definitions.

:func:`extract` walks a module's tree once and extracts what every family needs,
so the tree can be dropped at once: the index keeps (and caches on disk) these
facts, never trees. It is a pure function of the module's name, whether it is a
package, and its tree. The declarations are a separate value: only the vocabulary
contract's opt-in scopes read them, and they are the bulk of the facts, so the
cache decodes them only when asked. The flow facts DOM105 reads are extracted apart
(:func:`flow_facts`), for the few modules that need them. Names are resolved only as
far as this module can see (``from .base import Event as E`` makes ``E`` mean
``pkg.base.Event``); following re-exports into other modules is left to the caller,
which has the whole project.

The walk visits statements, and the expressions of each statement only to find
calls: every import, class and definition is a statement, so this finds them all
while touching far fewer nodes than a walk of every node would.

Everything the rest of the core uses is imported from here. The package's modules,
each importing only those listed after it (but for annotations: the facts-layers
contract in ``.importlinter``):

- ``extraction``: the entry points;
- ``receiver_strings``, ``arguments``, ``callables``, ``attachments``, ``local_dicts``:
  what is read of the walk's findings once the module's names resolve;
- ``local_strings``: the strings a local variable holds; ``constructions``: the calls
  that build an instance of a class, and of which;
- ``resolver``: the module's names resolved, the facts that need them; ``walk``: its
  statements walked once;
- ``init_order``, ``definitions``, ``class_body``, ``module_constants``, ``folding``,
  ``scopes``, ``syntax``: questions asked of the tree;
- ``records``: the facts, the classes the fact cache pickles.
"""

from domain_fence.core.source.facts.constructions import (
    CLS,
    LOCAL,
    MODEL_CONSTRUCT,
    MODEL_COPY,
    MODEL_VALIDATE,
    PARTIAL,
    REPLACE,
    SELF_CLASS,
    SUPER_INIT,
    TYPE_SELF,
)
from domain_fence.core.source.facts.definitions import (
    bound_names,
    method_definitions,
    nested_class_definitions,
    top_level_definitions,
)
from domain_fence.core.source.facts.extraction import (
    Walked,
    attached_names,
    extract,
    extract_traced,
    extract_walked,
    file_facts,
    flow_facts,
    import_facts,
    walked_flows,
)
from domain_fence.core.source.facts.records import (
    ALIAS_KEYWORDS,
    BINDING,
    DATACLASS,
    FUNCTIONAL_CLASS_FACTORIES,
    INHERITED,
    MODULE_SCOPE,
    NAMEDTUPLE,
    OBJECT_SETATTR,
    SETATTR,
    AttributeFact,
    AttributeSetFact,
    BoundName,
    CallFact,
    ClassFact,
    ConstructionFact,
    DeclarationFacts,
    DefinitionFact,
    EmitterFact,
    FileFacts,
    ImportFact,
    ImportFacts,
    MemberFact,
    MethodDefinition,
    ModuleFacts,
    NestedClassDefinition,
    PositionalFact,
    ReceiverStringFact,
    Text,
    TopLevelDefinition,
)
from domain_fence.core.source.facts.syntax import dotted_name, import_fact, import_source

__all__ = [
    "ALIAS_KEYWORDS",
    "BINDING",
    "CLS",
    "DATACLASS",
    "FUNCTIONAL_CLASS_FACTORIES",
    "INHERITED",
    "LOCAL",
    "MODEL_CONSTRUCT",
    "MODEL_COPY",
    "MODEL_VALIDATE",
    "MODULE_SCOPE",
    "NAMEDTUPLE",
    "OBJECT_SETATTR",
    "PARTIAL",
    "REPLACE",
    "SELF_CLASS",
    "SETATTR",
    "SUPER_INIT",
    "TYPE_SELF",
    "AttributeFact",
    "AttributeSetFact",
    "BoundName",
    "CallFact",
    "ClassFact",
    "ConstructionFact",
    "DeclarationFacts",
    "DefinitionFact",
    "EmitterFact",
    "FileFacts",
    "ImportFact",
    "ImportFacts",
    "MemberFact",
    "MethodDefinition",
    "ModuleFacts",
    "NestedClassDefinition",
    "PositionalFact",
    "ReceiverStringFact",
    "Text",
    "TopLevelDefinition",
    "Walked",
    "attached_names",
    "bound_names",
    "dotted_name",
    "extract",
    "extract_traced",
    "extract_walked",
    "file_facts",
    "flow_facts",
    "import_fact",
    "import_facts",
    "import_source",
    "method_definitions",
    "nested_class_definitions",
    "top_level_definitions",
    "walked_flows",
]
