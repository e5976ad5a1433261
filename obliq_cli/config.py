"""Experiment configs: YAML -> a validated, frozen spec.

Every problem is a ``ConfigError`` with one line naming the file, the field path and,
for a file, the line, e.g. ``configs/x.yaml: algorithms[1].parms: unknown key (did you
mean 'params'?) (line 7)``. The keys each mapping allows and requires, their defaults and
the constraints of their values are declared once, in ``config_schema``; names
(datasets, algorithms, pruners) and algorithm parameters are checked against the
registry here, so a run never starts with a config that would fail halfway.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from . import config_schema as schema
from . import registry
from .config_schema import MAX_JOBS, MAX_REASON
from .errors import ConfigError, ObliqError
from .parameters import first_violation, several_problems, violations
from .registry import BACKENDS, DEFAULT_BACKEND, REQUIRED, suggest
from .resources import resolve_config
from .yaml_input import brief, line_of, load_yaml


@dataclass(frozen=True)
class DatasetSpec:
    name: str
    label: str
    params: dict = field(default_factory=dict)
    # This dataset's own sizes where they differ from the experiment's protocol (the
    # APDT paper splits IRIS 120/30 and WINE 103/75); None: the experiment's protocol.
    protocol: ProtocolSpec | None = None


@dataclass(frozen=True)
class PrunerSpec:
    name: str
    params: dict = field(default_factory=dict)


# What a ``skip`` rule's ``when`` may compare: facts of a dataset as loaded (before any
# split or one-hot coding), known once the run has loaded it (``plan.plan``).
SKIP_FACTS = ("rows", "features", "classes")
_SKIP_OPERATORS = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b,
                   ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
                   "==": lambda a, b: a == b, "!=": lambda a, b: a != b}
_SKIP_TERM = re.compile(r"^\s*(\w+)\s*(<=|>=|==|!=|<|>)\s*(\d+)\s*$")


def skip_terms(when: str) -> list[list[tuple[str, str, int]]]:
    """``when`` parsed: alternatives (``or``) of conjunctions (``and``) of comparisons
    ``fact op integer``; ValueError naming what is wrong."""
    alternatives = []
    for alternative in re.split(r"\s+or\s+", when.strip()):
        terms = []
        for term in re.split(r"\s+and\s+", alternative):
            match = _SKIP_TERM.match(term)
            if match is None:
                raise ValueError(f"cannot read {term.strip()!r}: write comparisons such as "
                                 f"'rows > 5000' or 'classes > 2' ({', '.join(SKIP_FACTS)}; "
                                 f"< <= > >= == !=; an integer), joined by and / or")
            fact, op, number = match.groups()
            if fact not in SKIP_FACTS:
                raise ValueError(f"unknown fact {fact!r}{suggest(fact, SKIP_FACTS)}; "
                                 f"known: {', '.join(SKIP_FACTS)}")
            terms.append((fact, op, int(number)))
        alternatives.append(terms)
    return alternatives


@dataclass(frozen=True)
class SkipRule:
    """One declared reason not to run an algorithm on some datasets: those whose facts
    satisfy ``when`` (``"classes > 2"``, ``"rows > 8000 and features > 10"``) or whose
    label is in ``datasets``. ``reason`` is what the table shows in the cell."""

    reason: str
    when: str | None = None
    datasets: tuple | None = None

    def applies(self, dataset: str, facts: dict | None) -> bool:
        """Whether the rule leaves ``dataset`` out; ``facts`` None (the data not loaded)
        reads the ``datasets`` rules only."""
        if self.datasets is not None and dataset in self.datasets:
            return True
        if self.when is None or facts is None:
            return False
        return any(all(_SKIP_OPERATORS[op](facts[fact], number) for fact, op, number in terms)
                   for terms in skip_terms(self.when))


def dataset_facts(X, y) -> dict:
    """What a skip rule may compare (``SKIP_FACTS``) of a loaded dataset."""
    import numpy as np

    return {"rows": int(len(y)), "features": int(X.shape[1]),
            "classes": int(np.unique(y).size)}


@dataclass(frozen=True)
class AlgorithmSpec:
    name: str
    label: str
    params: dict = field(default_factory=dict)
    pruner: PrunerSpec | None = None
    # dataset label -> parameters that replace ``params``' values on that dataset only
    # (a paper that tuned per dataset: GDT's epsilon1, the SVM kernel of its Table III).
    dataset_params: dict = field(default_factory=dict)
    # the dataset labels this algorithm runs on (None: all), e.g. GEPSVM on binary sets
    only: tuple | None = None
    # the dotted path of a scikit-learn classifier (``estimator:`` in the config; ``name``
    # is then the same path), None for a registered algorithm
    estimator: str | None = None
    # how this algorithm takes a dataset's missing cells where the dataset keeps them
    # (``missing: impute`` or ``native`` there): "impute" or "native" in place of the
    # dataset's own rule; None: the dataset's rule (data/preprocess.missing_policy)
    missing: str | None = None
    # declared reasons not to run on some datasets (``skip:``), the first that applies wins
    skip: tuple[SkipRule, ...] = ()
    # how this algorithm takes a dataset's nominal columns when it has no
    # ``categorical_features`` of its own: "onehot" or "codes" in place of the dataset's
    # ``nominal:``; None: the dataset's rule (data/preprocess.encoding_for)
    nominal: str | None = None

    def runs_on(self, dataset: str) -> bool:
        return self.only is None or dataset in self.only

    def skip_reason(self, dataset: str, facts: dict | None) -> str | None:
        """The reason of the first ``skip`` rule that applies to ``dataset`` (its label and
        ``dataset_facts``; None: not loaded, the ``datasets`` rules only), None when it
        runs there."""
        for rule in self.skip:
            if rule.applies(dataset, facts):
                return rule.reason
        return None

    def params_for(self, dataset: str) -> dict:
        return {**self.params, **self.dataset_params.get(dataset, {})}

    def make_estimator(self, dataset: str | None = None):
        """A new, unfitted estimator with its parameters on ``dataset`` (None: the
        ``params`` alone): the one way a spec becomes an estimator (the plan's check, a
        task, a picture)."""
        params = self.params if dataset is None else self.params_for(dataset)
        if self.estimator is not None:
            return registry.external_estimators().make(self.estimator, params)
        return registry.make_estimator(self.name, **params)


@dataclass(frozen=True)
class ProtocolSpec:
    """How rows are split into grow / prune / test parts (see experiment.protocols)."""

    name: str
    folds: int = 5
    repeats: int = 1
    stratified: bool = False
    prune_fraction: float | None = None
    test_fraction: float | None = None
    train_size: float | None = None
    test_size: float | None = None
    label_noise: float | None = None


@dataclass(frozen=True)
class ExperimentConfig:
    path: str
    name: str
    seed: int
    datasets: tuple[DatasetSpec, ...]
    algorithms: tuple[AlgorithmSpec, ...]
    protocol: ProtocolSpec
    metrics: tuple[str, ...]
    output: str
    n_jobs: int
    backend: str
    reference: str | None
    reference_methods: dict = field(default_factory=dict)
    # the paper pools accuracy (and error) over each repetition's folds, as OC1's
    # cross-validation does: tables, agree and claims summarise them that way
    reference_pooled: bool = False
    # the config's ``imports``: module names and absolute .py paths, imported before the
    # names are checked (registry.import_plugin)
    imports: tuple[str, ...] = ()
    # the config's ``timeout``: seconds a task's fit may take before it is recorded as
    # failed (experiment/limits.py); None: no limit. Not part of ``hash``: it decides
    # which tasks fail, not the numbers of those that succeed
    timeout: float | None = None

    def to_dict(self) -> dict:
        """Plain data, as run (what meta.json stores)."""
        # default=str: a YAML value JSON lacks (a date) is kept as its text, not a crash
        return json.loads(json.dumps(asdict(self), default=str))

    @classmethod
    def from_dict(cls, data: dict) -> ExperimentConfig:
        """The inverse of ``to_dict``: the config as run, from meta.json's plain data
        (validated when it ran, so it is not checked again)."""
        def protocol(d):
            return ProtocolSpec(**d) if d else None

        def pruner(d):
            return PrunerSpec(d["name"], dict(d.get("params") or {})) if d else None

        def skips(rules):
            return tuple(SkipRule(r["reason"], r.get("when"),
                                  tuple(r["datasets"]) if r.get("datasets") is not None
                                  else None) for r in rules or ())

        datasets = tuple(
            DatasetSpec(d["name"], d.get("label", d["name"]), dict(d.get("params") or {}),
                        protocol(d.get("protocol")))
            for d in data["datasets"])
        algorithms = tuple(
            AlgorithmSpec(a["name"], a.get("label", a["name"]), dict(a.get("params") or {}),
                          pruner(a.get("pruner")), dict(a.get("dataset_params") or {}),
                          tuple(a["only"]) if a.get("only") is not None else None,
                          a.get("estimator"), a.get("missing"), skips(a.get("skip")),
                          a.get("nominal"))
            for a in data["algorithms"])
        return cls(path=data.get("path", ""), name=data["name"], seed=int(data["seed"]),
                   datasets=datasets, algorithms=algorithms,
                   protocol=ProtocolSpec(**data["protocol"]),
                   metrics=tuple(data.get("metrics", ())), output=data.get("output", ""),
                   n_jobs=int(data.get("n_jobs", 1)), backend=data.get("backend", DEFAULT_BACKEND),
                   reference=data.get("reference"),
                   reference_methods=dict(data.get("reference_methods") or {}),
                   reference_pooled=bool(data.get("reference_pooled", False)),
                   imports=tuple(data.get("imports") or ()), timeout=data.get("timeout"))

    def hash(self) -> str:
        """Digest of what determines the results (not jobs, backend, output, metrics)."""
        data = self.to_dict()
        keyed = {k: data[k] for k in ("seed", "datasets", "algorithms", "protocol")}
        for dataset in keyed["datasets"]:
            if dataset.get("protocol") is None:  # the hash predates per-dataset sizes
                dataset.pop("protocol", None)
        for algorithm in keyed["algorithms"]:
            for key in ("estimator", "missing", "nominal"):  # the hash predates these
                if algorithm.get(key) is None:
                    algorithm.pop(key, None)
            if not algorithm.get("skip"):  # and this one
                algorithm.pop("skip", None)
        text = json.dumps(keyed, sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def with_overrides(self, **overrides) -> ExperimentConfig:
        """A copy with the CLI's explicit values (None means not given)."""
        given = {k: v for k, v in overrides.items() if v is not None}
        if "output" in given and (not isinstance(given["output"], str) or not given["output"]
                                  or "\x00" in given["output"]):
            # "" would write the results into the current folder
            raise ConfigError(f"--output: must be a folder path, not empty and without a NUL "
                              f"byte (got {brief(given['output'])})")
        if "backend" in given and given["backend"] not in BACKENDS:
            raise ConfigError(f"--backend: must be one of {', '.join(BACKENDS)}")
        if "n_jobs" in given and (not isinstance(given["n_jobs"], int) or given["n_jobs"] == 0
                                  or abs(given["n_jobs"]) > MAX_JOBS):
            raise ConfigError(f"--jobs: must be a non-zero integer from -{MAX_JOBS} to "
                              f"{MAX_JOBS}")
        return replace(self, **given)


