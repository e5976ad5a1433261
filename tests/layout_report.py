"""The house in numbers: lines per room of obliq_cli, the tests beside them, and the import
graph between rooms with its circles (none, when tests/test_layers.py passes).

    python tests/layout_report.py              # this checkout
    python tests/layout_report.py --rev main   # a commit (git archive of obliq_cli, tests)

A room is a package of obliq_cli or one of its top-level modules (test_layers.py's word);
the graph is test_layers.py's own, read from the files of the checkout or the commit."""

from __future__ import annotations

import argparse
import io
import subprocess
import sys
import tarfile
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import test_layers as layers  # noqa: E402


def _lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def _room(module: str) -> str:
    return layers._room(tuple(module.split(".")))


def _ranks(graph: dict[str, set[str]]) -> dict[str, int]:
    """0 for a room that imports no other, else one more than the highest it imports."""
    ranks: dict[str, int] = {}

    def rank(room: str, seen: tuple[str, ...] = ()) -> int:
        if room not in ranks:
            below = [rank(t, seen + (room,)) for t in graph[room] if t not in seen]
            ranks[room] = 1 + max(below) if below else 0
        return ranks[room]

    for room in graph:
        rank(room)
    return ranks


def report(root: Path) -> str:
    layers.PACKAGE = root / "obliq_cli"
    modules = layers._modules()
    graph = layers._module_graph()
    out = []

    lines: Counter = Counter()
    files: Counter = Counter()
    for name, path in modules.items():
        lines[_room(name)] += _lines(path)
        files[_room(name)] += 1
    rooms = defaultdict(set)
    for module, targets in graph.items():
        own = _room(module)
        rooms[own] |= {_room(t) for t in targets} - {own}
    for room in lines:
        rooms.setdefault(room, set())
    ranks = _ranks(rooms)
    order = sorted(lines, key=lambda r: (ranks[r], r))

    out.append(f"obliq_cli: {sum(files.values())} modules, {sum(lines.values())} lines")
    out.append("")
    out.append(f"{'rank':>4}  {'room':<15}{'modules':>8}{'lines':>8}  imports (rooms)")
    for room in order:
        kind = "/" if (layers.PACKAGE / room).is_dir() else ""
        out.append(f"{ranks[room]:>4}  {room + kind:<15}{files[room]:>8}{lines[room]:>8}  "
                   + (", ".join(sorted(rooms[room], key=lambda r: (ranks[r], r))) or "-"))

    out.append("")
    out.append("circles between modules: "
               + ("; ".join(" <-> ".join(c) for c in layers._circles(graph)) or "none"))
    out.append("circles between rooms:   "
               + ("; ".join(" <-> ".join(c) for c in layers._circles(dict(rooms))) or "none"))
    off_map = sorted(set(lines) - set(layers.HELPERS) - set(layers.ALLOWED))
    out.append("rooms off the map:       " + (", ".join(off_map) or "none"))

    tests = root / "tests"
    folders: dict[str, list[Path]] = defaultdict(list)
    for path in sorted(tests.rglob("test_*.py")):
        folders[str(path.parent.relative_to(root))].append(path)
    out.append("")
    out.append(f"{'tests':<24}{'files':>6}{'lines':>8}")
    for folder in sorted(folders):
        paths = folders[folder]
        out.append(f"{folder + '/':<24}{len(paths):>6}{sum(map(_lines, paths)):>8}")
    total = [p for paths in folders.values() for p in paths]
    out.append(f"{'all':<24}{len(total):>6}{sum(map(_lines, total)):>8}")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rev", help="a git commit to read instead of the checkout")
    args = parser.parse_args(argv)
    if args.rev is None:
        print(report(HERE.parent))
        return
    archive = subprocess.run(["git", "-C", str(HERE.parent), "archive", args.rev,
                              "obliq_cli", "tests"], capture_output=True, check=True).stdout
    with tempfile.TemporaryDirectory() as folder:
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(folder, filter="data")
        print(f"at {args.rev}:")
        print(report(Path(folder)))


if __name__ == "__main__":
    main()
