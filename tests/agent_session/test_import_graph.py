"""No import cycles among the core's modules (ai, agent, session): a collaborator never imports its facade.

Imports under ``if TYPE_CHECKING:`` do not count; imports inside functions do (a lazy import is still a cycle).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORE = ("pi_app/ai", "pi_app/agent", "pi_app/session")
# Package-internal cycles of modules other sessions own (their __init__ re-exports what a submodule imports
# back); remove an entry once its package is fixed.
KNOWN = {
    frozenset({"pi_app.session.store", "pi_app.session.store.manager"}),
    frozenset(
        {
            "pi_app.session.config",
            "pi_app.session.config.auth",
            "pi_app.session.config.registry",
            "pi_app.session.config.resolver",
            "pi_app.session.config.settings",
        }
    ),
}


def _modules() -> dict[str, Path]:
    out: dict[str, Path] = {}
    for folder in CORE:
        for path in (ROOT / folder).rglob("*.py"):
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            out[name.removesuffix(".__init__")] = path
    return out


def _imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    found: set[str] = set()
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]

    def targets(node: ast.Import | ast.ImportFrom) -> list[str]:
        if isinstance(node, ast.Import):
            return [a.name for a in node.names]
        base = package[: len(package) - node.level + 1] if node.level else []
        module = ".".join([*base, *([node.module] if node.module else [])])
        return [module, *(f"{module}.{a.name}" for a in node.names)]

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.If) and ast.unparse(node.test) in (
                "TYPE_CHECKING",
                "typing.TYPE_CHECKING",
            ):
                visit(node.orelse)
                continue
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                found.update(t for t in targets(node) if t in known and t != name)
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.stmt):
                    visit([child])
                elif isinstance(child, ast.ExceptHandler):
                    visit(child.body)

    visit(ast.parse(path.read_text()).body)
    return found


def _cycles(edges: dict[str, set[str]]) -> list[frozenset[str]]:
    """Strongly connected components with more than one module (iterative Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[frozenset[str]] = []
    for start in edges:
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    out.append(frozenset(component))
    return out


def test_graph_sees_imports():
    modules = _modules()
    edges = {name: _imports(name, path, modules) for name, path in modules.items()}
    assert "pi_app.session.auto_compaction" in edges["pi_app.session.agent_session"]
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [frozenset({"a", "b", "c"})]


def test_no_import_cycles_in_the_core():
    modules = _modules()
    edges = {name: _imports(name, path, modules) for name, path in modules.items()}
    cycles = [sorted(c) for c in _cycles(edges) if c not in KNOWN]
    assert cycles == []