def config_errors(problems: list[str]) -> ConfigError:
    """One ConfigError for several problems (``parameters.several_problems``): a line per
    problem, the first MAX_REPORTED, each printed by the command line as an ``error:``
    line."""
    return several_problems(problems, ConfigError)


class _Reader:
    """Field access that names file, path and (for a file) line in every error; the
    allowed keys, defaults and value constraints are ``config_schema``'s."""

    def __init__(self, file: str, lines: dict | None = None):
        self.file = file
        self.errors = []
        self.lines = lines or {}  # field path -> line (yaml_input); empty for a dict

    def fail(self, where: str, message: str, line: bool = True):
        """Raise the ConfigError of field ``where``; ``line``: add its line in the file
        (not when ``message`` quotes another file's line)."""
        at = line_of(self.lines, where) if line else None
        raise ConfigError(f"{self.file}: {where}: {message}"
                          + (f" (line {at})" if at is not None else ""))

    # Several problems at once: each independent check runs through ``collect``, which
    # keeps a ConfigError and lets the checks after it run; ``raise_collected`` then
    # reports them all (up to MAX_REPORTED, each naming file and field).
    errors: list[str]

    def collect(self, check, *args, default=None):
        """``check(*args)``, or ``default`` after keeping its ConfigError."""
        try:
            return check(*args)
        except ConfigError as exc:
            self.errors.append(str(exc))
            return default

    def raise_collected(self) -> None:
        if self.errors:
            raise config_errors(self.errors)

    def entry(self, value, where: str, scope: str, *more: str) -> dict:
        """``value`` as a mapping of the keys ``scope`` (and the ``more`` scopes) declare,
        with those ``scope`` requires."""
        allowed = sum((schema.keys(s) for s in (scope, *more)), ())
        return self.mapping(value, where, allowed, schema.required(scope))

    def field(self, item: dict, scope: str, key: str, where: str):
        """``item[key]`` (or its declared default) checked by its declaration."""
        value = item.get(key, schema.default(scope, key))
        return self.value(schema.declared(scope)[key].check, value, where)

    def value(self, constraint, value, where: str):
        """``value`` when ``constraint`` (a ``Described`` of config_schema) accepts it."""
        bad = violations({"value": value}, {"value": [constraint]})
        if bad:
            self.fail(where, bad[0][1])
        return value

    def mapping(self, value, where: str, allowed: tuple[str, ...], required=()) -> dict:
        if not isinstance(value, dict):
            self.fail(where, f"must be a mapping (got {type(value).__name__})")
        for key in value:
            if key not in allowed:
                self.fail(f"{where}.{key}" if where else str(key),
                          f"unknown key{suggest(key, allowed)}")
        for key in required:
            if key not in value:
                self.fail(f"{where}.{key}" if where else key, "required")
        return value

    def string(self, value, where: str) -> str:
        return self.value(schema.STRING, value, where)

    def label(self, value, where: str) -> str:
        return self.value(schema.LABEL, value, where)

    def params(self, value, where: str) -> dict:
        if value is None:
            return {}
        if not isinstance(value, dict):
            self.fail(where, f"must be a mapping (got {type(value).__name__})")
        return dict(value)


