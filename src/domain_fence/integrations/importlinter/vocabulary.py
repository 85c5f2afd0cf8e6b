"""The ``vocabulary`` contract type: runtime events carry no experiment vocabulary.

Its options are the vocabulary family's; the check is the engine's
(:mod:`domain_fence.core.families.vocabulary`). It reads sources, not the import graph.
"""

from __future__ import annotations

from domain_fence.core.families.vocabulary import VOCABULARY

from .base import FenceContract


class VocabularyContract(FenceContract):
    """Events defined in ``modules`` and deriving from ``event_bases`` must not use
    the experiment ``words`` in their field names, class names, kind strings, or the
    keywords runtime code passes when constructing them; with a wider ``scope``, no
    attribute, parameter or definition in ``modules`` may use them either.

    Options: ``modules``, ``event_bases``, ``words``, ``allow``, ``kind_attributes``,
    ``scope``, ``baseline`` and ``unmatched_baseline_alerting`` (see the README).
    """

    type_name = "vocabulary"
    family = VOCABULARY


__all__ = ["VocabularyContract"]
