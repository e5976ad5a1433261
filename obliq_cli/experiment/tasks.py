"""The tasks of an experiment and their identities, computed in this one place from the
typed specs (``config.ExperimentConfig``, ``DatasetSpec``, ``AlgorithmSpec``).

Task identity: a row belongs to the task that produced it, identified by what decides its
numbers: the seed, the dataset (name, label, its own params and the protocol it is split
by, without the repetition count), the algorithm (name, label, its parameters on that
dataset, the pruner), the repetition and the fold. So a config may grow (algorithms,
datasets, repetitions added) and ``--resume`` runs exactly the tasks not yet stored; rows
of tasks that left the config stay in runs.csv and readers skip them.

``plan.plan`` makes the ``Task`` list and the run stores its identities in meta.json
(``task_identities``); readers take them from there (``stored_identities``) and recompute
them from the config only for folders written before that key existed.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass

from ..config import AlgorithmSpec, DatasetSpec, ExperimentConfig
from ..registry import protocol_entry
from .protocols import Split

IDENTITIES = "task_identities"  # meta.json's key: the identities of the config's tasks
# meta.json's key: the (dataset, algorithm) cells the config's ``skip`` rules leave out,
# {dataset label: {algorithm label: reason}} (known once the data is loaded: plan.plan)
SKIPPED = "skipped_cells"


@dataclass(frozen=True, eq=False)
class Task:
    """One task: a dataset's split under one algorithm, with the specs it is made from."""

    config_hash: str
    seed: int
    dataset: DatasetSpec
    algorithm: AlgorithmSpec
    split: Split
    label_noise: float | None = None
    # Modules outside obliq_cli that registered the names this task uses (plugins, test
    # registrations): a fresh worker process imports them before asking the registry.
    modules: tuple[str, ...] = ()
    # ``task_identity``: the row's key in runs.csv
    identity: str = ""
    # the config's metrics stored in the row's extra JSON (no column of their own)
    extra_metrics: tuple[str, ...] = ()
    # the config's ``timeout:``: seconds the fit and its measurement may take (None: any)
    timeout: float | None = None

    @property
    def key(self) -> str:
        return self.identity


def _plain(spec) -> dict:
    # the spec as meta.json stores it (ExperimentConfig.to_dict's parts): identities are
    # hashes of this plain data, so they stay those of the rows stored before
    return json.loads(json.dumps(asdict(spec), default=str))


def drop_none(mapping: dict) -> dict:
    # An optional field added to a spec later (default None) must not change identities.
    return {k: v for k, v in mapping.items() if v is not None}


def dataset_protocol(config: ExperimentConfig, dataset: DatasetSpec) -> dict:
    """The protocol a dataset is split by (its own sizes merged in), plain data."""
    return _plain(dataset.protocol or config.protocol)


def split_identity(config: ExperimentConfig, dataset: DatasetSpec) -> dict:
    """What decides a dataset's splits, except how many repetitions there are."""
    protocol = drop_none(dataset_protocol(config, dataset))
    protocol.pop("repeats", None)
    protocol["label_noise"] = config.protocol.label_noise
    return {"seed": config.seed, "name": dataset.name, "label": dataset.label,
            "params": _plain(dataset)["params"], "protocol": drop_none(protocol)}


def algorithm_identity(algorithm: AlgorithmSpec, dataset_label: str) -> dict:
    """What decides an algorithm's trees on one dataset: name, label, its parameters
    there and its pruner."""
    plain = _plain(algorithm)
    params = {**plain["params"], **(plain["dataset_params"].get(dataset_label) or {})}
    pruner = plain["pruner"]
    identity = {"name": algorithm.name, "label": algorithm.label, "params": params,
                "pruner": drop_none(pruner) if pruner else None}
    if algorithm.estimator is not None:  # absent for registered algorithms, as before
        identity["estimator"] = algorithm.estimator
    if algorithm.missing is not None:  # absent unless the config overrides the dataset
        identity["missing"] = algorithm.missing
    if algorithm.nominal is not None:  # likewise for its own nominal rule
        identity["nominal"] = algorithm.nominal
    return identity


def _digest(dataset_id: dict, algorithm_id: dict, repetition: int, fold: int) -> str:
    identity = {"dataset": dataset_id, "algorithm": algorithm_id,
                "repetition": int(repetition), "fold": int(fold)}
    text = json.dumps(identity, sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:20]


def task_identity(config: ExperimentConfig, dataset: DatasetSpec, algorithm: AlgorithmSpec,
                  repetition: int, fold: int) -> str:
    """The identity hash of one task (the ``task`` column of its runs.csv row)."""
    return _digest(split_identity(config, dataset),
                   algorithm_identity(algorithm, dataset.label), repetition, fold)


def identities(config: ExperimentConfig, dataset: DatasetSpec, algorithm: AlgorithmSpec,
               pairs) -> list[str]:
    """``task_identity`` of each (repetition, fold) of ``pairs``, the dataset's and the
    algorithm's parts computed once."""
    dataset_id = split_identity(config, dataset)
    algorithm_id = algorithm_identity(algorithm, dataset.label)
    return [_digest(dataset_id, algorithm_id, rep, fold) for rep, fold in pairs]


def unplanned_identities(config: ExperimentConfig, dataset: DatasetSpec,
                         skipped: dict | None = None) -> set[str]:
    """The identities of ``dataset``'s tasks from the config alone (no data): every
    algorithm that runs on it (``only``) and that neither ``skipped`` (algorithm label ->
    reason, known from an earlier plan) nor a ``skip`` rule by label leaves out; a rule
    on the data's facts is not read, so its cells are counted until a plan loads it."""
    protocol = dataset_protocol(config, dataset)
    folds = int(protocol_entry(protocol["name"]).folds(protocol))
    pairs = [(rep, fold) for rep in range(int(protocol["repeats"])) for fold in range(folds)]
    out: set[str] = set()
    for algorithm in config.algorithms:
        if (algorithm.runs_on(dataset.label) and algorithm.label not in (skipped or {})
                and algorithm.skip_reason(dataset.label, None) is None):
            out.update(identities(config, dataset, algorithm, pairs))
    return out


def config_identities(config: ExperimentConfig) -> set[str]:
    """The identity of every task of ``config``, from the config alone (no data; see
    ``unplanned_identities``)."""
    out: set[str] = set()
    for dataset in config.datasets:
        out |= unplanned_identities(config, dataset)
    return out


def config_of(plain) -> ExperimentConfig | None:
    """The typed config of meta.json's plain data; None when it is not a whole config
    (a hand-written or damaged meta.json)."""
    try:
        return ExperimentConfig.from_dict(plain)
    except (KeyError, TypeError, ValueError, AttributeError):
        return None


def stored_identities(meta: dict) -> set[str] | None:
    """The identities of the tasks of the config in ``meta`` (meta.json): as the run
    stored them, else (folders written before they were stored) from the config; None
    when meta.json holds no readable config."""
    stored = meta.get(IDENTITIES)
    if isinstance(stored, list) and all(isinstance(x, str) for x in stored):
        return set(stored)
    config = config_of(meta.get("config"))
    if config is None:
        return None
    try:
        return config_identities(config)
    except (KeyError, TypeError, ValueError, AttributeError):
        return None
