"""Splitting a dataset into grow / prune / test parts, the same for every algorithm.

Fold assignments depend only on (seed, dataset, repetition) and the prune split of a
training fold only on (seed, dataset, repetition, fold), so every algorithm of an
experiment sees identical rows (paired tests are valid) and adding an algorithm changes
no split.

- ``kfold``: k-fold CV repeated r times. Simple random folds permute the rows once and
  cut them into contiguous blocks, as Murthy's OC1 ``cross_validate`` does after its one
  shuffle (used by the HHCART paper, §4); stratified folds deal each class's shuffled
  rows round-robin over the folds. ``prune_fraction`` of each training part is held out
  for pruning (OC1 ``prune_portion``; HHCART: 10 %).
- ``holdout_cv``: a test part drawn once per dataset, the rest split k-fold r times;
  a task grows on k-1 folds, prunes/validates on the held-out fold and is scored on the
  test part (UMT paper: 1/3 test, 2 x 5 CV on the rest).
- ``fixed_split``: the dataset's own train/test split, repeated with fresh prune splits.
- ``random_split``: repeated random train/test splits of given sizes (APDT paper).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..errors import ObliqError
from ..registry import PROTOCOLS, REQUIRED, protocol_entry
from .seeds import rng_for


@dataclass(frozen=True, eq=False)
class Split:
    """Row indices of one task's parts; ``prune`` is empty when nothing is held out."""

    repetition: int
    fold: int
    train: np.ndarray
    prune: np.ndarray
    test: np.ndarray


def assign_folds(y: np.ndarray, folds: int, stratified: bool,
                 rng: np.random.Generator) -> np.ndarray:
    """The fold (0..folds-1) of every row."""
    n = y.shape[0]
    assignment = np.empty(n, dtype=np.int64)
    if not stratified:
        order = rng.permutation(n)
        sizes = [len(part) for part in np.array_split(order, folds)]
        assignment[order] = np.repeat(np.arange(folds), sizes)
        return assignment
    _, codes = np.unique(y, return_inverse=True)
    start = 0
    for code in range(codes.max() + 1):
        rows = rng.permutation(np.flatnonzero(codes == code))
        # Continue the round-robin where the previous class stopped, so fold sizes
        # differ by at most one overall as well as per class.
        assignment[rows] = (start + np.arange(rows.size)) % folds
        start = (start + rows.size) % folds
    return assignment