def _read_yaml(path: Path, lines: dict | None = None) -> Any:
    return load_yaml(path, lines)  # safe_load without duplicate keys, alias bombs, deep nesting


_FILE_KEYS = schema.keys("file")


def _file_dataset(r: _Reader, item: dict, where: str, config_dir: Path) -> dict:
    """``{name: mine, path: F, ...}`` as ``{name: file, label: mine, params: {...}}``; a
    relative path is taken from the config's folder, wherever obliq runs."""
    if "params" in item:
        r.fail(f"{where}.params", "give path, target, categorical, delimiter, decimal, "
               "header, missing, nominal, target_is_label and weights directly")
    # the path as given, not str() of it: 3 or [a, b] is no file name (the long form's
    # declaration refuses them too)
    path = config_dir / Path(r.string(item["path"], f"{where}.path")).expanduser()
    try:
        params = {"path": str(path.resolve())}
    except (RuntimeError, OSError):  # Python 3.11 raises RuntimeError on a symlink loop
        r.fail(f"{where}.path", f"{path}: a symbolic link loop")
    for key, declared in schema.declared("file").items():
        if key in item and key != "path" and declared.check is not None:
            params[key] = r.value(declared.check, item[key], f"{where}.{key}")
    if "categorical" in item:
        cats = item["categorical"]
        if not isinstance(cats, list) or not all(isinstance(c, str) for c in cats):
            r.fail(f"{where}.categorical", "must be a list of column names")
        params["categorical"] = cats
    short = {"name": "file", "label": item.get("label", item["name"]), "params": params}
    if "protocol" in item:  # this dataset's own sizes, checked as the long form's are
        short["protocol"] = item["protocol"]
    return short


def _datasets(r: _Reader, value, config_dir: Path) -> tuple[DatasetSpec, ...]:
    if not isinstance(value, list) or not value:
        r.fail("datasets", "must be a non-empty list of names or {name, params, label}")
    specs = []
    for i, item in enumerate(value):
        spec = r.collect(_dataset, r, i, item, value, config_dir)
        if spec is not None:
            specs.append(spec)
    if len(specs) == len(value):  # labels of failed items are unknown: no false repeats
        _unique(r, "datasets", [s.label for s in specs], "dataset")
    return tuple(specs)


