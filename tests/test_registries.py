"""One registration mechanism: every named kind is a `ctxlab.registry.Registry`.

A hand-rolled registry is a module-level dict from names to code (functions or classes) or to
entries that carry their own name (``{entry.preset: entry for entry in ...}``): the shape the
agent-log finders and the knob table had beside the Registry. The test imports every module of
the package and looks for one in each module's globals. A name is an identifier (``claude_code``):
a table keyed by file suffix or free text is not a registry of names. `ALLOWED` lists the tables of
that shape that are not named kinds, each with why.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import pkgutil
from collections.abc import Mapping
from types import SimpleNamespace
from typing import Any

import ctxlab
from ctxlab.registry import Registry

# Tables of names to code that no one looks up by a name they write, nor registers into.
ALLOWED = {
    "ctxlab.datasets.synth.agent_flow._PHASES": "the synthetic agent's phases, drawn by weight at random",
    "ctxlab.datasets.synth.biglogs.LOG_GENERATORS": "the synthetic big-log generators, drawn at random",
    "ctxlab.integrations.lc_messages._NEW": "LangChain's message class for each chat role: a fixed format mapping",
}
NAME_FIELDS = ("name", "preset", "kind", "agent")


def modules() -> list[Any]:
    """Every module of the package, imported (``__main__`` would run the CLI)."""
    names = [m.name for m in pkgutil.walk_packages(ctxlab.__path__, "ctxlab.") if not m.name.endswith("__main__")]
    return [ctxlab, *(importlib.import_module(name) for name in names)]


def hand_rolled(table: Any) -> str:
    """Why `table` is a hand-rolled registry ("" when it is not one)."""
    if isinstance(table, Registry) or not isinstance(table, Mapping) or len(table) < 2:
        return ""
    if not all(isinstance(key, str) and key.isidentifier() for key in table):
        return ""
    code = (inspect.isfunction(v) or inspect.isclass(v) or inspect.ismethod(v) or inspect.isbuiltin(v)
            or isinstance(v, functools.partial) for v in table.values())
    if all(code):
        return "names -> code"
    if all(any(getattr(v, field, None) == key for field in NAME_FIELDS) for key, v in table.items()):
        return "names -> entries named by their key"
    return ""


def found() -> dict[str, str]:
    """Every hand-rolled registry in the package by its qualified name (where it is defined: a
    table imported elsewhere is found once)."""
    seen: set[int] = set()
    out = {}
    for module in modules():
        for name, value in vars(module).items():
            why = hand_rolled(value)
            if why and id(value) not in seen:
                seen.add(id(value))
                out[f"{module.__name__}.{name}"] = why
    return out


def test_every_named_kind_is_a_registry():
    extra = {name: why for name, why in found().items() if name not in ALLOWED}
    assert not extra, f"use ctxlab.registry.Registry for these named kinds: {extra}"


def test_the_allowed_tables_still_exist():
    """An allowance outlives nothing: each names a table that is still there and still of that shape."""
    assert set(ALLOWED) <= set(found())


def test_each_kind_has_one_registry():
    by_kind: dict[str, dict[int, str]] = {}
    for module in modules():
        for name, value in vars(module).items():
            if isinstance(value, Registry):
                by_kind.setdefault(value.kind, {}).setdefault(id(value), f"{module.__name__}.{name}")
    twice = {kind: sorted(owners.values()) for kind, owners in by_kind.items() if len(owners) > 1}
    assert not twice, f"two registries of one kind: {twice}"
    assert {"strategy", "counter", "summarizer", "log format", "agent", "tail", "snap"} <= set(by_kind)


def test_the_detector_finds_the_shapes_a_registry_replaces():
    def finder() -> None: ...

    entries = {"pi": SimpleNamespace(preset="pi"), "codex": SimpleNamespace(preset="codex")}
    assert hand_rolled({"claude_code": finder, "codex": finder}) == "names -> code"
    assert hand_rolled({"json": dict, "toml": list}) == "names -> code"
    assert hand_rolled(entries) == "names -> entries named by their key"
    assert not hand_rolled({".jsonl": finder, ".md": finder})  # file suffixes, not names
    assert not hand_rolled({"label": "policy", "ci": "95% CI"})  # headers: names to text
    assert not hand_rolled({"pi": SimpleNamespace(preset="other"), "codex": entries["codex"]})
    registry: Registry[Any] = Registry("thing")
    registry.register("a", finder)
    registry.register("b", finder)
    assert not hand_rolled(registry)
