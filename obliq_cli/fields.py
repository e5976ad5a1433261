"""The keys of an input format, declared once as data, and the one way they are checked.

A format (the experiment config, a claims file, ...) declares each of its keys as a
``Key``: the scope it may appear in, one line saying what it does, the constraint its
value is checked with (an object of ``parameters.py``), and its default (``REQUIRED``,
``OPTIONAL`` or the value filled in). The format's reader takes the keys a mapping
allows and requires, the defaults and the checks from the declaration
(``mapping_problems``), and ``tools/docs.py`` renders a reference table from it
(``reference_rows``), so a key is added, documented and checked in one place.

``mapping_problems`` finds every problem of a mapping at once (an unknown key with the
closest known one, a missing key, each refused value), as (field, problem) pairs;
``located`` writes one as the line every reader prints: ``file: field: problem (line
N)``, the line when the file's loader recorded it (``yaml_input.line_of``).

Only the standard library is imported at module level: the registry takes ``suggest``
from here, and the command line imports the registry before anything heavy.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


def suggest(name: str, choices) -> str:
    """' (did you mean 'x'?)' for the closest choice, or '' when nothing is close."""
    close = difflib.get_close_matches(str(name), list(choices), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


class _Marker:
    def __init__(self, name: str):
        self.name = name

    def __repr__(self):
        return self.name


REQUIRED = _Marker("REQUIRED")   # the mapping must give the key
OPTIONAL = _Marker("OPTIONAL")   # absent means "none" (no pruner, no reference, ...)


@dataclass(frozen=True)
class Key:
    """One key of a format: its ``scope`` (which mapping of the format holds it),
    ``about`` (one line for the reference), ``check`` (a ``Described`` constraint of
    parameters.py the reader applies; for the model file, whose keys are checked against
    each other, the function checking the document's key; None: its reader looks the
    value up or walks it),
    ``takes`` (what it holds, when no check says it; a callable when the words come from
    another declaration), ``default`` (REQUIRED, OPTIONAL or the value the reader fills
    in) and ``shown`` (the default as the reference prints it, when the value alone does
    not say it)."""

    name: str
    scope: str
    about: str
    check: Any = None
    takes: str | Callable[[], str] = ""
    default: Any = OPTIONAL
    shown: str = ""

    def takes_text(self) -> str:
        if self.takes:
            return self.takes() if callable(self.takes) else self.takes
        return str(self.check) if self.check is not None else ""

    def default_text(self) -> str:
        if self.shown:
            return self.shown
        if self.default is REQUIRED:
            return "required"
        if self.default is OPTIONAL:
            return "none"
        return yaml_text(self.default)


def yaml_text(value) -> str:
    """A default as YAML writes it (true, null, [a, b])."""
    from .parameters import short_repr

    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, (list, tuple)):
        return f"[{', '.join(yaml_text(v) for v in value)}]"
    if isinstance(value, dict):
        return "{}" if not value else short_repr(value)
    return str(value)


def in_scope(keys, scope: str) -> dict[str, Key]:
    """The keys of ``scope`` among ``keys``, by name, in declaration order."""
    return {k.name: k for k in keys if k.scope == scope}


def reference_rows(keys, scope: str) -> list[list[str]]:
    """A reference table's rows for ``scope``: key, what it takes, default, what it
    does."""
    return [[f"`{k.name}`", k.takes_text(), k.default_text(), k.about]
            for k in in_scope(keys, scope).values()]


def mapping_problems(value: dict, declared: dict[str, Key], required=None,
                     unknown: Callable[[str], str] | None = None) -> list[tuple[str, str]]:
    """(field, problem) for every problem of the mapping ``value`` against ``declared``:
    each key not declared (``unknown(name)`` says it; by default "unknown key" with the
    closest declared one), each key of ``required`` (default: those declared REQUIRED)
    that is absent, and each value its key's ``check`` refuses, in the mapping's order."""
    from .parameters import violations

    if required is None:
        required = [k.name for k in declared.values() if k.default is REQUIRED]
    out = [(str(name), unknown(str(name)) if unknown else
            f"unknown key{suggest(str(name), declared)}")
           for name in value if name not in declared]
    out += [(name, "missing") for name in required if name not in value]
    checks = {name: [k.check] for name, k in declared.items() if k.check is not None}
    out += violations({k: v for k, v in value.items() if k in declared}, checks)
    return out


def located(file, where: str, problem: str, lines: dict | None = None) -> str:
    """One problem as a reader reports it: ``file: where: problem``, then ``(line N)``
    when ``lines`` (yaml_input's field path -> line, ``where`` without the file) knows
    the line of ``where`` or of the mapping that holds it."""
    from .yaml_input import line_of

    at = line_of(lines, where) if lines else None
    return f"{file}: {where}: {problem}" + (f" (line {at})" if at is not None else "")
