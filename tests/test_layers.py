"""No layer imports the one above it: the modules of obliq_cli are read as text (every
import, at module level or inside a function) and checked against the layer order."""

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
    "config": ("report", "cli"),
    "experiment": ("report", "cli"),
    "report": ("cli",),
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
