"""One task again, exactly as the run made it: for pictures and checks, never for tables.

``replay_task`` reads a results folder's meta.json (the config as run) and the stored
split of one (dataset, repetition, fold) in ``folds/``, applies the task's label noise,
and grows (and prunes) the algorithm with the task's seed names through ``fit.fit_task``,
so the replayed tree is the stored task's tree: it predicts the stored test accuracy
exactly. ``fit_on_all_rows`` is the one other way a picture fits a tree: one task whose
grow part is the whole dataset (``obliq plot`` without results); ``pruning_curves``
prunes such a tree with the network pruners and collects their learning curves.
"""

from __future__ import annotations

import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import registry, safe_io
from ..config import AlgorithmSpec, ExperimentConfig, PrunerSpec
from ..data.preprocess import check_missing_support
from ..errors import ObliqError
from . import results
from .fit import fit_task, load_dataset_spec, task_labels
from .protocols import ROLE_PRUNE, ROLE_TEST, ROLE_TRAIN, Split
from .tasks import SKIPPED


@dataclass
class Replay:
    """A replayed task: the data as it saw it (``y`` with its label noise), the rows it
    grew on, gave its pruner and was tested on, and the fitted estimator."""

    X: np.ndarray
    y: np.ndarray
    info: dict
    grow: np.ndarray
    prune: np.ndarray
    test: np.ndarray
    estimator: object
    config: ExperimentConfig
    dataset: object    # DatasetSpec
    algorithm: object  # AlgorithmSpec
    repetition: int
    fold: int

    def title(self, dataset: str, algorithm: str, pruner: str | None, seed: int,
              results: str | None) -> str:
        """A picture's title: what was fitted on which rows (the stored task's repetition
        and fold from ``results``, else every row under ``seed``) and its leaves."""
        what = f"{algorithm} + {pruner}" if pruner else algorithm
        size = getattr(self.estimator, "n_leaves_", None)
        leaves = f", {size} leaves" if isinstance(size, (int,)) else ""
        if results is not None:
            return (f"{what} on {dataset}: repetition {self.repetition}, fold {self.fold} "
                    f"of {results} ({self.grow.size} rows grown on{leaves})")
        return (f"{what} on {dataset}: fitted on all {self.X.shape[0]} rows (seed "
                f"{seed}{leaves})")


def _pick(items, label: str, kind: str):
    labels = [item.label for item in items]
    if label not in labels:
        raise ObliqError(f"no {kind} labelled {label!r} in the experiment"
                         f"{registry.suggest(label, labels)}; {kind}s: {', '.join(labels)}")
    return items[labels.index(label)]


def stored_split(results_dir, label: str, n_rows: int, repetition: int, fold: int) -> Split:
    """The grow / prune / test rows of one task from ``folds/`` (roles 1, 2, 3)."""
    path = results.fold_file(results_dir, label)
    try:
        with safe_io.read_npz(path) as record:
            roles = record["roles"]
    except FileNotFoundError:
        raise ObliqError(f"{path}: no stored folds of dataset {label!r} (run the "
                         f"experiment first)") from None
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):  # truncated too
        raise ObliqError(f"{path}: not a fold file obliq wrote") from None
    if roles.ndim != 3 or roles.dtype.kind not in "iu":
        raise ObliqError(f"{path}: roles: not the folds obliq writes (an integer array of "
                         f"repetitions x folds x rows; got {roles.dtype} of shape "
                         f"{roles.shape})")
    if not (0 <= repetition < roles.shape[0] and 0 <= fold < roles.shape[1]):
        raise ObliqError(f"{path}: no repetition {repetition}, fold {fold} (it holds "
                         f"{roles.shape[0]} repetitions of {roles.shape[1]} folds)")
    if roles.shape[2] != n_rows:
        raise ObliqError(f"{path}: folds of {roles.shape[2]} rows, but dataset {label!r} "
                         f"now has {n_rows} (has its data changed?)")
    task = roles[repetition, fold]
    return Split(repetition, fold, np.flatnonzero(task == ROLE_TRAIN),
                 np.flatnonzero(task == ROLE_PRUNE), np.flatnonzero(task == ROLE_TEST))


