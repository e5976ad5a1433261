"""Every registered algorithm held to the invariances it declares (obliq_cli/invariances.py).

For each algorithm and each transformation it declares kept (EXACT or ROUNDING), the
algorithm is fitted on small datasets with signal and on their transformed copies, with
the same seed on both sides, and the two models' predictions of the test rows
(transformed alike) are compared: to the bit, or away from rows within rounding of a
split. Each transformation it declares not kept must be seen broken on at least one of
the same data, so no declaration is more cautious than the method, unless it is declared
``shown=False`` (read from the method) and then it must be seen on none. No fit made
here, on data with signal, is degenerate by the definition runs.csv records
(``experiment.degeneracy``): training accuracy at or below the majority rate, one leaf on
impure rows (unless the tree's own stopping rules make the root a leaf), or one class
predicted for every test row.

The data: iris and wine (three classes), a subset of breast cancer and a generated
oblique problem (two classes), seven generated sets of small integers (two and three
classes: values, class counts and sums tie there, which is where tie rules and rounding
show), a generated problem with one nominal column; each split into fixed training and
test thirds. The column transformations touch the two columns of largest ANOVA F. Every
algorithm runs with its ``check_params`` (the small grids and fewer restarts of
scikit-learn's checks) and seed 0: the module takes about 30 s of CPU.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass

import numpy as np
import pytest
from sklearn import datasets
from sklearn.feature_selection import f_classif
from sklearn.metrics import confusion_matrix

from obliq_cli import invariances, registry
from obliq_cli.algorithms.base import TreeClassifier
from obliq_cli.config import AlgorithmSpec
from obliq_cli.data.preprocess import takes_nominal
from obliq_cli.experiment import degeneracy
from obliq_cli.experiment.fit import fit_task
from obliq_cli.invariances import Kept, NotApplicable, NotKept
from obliq_cli.tree.builder import Node
from obliq_cli.tree.structure import NOMINAL


def _test_double(cls) -> bool:
    module = cls.__module__.split(".")[-1]
    return module == "conftest" or module.startswith("test_")


NAMES = [entry.name for entry in registry.list_algorithms() if not _test_double(entry.obj)]
SEED = 0
# --- data ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Data:
    """Training and test rows of one dataset; ``top``: its two most informative columns
    (largest ANOVA F), the ones the column transformations touch."""

    name: str
    X: np.ndarray
    y: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    top: tuple[int, int]

    @property
    def n_classes(self) -> int:
        return int(np.unique(self.y).size)


def _thirds(name: str, X, y, seed: int) -> Data:
    order = np.random.default_rng(seed).permutation(len(y))
    test, train = order[: len(y) // 3], order[len(y) // 3:]
    X, y = np.ascontiguousarray(X, dtype=np.float64), np.asarray(y, dtype=np.int64)
    f_stat = f_classif(X[train], y[train])[0]
    best = np.argsort(-f_stat, kind="stable")[:2]
    return Data(name, X[train], y[train], X[test], y[test], (int(best[0]), int(best[1])))


@functools.cache
def numeric_data() -> tuple[Data, ...]:
    iris = datasets.load_iris()
    wine = datasets.load_wine()
    cancer = datasets.load_breast_cancer()
    rows = np.random.default_rng(2).choice(len(cancer.target), 180, replace=False)
    rng = np.random.default_rng(3)
    X = rng.normal(size=(150, 4))
    y = (X[:, 0] + 0.7 * X[:, 1] - 0.4 * X[:, 2] + 0.3 * rng.normal(size=150) > 0)
    return (_thirds("iris", iris.data, iris.target, 0),
            _thirds("wine", wine.data[:, :6], wine.target, 1),
            _thirds("cancer", cancer.data[rows][:, [0, 1, 4, 7, 20, 21, 24, 27]],
                    cancer.target[rows], 2),
            _thirds("oblique", X, y.astype(np.int64), 3),
            *(_ties(2, seed) for seed in (0, 4)), *(_ties(3, seed) for seed in (3, 4, 5, 8, 11)))


def _ties(k: int, seed: int) -> Data:
    """Small-integer columns (0..3), so that split values, class counts and sums tie
    often, as on coded or counted data; k classes from a noisy sum of three columns, cut
    at its quantiles. The seeds are those of the first 12 whose data show the most
    mechanisms declared "not kept" (tie rules, rounding that decides a tie)."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, size=(120, 5)).astype(np.float64)
    score = X[:, 0] + X[:, 1] - X[:, 2] + rng.integers(0, 3, size=120)
    y = np.digitize(score, np.quantile(score, np.linspace(0, 1, k + 1)[1:-1]))
    return _thirds(f"ties{k}-{seed}", X, y, seed)


