"""No layer imports the one above it, and no module imports itself back: the modules of
obliq_cli are read as text (every import, at module level or inside a function) and checked
against the layer map and for circles.

The map: tree <- algorithms <- pruning <- experiment <- report <- cli, with data and config
below experiment; ``registry`` (the names of algorithms, pruners, datasets, protocols,
metrics and backends) and the helpers beside it (errors, parameters, ...) import no layer:
the registry loads the built-in modules by name. The experiment and the report reach
algorithms and pruners through the registry only, never by importing them."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "obliq_cli"

# What each part may not import (by module path below obliq_cli).
FORBIDDEN = {
    "tree": ("algorithms", "pruning", "experiment", "report", "cli", "config"),
    "algorithms": ("pruning", "experiment", "report", "cli", "config"),
    "pruning": ("experiment", "report", "cli", "config"),
    "data": ("algorithms", "pruning", "experiment", "report", "cli", "config"),
    # the config reads protocols, metrics and backends through the registry
    "config": ("experiment", "algorithms", "pruning", "data", "report", "cli"),
    "experiment": ("algorithms", "pruning", "report", "cli"),
    "report": ("algorithms", "pruning", "cli"),
    "registry": ("tree", "algorithms", "pruning", "data", "experiment", "report", "cli",
                 "config", "model"),
    "parameters": ("registry", "tree", "algorithms", "pruning", "data", "experiment",
                   "report", "cli", "config", "model"),
    "errors": ("registry", "parameters", "tree", "algorithms", "pruning", "data",
               "experiment", "report", "cli", "config", "model"),
}


def _imports(path: Path) -> list[str]:
    """Absolute module names below obliq_cli that ``path`` imports."""
    module = path.relative_to(PACKAGE.parent).with_suffix("").parts
    package = module[:-1] if path.name != "__init__.py" else module[:-1]
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - node.level + 1]
                name = ".".join(base + tuple((node.module or "").split(".")))
                out.append(name.rstrip("."))
                out += [f"{name.rstrip('.')}.{a.name}" for a in node.names]
            elif node.module:
                out.append(node.module)
        elif isinstance(node, ast.Import):
            out += [a.name for a in node.names]
    return [name for name in out if name.startswith("obliq_cli")]


def _part(module_parts: tuple[str, ...]) -> str:
    return module_parts[1] if len(module_parts) > 1 else ""


def test_no_module_imports_a_layer_above_its_own():
    problems = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        own = _part(parts)
        for name in _imports(path):
            target = _part(tuple(name.split(".")))
            if target in FORBIDDEN.get(own, ()):
                problems.append(f"{'/'.join(parts)}.py imports {name}")
    assert problems == []


def test_the_scan_sees_relative_and_late_imports(tmp_path):
    # the checker itself: a function-level relative import is found
    names = _imports(PACKAGE / "config.py")
    assert "obliq_cli.reference_file.read_reference" in names


def _modules() -> dict[str, Path]:
    """Module name -> file, for every module and package of obliq_cli."""
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        out[".".join(parts[:-1] if path.name == "__init__.py" else parts)] = path
    return out


def _module_graph() -> dict[str, set[str]]:
    """Module -> the modules of obliq_cli it imports. ``from x import y`` counts as an
    import of ``x.y`` when that is a module, else of ``x`` (a name defined there)."""
    modules = _modules()

    def resolve(name: str) -> str:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name

    graph = {}
    for name, path in modules.items():
        targets = set()
        imported = _imports(path)
        for target in imported:
            found = resolve(target)
            # "from . import registry" lists both "obliq_cli" and "obliq_cli.registry":
            # the package counts only when no module below it was meant
            if any(resolve(other) != found for other in imported
                   if other.startswith(target + ".")):
                continue
            targets.add(found)
        graph[name] = targets - {name, ""}
    return graph


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm,
    iterative): each is a set of modules that import each other round a circle."""
    index, low, on_stack, stack, out = {}, {}, set(), [], []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    out.append(sorted(component))
    return out


def test_no_import_circle_between_modules():
    assert _circles(_module_graph()) == []


def test_the_circle_finder_finds_a_circle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"e"}}
    assert _circles(graph) == [["a", "b", "c"]]
    assert _circles({"a": {"b"}, "b": set()}) == []


def test_the_graph_resolves_names_to_modules():
    graph = _module_graph()
    # "from . import registry" is an edge to the registry, not to the package
    assert "obliq_cli.registry" in graph["obliq_cli.config"]
    assert "obliq_cli" not in graph["obliq_cli.config"]
    # "from .registry import suggest" is an edge to the module that defines it
    assert "obliq_cli.registry.suggest" not in graph["obliq_cli.config"]


def test_no_import_circle_between_parts():
    # config.py -> experiment/metrics.py and experiment/replay.py -> config.py made no
    # circle of modules, yet one of parts: experiment above config, config above it
    def part(module: str) -> str:
        parts = module.split(".")
        return parts[1] if len(parts) > 1 else parts[0]

    graph: dict[str, set[str]] = {}
    for module, targets in _module_graph().items():
        graph.setdefault(part(module), set()).update(
            part(t) for t in targets if part(t) != part(module))
    assert _circles(graph) == []