def _dataset(r: _Reader, i: int, item, value: list, config_dir: Path) -> DatasetSpec:
    """``datasets[i]`` checked on its own (its errors do not hide the next item's)."""
    where = f"datasets[{i}]"
    if isinstance(item, str):
        item = {"name": item}
    item = r.entry(item, where, "dataset", "file")
    if "path" in item:  # the user's own file: {name: mine, path: ..., target: ...}
        item = _file_dataset(r, item, where, config_dir)
    else:  # a registered dataset declares its own columns and missing-value rule
        stray = [key for key in _FILE_KEYS if key in item]
        if stray:
            r.fail(f"{where}.{stray[0]}", "applies to your own file only (give its path:); "
                   "a registered dataset declares its own (catalog.yaml)")
    name = r.string(item["name"], f"{where}.name")
    try:
        entry = registry.dataset_entry(name)
    except ObliqError as exc:
        r.fail(where if isinstance(value[i], str) else f"{where}.name", str(exc))
    params = _known_params(r, item.get("params"), f"{where}.params", f"dataset {brief(name)}",
                           entry.params)
    bad = first_violation(params, entry.extra.get("constraints", {}))
    if bad:  # the shorthand {name, path, ...} gives the file's parameters directly
        r.fail(f"{where}.{bad[0]}" if isinstance(value[i], dict) and "path" in value[i]
               else f"{where}.params.{bad[0]}", bad[1])
    label = r.label(item.get("label", name), f"{where}.label")
    sizes = item.get("protocol")
    if sizes is not None:
        r.mapping(sizes, f"{where}.protocol", schema.per_dataset_protocol_keys())
    # kept raw here; load_config checks it against the experiment's protocol
    return DatasetSpec(name, label, params, sizes)


def _known_params(r: _Reader, value, where: str, owner: str, known: dict) -> dict:
    """The params mapping, every key of which the registered entry declares."""
    params = r.params(value, where)
    for key in params:
        if key not in known:
            r.fail(f"{where}.{key}", f"{owner} has no parameter {brief(key)}{suggest(key, known)}")
    return params


def _unique(r: _Reader, where: str, labels: list[str], kind: str) -> None:
    seen = set()
    for i, label in enumerate(labels):
        if label in seen:
            r.fail(f"{where}[{i}]", f"{kind} label {label!r} appears twice (give each a 'label')")
        seen.add(label)


def _check_estimator(r: _Reader, name: str, params: dict, where: str) -> None:
    try:
        estimator = registry.make_estimator(name, **params)
        if hasattr(estimator, "validate_params"):
            estimator.validate_params()  # the estimator's parameter declaration
    except ObliqError as exc:
        _fail_parameter(r, where, exc)
    except (TypeError, ValueError) as exc:
        r.fail(where, str(exc).splitlines()[0])


def _fail_parameter(r: _Reader, where: str, exc: ObliqError):
    """A bad parameter value as ``<where>.<parameter>: must be ...``."""
    param = getattr(exc, "param", None)
    if param is None:
        r.fail(where, str(exc))
    r.fail(f"{where}.{param}", exc.detail)


def _algorithms(r: _Reader, value, datasets) -> tuple[AlgorithmSpec, ...]:
    if not isinstance(value, list) or not value:
        r.fail("algorithms", "must be a non-empty list of {name, label, params, pruner}")
    specs = []
    labels = None if datasets is None else [d.label for d in datasets]
    for i, item in enumerate(value):
        spec = r.collect(_algorithm, r, i, item, labels)
        if spec is not None:
            specs.append(spec)
    if len(specs) == len(value):
        _unique(r, "algorithms", [s.label for s in specs], "algorithm")
    return tuple(specs)


def _algorithm(r: _Reader, i: int, item, labels: list[str] | None) -> AlgorithmSpec:
    """``algorithms[i]`` checked on its own; ``labels`` are the datasets' labels (None
    when a dataset failed its own check: ``only`` and ``dataset_params`` then go
    unchecked rather than be reported wrongly)."""
    where = f"algorithms[{i}]"
    if isinstance(item, str):
        item = {"name": item}
    item = r.entry(item, where, "algorithm")
    if sum(key in item for key in ("name", "estimator", "pipeline")) > 1:
        r.fail(where, "give one of name (a registered algorithm), estimator (a "
                      "scikit-learn classifier's dotted path) or pipeline (a list of "
                      "{estimator, params} steps)")
    if "estimator" in item:
        return _external_algorithm(r, where, item, labels)
    if "pipeline" in item:
        return _pipeline_algorithm(r, where, item, labels)
    if "name" not in item:
        r.fail(f"{where}.name", "required (or estimator: the dotted path of a scikit-learn "
                                f"classifier, or {PIPELINE_FORM})")
    name = r.string(item["name"], f"{where}.name")
    params = r.params(item.get("params"), f"{where}.params")
    try:
        registry.algorithm_entry(name)
    except ObliqError as exc:
        r.fail(f"{where}.name", str(exc))
    _check_estimator(r, name, params, f"{where}.params")
    per_dataset = r.params(item.get("dataset_params"), f"{where}.dataset_params")
    for wanted, extra in per_dataset.items():
        dw = f"{where}.dataset_params.{wanted}"
        if labels is not None and wanted not in labels:
            r.fail(dw, f"no dataset labelled {brief(wanted)}{suggest(str(wanted), labels)}")
        _check_estimator(r, name, {**params, **r.params(extra, dw)}, dw)
    pruner = None
    if item.get("pruner") is not None:
        pw = f"{where}.pruner"
        raw = item["pruner"]
        raw = {"name": raw} if isinstance(raw, str) else raw
        raw = r.entry(raw, pw, "pruner")
        pname = r.string(raw["name"], f"{pw}.name")
        try:
            entry = registry.pruner_entry(pname)
        except ObliqError as exc:
            r.fail(f"{pw}.name", str(exc))
        pparams = _known_params(r, raw.get("params"), f"{pw}.params", f"pruner {brief(pname)}",
                                entry.params)
        try:
            registry.check_pruner_parameters(pname, pparams)  # the pruner's declaration
        except ObliqError as exc:
            _fail_parameter(r, f"{pw}.params", exc)
        pruner = PrunerSpec(pname, pparams)
    label = r.label(item.get("label", name), f"{where}.label")
    only = _only(r, where, item.get("only"), labels)
    return AlgorithmSpec(name, label, params, pruner,
                         {str(k): dict(v) for k, v in per_dataset.items()}, only,
                         missing=_missing_override(r, where, item),
                         skip=_skip(r, where, item.get("skip"), labels),
                         nominal=_nominal_override(r, where, item))


