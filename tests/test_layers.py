"""The package's layers point down only: a module may import its own layer and the ones below it.

The order, lowest first, is written here once; README's Layout section shows the same folders.
`ctxlab/__init__.py` may re-export from any layer (it is the public face, loaded lazily).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

LAYERS = (
    ("errors", "registry", "caches"),
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
    ("trigger", "signals", "spec"),
    ("result",),
    ("base",),
    ("registry",),
    ("mechanics",),
    ("policy",),
    ("presets", "seeds", "general"),
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


def test_strategies_top_level_holds_at_most_six_modules():
    """The interface and its vocabulary; everything else lives in a sub-package named for what it is."""
    assert len([p for p in STRATEGIES.glob("*.py") if p.name != "__init__.py"]) <= 6


def test_every_strategies_module_has_a_sub_layer():
    assert {sub_area(module_name(p)) for p in STRATEGY_MODULES} <= set(STRATEGY_RANK), "add it to STRATEGY_LAYERS"


@pytest.mark.parametrize("path", STRATEGY_MODULES, ids=lambda p: str(p.relative_to(STRATEGIES)))
def test_strategies_imports_point_down(path: Path):
    here = sub_area(module_name(path))
    wrong = [f"line {line}: {name}" for line, name in runtime_imports(path)
             if name == "ctxlab.strategies" or STRATEGY_RANK[sub_area(name)] > STRATEGY_RANK[here]]
    assert not wrong, f"{path.relative_to(PACKAGE)} imports the package root or a higher sub-layer: {wrong}"


def test_a_seed_packages_helpers_are_its_own():
    """A seed that is a package keeps its helper modules to itself (tests may import them)."""
    helpers = {module_name(p) for p in (STRATEGIES / "seeds").glob("*/*.py") if p.name != "__init__.py"}
    for path in (*STRATEGY_MODULES, *MODULES):
        home = module_name(path)
        for line, name in runtime_imports(path):
            owner = name.rsplit(".", 1)[0]
            assert name not in helpers or home.startswith(owner), f"{home} line {line} imports {name}"


# ---- no import cycle anywhere -------------------------------------------------------------------

def all_imports(path: Path) -> set[str]:
    """Every ctxlab module `path` imports: at module level, deferred inside a function, and for type
    checkers only (``if TYPE_CHECKING:``). A deferred or typing-only import still makes a module
    depend on another; hiding a cycle behind one is how cycles came back before. ``from package
    import submodule`` is an edge to the submodule; ``from package import name`` to the package's
    ``__init__``; relative imports are resolved. A registry's lazy ``"module:attribute"`` entry is
    not an import (it is resolved when the name is looked up), nor is the parent package a
    submodule's import implies."""
    here = module_name(path)
    package = here if path.name == "__init__.py" else here.rpartition(".")[0]
    return imports_in(path.read_text(encoding="utf-8"), here, package)


def imports_in(source: str, here: str, package: str) -> set[str]:
    """The ctxlab modules `source` (the module `here`, in `package`) imports; see `all_imports`."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join([*parts[:len(parts) - node.level + 1], *([base] if base else [])])
            found |= {f"{base}.{a.name}" if is_module(f"{base}.{a.name}") else base for a in node.names}
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
    return {name for name in found if name.split(".")[0] == "ctxlab" and name != here}


def import_cycle(graph: dict[str, set[str]]) -> list[str]:
    """One cycle of `graph` (module -> the modules it imports) as a path, [] when it has none."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(name: str) -> list[str]:
        state[name] = 1
        path.append(name)
        for other in sorted(graph.get(name, ())):
            if state.get(other) == 1:
                return [*path[path.index(other):], other]
            if other not in state and (found := visit(other)):
                return found
        state[name] = 2
        path.pop()
        return []

    for name in sorted(graph):
        if name not in state and (found := visit(name)):
            return found
    return []


def test_the_package_has_no_import_cycle():
    graph = {module_name(p): all_imports(p) for p in sorted(PACKAGE.rglob("*.py"))}
    cycle = import_cycle(graph)
    assert not cycle, f"import cycle: {' -> '.join(cycle)}"


def test_a_cycle_is_found_through_deferred_and_typing_imports():
    graph = {"ctxlab.a": {"ctxlab.b"}, "ctxlab.b": {"ctxlab.c"}, "ctxlab.c": {"ctxlab.a"}, "ctxlab.d": {"ctxlab.a"}}
    assert import_cycle(graph) == ["ctxlab.a", "ctxlab.b", "ctxlab.c", "ctxlab.a"]
    assert import_cycle({**graph, "ctxlab.c": set()}) == []
    source = ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ctxlab.cli import app\n"
              "def f():\n    from ctxlab import tune\n    from . import synth\n    from .logs import aider\n"
              "LAZY = 'ctxlab.summarize.llm:LLMSummarizer'\n")
    assert imports_in(source, "ctxlab.datasets.paths", "ctxlab.datasets") == {
        "ctxlab.cli.app", "ctxlab.tune", "ctxlab.datasets.synth", "ctxlab.datasets.logs.aider"}

