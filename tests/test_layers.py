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
    ("integrations",),
    ("analysis", "report"),
    ("tune",),
    ("learn",),
    ("bench", "demo"),
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


# ---- inside strategies/ ---------------------------------------------------------------------------

# The sub-layers of ctxlab.strategies, lowest first; the package's own __init__ (the exports) may
# import any of them, and nothing in the package imports it.
STRATEGY_LAYERS = (
    ("trigger", "registry", "signals"),
    ("result",),
    ("base",),
    ("mechanics",),
    ("policy",),
    ("presets", "seeds", "noop", "observation_masking", "pipeline"),
)
STRATEGY_RANK = {name: level for level, names in enumerate(STRATEGY_LAYERS) for name in names}
STRATEGIES = PACKAGE / "strategies"
STRATEGY_MODULES = sorted(p for p in STRATEGIES.rglob("*.py") if p != STRATEGIES / "__init__.py")


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def is_module(name: str) -> bool:
    path = PACKAGE.parent.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def runtime_imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every ctxlab.strategies import in a file, ``from package import submodule``
    resolved to the submodule; imports only type checkers see (``if TYPE_CHECKING:``) left out."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = {id(n) for node in ast.walk(tree) if isinstance(node, ast.If)
                   and getattr(node.test, "id", getattr(node.test, "attr", "")) == "TYPE_CHECKING"
                   for n in ast.walk(node)}
    found = []
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found += [(node.lineno, f"{node.module}.{a.name}" if is_module(f"{node.module}.{a.name}") else node.module)
                      for a in node.names]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
    return [(line, name) for line, name in found if name.startswith("ctxlab.strategies")]


def sub_area(name: str) -> str:
    parts = name.split(".")
    return parts[2] if len(parts) > 2 else ""


def test_every_strategies_module_has_a_sub_layer():
    assert {sub_area(module_name(p)) for p in STRATEGY_MODULES} <= set(STRATEGY_RANK), "add it to STRATEGY_LAYERS"


@pytest.mark.parametrize("path", STRATEGY_MODULES, ids=lambda p: str(p.relative_to(STRATEGIES)))
def test_strategies_imports_point_down(path: Path):
    here = sub_area(module_name(path))
    wrong = [f"line {line}: {name}" for line, name in runtime_imports(path)
             if name == "ctxlab.strategies" or STRATEGY_RANK[sub_area(name)] > STRATEGY_RANK[here]]
    assert not wrong, f"{path.relative_to(PACKAGE)} imports the package root or a higher sub-layer: {wrong}"


def test_strategies_has_no_import_cycle():
    graph = {module_name(p): {name for _, name in runtime_imports(p)} for p in STRATEGY_MODULES}
    done: set[str] = set()

    def visit(name: str, path: tuple[str, ...]) -> None:
        assert name not in path, f"import cycle: {' -> '.join((*path, name))}"
        if name in done:
            return
        for other in sorted(graph.get(name, ())):
            visit(other, (*path, name))
        done.add(name)

    for name in graph:
        visit(name, ())


def test_a_seed_packages_helpers_are_its_own():
    """A seed that is a package keeps its helper modules to itself (tests may import them)."""
    helpers = {module_name(p) for p in (STRATEGIES / "seeds").glob("*/*.py") if p.name != "__init__.py"}
    for path in (*STRATEGY_MODULES, *MODULES):
        home = module_name(path)
        for line, name in runtime_imports(path):
            owner = name.rsplit(".", 1)[0]
            assert name not in helpers or home.startswith(owner), f"{home} line {line} imports {name}"
