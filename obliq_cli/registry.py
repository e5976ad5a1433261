"""The one place where algorithms, pruners, datasets, protocols, metrics and backends are
registered by name.

Built-in entries register themselves when their module is imported; ``_ensure_builtins``
imports the pruners and datasets the first time a lookup happens, and an algorithm's
module is imported when its name is first looked up (``BUILTIN_ALGORITHMS``), so the
runner and CLI never import an algorithm module directly and a run loads only the
algorithms its config names (each pulls in scikit-learn or numba's kernels).

Plugins register the same way from outside the package:

* an installed distribution names modules under the entry-point groups
  ``obliq.algorithms``, ``obliq.pruners`` and ``obliq.datasets`` (``name = "module"``);
  the first lookup imports them after the built-ins, in every process (a loky or dask
  worker looks names up too, so it loads the same plugins);
* a config's ``imports: [module, path/to/file.py]`` names a researcher's local code
  (``import_plugin``); the runner hands those to its workers with each task.

Contracts
---------
Algorithm
    A class with scikit-learn's estimator interface: ``__init__`` takes keyword
    parameters only (their defaults are the paper's defaults), ``get_params`` /
    ``set_params``, ``fit(X, y)``, ``predict``, ``predict_proba``, ``score``, and after
    fitting ``classes_``, ``n_leaves_``, ``n_nodes_``, ``depth_`` (and ``tree_`` for a
    single tree). Randomness comes only from the ``random_state`` parameter (an int,
    a ``numpy.random.Generator`` or None).
Pruner
    A function ``prune(estimator, X_grow, y_grow, X_prune, y_prune, *, random_state,
    **params) -> estimator`` that returns a fitted estimator (usually the same object
    with a pruned ``tree_``). ``X_prune`` is None when the protocol holds out no
    pruning set; a pruner that needs one then falls back to its own rule (for example
    V-fold cross-validation on the growing data) or raises ``ObliqError``.
Protocol, metric
    Declared in ``obliq_cli.experiment.protocols`` / ``.metrics`` (``register_protocol``,
    ``register_metric``), which keep them in this module's ``PROTOCOLS`` and ``METRICS``;
    ``protocol_entry`` / ``metric_entry`` load those two modules on first use (not the
    algorithms: ``obliq table`` needs metrics only), so the config reads them here
    without importing the experiment layer.
Backend
    A name in ``BACKENDS`` (the runner maps each to its pool).
Dataset
    A function ``load(**params) -> (X, y, info)``: ``X`` a float64 array (n, d) with no
    NaN, ``y`` a 1-D array of class labels, ``info`` a dict with at least ``name``,
    ``feature_names``, ``source``; optionally ``fixed_split`` = (train_idx, test_idx).
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import importlib.metadata
import importlib.util
import json
import logging
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import ObliqError, UnknownNameError
from .fields import suggest  # noqa: F401  (the registry's callers take it from here)
from .invariances import check_declarations


@dataclass(frozen=True)
class Entry:
    """A registered object and what ``obliq algorithms`` / ``obliq datasets`` show."""

    name: str
    obj: Any
    summary: str = ""
    params: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)


ALGORITHMS: dict[str, Entry] = {}
PRUNERS: dict[str, Entry] = {}
DATASETS: dict[str, Entry] = {}
# name -> experiment.protocols.Protocol / experiment.metrics.Metric: the declarations
# themselves, filled by those modules' register functions
PROTOCOLS: dict[str, Any] = {}
METRICS: dict[str, Any] = {}
REQUIRED = object()  # a protocol key without a default

# ``fork``: a pool of worker processes forked from the run once it has planned, so each
# worker starts with obliq, scikit-learn and the datasets already in memory (Linux only;
# fork is unsafe with macOS's system libraries, and Windows has none). ``loky``: joblib's
# default pool of fresh interpreters, each importing obliq itself (about a second per
# worker), on every platform. ``threading`` and ``dask`` as joblib has them.
BACKENDS = ("fork", "loky", "threading", "dask")
FORK_AVAILABLE = sys.platform.startswith("linux")
DEFAULT_BACKEND = "fork" if FORK_AVAILABLE else "loky"
# the adapter of scikit-learn classifiers named by dotted path (a config's ``estimator:``)
_EXTERNAL_MODULE = "obliq_cli.algorithms.external"
_TABLE_MODULES = {"protocol": "obliq_cli.experiment.protocols",
                  "metric": "obliq_cli.experiment.metrics"}

_BUILTIN_PACKAGES = ("obliq_cli.pruning", "obliq_cli.data")
# Built-in algorithm name -> its module under obliq_cli.algorithms (the module registers
# it on import). A static table, so that a lookup imports one module rather than all;
# tests/cli/test_startup.py checks it against the registrations of every module.
BUILTIN_ALGORITHMS = {
    "apdt": "apdt", "c45": "c45", "cart-ap": "cart", "cart-lc": "cart_lc", "fdt": "fdt",
    "gdt": "gdt", "gepsvm": "svm", "hhcart-a": "hhcart", "hhcart-d": "hhcart", "id3": "id3",
    "ldt": "ldt", "oc1": "oc1", "oc1-ap": "oc1", "oc1-lc": "oc1", "quest": "quest",
    "svm": "svm", "umt": "umt", "umt-ovo": "multiclass", "umt-ovr": "multiclass",
}
_ALGORITHM_PACKAGE = "obliq_cli.algorithms"
ENTRY_POINT_GROUPS = ("obliq.algorithms", "obliq.pruners", "obliq.datasets")
_builtins_loaded = False
# module name given to a plugin loaded from a file -> that file (workers import it again)
_PLUGIN_FILES: dict[str, str] = {}
# a plugin file's stem ("mine" of mine.py) -> the module name of the file of that stem
# imported last: what ``estimator: mine.MyClassifier`` names (``plugin_file_module``)
_PLUGIN_STEMS: dict[str, str] = {}


def _ensure_builtins() -> None:
    global _builtins_loaded
    if not _builtins_loaded:
        _builtins_loaded = True
        for package in _BUILTIN_PACKAGES:
            importlib.import_module(package)
        load_entry_points()


def _import_builtin_algorithm(name: str) -> None:
    """Import the module that registers the built-in algorithm ``name`` (if it is one)."""
    module = BUILTIN_ALGORITHMS.get(name)
    if module is not None and name not in ALGORITHMS:
        importlib.import_module(f"{_ALGORITHM_PACKAGE}.{module}")


def _import_all_builtin_algorithms() -> None:
    for name in BUILTIN_ALGORITHMS:
        _import_builtin_algorithm(name)


def load_entry_points() -> list[str]:
    """Import the module each installed ``obliq.*`` entry point names (importing it
    registers what it defines); the modules' names. A plugin that fails to import is an
    ObliqError naming its distribution and entry point."""
    loaded = []
    for group in ENTRY_POINT_GROUPS:
        for point in importlib.metadata.entry_points(group=group):
            try:
                point.load()
            except Exception as exc:
                dist = getattr(point.dist, "name", None) or "?"
                first = (str(exc).strip().splitlines() or [""])[0]
                raise ObliqError(f"plugin {point.name!r} ({group} = {point.value!r}, "
                                 f"distribution {dist}) failed to import: "
                                 f"{type(exc).__name__}: {first}") from None
            loaded.append(point.value.split(":")[0])
            logging.getLogger("obliq").debug("plugin %s (%s) from %s", point.name, group,
                                             point.value)
    return loaded


def import_plugin(ref: str) -> str:
    """Import a plugin named by a config's ``imports``: a module name, or the path of a
    ``.py`` file (absolute here; config.py resolves it against the config's folder).
    Returns the module's name; importing twice is a no-op."""
    _ensure_builtins()
    if not ref.endswith(".py"):
        importlib.import_module(ref)
        return ref
    path = Path(ref).resolve()
    digest = hashlib.sha1(str(path).encode()).hexdigest()[:10]
    name = f"obliq_plugin_{path.stem}_{digest}"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise ObliqError(f"{path}: cannot be imported as Python code")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[name]
            raise
        _PLUGIN_FILES[name] = str(path)
    # every import, not only the first: a run's (or a task's) own imports name the file
    _PLUGIN_STEMS[path.stem] = name
    return name


def plugin_file_module(stem: str) -> str | None:
    """The module of the ``imports:`` file called ``stem``.py, as this process imported
    it last (a config's imports when it is read, a task's in a worker before its
    estimator is made); None when no such file was imported."""
    return _PLUGIN_STEMS.get(stem)


def plugin_ref(module: str) -> str:
    """What ``import_plugin`` needs to import ``module`` again in another process: the
    file a plugin module was loaded from, else the module name itself."""
    return _PLUGIN_FILES.get(module, module)


def _add(table: dict[str, Entry], kind: str, entry: Entry) -> None:
    if entry.name in table and table[entry.name].obj is not entry.obj:
        raise ValueError(f"{kind} {entry.name!r} is registered twice")
    # A built-in algorithm's name is taken even while its module is not imported yet.
    builtin = BUILTIN_ALGORITHMS.get(entry.name) if table is ALGORITHMS else None
    if builtin is not None and getattr(entry.obj, "__module__", None) != \
            f"{_ALGORITHM_PACKAGE}.{builtin}":
        raise ValueError(f"{kind} {entry.name!r} is registered twice (it is built in)")
    table[entry.name] = entry


def _lookup(table: dict[str, Entry], kind: str, name: str) -> Entry:
    _ensure_builtins()
    if table is ALGORITHMS and isinstance(name, str):
        _import_builtin_algorithm(name)
    try:
        return table[name]
    except KeyError:
        known = sorted(set(table) | (set(BUILTIN_ALGORITHMS) if table is ALGORITHMS else set()))
        raise UnknownNameError(
            f"unknown {kind} {name!r}{suggest(name, known)}; "
            f"known: {', '.join(known) or 'none'}"
        ) from None


def register_algorithm(name: str, summary: str = "", **extra) -> Callable:
    """Class decorator: register an estimator class under ``name``.

    Optional ``extra`` read by scikit-learn's estimator checks
    (``tests/algorithms/test_sklearn_checks.py``): ``check_params``, parameters that make the
    checks' many small fits quick (a smaller grid or fewer restarts, never another
    method); ``expected_failed_checks``, check name -> the reason of the method why it
    cannot pass (see ``expected_failed_checks``). ``invariances``: transformation ->
    what the algorithm keeps of it (``obliq_cli.invariances``; checked here, held to by
    ``tests/algorithms/test_invariances.py``, which also fits with ``check_params``)."""
    if "invariances" in extra:
        extra["invariances"] = check_declarations(name, extra["invariances"])

    def decorate(cls):
        _add(ALGORITHMS, "algorithm", Entry(name, cls, summary, {}, extra))
        return cls

    return decorate


def register_pruner(name: str, summary: str = "", params: dict | None = None,
                    uses_prune_set: bool = True,
                    check_rows: Callable | None = None) -> Callable:
    """Function decorator: register a pruner; ``params`` are its documented defaults.

    ``uses_prune_set=False`` marks a pruner that prunes on the growing data alone (C4.5's
    pessimistic pruning): the runner then grows the tree on the prune rows too, as it does
    for an algorithm without a pruner, instead of wasting them.

    ``check_rows(params, n_grow, n_prune) -> (parameter, message) | None``: a bound that
    depends on the data (``cv_folds`` at most the growing rows), which the runner asks
    before a run with the smallest part any task gets."""

    def decorate(func):
        _add(PRUNERS, "pruner", Entry(name, func, summary, dict(params or {}),
                                      {"uses_prune_set": bool(uses_prune_set),
                                       "check_rows": check_rows}))
        return func

    return decorate


def register_dataset(name: str, summary: str = "", params: dict | None = None, **extra):
    """Function decorator: register a dataset loader ``load(**params) -> (X, y, info)``."""

    def decorate(func):
        _add(DATASETS, "dataset", Entry(name, func, summary, dict(params or {}), extra))
        return func

    return decorate


def _builtin_table(kind: str) -> dict[str, Any]:
    """``PROTOCOLS`` or ``METRICS`` with the built-in declarations loaded."""
    importlib.import_module(_TABLE_MODULES[kind])  # registers the built-ins once
    return PROTOCOLS if kind == "protocol" else METRICS


def list_protocols() -> list[str]:
    return list(_builtin_table("protocol"))


def list_metrics() -> list[str]:
    return list(_builtin_table("metric"))


def protocol_entry(name: str):
    """The declaration of protocol ``name`` (``experiment.protocols.Protocol``)."""
    table = _builtin_table("protocol")
    if name not in table:
        raise UnknownNameError(f"unknown protocol {name!r}{suggest(name, table)}; "
                               f"known: {', '.join(table)}")
    return table[name]


def metric_entry(name: str):
    """The declaration of metric ``name`` (``experiment.metrics.Metric``), a per-class
    rate "tpr:K" / "tnr:K" included; ObliqError listing the names otherwise."""
    _builtin_table("metric")
    return importlib.import_module(_TABLE_MODULES["metric"]).check_metric(name)


def external_estimators():
    """The module that adapts any scikit-learn classifier named by its dotted path
    (``obliq_cli.algorithms.external``: ``estimator_class``, ``make``,
    ``accepts_missing``, ``random_state_from``, ``package_version``), loaded by name as
    the built-in algorithms are."""
    return importlib.import_module(_EXTERNAL_MODULE)


def algorithm_entry(name: str) -> Entry:
    return _lookup(ALGORITHMS, "algorithm", name)


def pruner_entry(name: str) -> Entry:
    return _lookup(PRUNERS, "pruner", name)


def dataset_entry(name: str) -> Entry:
    return _lookup(DATASETS, "dataset", name)


def make_estimator(name: str, **params):
    """A new, unfitted estimator of the registered algorithm ``name``."""
    cls = algorithm_entry(name).obj
    defaults = cls().get_params()
    unknown = [k for k in params if k not in defaults]
    if unknown:
        raise UnknownNameError(
            f"algorithm {name!r} has no parameter {unknown[0]!r}{suggest(unknown[0], defaults)}; "
            f"parameters: {', '.join(sorted(defaults))}"
        )
    return cls(**params)


def invariances(name: str) -> dict:
    """What algorithm ``name`` declares it keeps, transformation -> declaration
    (``obliq_cli.invariances``); empty when it declares nothing (a plugin may not)."""
    return dict(algorithm_entry(name).extra.get("invariances", {}))


def expected_failed_checks(name: str) -> dict[str, str]:
    """The scikit-learn checks that algorithm ``name`` cannot pass, each with the reason
    of its method: the dict ``check_estimator(..., expected_failed_checks=...)`` takes."""
    return dict(algorithm_entry(name).extra.get("expected_failed_checks", {}))


def estimator_for_checks(name: str):
    """The estimator scikit-learn's checks run on: the algorithm with its
    ``check_params`` (the same method on a budget the checks' small data can afford)."""
    return make_estimator(name, **algorithm_entry(name).extra.get("check_params", {}))


def get_pruner(name: str) -> Callable:
    return pruner_entry(name).obj


def check_pruner_parameters(name: str, params: dict) -> None:
    """The config check of a registered pruner's parameters against its declaration
    (``parameters.pruner_parameters``): ``ParameterError`` for a bad value."""
    from .parameters import check_parameters  # scikit-learn: on first use

    func = get_pruner(name)
    check_parameters(getattr(func, "_parameter_constraints", {}), params, f"{name} pruner")


def load_dataset(name: str, **params):
    """``(X, y, info)`` for a registered dataset; a parameter outside the dataset's
    declared constraints (``register_dataset(..., constraints=...)``) is a DataError.

    Loaded once per process for each name and parameters (the one in-memory memo of
    datasets: a worker's tasks, the plan and a picture share it; ``forget_datasets``
    empties it). Callers must not write into the arrays."""
    from .errors import DataError
    from .parameters import first_violation

    entry = dataset_entry(name)
    bad = first_violation(params, entry.extra.get("constraints", {}))
    if bad:  # named by its file when it has one, as the loaders' own errors are
        path = params.get("path")
        raise DataError(f"{path if isinstance(path, str) else f'dataset {name!r}'}: "
                        f"{bad[0]} {bad[1]}")
    try:
        key = json.dumps(params, sort_keys=True)
    except (TypeError, ValueError):  # a value JSON cannot hold: loaded, not memoised
        return entry.obj(**params)
    return _loaded(name, key, _file_stamps(params.get("path")))


def _file_stamps(path) -> tuple:
    """(size, mtime) of a dataset's file(s), part of the memo's key: a file edited since
    it was loaded is loaded again."""
    paths = path if isinstance(path, list) else [path]
    stamps = []
    for one in paths:
        if isinstance(one, str):
            try:
                stat = Path(one).stat()
                stamps.append((one, stat.st_size, stat.st_mtime_ns))
            except OSError:
                stamps.append((one, None, None))  # the loader names the missing file
    return tuple(stamps)


@functools.lru_cache(maxsize=8)
def _loaded(name: str, params_json: str, stamps: tuple):
    return dataset_entry(name).obj(**json.loads(params_json))


def forget_datasets() -> None:
    """Empty ``load_dataset``'s memo (a test that changes a dataset's source)."""
    _loaded.cache_clear()


def list_algorithms() -> list[Entry]:
    """Every registered algorithm (this imports every built-in algorithm module)."""
    _ensure_builtins()
    _import_all_builtin_algorithms()
    return [ALGORITHMS[k] for k in sorted(ALGORITHMS)]


def list_pruners() -> list[Entry]:
    _ensure_builtins()
    return [PRUNERS[k] for k in sorted(PRUNERS)]


def list_datasets(aliases: bool = False) -> list[Entry]:
    """Registered datasets by name; aliases (``extra['alias_of']``) only when asked."""
    _ensure_builtins()
    return [DATASETS[k] for k in sorted(DATASETS)
            if aliases or "alias_of" not in DATASETS[k].extra]
