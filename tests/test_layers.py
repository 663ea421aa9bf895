"""The package's layers point down only: a module may import its own layer and the ones below it.

The order, lowest first, is written here once; README's Layout section shows the same folders.
`ctxlab/__init__.py` may re-export from any layer (it is the public face, loaded lazily).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

LAYERS = (
    ("errors", "registry"),
    ("messages", "models"),
    ("tokens",),
    ("summarize", "datasets", "store", "history"),
    ("strategies", "cost"),
    ("metrics",),
    ("replay",),
    ("analysis", "report", "bench"),
    ("tune",),
    ("cli",),
)
RANK = {name: level for level, names in enumerate(LAYERS) for name in names}
PACKAGE = Path(__file__).resolve().parents[1] / "ctxlab"
MODULES = sorted(p for p in PACKAGE.rglob("*.py") if p.relative_to(PACKAGE).parts != ("__init__.py",))


def area(path: Path) -> str:
    """The top-level package or module of ctxlab a file belongs to (``strategies``, ``errors``)."""
    return path.relative_to(PACKAGE).parts[0].removesuffix(".py")


def imported_areas(path: Path) -> list[tuple[int, str]]:
    """(line, area) of every ctxlab import in a file, deferred imports inside functions included."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [f"{node.module}.{a.name}" for a in node.names] if node.module == "ctxlab" else [node.module]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        found += [(node.lineno, n.split(".")[1]) for n in names if n.startswith("ctxlab.")]
        found += [(node.lineno, "dashboard") for n in names if n.split(".")[0] == "dashboard"]
    return found


def test_every_area_has_a_layer():
    assert {area(p) for p in MODULES} <= set(RANK), "add the new area to LAYERS"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_point_down(path: Path):
    here = area(path)
    upward = [f"line {line}: {here} imports {other}" for line, other in imported_areas(path)
              if other == "dashboard" or RANK.get(other, -1) > RANK[here]]
    assert not upward, f"{path.relative_to(PACKAGE)} imports a higher layer: {upward}"