def _only(r: _Reader, where: str, only, labels: list[str] | None) -> tuple | None:
    """``algorithms[i].only``: the dataset labels it runs on."""
    if only is None:
        return None
    if not isinstance(only, list) or not only:
        r.fail(f"{where}.only", "must be a non-empty list of dataset labels")
    for j, wanted in enumerate(only):
        if labels is not None and wanted not in labels:
            r.fail(f"{where}.only[{j}]",
                   f"no dataset labelled {brief(wanted)}{suggest(str(wanted), labels)}")
    return tuple(str(x) for x in only)


def _skip(r: _Reader, where: str, value, labels: list[str] | None) -> tuple[SkipRule, ...]:
    """``algorithms[i].skip``: a list of ``{when: "rows > 5000", reason: ...}`` or
    ``{datasets: [a, b], reason: ...}``, each a declared reason not to run the algorithm
    on those datasets (a two-class method on multiclass sets, a quadratic one on large
    sets); the table shows the reason in each such cell."""
    if value is None:
        return ()
    if not isinstance(value, list) or not value:
        r.fail(f"{where}.skip", "must be a non-empty list of {when, reason} or "
                                "{datasets, reason}")
    rules = []
    for j, item in enumerate(value):
        at = f"{where}.skip[{j}]"
        item = r.entry(item, at, "skip")
        reason = r.field(item, "skip", "reason", f"{at}.reason")
        if len(reason) > MAX_REASON:
            r.fail(f"{at}.reason", f"at most {MAX_REASON} characters: it is the table "
                                   f"cell (got {len(reason)}); say more in a comment")
        if ("when" in item) == ("datasets" in item):
            r.fail(at, "give either when (a condition on rows, features, classes) or "
                       "datasets (a list of labels)")
        when, datasets = None, None
        if "when" in item:
            when = r.field(item, "skip", "when", f"{at}.when")
            try:
                skip_terms(when)
            except ValueError as exc:
                r.fail(f"{at}.when", str(exc))
        else:
            datasets = item["datasets"]
            if not isinstance(datasets, list) or not datasets:
                r.fail(f"{at}.datasets", "must be a non-empty list of dataset labels")
            for k, wanted in enumerate(datasets):
                if labels is not None and wanted not in labels:
                    r.fail(f"{at}.datasets[{k}]", f"no dataset labelled {brief(wanted)}"
                                                  f"{suggest(str(wanted), labels)}")
            datasets = tuple(str(x) for x in datasets)
        rules.append(SkipRule(reason, when, datasets))
    return tuple(rules)


def _external_algorithm(r: _Reader, where: str, item: dict,
                        labels: list[str] | None) -> AlgorithmSpec:
    """``{estimator: a.b.Classifier, label, params, dataset_params, only}``: any
    scikit-learn classifier by dotted path (or a class of an ``imports:`` file, by the
    file's stem), checked now: importable, a classifier, every parameter one its
    ``get_params()`` has, finite, and taken by the class and ``sklearn.base.clone``
    (the values' ranges: a trial fit before the run, ``experiment.trial``). Not
    prunable: it is not one of obliq's trees."""
    path = r.string(item["estimator"], f"{where}.estimator")
    adapter = registry.external_estimators()
    try:
        cls = adapter.estimator_class(path)
    except ObliqError as exc:
        r.fail(f"{where}.estimator", str(exc))
    _refuse_pruner(r, where, item, cls.__name__)
    params = r.params(item.get("params"), f"{where}.params")
    per_dataset = r.params(item.get("dataset_params"), f"{where}.dataset_params")
    checks = [(params, f"{where}.params")]
    for wanted, extra in per_dataset.items():
        dw = f"{where}.dataset_params.{wanted}"
        if labels is not None and wanted not in labels:
            r.fail(dw, f"no dataset labelled {brief(wanted)}{suggest(str(wanted), labels)}")
        checks.append(({**params, **r.params(extra, dw)}, dw))
    for values, field_name in checks:
        _check_external_params(r, adapter, cls, values, field_name)
    return _external_spec(r, where, item, labels, path, cls.__name__, params, per_dataset)


def _check_external_params(r: _Reader, adapter, cls, values: dict, where: str) -> None:
    try:
        bad = adapter.check_params(cls, values)
    except ObliqError as exc:
        r.fail(where, str(exc))
    if bad:
        r.fail(where if bad[0] is None else f"{where}.{bad[0]}", bad[1])


def _refuse_pruner(r: _Reader, where: str, item: dict, what: str) -> None:
    if item.get("pruner") is not None:
        r.fail(f"{where}.pruner", f"{what} is not one of obliq's trees, so it cannot "
                                  f"be pruned; remove the pruner (pruners work on obliq's "
                                  f"algorithms)")


def _external_spec(r: _Reader, where: str, item: dict, labels, path: str, default: str,
                   params: dict, per_dataset: dict) -> AlgorithmSpec:
    label = r.label(item.get("label", default), f"{where}.label")
    only = _only(r, where, item.get("only"), labels)
    return AlgorithmSpec(path, label, params, None,
                         {str(k): dict(v) for k, v in per_dataset.items()}, only, path,
                         _missing_override(r, where, item),
                         _skip(r, where, item.get("skip"), labels),
                         _nominal_override(r, where, item))


