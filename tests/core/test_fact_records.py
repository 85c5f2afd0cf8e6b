"""The fact records defined in a class body are values of their own class: built,
compared, hashed, printed and pickled as any other fact, and frozen."""

from __future__ import annotations

import dataclasses
import pickle

import pytest

from domain_fence.core.source.facts import MethodDefinition, NestedClassDefinition

RECORDS = [MethodDefinition, NestedClassDefinition]


@pytest.mark.parametrize("record", RECORDS, ids=lambda record: record.__name__)
def test_a_record_of_a_class_body_is_a_frozen_value_of_its_own_class(record):
    made = record("Outer.Inner", "step", 3, 4)
    assert made == record(owner="Outer.Inner", name="step", line=3, col=4)
    assert hash(made) == hash(record("Outer.Inner", "step", 3, 4))
    assert made != record("Outer.Inner", "step", 3, 5)
    assert repr(made) == f"{record.__name__}(owner='Outer.Inner', name='step', line=3, col=4)"
    assert made.qualname == "Outer.Inner.step"
    assert pickle.loads(pickle.dumps(made)) == made
    moved = dataclasses.replace(made, line=7)
    assert type(moved) is record and moved == record("Outer.Inner", "step", 7, 4)
    assert [field.name for field in dataclasses.fields(record)] == ["owner", "name", "line", "col"]
    assert made != ("Outer.Inner", "step", 3, 4)
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.name = "other"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.added = True  # type: ignore[attr-defined]


def test_a_method_and_a_nested_class_of_the_same_place_differ():
    method, nested = MethodDefinition("Outer", "step", 3, 4), NestedClassDefinition("Outer", "step", 3, 4)
    assert method != nested and nested != method
    assert len({method, nested}) == 2
