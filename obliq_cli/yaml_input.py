"""Reading a user's YAML file: ``yaml.safe_load`` with the traps of the format closed.

A config is small, hand-written data, so anything that only a mistake or a hostile file
produces is refused with a one-line ``ConfigError`` naming the file and the line:

- a key given twice in one mapping (YAML keeps the last silently: ``folds: 3`` then
  ``folds: 2`` would run 2 folds); merge keys (``<<: *base``) still override as usual;
- aliases whose expansion exceeds ``MAX_EXPANDED_NODES`` values, or that refer to
  themselves: ``safe_load`` shares the anchored object, but every later walk of the data
  (validation, ``repr`` in a message, ``json.dumps`` of meta.json) visits each use, so
  nine levels of nine aliases in a 450-byte file are 387 million values;
- nesting deeper than ``MAX_DEPTH`` (the composer recurses once per level, so 5000
  nested brackets would be a RecursionError);
- a file over ``MAX_BYTES``.

Everything else is ``yaml.safe_load``: the same tags, types and merge keys. ``brief``
shortens a value for an error message, so no message prints an unbounded value. Given a
``lines`` dict, the loaders also record the line of every key and list item, by its
field path (``algorithms[1].params.max_depth``), for the errors of the file's reader.
"""

from __future__ import annotations

import reprlib
from pathlib import Path
from typing import Any

import yaml
from yaml.nodes import ScalarNode, SequenceNode

from .errors import ConfigError

MAX_BYTES = 1 << 20
MAX_DEPTH = 64
MAX_EXPANDED_NODES = 20_000
_MERGE_TAG = "tag:yaml.org,2002:merge"

_brief = reprlib.Repr()
_brief.maxstring = 60
_brief.maxother = 60
_brief.maxlist = _brief.maxtuple = _brief.maxset = _brief.maxdict = 6
_brief.maxlevel = 3


def brief(value: Any) -> str:
    """``repr(value)``, cut to about 80 characters (long strings, lists and deep nesting
    are elided with '...'); safe on shared and self-referring structures."""
    if isinstance(value, str):  # the start of a long text says more than its middle
        return repr(value[:60] + "...") if len(value) > 60 else repr(value)
    text = _brief.repr(value)
    return text if len(text) <= 120 else text[:117] + "..."


class _Refused(yaml.YAMLError):
    """A YAML construct this loader refuses; ``mark`` is where it starts."""

    def __init__(self, problem: str, mark):
        super().__init__(problem)
        self.problem = problem
        self.problem_mark = mark


class _Loader(yaml.SafeLoader):
    """SafeLoader that bounds nesting and alias expansion and refuses duplicate keys."""

    def __init__(self, stream):
        super().__init__(stream)
        self._depth = 0
        self.root = None

    def compose_node(self, parent, index):
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                raise _Refused(f"nested more than {MAX_DEPTH} levels deep",
                               self.peek_event().start_mark)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def get_single_node(self):
        node = super().get_single_node()
        if node is not None:
            _check_expansion(node)
        self.root = node
        return node

    def compose_mapping_node(self, anchor):
        node = super().compose_mapping_node(anchor)
        # Checked on the mapping as written, before merge keys are flattened into it.
        first: dict = {}
        for key_node, _ in node.value:
            if key_node.tag == _MERGE_TAG or not isinstance(key_node, ScalarNode):
                continue
            key = self.construct_object(key_node)
            try:
                earlier = first.setdefault(key, key_node)
            except TypeError:
                continue  # unhashable: safe_load's own error follows
            if earlier is not key_node:
                raise _Refused(f"duplicate key {brief(key)} (first on line "
                               f"{earlier.start_mark.line + 1})", key_node.start_mark)
        return node