PIPELINE_FORM = ("pipeline: [{estimator: sklearn.preprocessing.StandardScaler}, "
                 "{estimator: sklearn.linear_model.LogisticRegression, params: {C: 1.0}}]")


def _pipeline_algorithm(r: _Reader, where: str, item: dict,
                        labels: list[str] | None) -> AlgorithmSpec:
    """``{pipeline: [{estimator, params}, ...], label, dataset_params, only}``: scikit-
    learn's ``make_pipeline`` of the steps, each checked as an ``estimator:`` entry is
    (the last a classifier, the others transformers); ``dataset_params`` set the steps'
    parameters as ``step__parameter`` (``logisticregression__C``), the pipeline's own
    names. The spec is ``external.PIPELINE`` with the steps in ``params["steps"]``."""
    adapter = registry.external_estimators()
    steps = item["pipeline"]
    if not isinstance(steps, list) or not steps:
        r.fail(f"{where}.pipeline", f"must be a non-empty list of {{estimator, params}} "
                                    f"steps, e.g. {PIPELINE_FORM}")
    if "params" in item:
        r.fail(f"{where}.params", "a pipeline's parameters are its steps' (pipeline[i]."
                                  "params)")
    plain = []
    for i, step in enumerate(steps):
        at = f"{where}.pipeline[{i}]"
        step = r.entry(step, at, "step")
        path = r.field(step, "step", "estimator", f"{at}.estimator")
        try:
            cls = adapter.estimator_class(path, classifier=i == len(steps) - 1)
        except ObliqError as exc:
            r.fail(f"{at}.estimator", str(exc))
        step_params = r.params(step.get("params"), f"{at}.params")
        _check_external_params(r, adapter, cls, step_params, f"{at}.params")
        plain.append({"estimator": path, "params": step_params})
    _refuse_pruner(r, where, item, "a pipeline")
    params = {adapter.STEPS: plain}
    per_dataset = r.params(item.get("dataset_params"), f"{where}.dataset_params")
    if per_dataset:
        try:
            known = adapter.make(adapter.PIPELINE, params).get_params(deep=True)
        except ObliqError as exc:
            r.fail(f"{where}.pipeline", str(exc))
    for wanted, extra in per_dataset.items():
        dw = f"{where}.dataset_params.{wanted}"
        if labels is not None and wanted not in labels:
            r.fail(dw, f"no dataset labelled {brief(wanted)}{suggest(str(wanted), labels)}")
        for key, value in r.params(extra, dw).items():
            if key == adapter.STEPS or key not in known:
                r.fail(f"{dw}.{key}", f"the pipeline has no parameter {brief(key)}"
                                      f"{suggest(str(key), known)} (a step's is "
                                      f"step__parameter, e.g. logisticregression__C)")
            bad = adapter.non_finite(value)
            if bad is not None:
                r.fail(f"{dw}.{key}", f"must be a finite number (got {bad})")
    return _external_spec(r, where, item, labels, adapter.PIPELINE,
                          adapter.pipeline_label(plain), params, per_dataset)


def _missing_override(r: _Reader, where: str, item: dict) -> str | None:
    """``algorithms[i].missing``: impute or native, this algorithm's own way with the
    missing cells a dataset keeps (one CSV, C4.5 on its gaps and OC1 on filled ones).
    drop and error are the dataset's business: they decide which rows exist."""
    if item.get("missing") is None:
        return None
    return r.field(item, "algorithm", "missing", f"{where}.missing")


def _nominal_override(r: _Reader, where: str, item: dict) -> str | None:
    """``algorithms[i].nominal``: onehot or codes, this algorithm's own way with the
    nominal columns of every dataset it runs on (GDT on codes beside one-hot for the
    rest); an algorithm that takes nominal columns itself (categorical_features) keeps
    doing so. Checked against the ``file`` dataset's declaration of ``nominal``."""
    value = item.get("nominal")
    if value is None:
        return None
    declared = registry.dataset_entry("file").extra.get("constraints", {})
    bad = first_violation({"nominal": value}, {"nominal": declared["nominal"]})
    if bad:
        r.fail(f"{where}.nominal", bad[1])
    return value


def _protocol_keys(name: str) -> tuple[str, ...]:
    """The keys protocol ``name`` takes: its declared ones, label_noise, and their aliases."""
    entry = registry.protocol_entry(name)
    return tuple(entry.keys) + tuple(entry.aliases) + ("label_noise",)


class _PrefixedReader(_Reader):
    """A reader whose errors name a field under ``prefix`` (a dataset's protocol sizes)."""

    def __init__(self, file: str, prefix: str, lines: dict):
        super().__init__(file, lines)
        self.prefix = prefix

    def fail(self, where: str, message: str, line: bool = True):
        super().fail(f"{self.prefix}.{where}", message, line)


def _dataset_protocols(r: _Reader, value: dict, datasets) -> tuple[DatasetSpec, ...]:
    """Each dataset's protocol sizes merged into the experiment's and checked as a whole."""
    out = []
    for i, spec in enumerate(datasets):
        if spec.protocol is None:
            out.append(spec)
            continue
        allowed = _protocol_keys(value["name"])
        for key in spec.protocol:
            if key not in allowed:
                r.fail(f"datasets[{i}].protocol.{key}",
                       f"protocol {value['name']!r} has no {key!r}")
        merged = {**value, **spec.protocol}
        own = _PrefixedReader(r.file, f"datasets[{i}]", r.lines)
        protocol = _protocol(own, merged)
        r.errors.extend(own.errors)  # each of its problems, named under datasets[i]
        out.append(replace(spec, protocol=protocol))
    return tuple(out)


