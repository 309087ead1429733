"""render/registry.py finds a result's renderer by the name of the result's type: every name it
lists is a result type that exists, each renderer loads and has its four formats, and a type it
does not list is refused (plain data; no cluster)."""

from __future__ import annotations

import importlib
from dataclasses import dataclass

import pytest

from kafka_groups.render import registry


@pytest.mark.parametrize("name", sorted(registry._RENDERERS))
def test_every_listed_type_exists_and_its_renderer_loads(name):
    module, _, qualname = name.rpartition(".")
    kind = getattr(importlib.import_module(module), qualname)
    assert f"{kind.__module__}.{kind.__qualname__}" == name  # the key is how renderer_for names it
    renderer = registry._RENDERERS[name]()
    assert all(callable(f) for f in (renderer.text, renderer.table, renderer.json, renderer.csv))


def test_the_result_types_of_every_module_are_listed():
    """Each ``*Result`` class of the core modules has a renderer (a new result type without one
    would fail only when a command first printed it)."""
    modules = ["groups", "describe", "topics", "streams", "health", "reset_plan", "delete"]
    results = set()
    for m in modules:
        module = importlib.import_module(f"kafka_groups.core.{m}")
        results |= {
            f"{module.__name__}.{name}"
            for name, value in vars(module).items()
            if isinstance(value, type) and name.endswith("Result") and value.__module__ == module.__name__
        }
    assert results <= set(registry._RENDERERS), sorted(results - set(registry._RENDERERS))


def test_a_type_without_a_renderer_is_refused():
    @dataclass(frozen=True)
    class Unlisted:
        rows: tuple[str, ...] = ()

    with pytest.raises(TypeError, match="no renderer for Unlisted"):
        registry.renderer_for(Unlisted())