def take_count(rows: np.ndarray, y: np.ndarray, count: int, stratified: bool,
               rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Split ``rows`` into (kept, taken) with about ``count`` rows taken at random;
    stratified takes each class in proportion (rounded per class)."""
    if stratified:
        _, codes = np.unique(y[rows], return_inverse=True)
        taken = []
        for code in range(codes.max() + 1):
            members = rng.permutation(rows[codes == code])
            taken.append(members[: int(round(count * members.size / rows.size))])
        taken = np.sort(np.concatenate(taken))
    else:
        taken = np.sort(rng.permutation(rows)[:count])
    kept = np.setdiff1d(rows, taken, assume_unique=True)
    return kept, taken


def _count(size, n: int) -> int:
    """A size given as a fraction of ``n`` rows or as a row count."""
    return int(round(size * n)) if isinstance(size, float) else int(size)


def _prune_split(protocol, y, rows, seed, dataset, rep, fold):
    """(grow, prune) rows of one training part; the draw depends only on
    (seed, dataset, repetition, fold), never on the algorithm."""
    if protocol.prune_fraction is None:
        return rows, np.empty(0, dtype=np.int64)
    count = _count(float(protocol.prune_fraction), rows.size)
    if count == 0 or count >= rows.size:
        # A pruner would silently fall back to its no-prune-set rule, or nothing would
        # be left to grow on: both are surprises worth stopping for.
        raise ObliqError(f"dataset {dataset!r}, repetition {rep}, fold {fold}: "
                         f"prune_fraction {protocol.prune_fraction} of {rows.size} training "
                         f"rows holds out {count} rows; use a larger or smaller fraction")
    rng = rng_for(seed, dataset, rep, fold, "prune")
    return take_count(rows, y, count, protocol.stratified, rng)


# REQUIRED (a key without a default) and PROTOCOLS (name -> Protocol) live in registry


@dataclass(frozen=True)
class Protocol:
    """A protocol, declared once (adding one is one file: build it and register it).

    ``keys``: the config keys it takes (fields of config.ProtocolSpec: folds, repeats,
    stratified, prune_fraction, test_fraction, train_size, test_size) and their defaults
    (``REQUIRED``: no default); ``label_noise`` is every protocol's. ``splits(spec, y,
    info, seed, dataset)`` makes every (repetition, fold) Split. ``folds(protocol)`` is the
    number of tasks per repetition (from plain data). ``measurement``: what one value of a
    table's mean ± sd is, "repetition" (the fold mean of each repetition) or "task" (every
    task, all tested on one shared test part, as the UMT paper's 2 x 5 CV on a held-out
    third). ``shared_training``: every task's training part (grow ∪ prune rows) is the
    same rows and only its split into grow and prune varies, so a task that grows on the
    whole of it (no prune rows) repeats every other task's fit. ``check(values)`` returns
    (key, message) for a bad combination of values."""

    name: str
    keys: dict
    splits: Callable
    folds: Callable
    measurement: str = "repetition"
    shared_training: bool = False
    summary: str = ""
    check: Callable | None = None
    aliases: dict = field(default_factory=dict)  # another name of a key: {"runs": "repeats"}


def register_protocol(protocol: Protocol) -> Protocol:
    if protocol.name in PROTOCOLS:
        raise ObliqError(f"protocol {protocol.name!r} is registered already")
    if protocol.measurement not in ("repetition", "task"):
        raise ObliqError(f"protocol {protocol.name!r}: measurement must be 'repetition' or "
                         f"'task'")
    PROTOCOLS[protocol.name] = protocol
    return protocol


def folds_per_repetition(protocol: dict) -> int:
    """How many tasks (folds) one repetition of ``protocol`` (plain data) has."""
    return int(protocol_entry(protocol["name"]).folds(protocol))


def shares_training_part(protocol: dict | None) -> bool:
    """Whether every task of ``protocol`` (plain data, e.g. meta.json's) trains on the same
    rows (``Protocol.shared_training``: holdout_cv's non-test part, fixed_split's training
    part), so that tasks without prune rows are copies of one fit."""
    name = (protocol or {}).get("name")
    return name in PROTOCOLS and PROTOCOLS[name].shared_training


def measured_per_task(protocol: dict | None) -> bool:
    """Whether every task of ``protocol`` (plain data, e.g. meta.json's) is one measurement."""
    name = (protocol or {}).get("name")
    return name in PROTOCOLS and PROTOCOLS[name].measurement == "task"


def _cross_validation(protocol, y, seed, dataset, pool, test_fixed=None) -> list[Split]:
    if protocol.folds > pool.size:
        raise ObliqError(f"dataset {dataset!r}: {protocol.folds} folds need at least "
                         f"{protocol.folds} rows (it has {pool.size})")
    splits = []
    for rep in range(protocol.repeats):
        fold_of = assign_folds(y[pool], protocol.folds, protocol.stratified,
                               rng_for(seed, dataset, rep, "folds"))
        for fold in range(protocol.folds):
            held = pool[fold_of == fold]
            rest = pool[fold_of != fold]
            if test_fixed is None:
                train, prune = _prune_split(protocol, y, rest, seed, dataset, rep, fold)
                splits.append(Split(rep, fold, train, prune, held))
            else:
                splits.append(Split(rep, fold, rest, held, test_fixed))
    return splits


def _kfold_splits(protocol, y, info, seed, dataset):
    return _cross_validation(protocol, y, seed, dataset, np.arange(y.shape[0]))


def _holdout_cv_splits(protocol, y, info, seed, dataset):
    n = y.shape[0]
    rng = rng_for(seed, dataset, "holdout")
    pool, test_fixed = take_count(np.arange(n), y, _count(float(protocol.test_fraction), n),
                                  protocol.stratified, rng)
    return _cross_validation(protocol, y, seed, dataset, pool, test_fixed)


def _fixed_split_splits(protocol, y, info, seed, dataset):
    n = y.shape[0]
    if info.get("fixed_split") is None:
        raise ObliqError(f"dataset {dataset!r} has no fixed train/test split; "
                         f"use protocol kfold or random_split")
    train_all, test = (np.asarray(part, dtype=np.int64) for part in info["fixed_split"])
    if (train_all.size and (train_all.min() < 0 or train_all.max() >= n)) or (
            test.size and (test.min() < 0 or test.max() >= n)):
        raise ObliqError(f"dataset {dataset!r}: its fixed split indexes rows outside "
                         f"0..{n - 1}")
    if np.intersect1d(train_all, test).size:
        raise ObliqError(f"dataset {dataset!r}: its fixed train and test parts overlap")
    splits = []
    for rep in range(protocol.repeats):
        train, prune = _prune_split(protocol, y, train_all, seed, dataset, rep, 0)
        splits.append(Split(rep, 0, train, prune, test))
    return splits


def _random_split_splits(protocol, y, info, seed, dataset):
    n = y.shape[0]
    train_count = _count(protocol.train_size, n)
    if not 0 < train_count < n:
        raise ObliqError(f"dataset {dataset!r}: train_size {protocol.train_size} is "
                         f"{train_count} of its {n} rows; it must leave at least one row "
                         f"to grow on and one to test")
    splits = []
    for rep in range(protocol.repeats):
        rng = rng_for(seed, dataset, rep, "split")
        rest, train_all = take_count(np.arange(n), y, train_count, protocol.stratified, rng)
        test = rest
        if protocol.test_size is not None:
            wanted = min(_count(protocol.test_size, n), rest.size)
            _, test = take_count(rest, y, wanted, protocol.stratified, rng)
        train, prune = _prune_split(protocol, y, train_all, seed, dataset, rep, 0)
        splits.append(Split(rep, 0, train, prune, test))
    return splits


def _sizes_fit(values: dict):
    train, test = values.get("train_size"), values.get("test_size")
    if isinstance(train, float) and isinstance(test, float) and train + test > 1:
        return "test_size", f"train_size + test_size exceed 1 ({train} + {test})"
    return None


def _one_fold(protocol) -> int:
    return 1


def _k_folds(protocol) -> int:
    return int(protocol["folds"])


register_protocol(Protocol(
    "kfold", {"folds": 5, "repeats": 1, "stratified": False, "prune_fraction": None},
    _kfold_splits, _k_folds,
    summary="k-1 folds minus the prune part / prune part / the held-out fold"))
register_protocol(Protocol(
    "holdout_cv", {"test_fraction": 1 / 3, "folds": 2, "repeats": 5, "stratified": True},
    _holdout_cv_splits, _k_folds, measurement="task", shared_training=True,
    summary="k-1 folds of the non-test part / the held-out fold / the fixed test part"))
register_protocol(Protocol(
    "fixed_split", {"repeats": 1, "stratified": False, "prune_fraction": None},
    _fixed_split_splits, _one_fold, shared_training=True,
    summary="the dataset's own training part / prune part / its test part"))
register_protocol(Protocol(
    "random_split", {"train_size": REQUIRED, "test_size": None, "repeats": 1,
                     "stratified": False, "prune_fraction": None},
    _random_split_splits, _one_fold, check=_sizes_fit, aliases={"runs": "repeats"},
    summary="a random training part / prune part / the rest (or test_size rows)"))


def make_splits(protocol, y: np.ndarray, info: dict, seed: int, dataset: str) -> list[Split]:
    """Every (repetition, fold) split of a dataset under ``protocol`` (a ProtocolSpec)."""
    y = np.asarray(y)
    splits = protocol_entry(protocol.name).splits(protocol, y, info, seed, dataset)
    for split in splits:
        _check(split, y, dataset)
    return splits


def _check(split: Split, y: np.ndarray, dataset: str) -> None:
    where = f"dataset {dataset!r}, repetition {split.repetition}, fold {split.fold}"
    if split.train.size == 0 or split.test.size == 0:
        raise ObliqError(f"{where}: an empty training or test part")
    classes = np.unique(y[split.train])
    if classes.size < 2:
        raise ObliqError(f"{where}: the training part has a single class ({classes[0]}); "
                         f"use more data, fewer folds or stratified: true")


def flip_labels(y: np.ndarray, rows: np.ndarray, fraction: float,
                rng: np.random.Generator) -> np.ndarray:
    """A copy of ``y`` with ``round(fraction * len(rows))`` of ``rows`` relabelled, each to
    one of the other classes uniformly: the unbiased label noise of the APDT paper's
    Table VII, applied to training rows only so accuracy is measured on clean labels."""
    noisy = np.array(y, copy=True)
    classes = np.unique(y)
    count = int(round(fraction * rows.size))
    chosen = rng.choice(rows, size=count, replace=False)
    codes = np.searchsorted(classes, y[chosen])
    shift = rng.integers(1, classes.size, size=count)  # never the row's own class
    noisy[chosen] = classes[(codes + shift) % classes.size]
    return noisy


ROLE_TRAIN, ROLE_PRUNE, ROLE_TEST = 1, 2, 3
NEVER_TESTED = -1  # fold_assignments: a row no task of the repetition scores
EVERY_FOLD = -2  # fold_assignments: a row every fold's task scores (holdout_cv's test part)


def fold_assignments(splits: list[Split], n: int) -> np.ndarray:
    """``(repetitions, n)``: per repetition, the fold whose task tests each row.

    -1 (``NEVER_TESTED``) marks a row no task scores (holdout_cv's CV part, the unused
    rest of a random_split); -2 (``EVERY_FOLD``) a row that more than one fold of the
    repetition scores (holdout_cv's fixed test part). With kfold every row gets exactly
    one fold id per repetition.
    """
    reps = max(s.repetition for s in splits) + 1
    assignment = np.full((reps, n), NEVER_TESTED, dtype=np.int64)
    for s in splits:  # one vectorised assignment per split, not per row
        taken = assignment[s.repetition, s.test] != NEVER_TESTED
        assignment[s.repetition, s.test] = np.where(taken, EVERY_FOLD, s.fold)
    return assignment


def fold_record(splits: list[Split], n: int) -> dict[str, np.ndarray]:
    """What ``folds/<dataset>.npz`` stores, so any statistic can be recomputed exactly
    from stored scores without redrawing a split:

    - ``fold[repetition, row]``: ``fold_assignments``;
    - ``prune[repetition, fold, row]``: True for the rows held out for pruning;
    - ``roles[repetition, fold, row]``: 1 grow, 2 prune/validation, 3 test, 0 unused.
    """
    reps = max(s.repetition for s in splits) + 1
    folds = max(s.fold for s in splits) + 1
    roles = np.zeros((reps, folds, n), dtype=np.int8)
    for s in splits:
        roles[s.repetition, s.fold, s.train] = ROLE_TRAIN
        roles[s.repetition, s.fold, s.prune] = ROLE_PRUNE
        roles[s.repetition, s.fold, s.test] = ROLE_TEST
    return {"fold": fold_assignments(splits, n), "prune": roles == ROLE_PRUNE, "roles": roles}