def _protocol_value(r: _Reader, key: str, value, where: str):
    """One protocol key's value, checked by its declaration (config_schema)."""
    check = schema.declared("protocol")[key].check
    value = r.value(check, value, where)
    return float(value) if isinstance(check, schema.Fraction) and value is not None else value


def _protocol(r: _Reader, value) -> ProtocolSpec:
    """A protocol mapping checked against its declaration (experiment.protocols)."""
    protocols = registry.list_protocols()
    known = ", ".join(protocols)
    if not isinstance(value, dict):
        r.fail("protocol", f"must be a mapping with a 'name' ({known})")
    if "name" not in value:
        r.fail("protocol.name", f"required ({known})")
    name = value["name"]
    if not isinstance(name, str) or name not in protocols:
        r.fail("protocol.name", f"unknown protocol {brief(name)}{suggest(str(name), protocols)}; "
               f"known: {known}")
    # Past the name, each key is checked on its own and every problem is kept (folds: 1
    # and repeats: 0 are two lines); the protocol is None when any was found.
    n_errors = len(r.errors)
    allowed = ("name",) + _protocol_keys(name)
    for key in value:
        if key not in allowed:
            r.collect(r.fail, f"protocol.{key}", f"unknown key{suggest(key, allowed)}")
    entry = registry.protocol_entry(name)
    value = dict(value)
    given_as = {}  # key -> the alias the file used, for the error messages
    for alias, key in entry.aliases.items():  # random_split's "runs" (the APDT paper's word)
        if alias in value:
            if key in value:
                r.fail(f"protocol.{alias}", f"give either {alias} or {key}, not both")
            value[key] = value.pop(alias)
            given_as[key] = alias
    fields = {}
    for key, default in entry.keys.items():
        if key not in value and default is REQUIRED:
            r.collect(r.fail, f"protocol.{key}", "required")
            continue
        fields[key] = r.collect(_protocol_value, r, key, value.get(key, default),
                                f"protocol.{given_as.get(key, key)}")
    if value.get("label_noise") is not None:
        fields["label_noise"] = r.collect(_protocol_value, r, "label_noise",
                                          value["label_noise"], "protocol.label_noise")
    if len(r.errors) > n_errors:
        return None
    if entry.check is not None:
        problem = entry.check(fields)
        if problem:
            r.fail(f"protocol.{problem[0]}", problem[1])
    return ProtocolSpec(name=name, **fields)


def _imports(r: _Reader, value, config_dir: Path) -> tuple[str, ...]:
    """``imports: [module, path/to/file.py]``: the researcher's own algorithms, pruners
    and datasets, imported now so that the names below can be checked (a .py path is
    relative to the config's folder)."""
    if value is None:
        return ()
    if not isinstance(value, list):
        r.fail("imports", "must be a list of module names or .py files")
    refs = []
    for i, item in enumerate(value):
        ref = r.string(item, f"imports[{i}]")
        if ref.endswith(".py"):
            file = (config_dir / Path(ref).expanduser()).resolve()
            if not file.is_file():
                r.fail(f"imports[{i}]", f"no such file {file}")
            ref = str(file)
        try:
            registry.import_plugin(ref)
        except ObliqError as exc:
            r.fail(f"imports[{i}]", str(exc))
        # the plugin's own code failed, or exited (a script's top-level sys.exit(main())
        # ended obliq run there, with exit code 0 and nothing run): say where, in one line
        except (Exception, SystemExit) as exc:
            first = (str(exc).strip().splitlines() or [""])[0]
            r.fail(f"imports[{i}]", f"importing {ref} failed: {type(exc).__name__}: {first}")
        refs.append(ref)
    return tuple(refs)


def _reference(r: _Reader, value, folder: Path, algorithms) -> tuple[str | None, dict, bool]:
    """``reference: FILE`` or ``{file: FILE, methods: {our label: paper method}, pooled:
    true}``: (path, methods, pooled). ``pooled``: the paper's accuracies are correct / tested
    over each repetition's folds (OC1's ``cross_validate``), so ours are summarised so."""
    if value is None:
        return None, {}, False
    if isinstance(value, str):
        value = {"file": value}
    value = r.entry(value, "reference", "reference")
    pooled = r.field(value, "reference", "pooled", "reference.pooled")
    ref_path = (folder / r.field(value, "reference", "file", "reference.file")).resolve()
    if not ref_path.is_file():
        r.fail("reference.file", f"no such file {ref_path}")
    # Read now, not when the run's tables are printed: a binary file or one without the
    # reference columns failed only after every task had run.
    from .reference_file import read_reference  # pandas: only when a config names one

    try:
        read_reference(ref_path)
    except ObliqError as exc:
        # every problem of the file on a line of its own, each naming config and field
        problems = getattr(exc, "problems", None) or [str(exc)]
        r.errors += [f"{r.file}: reference.file: {p}" for p in problems[:-1]]
        r.fail("reference.file", problems[-1], line=False)
    methods = r.params(value.get("methods"), "reference.methods")
    labels = [a.label for a in algorithms]
    for label in methods:
        if label not in labels:
            r.fail(f"reference.methods.{label}",
                   f"no algorithm labelled {brief(label)}{suggest(label, labels)}")
    return str(ref_path), {str(k): str(v) for k, v in methods.items()}, pooled


def load_config(path, overrides: dict | None = None) -> ExperimentConfig:
    """Read, validate and freeze an experiment config (a file, or a shipped config by
    name); ``overrides`` are CLI values. Every problem found is reported at once (the
    checks of one field or list item stop at its first problem; the others still run)."""
    path = resolve_config(path)
    lines: dict = {}  # field path -> line, for the errors
    return _validated(_read_yaml(path, lines), str(path), path.parent, overrides, lines)


