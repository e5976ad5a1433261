"""The code beyond obliq that a run's rows come from, kept in each history entry of
meta.json so that ``--resume`` does not silently mix rows of two versions of it.

Per run: the version of every installed plugin distribution (the entry points of the
groups ``obliq.algorithms``, ``obliq.pruners``, ``obliq.datasets``), of the top-level
package of each ``estimator:`` class the config names (of each step of a ``pipeline:``),
and the sha256 digest of each ``imports:`` file. A resume whose stored rows were made
under other values is refused (``changes`` names what changed) unless the user accepts it
(``--accept-changed-code``); the history entry then lists what was accepted.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
from pathlib import Path

from .. import registry

KEY = "provenance"  # the history entry's key


def _plugins() -> dict[str, str]:
    out = {}
    for group in registry.ENTRY_POINT_GROUPS:
        for point in importlib.metadata.entry_points(group=group):
            dist = point.dist
            if dist is not None:
                out[dist.name] = dist.version
    return out


def _digest(path: str) -> str | None:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None


def collect(config) -> dict:
    """The provenance of a run of ``config`` (an ExperimentConfig), as plain data."""
    adapter = registry.external_estimators() if any(
        a.estimator is not None for a in config.algorithms) else None
    estimators = {}
    for algo in config.algorithms:
        if algo.estimator is not None:  # a pipeline: each step's package
            for path in adapter.paths(algo.estimator, algo.params):
                package, version = adapter.package_version(path)
                estimators[package] = version
    imports = {ref: _digest(ref) for ref in config.imports if ref.endswith(".py")}
    return {"plugins": _plugins(), "estimators": estimators, "imports": imports}


def stored(meta: dict) -> dict | None:
    """The provenance of the latest run in ``meta`` (meta.json) that recorded one; None
    for folders written before it was kept."""
    for entry in reversed(meta.get("history") or []):
        if isinstance(entry, dict) and isinstance(entry.get(KEY), dict):
            return entry[KEY]
    return None


_WHAT = {"plugins": "plugin distribution", "estimators": "estimator package",
         "imports": "imports file"}


def changes(old: dict | None, new: dict) -> list[str]:
    """One phrase per item of ``old`` whose version or digest differs in ``new``, e.g.
    "imports file /x/mytree.py changed (sha256 3f2a1b0c... -> 9e8d7c6b...)". Items only
    one side has (a plugin installed since, a file added to ``imports``) are no change to
    the stored rows."""
    if not old:
        return []
    out = []
    for part, what in _WHAT.items():
        before, now = old.get(part) or {}, new.get(part) or {}
        for name in sorted(set(before) & set(now)):
            if before[name] != now[name]:
                if part == "imports":
                    out.append(f"{what} {name} changed (sha256 {str(before[name])[:8]}... "
                               f"-> {str(now[name])[:8]}...)")
                else:
                    out.append(f"{what} {name} changed ({before[name]} -> {now[name]})")
    return out
