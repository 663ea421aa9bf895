"""The tune package as a newcomer reads it: its docstring's map names every module, and its public
surface stays small (issue 30, item 4)."""

from __future__ import annotations

from pathlib import Path

import ctxlab.tune as tune


def test_the_map_names_every_module():
    modules = {p.stem for p in Path(tune.__file__).parent.glob("*.py")} - {"__init__"}
    assert modules and not {m for m in modules if f"`{m}`" not in (tune.__doc__ or "")}


def test_the_public_surface_is_at_most_twenty_names_and_each_resolves():
    assert len(tune.__all__) <= 20
    assert all(getattr(tune, name) is not None for name in tune.__all__)