DICT_SOURCE = "<config dict>"


def config_from_dict(data: dict, overrides: dict | None = None, folder=None,
                     source: str = DICT_SOURCE) -> ExperimentConfig:
    """``load_config`` for a config given as the YAML file's content (a dict, as
    ``yaml.safe_load`` gives it; tuples are read as lists). Relative paths in it (data
    files, ``reference``, ``imports``) are taken from ``folder`` (default: the current
    folder); errors name ``source`` where they would name the file."""
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: the config must be a mapping of settings "
                          f"(got {type(data).__name__})")
    return _validated(_as_yaml_data(data), source, Path(folder or Path.cwd()), overrides)


def _as_yaml_data(value):
    """A copy of a config given in code with tuples as lists (what YAML would give), so
    the checks read it as they read a file; the caller's dict is never changed."""
    if isinstance(value, dict):
        return {k: _as_yaml_data(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_as_yaml_data(v) for v in value]
    return value


def _validated(data, file: str, folder: Path, overrides: dict | None,
               lines: dict | None = None) -> ExperimentConfig:
    """The checks of ``load_config`` on a config's content; ``file`` names it in errors,
    relative paths are taken from ``folder``; ``lines`` maps field paths to the file's
    lines (none for a config given as a dict)."""
    r = _Reader(file, lines)
    if not isinstance(data, dict):
        raise ConfigError(f"{file}: the file must hold a mapping of settings")
    allowed = schema.keys("config")
    # A misspelt or missing key is one problem among the others: each is reported, and
    # the fields that are present are still checked (a missing one is skipped).
    for key in data:
        if key not in allowed:
            r.collect(r.fail, str(key), f"unknown key{suggest(key, allowed)}")
    missing = [key for key in schema.required("config") if key not in data]
    for key in missing:
        r.collect(r.fail, key, "required")
    if missing:
        r.raise_collected()  # the checks below read these four
    name = r.collect(_name, r, data["name"], default="")
    seed = r.collect(r.field, data, "config", "seed", "seed", default=0)
    # imports first: they register names the datasets and algorithms may use
    imports = r.collect(_imports, r, data.get("imports"), folder, default=())
    n_errors = len(r.errors)
    datasets = r.collect(_datasets, r, data["datasets"], folder)
    datasets_ok = datasets is not None and len(r.errors) == n_errors
    n_errors = len(r.errors)
    algorithms = r.collect(_algorithms, r, data["algorithms"],
                           datasets if datasets_ok else None, default=())
    algorithms_ok = len(r.errors) == n_errors
    protocol = r.collect(_protocol, r, data["protocol"])
    if protocol is not None and datasets_ok:
        datasets = r.collect(_dataset_protocols, r, data["protocol"], datasets)
    metrics = data.get("metrics", list(schema.default("config", "metrics")))
    r.collect(_metrics, r, metrics)
    output = r.collect(_output, r, data["output"] if "output" in data else f"results/{name}",
                       default="")
    n_jobs = r.collect(_n_jobs, r, data, default=1)
    timeout = r.collect(_timeout, r, data.get("timeout"))
    backend = r.collect(r.field, data, "config", "backend", "backend")
    reference, methods, pooled = None, {}, False
    if algorithms_ok:  # its methods name algorithm labels
        reference, methods, pooled = r.collect(_reference, r, data.get("reference"), folder,
                                               algorithms, default=(None, {}, False))
    r.raise_collected()
    config = ExperimentConfig(file, name, seed, datasets, algorithms, protocol, tuple(metrics),
                              output, n_jobs, backend, reference, methods, pooled, imports,
                              timeout)
    return config.with_overrides(**(overrides or {}))


def _name(r: _Reader, value) -> str:
    name = r.string(value, "name")
    if "/" in name or name.startswith("."):
        r.fail("name", f"must be a plain name, usable as a folder (got {brief(name)})")
    return name


def _metrics(r: _Reader, metrics) -> None:
    if not isinstance(metrics, list) or not metrics:
        r.fail("metrics", "must be a non-empty list")
    known = registry.list_metrics()
    for i, metric in enumerate(metrics):
        try:
            registry.metric_entry(str(metric))
        except ObliqError:
            r.collect(r.fail, f"metrics[{i}]", f"unknown metric {brief(metric)}"
                      f"{suggest(str(metric), known)}; known: {', '.join(known)}, "
                      "tpr:K, tnr:K")


def _output(r: _Reader, value) -> str:
    """The results folder. ``output: null`` (or an empty ``output:``) is refused rather
    than read as the default: ``str(None)`` once wrote the results to ./None/. Leave the
    key out for ``results/<name>``."""
    if value is None:
        r.fail("output", "must be a folder path (got null; leave the key out for "
                         "results/<name>)")
    if isinstance(value, (bool, list, dict)):
        r.fail("output", f"must be a folder path (got {brief(value)})")
    output = r.string(str(value), "output")
    if "\x00" in output:
        r.fail("output", "must not hold a NUL byte")
    return output


MAX_TIMEOUT = 7 * 24 * 3600  # a week: a wait the thread library can take (1e308 s cannot)


def _timeout(r: _Reader, value) -> float | None:
    """Seconds each task's fit may take (``timeout:``; null or absent: no limit)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not 0 < value <= MAX_TIMEOUT:
        r.fail("timeout", f"must be a number of seconds above 0 and at most {MAX_TIMEOUT} "
                          f"(got {brief(value)})")
    return float(value)


def _n_jobs(r: _Reader, data: dict) -> int:
    n_jobs = r.field(data, "config", "n_jobs", "n_jobs")
    if n_jobs == 0:
        r.fail("n_jobs", "must not be 0 (use 1, N, or -1 for all cores)")
    return n_jobs