def replay_task(results_dir, dataset: str, algorithm: str, repetition: int = 0,
                fold: int = 0) -> Replay:
    """Task (``dataset`` label, ``algorithm`` label, ``repetition``, ``fold``) of the
    experiment stored in ``results_dir``, fitted again as its run fitted it."""
    results_dir = Path(results_dir)
    meta = results.read_meta(results_dir / results.META)
    try:
        config = ExperimentConfig.from_dict(meta["config"])
    except (KeyError, TypeError, ValueError, AttributeError):
        raise ObliqError(f"{results_dir / results.META}: holds no config obliq "
                         f"wrote") from None
    # the config's own plugins (modules, .py files) first
    results.import_config_plugins(meta, results_dir / results.META)
    spec = _pick(config.datasets, dataset, "dataset")
    algo = _pick(config.algorithms, algorithm, "algorithm")
    if not algo.runs_on(spec.label):
        raise ObliqError(f"algorithm {algo.label!r} does not run on dataset {spec.label!r} "
                         f"(its `only` list)")
    reason = ((meta.get(SKIPPED) or {}).get(spec.label) or {}).get(algo.label)
    if reason is not None:
        raise ObliqError(f"algorithm {algo.label!r} does not run on dataset {spec.label!r} "
                         f"(skipped by the config: {reason})")
    X, y, info = load_dataset_spec(spec)
    split = stored_split(results_dir, spec.label, len(y), repetition, fold)
    y = task_labels(config.seed, spec.label, split, config.protocol.label_noise, y)
    fitted = fit_task(algo, spec.label, X, y, info, split.train, split.prune,
                      (config.seed, spec.label, repetition, fold, algo.label),
                      info.get("sample_weight"))
    return Replay(fitted.X, y, _as_fitted(info, fitted), fitted.grow, fitted.prune,
                  split.test, fitted.estimator, config, spec, algo, repetition, fold)


def _as_fitted(info: dict, fitted) -> dict:
    """``info`` describing the columns the estimator took (one-hot ones by their names),
    with the task's preprocessor under ``preprocess``."""
    prep = fitted.preprocess
    return {**info, "feature_names": list(prep.output_names_),
            "categorical": list(prep.categorical_out_), "preprocess": prep}


def check_fit_options(algorithm: str, params: dict, pruner: str | None,
                      pruner_params: dict) -> AlgorithmSpec:
    """An AlgorithmSpec of a registered algorithm and pruner with checked parameters (a
    picture's single fit, outside any config)."""
    registry.algorithm_entry(algorithm)
    if pruner is not None:
        known = registry.pruner_entry(pruner).params
        for key in pruner_params:
            if key not in known:
                raise ObliqError(f"--pruner-param: pruner {pruner!r} has no parameter "
                                 f"{key!r}{registry.suggest(key, known)}; parameters: "
                                 f"{', '.join(sorted(known)) or 'none'}")
        try:
            registry.check_pruner_parameters(pruner, pruner_params)  # the pruner's declaration
        except ObliqError as exc:
            raise ObliqError(f"--pruner-param: {exc.param}: {exc.detail}") from None
    elif pruner_params:
        raise ObliqError("--pruner-param needs --pruner")
    try:
        estimator = registry.make_estimator(algorithm, **params)
        if hasattr(estimator, "validate_params"):
            estimator.validate_params()
    except (TypeError, ValueError) as exc:
        first = (str(exc).strip().splitlines() or [""])[0]
        raise ObliqError(f"--param: {algorithm}: {first}") from None
    return AlgorithmSpec(algorithm, algorithm, dict(params),
                         PrunerSpec(pruner, dict(pruner_params)) if pruner else None)


def fit_on_all_rows(dataset: str, algo: AlgorithmSpec, seed: int,
                    n_features: int | None = None, *, params: dict | None = None,
                    label: str | None = None) -> Replay:
    """One task whose grow part is every row of registered ``dataset`` (loaded with
    ``params``: a user's file), under the seed names (seed, label, "plot", 0, algorithm);
    ``label`` defaults to ``dataset``; ``n_features``: the number of features a picture
    needs (checked before fitting, and again on the columns the algorithm took)."""
    label = label or dataset
    X, y, info = registry.load_dataset(dataset, **(params or {}))
    flag = f"--data {params['path']}" if params and params.get("path") else f"--dataset {label}"
    if n_features is not None and X.shape[1] != n_features:
        raise ObliqError(f"{flag}: decision regions need a dataset with "
                         f"{n_features} features (it has {X.shape[1]})")
    estimator = algo.make_estimator()
    check_missing_support(estimator, info, repr(algo.name), algo.missing)
    check = getattr(estimator, "check_n_classes", None)
    if check is not None:
        check(int(np.unique(y).size))
    rows = np.arange(len(y))
    fitted = fit_task(algo, label, X, y, info, rows, rows[:0],
                      (seed, label, "plot", 0, algo.name), info.get("sample_weight"))
    if n_features is not None and fitted.X.shape[1] != n_features:
        raise ObliqError(f"{flag}: decision regions need {n_features} features; "
                         f"{algo.name} takes {fitted.X.shape[1]} "
                         f"({', '.join(fitted.preprocess.output_names_)})")
    return Replay(fitted.X, y, _as_fitted(info, fitted), fitted.grow, fitted.prune, rows[:0],
                  fitted.estimator, None, None, algo, 0, 0)


