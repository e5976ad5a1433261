"""No layer imports the one above it, and no module imports itself back: the modules of
obliq_cli are read as text (every import, at module level or inside a function) and checked
against the intended map and for circles.

The map: kernels <- tree <- algorithms <- pruning <- experiment <- analysis <- report <- cli,
with data and config below experiment; ``kernels`` (every compiled function) imports no other room,
and nothing outside the standard library but numpy and numba. A *room* is a package of
obliq_cli (tree, algorithms, ...) or one of its top-level modules (config, registry,
model, ...); ``ALLOWED`` names, for every room, the rooms it may import, and nothing else
is allowed: a room missing from the map is itself a failure, so a new module is placed
on purpose. The helpers (errors, parameters, safe_io,
...) import no layer and any room may use them. ``registry`` (the names of algorithms,
pruners, datasets, protocols, metrics and backends) imports no layer either: it loads the
built-in modules by name, so the experiment, the report and the config reach algorithms
and pruners through the registry only, never by importing them.

``python tests/layout_report.py`` prints the lines per room and the graph between rooms."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "obliq_cli"

# Leaf helpers: they import only each other's base (errors; resources reads files through
# safe_io) and may be imported by any room.
HELPERS = {
    "errors": set(),
    "version": set(),
    "logs": set(),
    "jit_cache": set(),
    "timing": set(),
    "fit_threads": set(),  # how many threads one fit may use (n_threads)
    "parameters": {"errors"},
    "invariances": set(),  # what algorithms declare they keep (their table's vocabulary)
    "safe_io": {"errors"},
    "csvio": {"errors"},
    "yaml_input": {"errors"},
    "interrupts": {"errors"},
    "resources": {"errors", "safe_io"},
    # the keys of an input format as data and their one check (parameters' constraints,
    # yaml_input's lines)
    "fields": {"errors", "parameters", "yaml_input"},
    "weights": {"errors", "parameters"},  # the weight of a row, for the fit and the pruners
}

# Every other room and the rooms (besides the helpers) it may import: the intended map.
ALLOWED = {
    "registry": set(),
    "reference_file": set(),  # the papers' values file, read by config and analysis
    "kernels": set(),
    "tree": {"kernels"},
    "algorithms": {"kernels", "tree", "registry"},
    "pruning": {"kernels", "tree", "registry"},  # network pruning's fixed-order products
    "data": {"kernels", "tree", "registry"},  # the generators' fixed-order rotations
    "config_schema": {"registry", "data"},  # the keys of every config scope, as data
    "config": {"registry", "reference_file", "config_schema"},
    "model_schema": {"tree", "data"},
    "model": {"tree", "data", "model_schema", "registry"},
    "experiment": {"config", "data", "registry"},
    # the numbers of every table, as DataFrames, and the papers' values they are compared
    # with (references, agreement, claims); never the text (report renders it)
    "analysis": {"experiment", "config", "reference_file"},
    "report": {"analysis", "experiment", "config", "tree"},
    "api": {"config", "experiment", "analysis", "report"},
    # the command line parses, calls and prints: what it prints about a dataset comes
    # from data (data.summary), a tree's picture from report, never drawn here
    "cli": {"api", "config", "experiment", "analysis", "report", "model", "pruning", "registry",
            "data"},
    "__main__": {"cli"},
    "obliq_cli": {"registry"},  # the package's __init__: the rest loads on first use
}

# The layer order of the README: no room of it may import a room after it.
ORDER = ("kernels", "tree", "algorithms", "pruning", "experiment", "analysis", "report", "cli")


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


def _room(module_parts: tuple[str, ...]) -> str:
    """The room of a module: its package below obliq_cli, or the top-level module itself
    (``obliq_cli`` for the package's own __init__)."""
    return module_parts[1] if len(module_parts) > 1 else module_parts[0]


def _may_import(room: str) -> set[str]:
    if room in HELPERS:
        return HELPERS[room] | {room}
    return ALLOWED.get(room, set()) | set(HELPERS) | {room}


def test_every_room_is_on_the_map():
    rooms = {_room(tuple(name.split("."))) for name in _modules()}
    assert sorted(rooms - set(HELPERS) - set(ALLOWED)) == []


def test_kernels_import_only_numpy_and_numba():
    # not even the helpers: a kernel is numbers in, numbers out
    allowed = {"__future__", "math", "numpy", "numba", "obliq_cli.kernels"}
    problems = []
    for path in sorted((PACKAGE / "kernels").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                names = [node.module if not node.level else "obliq_cli.kernels"]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            problems += [f"{path.name} imports {n}" for n in names
                         if n not in allowed and n.partition(".")[0] not in allowed]
    assert problems == []


def test_no_module_imports_a_room_the_map_does_not_allow():
    problems = []
    for module, targets in sorted(_module_graph().items()):
        own = _room(tuple(module.split(".")))
        for target in sorted(targets):
            if _room(tuple(target.split("."))) not in _may_import(own):
                problems.append(f"{module} imports {target}")
    assert problems == []


def test_the_map_is_layered():
    # the map itself has no circle and keeps the README's order; the experiment, the
    # report and the config reach algorithms and pruners through the registry only
    graph = {room: set(targets) for room, targets in {**HELPERS, **ALLOWED}.items()}
    for room in ALLOWED:
        graph[room] |= set(HELPERS)
    assert _circles(graph) == []
    for i, room in enumerate(ORDER):
        assert not graph[room] & set(ORDER[i + 1:]), room
    for room in ("data", "config"):
        assert not graph[room] & {"experiment", "analysis", "report", "cli"}, room
    for room in ("experiment", "analysis", "report", "config", "registry"):
        assert not graph[room] & {"algorithms", "pruning"}, room
    for helper, targets in HELPERS.items():
        assert targets <= set(HELPERS), helper


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


def test_the_layout_report_prints_every_room_and_no_circle():
    from layout_report import report

    text = report(PACKAGE.parent)
    assert "circles between modules: none" in text and "rooms off the map:       none" in text
    for room in ("tree/", "algorithms/", "pruning/", "experiment/", "analysis/", "report/",
                 "cli"):
        assert f"  {room} " in text, room