@functools.cache
def nominal_data():
    """(X, y, levels, train, test): two numeric columns and a nominal one of four levels
    (codes 0..3, last column); the class depends on both kinds."""
    rng = np.random.default_rng(4)
    n = 180
    codes = rng.integers(0, 4, size=n)
    X = np.column_stack([rng.normal(size=n), rng.normal(size=n), codes.astype(np.float64)])
    effect = np.array([-1.2, 1.0, -0.3, 1.5])[codes]
    y = (effect + X[:, 0] + 0.4 * rng.normal(size=n) > 0).astype(np.int64)
    order = np.random.default_rng(5).permutation(n)
    return X, y, ["red", "green", "blue", "grey"], order[n // 3:], order[: n // 3]


# --- transformations: (X, y, X_test, labels) per variant; labels maps old codes to new ------

def _rows(d: Data, rng):
    p = rng.permutation(len(d.y))
    return [(d.X[p], d.y[p], d.X_test, None)]


def _columns(d: Data, rng):
    p = rng.permutation(d.X.shape[1])
    while (p == np.arange(p.size)).all():
        p = rng.permutation(d.X.shape[1])
    return [(d.X[:, p], d.y, d.X_test[:, p], None)]


def _constant(d: Data, rng):
    def put(X, at):
        return np.insert(X, at, 7.25, axis=1)

    return [(put(d.X, at), d.y, put(d.X_test, at), None) for at in (0, d.X.shape[1])]


def _appended(d: Data, column):
    def add(X):
        return np.column_stack([X, column(X)])

    return [(add(d.X), d.y, add(d.X_test), None)]


def _duplicate(d: Data, rng):
    return _appended(d, lambda X: X[:, d.top[0]])


def _combination(d: Data, rng):
    return _appended(d, lambda X: X[:, d.top[0]] + X[:, d.top[1]])


def _scale(d: Data, rng):
    def scaled(X, factor):
        X = X.copy()
        X[:, d.top[0]] *= factor
        return X

    return [(scaled(d.X, f), d.y, scaled(d.X_test, f), None) for f in (2.0**10, 2.0**-10)]


def _relabelled(d: Data, orders):
    """The labels renamed to strings: code c becomes ``order[c]``, one variant per order."""
    return [(d.X, np.asarray(order)[d.y], d.X_test, np.asarray(order)) for order in orders]


def _classes2(d: Data, rng):
    return _relabelled(d, [["b", "a"]])  # code 0 sorts second now


def _classes3(d: Data, rng):
    # every order but the sorted one: code c becomes the order's c-th name
    return _relabelled(d, [list(p) for p in itertools.permutations("abc")][1:])


NUMERIC = {"rows": _rows, "columns": _columns, "constant": _constant,
           "duplicate": _duplicate, "combination": _combination, "scale": _scale,
           "classes2": _classes2, "classes3": _classes3}


def applies(key: str, d: Data) -> bool:
    return (key != "classes2" or d.n_classes == 2) and (key != "classes3" or d.n_classes == 3)


# --- fitting --------------------------------------------------------------------------------

def _params(name: str) -> dict:
    return {**registry.algorithm_entry(name).extra.get("check_params", {}),
            "random_state": SEED}


def accepts(name: str, n_classes: int) -> bool:
    try:
        registry.make_estimator(name).check_n_classes(n_classes)
    except ValueError:
        return False
    return True


@functools.cache
def fitted(name: str, dataset: str, key: str | None, variant: int = 0):
    """(model, X, y, X_test, labels): ``name`` fitted on ``dataset`` (transformed by
    ``key``'s ``variant``, or as it is for None); ``labels`` maps the dataset's class
    codes to the labels the model learnt (None: the codes themselves)."""
    d = next(d for d in numeric_data() if d.name == dataset)
    X, y, X_test, labels = (d.X, d.y, d.X_test, None) if key is None else \
        NUMERIC[key](d, np.random.default_rng(7))[variant]
    model = registry.make_estimator(name, **_params(name)).fit(X, y)
    return model, X, y, X_test, labels


def variants(key: str, d: Data) -> int:
    return len(NUMERIC[key](d, np.random.default_rng(7)))


@functools.cache
def fitted_nominal(name: str, rule: str, recoded: bool):
    """(model, test rows, training rows (as the model takes them), their classes):
    ``name`` fitted as a run's task fits it
    (``fit.fit_task``: the dataset's nominal rule, categorical_features filled in, a seed
    from the task's names) on the nominal data, its level codes permuted if ``recoded``."""
    X, y, levels, train, test = nominal_data()
    X = X.copy()
    if recoded:
        new_code = np.array([2, 0, 3, 1])
        X[:, 2] = new_code[X[:, 2].astype(np.int64)]
        levels = [levels[int(np.flatnonzero(new_code == c)[0])] for c in range(4)]
    info = {"name": "nominal", "feature_names": ["x1", "x2", "colour"], "categorical": [2],
            "categories": [levels], "nominal": rule}
    spec = AlgorithmSpec(name=name, label=name, params=_params(name))
    task = fit_task(spec, "nominal", X, y, info, train, np.zeros(0, dtype=np.int64),
                    (SEED, "nominal", 0, 0, name))
    return task.estimator, task.X[test], task.X[train], y[train], y[test]


def pairs(name: str, key: str):
    """Every comparison of ``key`` for ``name``: (data label, model a, test rows a,
    model b, test rows b, labels) with a the original fit, b the transformed one."""
    if key == "nominal":
        a, Ta = fitted_nominal(name, "onehot", False)[:2]
        b, Tb = fitted_nominal(name, "codes", False)[:2]
        return [("nominal", a, Ta, b, Tb, None)]
    if key == "levels":
        a, Ta = fitted_nominal(name, "codes", False)[:2]
        b, Tb = fitted_nominal(name, "codes", True)[:2]
        return [("nominal", a, Ta, b, Tb, None)]
    out = []
    for d in numeric_data():
        if not (applies(key, d) and accepts(name, d.n_classes)):
            continue
        a = fitted(name, d.name, None)[0]
        for v in range(variants(key, d)):
            b, _, _, T, labels = fitted(name, d.name, key, v)
            out.append((f"{d.name}#{v}", a, d.X_test, b, T, labels))
    return out


# --- comparing ------------------------------------------------------------------------------

def near_split(model, X) -> np.ndarray:
    """Rows of ``X`` within rounding (``invariances.ROUNDING_TOLERANCE``) of a linear
    split they meet in ``model``'s tree."""
    tree, Z = model.tree_, model.tree_input(X)
    near = np.zeros(Z.shape[0], dtype=bool)
    for rows, nodes, _ in tree._walk(Z, spread=False):
        inner = ~tree.is_leaf[nodes] & (tree.kind[nodes] != NOMINAL)
        rows, nodes = rows[inner], nodes[inner]
        terms = tree.weights[nodes] * Z[rows]
        gap = np.abs(terms.sum(axis=1) - tree.threshold[nodes])
        scale = np.abs(terms).sum(axis=1) + np.abs(tree.threshold[nodes])
        near[rows[gap <= invariances.ROUNDING_TOLERANCE * scale]] = True
    return near


def differences(a, Ta, b, Tb, labels, rounding: bool = False) -> tuple[int, int]:
    """(test rows predicted differently, rows left out as within rounding of a split).

    The same prediction: the same class probabilities to the bit (b's columns taken in
    the order of a's classes), and the same class wherever those have a single largest.
    """
    pa, pb = a.predict_proba(Ta), b.predict_proba(Tb)
    ca, cb = a.predict(Ta), b.predict(Tb)
    if labels is not None:  # a's classes are the codes 0..k-1, b's their new names
        pb = pb[:, [int(np.flatnonzero(b.classes_ == labels[int(c)])[0])
                    for c in a.classes_]]
        ca = labels[ca.astype(np.int64)]
    top = np.sort(pa, axis=1)
    single = top[:, -1] > top[:, -2] if pa.shape[1] > 1 else np.ones(len(pa), dtype=bool)
    differ = (pa != pb).any(axis=1) | (single & (ca != cb))
    left_out = np.zeros(len(pa), dtype=bool)
    if rounding:
        left_out = near_split(a, Ta) | near_split(b, Tb)
    return int((differ & ~left_out).sum()), int(left_out.sum())


# --- the declarations ------------------------------------------------------------------------

def declared(name: str) -> dict:
    return registry.invariances(name)


def _cases(kind):
    return [pytest.param(name, key, id=f"{name}-{key}")
            for name in NAMES for key, value in declared(name).items()
            if isinstance(value, kind)]


@pytest.mark.parametrize("name", NAMES)
def test_every_builtin_algorithm_declares_every_transformation(name):
    if name not in registry.BUILTIN_ALGORITHMS:
        pytest.skip("a plugin declares what it chooses to")
    assert invariances.missing(declared(name)) == [], name


@pytest.mark.parametrize("name", NAMES)
def test_not_applicable_is_what_the_algorithm_says_of_itself(name):
    """Three classes do not apply exactly to the two-class methods (the runner's own
    check), the nominal rows exactly to the methods without nominal support."""
    est = registry.make_estimator(name)
    found = declared(name)
    if "classes3" in found:
        assert isinstance(found["classes3"], NotApplicable) == (not accepts(name, 3)), name
    for key in ("nominal", "levels"):
        if key in found:
            assert isinstance(found[key], NotApplicable) == (not takes_nominal(est)), name


@pytest.mark.parametrize("name, key", _cases(Kept))
def test_a_kept_invariance_holds(name, key):
    kind = declared(name)[key].kind
    if kind == "rounding":
        assert isinstance(registry.make_estimator(name), TreeClassifier), \
            f"{name}: only a tree can declare {key} kept up to rounding"
    found = pairs(name, key)
    assert found, f"{name}: no data here to test {key} on"
    for label, a, Ta, b, Tb, labels in found:
        differ, left_out = differences(a, Ta, b, Tb, labels, rounding=kind == "rounding")
        assert differ == 0, (f"{name} on {label}, {key}: {differ} of {len(Ta)} test rows "
                             f"predicted differently ({kind})")
        # a rounding claim that leaves out many rows would say little
        assert left_out <= 2, f"{name} on {label}, {key}: {left_out} rows within rounding"


@pytest.mark.slow
@pytest.mark.parametrize("name, key", _cases(NotKept))
def test_not_kept_is_shown_broken_where_declared_so(name, key):
    """A "not kept" is seen broken on some of the data here, or declared ``shown=False``
    (read from the method) and then seen on none, so the table's * stays true."""
    found = pairs(name, key)
    seen = [label for label, a, Ta, b, Tb, labels in found
            if differences(a, Ta, b, Tb, labels)[0]]
    value = declared(name)[key]
    if value.shown:
        assert seen, (f"{name} keeps {key} on every dataset here ({len(found)} compared), "
                      f"but declares it not kept: {value.reason}")
    else:
        assert not seen, (f"{name} breaks {key} on {', '.join(seen)}: declare it shown "
                          f"(it is no longer read from the method only)")


def _universal_cases():
    """Every algorithm on the original data and on each transformation; those of the
    transformations it does not keep (fitted for no other fast test) in the slow set."""
    def slow(name, key):
        return key is not None and not isinstance(declared(name).get(key), Kept)

    return [pytest.param(name, key, id=f"{name}-{key or 'original'}",
                         marks=[pytest.mark.slow] if slow(name, key) else [])
            for name in NAMES for key in (None, *NUMERIC)]


def _degenerate(model, X, y, X_test, y_test) -> str:
    """The flags of a fit (``experiment.degeneracy.task_flags``, the definition runs.csv
    records), less one_leaf where the tree's own stopping rules make the root a leaf."""
    accuracy = 100.0 * float(np.mean(model.predict(X) == y))
    confusion = confusion_matrix(y_test, model.predict(X_test), labels=model.classes_)
    flags = degeneracy.task_flags(accuracy, degeneracy.majority_rate(y),
                                  getattr(model, "n_leaves_", None), confusion).split(";")
    if degeneracy.ONE_LEAF in flags and _root_stops(model, y):
        flags.remove(degeneracy.ONE_LEAF)
    return ";".join(f for f in flags if f)


def _root_stops(model, y) -> bool:
    codes = np.searchsorted(model.classes_, y)
    root = Node(np.arange(len(y)), np.bincount(codes, minlength=len(model.classes_)))
    return model._stopping_rules().is_leaf(root)


@pytest.mark.parametrize("name, key", _universal_cases())
def test_no_degenerate_fit_on_data_with_signal(name, key):
    """Every fit of this module (the original data and each transformation of them)."""
    problems = []
    for d in numeric_data():
        if not accepts(name, d.n_classes) or (key is not None and not applies(key, d)):
            continue
        for v in range(1 if key is None else variants(key, d)):
            model, X, y, X_test, labels = fitted(name, d.name, key, v)
            y_test = d.y_test if labels is None else labels[d.y_test]
            flags = _degenerate(model, X, y, X_test, y_test)
            problems += [f"{d.name}#{v}: {flags}"] if flags else []
    assert problems == [], name


@pytest.mark.parametrize("name", [n for n in NAMES
                                  if takes_nominal(registry.make_estimator(n))])
def test_no_degenerate_fit_on_the_nominal_data(name):
    model, X_test, X, y, y_test = fitted_nominal(name, "codes", False)
    assert _degenerate(model, X, y, X_test, y_test) == ""


# --- the vocabulary ------------------------------------------------------------------------

def test_a_declaration_outside_the_vocabulary_is_refused_at_registration():
    for declared_, message in (({"rowz": invariances.EXACT}, "no transformation 'rowz'"),
                               ({"rows": "exact"}, r"invariances\['rows'\] must be"),
                               ({"rows": NotKept(" ")}, r"invariances\['rows'\] must be"),
                               ({"rows": Kept("nearly")}, r"invariances\['rows'\] must be")):
        with pytest.raises(ValueError, match=message):
            registry.register_algorithm("not-registered", invariances=declared_)
    assert "not-registered" not in registry.ALGORITHMS


def test_the_table_numbers_each_reason_once_in_order_of_first_use():
    why, other = NotKept("why"), NotApplicable("not here")
    headers, rows, reasons = invariances.invariance_table([
        ("a", {"rows": invariances.EXACT, "columns": why, "constant": invariances.ROUNDING,
               "levels": other}),
        ("b", {"rows": why.unshown(), "columns": other})])
    assert headers[0] == "algorithm" and headers[1:] == [t.title for t in
                                                          invariances.TRANSFORMATIONS]
    assert reasons == ["why", "not here"]
    assert rows[0][:4] == ["`a`", "✓", "✗ 1", "≈"] and rows[0][-1] == "– 2"
    assert rows[1][:3] == ["`b`", "✗ 1*", "– 2"] and rows[1][3] == "?"