def picture_task(dataset: str, algorithm: str, params: dict, pruner: str | None,
                 pruner_params: dict, seed: int, results: str | None, repetition: int,
                 fold: int, need_2d: bool = False, source: tuple | None = None) -> Replay:
    """The tree of a picture (``obliq plot boundary``, ``obliq plot tree``): with
    ``results``, the stored task (dataset and algorithm labels, repetition, fold)
    replayed (``replay_task``); else ``algorithm`` fitted on every row of ``dataset``
    (``source``: the registered name, its parameters and the label, for a user's file)
    as a task would be (``fit_on_all_rows``). ``need_2d``: decision regions, which need
    two features."""
    if results is None:
        algo = check_fit_options(algorithm, params, pruner, pruner_params)
        name, data_params, label = source or (dataset, {}, dataset)
        return fit_on_all_rows(name, algo, seed, 2 if need_2d else None,
                               params=data_params, label=label)

    if params or pruner or pruner_params:
        raise ObliqError("--results replays a stored task as it ran: --param, --pruner and "
                         "--pruner-param do not apply")
    task = replay_task(results, dataset, algorithm, repetition, fold)
    if need_2d and task.X.shape[1] != 2:
        raise ObliqError(f"--dataset {dataset}: decision regions need a dataset with 2 "
                         f"features (it has {task.X.shape[1]})")
    return task


@dataclass
class PruningCurves:
    """The learning curves of network pruners on one tree (APDT paper, Figure 6): per
    pruner the best training accuracy (%) at each point, where it was taken (the
    record's ``learning_curve_at``) and in which unit (iteration, generation)."""

    curves: dict
    steps: dict
    units: dict
    title: str


def pruning_curves(dataset: str, algorithm: str, params: dict, pruners: list[str],
                   pruner_params: dict, seed: int) -> PruningCurves:
    """Grow ``algorithm`` on every row of ``dataset`` (``fit_on_all_rows``), prune a copy
    of it with each of ``pruners`` (each given the keys of ``pruner_params`` it has) as a
    task would, and collect the learning curves their records keep."""
    import copy

    from .fit import prune_task_estimator

    if not pruners:
        raise ObliqError("--pruners: give at least one pruner, e.g. la,ga")
    known = {name: registry.pruner_entry(name).params for name in pruners}
    for key in pruner_params:
        if not any(key in params_of for params_of in known.values()):
            raise ObliqError(f"--pruner-param: none of {', '.join(pruners)} has a parameter "
                             f"{key!r}")
    task = fit_on_all_rows(dataset, check_fit_options(algorithm, params, None, {}), seed)
    estimator, X, y = task.estimator, task.X, task.y
    rows = np.arange(len(y))
    seed_names = (seed, dataset, "plot", 0, algorithm)
    curves, steps, units, sizes = {}, {}, {}, []
    for name in pruners:
        spec = PrunerSpec(name, {k: v for k, v in pruner_params.items() if k in known[name]})
        pruned = prune_task_estimator(copy.deepcopy(estimator), spec, X, y, rows, rows[:0],
                                      seed_names)
        record = getattr(pruned, "pruning_", {}) or {}
        curve = record.get("learning_curve")
        if not curve:
            why = record.get("note") or "it records no learning curve (la and ga do)"
            raise ObliqError(f"--pruners: {name}: {why}")
        curves[name] = [100.0 * v for v in curve]
        # a plugin pruner's curve without its steps: one point per step
        steps[name] = np.asarray(record.get("learning_curve_at", range(len(curve))))
        units[name] = record.get("learning_curve_unit", "step")
        sizes.append(f"{name} keeps {record.get('n_hyperplanes_used', '?')}")
    grown = getattr(estimator, "tree_", None)
    title = (f"{algorithm} on {dataset} ({len(y)} rows, seed {seed}): "
             f"{getattr(grown, 'n_internal', '?')} hyperplanes grown; " + ", ".join(sizes))
    return PruningCurves(curves, steps, units, title)
