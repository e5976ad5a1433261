"""The plan of an experiment: its tasks (dataset x repetition x fold x algorithm, each
with its identity from ``tasks``), each dataset's fold record and the cells its ``skip``
rules leave out; and the checks that run before a byte is written (datasets loaded and
sound, splits made, every estimator and pruner made on every dataset it runs on), so bad
input leaves no half-written results. ``select_tasks`` picks a piece of the plan
(``obliq run --datasets --algorithms``) without changing a task.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .. import registry
from ..config import dataset_facts
from ..data.preprocess import check_missing_support, check_nominal_support
from ..errors import ObliqError, one_line
from ..weights import takes_weights
from . import trial
from .fit import fit_task, grow_and_prune_rows, load_dataset_spec, weight_keyword
from .metrics import METRICS
from .protocols import fold_record, make_splits
from .tasks import Task, identities


class Plan(NamedTuple):
    """What ``plan`` makes: every task, each dataset's fold record (``protocols.
    fold_record``, stored in folds/) and the skipped cells (dataset label -> algorithm
    label -> reason)."""

    tasks: list[Task]
    records: dict[str, dict]
    skipped: dict[str, dict[str, str]]


def _plugin_modules(config) -> tuple[str, ...]:
    """Modules outside obliq_cli whose import registers a name the config uses."""
    objs = [registry.dataset_entry(d.name).obj for d in config.datasets]
    files = set()
    for algo in config.algorithms:
        if algo.estimator is not None:  # imported by its dotted path wherever it is made,
            adapter = registry.external_estimators()  # a class of an imports: file after it
            files.update(adapter.plugin_file(path) for path in adapter.paths(
                algo.estimator, algo.params))
            continue
        objs.append(registry.algorithm_entry(algo.name).obj)
        if algo.pruner is not None:
            objs.append(registry.pruner_entry(algo.pruner.name).obj)
    # the config's registered metrics are measured by every task (in the workers too)
    objs += [METRICS[m].compute for m in config.metrics
             if m in METRICS and METRICS[m].compute is not None]
    modules = {getattr(obj, "__module__", "") or "" for obj in objs} | (files - {None})
    # a plugin loaded from a file (a config's imports) travels as its path
    return tuple(sorted(registry.plugin_ref(m) for m in modules
                        if m and m != "__main__" and m.split(".")[0] != "obliq_cli"))


def _check_pruners(config) -> None:
    """Every pruner resolves (the config checked the names; this also covers configs
    built in code)."""
    for i, algo in enumerate(config.algorithms):
        if algo.pruner is not None and algo.estimator is not None:
            raise ObliqError(f"{config.path}: algorithms[{i}] ({algo.label}): an estimator: "
                             f"entry is not one of obliq's trees and cannot be pruned")
        if algo.pruner is not None:
            try:
                registry.get_pruner(algo.pruner.name)
            except ObliqError as exc:
                raise ObliqError(f"{config.path}: algorithms[{i}] ({algo.label}): "
                                 f"{exc}") from None


def _check_estimator(config, j: int, algo, label: str, info: dict, n_classes: int,
                     n_features: int, dataset_where: str) -> None:
    """The estimator of ``algo`` on dataset ``label``, made once before the run: its
    parameters there, whether it takes the dataset's missing values when they reach it
    (``missing: native``) and its fit to the data's classes and width
    (``check_n_classes``, ``check_n_features``); ObliqError naming the config and the
    algorithm (or the dataset, ``dataset_where``, for missing values) otherwise."""
    where = f"{config.path}: algorithms[{j}] ({algo.label}) on {label}"
    try:
        estimator = algo.make_estimator(label)
    except ObliqError as exc:
        raise ObliqError(f"{where}: {exc}") from None
    except (TypeError, ValueError) as exc:
        raise ObliqError(f"{where}: {one_line(exc)}") from None
    try:  # before the run: no task of it would get far
        check_missing_support(estimator, info, f"{algo.name!r} (algorithms[{j}])",
                              algo.missing)
        check_nominal_support(estimator, info, f"{algo.name!r} (algorithms[{j}])",
                              algo.nominal)
    except ObliqError as exc:
        raise ObliqError(f"{dataset_where}: {exc}") from None
    try:
        if hasattr(estimator, "check_n_classes"):
            estimator.check_n_classes(n_classes)
        if hasattr(estimator, "check_n_features"):  # e.g. column indices in range
            estimator.check_n_features(n_features)
    except ObliqError as exc:
        raise ObliqError(f"{where}: {exc}") from None
    except (TypeError, ValueError) as exc:
        raise ObliqError(f"{where}: {one_line(exc)}") from None


def _check_weights(config, i: int, j: int, algo, label: str, info: dict) -> None:
    """ObliqError naming the config and ``datasets[i].weights`` when dataset ``label``
    gives row weights (a ``weights:`` column) that ``algo`` cannot take
    (``fit.weight_keyword``), or that its pruner cannot (``weights.takes_weights``):
    a run would fit it unweighted, or fail every task."""
    if info.get("sample_weight") is None:
        return
    if algo.pruner is not None and not takes_weights(registry.get_pruner(algo.pruner.name)):
        raise ObliqError(f"{config.path}: algorithms[{j}].pruner ({algo.label}): pruner "
                         f"{algo.pruner.name!r} does not take sample weights (its function "
                         f"has no sample_weight and prune_weight keywords); the dataset "
                         f"{label!r} (datasets[{i}]) has a weights: column "
                         f"{info.get('weights')!r}")
    try:
        estimator = algo.make_estimator(label)
    except (TypeError, ValueError):  # _check_estimator has said why
        return
    if weight_keyword(estimator) is None:
        what = ("its last step's fit takes no sample_weight"
                if algo.estimator == registry.external_estimators().PIPELINE
                else "its fit takes no sample_weight")
        raise ObliqError(f"{config.path}: datasets[{i}].weights: algorithm {algo.label!r} "
                         f"(algorithms[{j}]) cannot take the row weights of column "
                         f"{info.get('weights')!r} ({what}); leave it out of this dataset "
                         f"(only: or skip:) or drop the weights")


def _check_pruner_rows(path: str, j: int, algo, dataset: str, splits) -> None:
    """The pruner's bounds that depend on the rows (``register_pruner(check_rows=...)``),
    checked on the smallest growing and pruning parts any task of ``dataset`` gets."""
    if algo.pruner is None:
        return
    check = registry.pruner_entry(algo.pruner.name).extra.get("check_rows")
    if check is None:
        return
    parts = [grow_and_prune_rows(algo.pruner, s.train, s.prune) for s in splits]
    problem = check(dict(algo.pruner.params), min(g.size for g, _ in parts),
                    min(p.size for _, p in parts))
    if problem:
        raise ObliqError(f"{path}: algorithms[{j}].pruner.params.{problem[0]} "
                         f"({algo.label}) on {dataset}: {problem[1]}")


def plan(config, labels=None) -> Plan:
    """Every task of the experiment, each dataset's fold record, and the cells its
    ``skip`` rules leave out (dataset label -> algorithm label -> reason); raises
    ObliqError naming the config file and field for anything that would fail. A skipped
    cell is not checked: a two-class method declared skipped on a multiclass set is no
    error. ``labels``: plan (load, split, check) only the datasets of these labels (a
    run of a piece of the config; None: all)."""
    _check_pruners(config)
    tasks: list[Task] = []
    records: dict[str, dict] = {}
    skipped: dict[str, dict[str, str]] = {}
    digest = config.hash()
    extra = tuple(m for m in config.metrics if m in METRICS and METRICS[m].column is None
                  and METRICS[m].compute is not None)
    modules = _plugin_modules(config)
    for module in modules:  # this config's imports: files are the ones estimator: names
        registry.import_plugin(module)
    for i, spec in enumerate(config.datasets):
        if labels is not None and spec.label not in labels:
            continue
        where = f"{config.path}: datasets[{i}] ({spec.label})"
        try:
            X, y, info = load_dataset_spec(spec)
        except ObliqError as exc:
            raise ObliqError(f"{where}: {exc}") from None
        except (ValueError, TypeError, LookupError, MemoryError) as exc:  # a loader's own
            raise ObliqError(f"{where}: cannot load it ({one_line(exc)})") from None
        values = np.asarray(X, dtype=np.float64)
        # NaN is a missing value the dataset's policy fills or passes on (impute, native)
        bad = np.isinf(values) if info.get("missing") in ("impute", "native") \
            else ~np.isfinite(values)
        if bad.any():
            row = int(np.argwhere(bad)[0][0])
            raise ObliqError(f"{where}: the data has a missing or infinite value (row {row})"
                             f"; missing: impute, drop or native says what to do with gaps")
        if np.unique(y).size < 2:
            raise ObliqError(f"{where}: the data has a single class")
        try:
            splits = make_splits(spec.protocol or config.protocol, y, info, config.seed,
                                 spec.label)
        except ObliqError as exc:
            raise ObliqError(f"{config.path}: protocol: {exc}") from None
        records[spec.label] = fold_record(splits, len(y))
        n_classes = int(np.unique(y).size)
        facts = dataset_facts(X, y)
        running = []
        for j, algo in enumerate(config.algorithms):
            if not algo.runs_on(spec.label):
                continue
            reason = algo.skip_reason(spec.label, facts)
            if reason is not None:
                skipped.setdefault(spec.label, {})[algo.label] = reason
                continue
            _check_estimator(config, j, algo, spec.label, info, n_classes, X.shape[1], where)
            _check_weights(config, i, j, algo, spec.label, info)
            _check_pruner_rows(config.path, j, algo, spec.label, splits)
            if algo.estimator is not None:  # code obliq does not know: one trial fit
                parts = [(grow_and_prune_rows(algo.pruner, s.train, s.prune)[0], s.test)
                         for s in splits]
                trial.check(config, j, algo, spec.label, X, y, info, parts, fit_task)
            running.append(algo)
        pairs = [(split.repetition, split.fold) for split in splits]
        keys = {algo.label: identities(config, spec, algo, pairs) for algo in running}
        for k, split in enumerate(splits):
            for algo in running:
                tasks.append(Task(digest, config.seed, spec, algo, split,
                                  config.protocol.label_noise, modules,
                                  keys[algo.label][k], extra, config.timeout))
    return Plan(tasks, records, skipped)


def select_tasks(config, tasks: list[Task], datasets=None, algorithms=None) -> list[Task]:
    """The tasks of the datasets and algorithms named (None: all), by label or by name as
    the config gives them (``obliq run --datasets a,b --algorithms x,y``); ObliqError
    naming the config's labels for a name it does not have. A subset runs exactly the
    tasks (and rows) a full run would: identities do not depend on the selection."""
    chosen_datasets = chosen_labels(config, "datasets", config.datasets, datasets)
    chosen_algorithms = chosen_labels(config, "algorithms", config.algorithms, algorithms)
    return [t for t in tasks if t.dataset.label in chosen_datasets
            and t.algorithm.label in chosen_algorithms]


def chosen_labels(config, option: str, specs, names) -> set[str]:
    """The labels of the ``specs`` that ``names`` select: each name a label, or a name
    (a registered algorithm's or dataset's, an estimator's dotted path or class name)
    that selects every entry of it."""
    labels = {spec.label for spec in specs}
    if names is None:
        return labels
    out: set[str] = set()
    for name in names:
        hits = {spec.label for spec in specs if name in (
            spec.label, spec.name, str(spec.name).rpartition(".")[2])}
        if not hits:
            known = ", ".join(spec.label for spec in specs)
            raise ObliqError(f"--{option}: {config.name} has no {option[:-1]} "
                             f"{name!r}{registry.suggest(str(name), sorted(labels))}; "
                             f"its {option}: {known}")
        out |= hits
    return out


def selection_notes(config, tasks, selected, skipped: dict, datasets, algorithms) -> list:
    """Notes on a run of a subset: how many of the config's tasks it leaves for later,
    and the chosen cells that a skip rule leaves out (none of their tasks exist)."""
    if datasets is None and algorithms is None:
        return []
    notes = [f"{len(selected)} of the {len(tasks)} tasks of the datasets planned "
             f"selected (--datasets / --algorithms); `obliq run {config.path} --resume` "
             f"without them runs the rest of the config into the same folder"]
    chosen_d = chosen_labels(config, "datasets", config.datasets, datasets)
    chosen_a = chosen_labels(config, "algorithms", config.algorithms, algorithms)
    for dataset, cells in skipped.items():
        for algorithm, reason in cells.items():
            if dataset in chosen_d and algorithm in chosen_a:
                notes.append(f"{algorithm} on {dataset}: skipped by the config ({reason})")
    return notes