def _check_expansion(root) -> None:
    """Refuse aliases that expand to more than MAX_EXPANDED_NODES values, reach deeper
    than MAX_DEPTH, or contain themselves. Each distinct node is sized once (memoised),
    so the check costs the size of the file, not of the expansion."""
    sizes: dict[int, tuple[int, int]] = {}
    open_nodes: set[int] = set()

    def size(node, depth: int) -> tuple[int, int]:
        key = id(node)
        if key in open_nodes:
            raise _Refused("an alias refers to the value that contains it", node.start_mark)
        if key not in sizes:
            if depth > MAX_DEPTH:
                raise _Refused(f"aliases nest more than {MAX_DEPTH} levels deep",
                               node.start_mark)
            if isinstance(node, ScalarNode):
                children = []
            elif isinstance(node, SequenceNode):
                children = node.value
            else:
                children = [n for pair in node.value for n in pair]
            open_nodes.add(key)
            count, deepest = 1, 0
            for child in children:
                c, d = size(child, depth + 1)
                count += c
                deepest = max(deepest, d + 1)
                if count > MAX_EXPANDED_NODES:
                    raise _Refused(f"aliases expand to more than {MAX_EXPANDED_NODES} "
                                   "values", node.start_mark)
            open_nodes.discard(key)
            sizes[key] = (count, deepest)
        count, deepest = sizes[key]
        if depth + deepest > MAX_DEPTH:
            raise _Refused(f"aliases nest more than {MAX_DEPTH} levels deep", node.start_mark)
        return sizes[key]

    size(root, 0)


def _record_lines(node, where: str, lines: dict) -> None:
    """The 1-based line of each key and item below ``node`` into ``lines``, by field path
    (``a.b[2].c``: the config reader's ``where``). A key merged in (``<<: *base``) gets
    its line in the anchored mapping unless the mapping gives the key itself. Bounded by
    ``_check_expansion``: the walk visits the expanded tree, at most MAX_EXPANDED_NODES."""
    if isinstance(node, SequenceNode):
        for i, item in enumerate(node.value):
            at = f"{where}[{i}]"
            lines.setdefault(at, item.start_mark.line + 1)
            _record_lines(item, at, lines)
    elif isinstance(node, yaml.MappingNode):
        merged = []
        for key_node, value_node in node.value:
            if key_node.tag == _MERGE_TAG:
                merged += (value_node.value if isinstance(value_node, SequenceNode)
                           else [value_node])
            elif isinstance(key_node, ScalarNode):
                at = f"{where}.{key_node.value}" if where else key_node.value
                lines[at] = key_node.start_mark.line + 1
                _record_lines(value_node, at, lines)
        for base in merged:  # after the mapping's own keys, which override them
            inner: dict = {}
            _record_lines(base, where, inner)
            for at, line in inner.items():
                lines.setdefault(at, line)


def line_of(lines: dict, where: str) -> int | None:
    """The line of field ``where`` in ``lines`` (``_record_lines``), or of the nearest
    field that holds it (a missing key: the line of its mapping); None when unknown."""
    while where:
        if where in lines:
            return lines[where]
        cut = max(where.rfind("."), where.rfind("["))
        where = where[:cut] if cut > 0 else ""
    return None


def load_yaml(path: Path, lines: dict | None = None) -> Any:
    """The data of the YAML file ``path``, or a one-line ConfigError naming file and line;
    ``lines``, when given, receives the line of every field (``_record_lines``)."""
    if not path.is_file():
        raise ConfigError(f"{path}: no such file")
    try:
        if path.stat().st_size > MAX_BYTES:
            raise ConfigError(f"{path}: larger than {MAX_BYTES >> 20} MiB; not a config file")
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read ({brief(str(exc))[1:-1]})") from None
    return parse_yaml(text, str(path), lines)


def parse_yaml(text: str, source: str, lines: dict | None = None) -> Any:
    """``text`` read as ``load_yaml`` reads a file; errors name ``source`` (a file, or the
    option a value came from) and the line."""
    loader = None
    try:
        loader = _Loader(text)  # the reader refuses control characters here
        data = loader.get_single_data()
        if lines is not None and loader.root is not None:
            _record_lines(loader.root, "", lines)
        return data
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        if mark is None and isinstance(exc, yaml.reader.ReaderError):
            mark = yaml.Mark("", exc.position, text.count("\n", 0, exc.position), 0, None, None)
        line = f"line {mark.line + 1}" if mark is not None else "YAML"
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        if isinstance(exc, _Refused):
            raise ConfigError(f"{source}: {line}: {problem}") from None
        raise ConfigError(f"{source}: {line}: invalid YAML ({problem})") from None
    except RecursionError:  # a nesting the depth bound did not see (defensive)
        raise ConfigError(f"{source}: nested too deeply") from None
    finally:
        if loader is not None:
            loader.dispose()
