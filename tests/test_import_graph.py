"""The project's import graph, read statically (``ast``) from ``pi_app``, ``widgets`` and ``themes``.

What counts as an edge, and why:
- Cycles: every import statement counts — module level, inside functions, and under ``if TYPE_CHECKING:``.
  Deferring an import into a function or behind ``TYPE_CHECKING`` hides a cycle from the interpreter but
  not from the design: the two modules still know each other. A collaborator that needs part of another
  module's class takes a ``Protocol`` from a module lower down instead.
- Layering (no Textual below the front end): module-level and function-level imports, transitively, plus
  the package ``__init__`` every import runs. ``TYPE_CHECKING`` imports are left out here — they never run.

``from pkg import name`` is an edge to ``pkg.name`` when that is a module of the project, else to ``pkg``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("pi_app", "widgets", "themes")
CORE = ("pi_app.ai", "pi_app.agent", "pi_app.tools", "pi_app.session", "pi_app.modes")
FORBIDDEN_IN_CORE = ("textual", "themes.textual_adapter", "pi_app.tui", "widgets")


@dataclass(frozen=True)
class Edge:
    source: str
    target: str
    scope: str  # "module", "function" or "typing"


@cache
def project_modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _targets(module: str, is_package: bool, node: ast.Import | ast.ImportFrom) -> Iterator[str]:
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
        return
    if node.level:
        base = module.split(".") if is_package else module.split(".")[:-1]
        base = base[: len(base) - (node.level - 1)]
        origin = ".".join([*base, node.module] if node.module else base)
    else:
        origin = node.module or ""
    for alias in node.names:
        candidate = f"{origin}.{alias.name}"
        yield candidate if candidate in project_modules() else origin


def imports_of(module: str) -> list[Edge]:
    path = project_modules()[module]
    is_package = path.name == "__init__.py"
    edges: list[Edge] = []

    def walk(node: ast.AST, scope: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                edges.extend(Edge(module, t, scope) for t in _targets(module, is_package, child))
            elif isinstance(child, ast.If) and _is_type_checking(child):
                for inner in child.body:
                    walk(ast.Module(body=[inner], type_ignores=[]), "typing")
                for inner in child.orelse:
                    walk(ast.Module(body=[inner], type_ignores=[]), scope)
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                walk(child, "function" if scope == "module" else scope)
            else:
                walk(child, scope)

    walk(ast.parse(path.read_text(encoding="utf-8"), str(path)), "module")
    return edges


@cache
def all_edges() -> tuple[Edge, ...]:
    return tuple(edge for module in sorted(project_modules()) for edge in imports_of(module))


def project_graph() -> dict[str, set[str]]:
    """Module -> the project modules it imports, every kind of import."""
    modules = project_modules()
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for edge in all_edges():
        if edge.target in modules and edge.target != edge.source:
            graph[edge.source].add(edge.target)
    return graph


def cycles(graph: dict[str, set[str]] | None = None) -> list[frozenset[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    graph = project_graph() if graph is None else graph
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component: set[str] = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(frozenset(component))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return found


def _within(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def _with_packages(name: str) -> list[str]:
    """Importing ``a.b.c`` runs ``a/__init__``, ``a/b/__init__`` and then ``a.b.c``."""
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts) + 1)]


def runtime_reach(start: str) -> dict[str, str]:
    """Every module ``start`` loads when imported or run (module- and function-level imports, transitively),
    each with the module that imports it."""
    modules = project_modules()
    by_source: dict[str, list[str]] = {}
    for edge in all_edges():
        if edge.scope != "typing":
            by_source.setdefault(edge.source, []).append(edge.target)
    seen: dict[str, str] = {}
    todo = [start]
    while todo:
        current = todo.pop()
        for target in by_source.get(current, []):
            for name in _with_packages(target):
                if name not in seen and name != start:
                    seen[name] = current
                    if name in modules:
                        todo.append(name)
    return seen


def _chain(start: str, reached: dict[str, str], end: str) -> str:
    path = [end]
    while path[-1] != start and path[-1] in reached:
        path.append(reached[path[-1]])
    return " -> ".join(reversed(path))


# ----------------------------------------------------------------------------------------- the graph itself


def test_the_reader_sees_every_kind_of_import() -> None:
    """Guards the guard: the parser finds known module-level, function-level and TYPE_CHECKING imports."""
    edges = set(all_edges())
    assert Edge("pi_app.tui.app", "pi_app.tui.options", "module") in edges
    assert Edge("pi_app.cli", "pi_app.modes.startup", "function") in edges
    assert Edge("pi_app.modes.startup", "pi_app.session.agent_session", "typing") in edges
    assert any(e.source == "themes" and e.target == "themes.registry" for e in edges)  # relative import


def test_cycle_finder_finds_cycles() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"f"}, "f": {"e"}}
    assert sorted(sorted(c) for c in cycles(graph)) == [["a", "b", "c"], ["e", "f"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles_among_project_modules() -> None:
    found = [sorted(c) for c in cycles()]
    assert found == [], f"import cycles: {found}"


@pytest.mark.parametrize("module", sorted(m for m in project_modules() if _within(m, CORE)))
def test_core_never_loads_textual_or_the_front_end(module: str) -> None:
    reached = runtime_reach(module)
    bad = sorted(name for name in reached if _within(name, FORBIDDEN_IN_CORE))
    assert bad == [], "\n".join(_chain(module, reached, name) for name in bad)


def test_layering_check_sees_the_front_end() -> None:
    """Guards the guard: the front end does reach Textual and the adapter through the same walk."""
    reached = runtime_reach("pi_app.tui.app")
    assert "textual" in reached and "themes.textual_adapter" in reached
