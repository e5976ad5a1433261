"""Any scikit-learn-compatible classifier as a baseline: a config's
``{estimator: sklearn.ensemble.RandomForestClassifier, params: {...}}``, or a pipeline of
them, ``{pipeline: [{estimator: sklearn.preprocessing.StandardScaler}, {estimator:
sklearn.linear_model.LogisticRegression, params: {C: 0.5}}]}``, built with scikit-learn's
``make_pipeline``.

The class is named by its dotted import path, so every worker process (fork, loky, dask)
imports it by that name; nothing is registered. A class defined in one of the config's
``imports:`` files is named by the file's stem (``mine.MyClassifier`` for ``mine.py``):
the runner hands the file to each task, and a worker imports it before the estimator is
made. What obliq needs of it is scikit-learn's estimator contract (``get_params`` /
``set_params``, ``fit``, ``predict``, ``classes_``), ``sklearn.base.is_classifier`` and
``sklearn.base.clone``, never a private attribute. It is not one of obliq's trees: it
cannot be pruned and has no ``n_leaves_`` / ``depth_``, so the tree-size metrics stay
empty for it (``experiment.metrics``). Its randomness is scikit-learn's integer
``random_state``, derived from the task's named seed (``seed``: the estimator's own, or
that of each pipeline step that has one), so rows do not depend on ``-j``, the backend
or ``--resume``. Whether it takes missing values (``missing: native``) is its
``allow_nan`` tag, read by ``data.preprocess.accepts_missing`` as for any algorithm.

Its code is not obliq's: what it prints while imported or made goes to the log
(``logs.captured``), and any exception it raises there, a ``SystemExit`` or a
``KeyboardInterrupt`` of its own included (``interrupts.from_signal`` tells the user's
Ctrl-C apart), is one ObliqError line (``running``).

The registry reaches this module by name (``registry.external_estimators``), as it
reaches the built-in algorithms, so the config and the runner never import it.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.metadata
import math
import sys

import numpy as np

from .. import interrupts, registry
from ..errors import ObliqError, one_line
from ..logs import captured
from ..parameters import short_repr

# numpy's default_rng and scikit-learn's check_random_state take seeds below 2**32; a
# positive int32 suits every estimator (some pass it on to C code as an int)
SEED_BOUND = 2**31 - 1
# what a ``pipeline:`` entry becomes: this path, with its steps under params["steps"]
PIPELINE = "sklearn.pipeline.Pipeline"
STEPS = "steps"


@contextlib.contextmanager
def running(what: str):
    """Code of the estimator's package runs inside: its prints go to the log, and any
    exception it raises, ``SystemExit`` and its own ``KeyboardInterrupt`` included (not
    the user's Ctrl-C), is re-raised as one ObliqError line, ``what (Type: message)``."""
    try:
        with captured(what):
            yield
    except ObliqError:
        raise
    except BaseException as exc:
        if interrupts.from_signal(exc):
            raise
        raise ObliqError(f"{what} failed ({one_line(exc)})") from None


def _module(module_name: str):
    """The module ``module_name``: an ``imports:`` file of that stem first, else an
    import (its prints to the log)."""
    plugin = registry.plugin_file_module(module_name)
    if plugin is not None and plugin in sys.modules:
        return sys.modules[plugin]
    try:
        with captured(f"importing {module_name}"):
            return importlib.import_module(module_name)
    except BaseException as exc:  # ImportError, or the module's own code failing or exiting
        if interrupts.from_signal(exc):
            raise
        raise ObliqError(f"cannot import {module_name} ({one_line(exc)})") from None


def estimator_class(path: str, classifier: bool = True) -> type:
    """The class at dotted ``path``; ObliqError (one line) when it cannot be imported, is
    not a class, cannot be made with its defaults, or is not a scikit-learn classifier
    (with ``classifier=False``, a pipeline's earlier step: not a transformer)."""
    from sklearn.base import is_classifier

    if path == PIPELINE:
        raise ObliqError(f"{PIPELINE} is written pipeline: [{{estimator: ...}}, ...] "
                         f"(its steps, made with make_pipeline)")
    module_name, _, attribute = path.rpartition(".")
    if not module_name or not attribute:
        raise ObliqError(f"{short_repr(path)} is not a dotted path such as "
                         f"sklearn.ensemble.RandomForestClassifier")
    cls = getattr(_module(module_name), attribute, None)
    if cls is None:
        raise ObliqError(f"module {module_name} has no {attribute!r}")
    if not isinstance(cls, type):
        raise ObliqError(f"{path} is not a class (got {type(cls).__name__})")
    with running(f"{path}() with its defaults"):
        estimator = cls()
        is_one = is_classifier(estimator)
    if classifier and not is_one:
        raise ObliqError(f"{path} is not a scikit-learn classifier "
                         f"(sklearn.base.is_classifier is false)")
    if not classifier and not (hasattr(estimator, "transform") and hasattr(estimator, "fit")):
        raise ObliqError(f"{path} is not a transformer (no fit and transform): only a "
                         f"pipeline's last step may be the classifier")
    return cls


def non_finite(value) -> float | None:
    """The first NaN or infinity in ``value`` (a number, or lists and mappings of them)."""
    if isinstance(value, float) and not math.isfinite(value):
        return value
    items = value.values() if isinstance(value, dict) else \
        value if isinstance(value, (list, tuple)) else ()
    for item in items:
        bad = non_finite(item)
        if bad is not None:
            return bad
    return None


def check_params(cls: type, params: dict) -> tuple[str | None, str] | None:
    """``(parameter or None, message)`` for the first problem of ``params`` for ``cls``:
    a name ``cls().get_params()`` lacks (with the closest known name), a NaN or an
    infinity (refused here: an SVC with ``C: .inf`` never ends), or a value that
    ``cls(**params)`` or ``sklearn.base.clone`` of it refuses; None when all is well.
    The values' ranges are left to ``fit``, which a trial before the run calls
    (``experiment.trial``)."""
    from sklearn.base import clone

    with running(f"{cls.__name__}().get_params()"):
        known = cls().get_params(deep=False)
    for name, value in params.items():
        if name not in known:
            return name, (f"{cls.__name__} has no parameter {short_repr(name)}"
                          f"{registry.suggest(str(name), known)}")
        bad = non_finite(value)
        if bad is not None:
            return name, f"must be a finite number (got {bad})"
    with running(f"{cls.__name__}(**params)"):
        estimator = cls(**params)
    with running(f"sklearn.base.clone of {cls.__name__}"):
        clone(estimator)
    return None


def _new(cls: type, params: dict):
    with running(f"{cls.__name__}(**params)"):
        return cls(**params)


def make(path: str, params: dict):
    """A new, unfitted estimator of the class at ``path`` with ``params``; for
    ``PIPELINE``, ``make_pipeline`` of ``params["steps"]`` (each ``{estimator, params}``),
    then the other keys (``step__parameter``: a dataset's own values) set on it."""
    if path == PIPELINE:
        from sklearn.pipeline import make_pipeline

        steps = params[STEPS]
        parts = [_new(estimator_class(step["estimator"], classifier=i == len(steps) - 1),
                      dict(step.get("params") or {})) for i, step in enumerate(steps)]
        pipeline = make_pipeline(*parts)
        rest = {k: v for k, v in params.items() if k != STEPS}
        if rest:
            with running("Pipeline.set_params"):
                pipeline.set_params(**rest)
        return pipeline
    cls = estimator_class(path)
    bad = check_params(cls, params)
    if bad:
        raise ObliqError(bad[1])
    return _new(cls, params)


def pipeline_label(steps: list[dict]) -> str:
    """A pipeline's default label: its steps' class names joined by '+'."""
    return "+".join(str(step["estimator"]).rpartition(".")[2] for step in steps)


def paths(path: str, params: dict) -> list[str]:
    """The dotted paths of the classes an entry makes: ``path``, or a pipeline's steps."""
    if path == PIPELINE:
        return [str(step["estimator"]) for step in params[STEPS]]
    return [path]


def random_state_from(rng: np.random.Generator) -> int:
    """The integer ``random_state`` of one task, drawn from the task's own stream."""
    return int(rng.integers(SEED_BOUND))


def seed(estimator, rng: np.random.Generator) -> None:
    """Give ``estimator`` the task's integer seed (``random_state_from(rng)``): its own
    ``random_state``, or, for a pipeline, that of each step that has one (the same
    integer for each, as a single estimator gets it). Inner estimators of a step (a
    bagging ensemble's) are left to the step, which seeds them from its own."""
    from sklearn.pipeline import Pipeline

    params = estimator.get_params()
    if isinstance(estimator, Pipeline):
        keys = [f"{name}__random_state" for name, _ in estimator.steps
                if f"{name}__random_state" in params]
    else:
        keys = ["random_state"] if "random_state" in params else []
    if keys:
        value = random_state_from(rng)
        estimator.set_params(**{key: value for key in keys})


def sample_weight_key(estimator) -> str | None:
    """The ``fit`` keyword that gives ``estimator`` its rows' weights: ``sample_weight``
    when its ``fit`` takes it (scikit-learn's ``has_fit_parameter``), for a pipeline its
    last step's as ``<step>__sample_weight`` (a pipeline routes ``step__param`` to that
    step's fit); None when it takes none."""
    from sklearn.pipeline import Pipeline
    from sklearn.utils.validation import has_fit_parameter

    if isinstance(estimator, Pipeline):
        name, last = estimator.steps[-1]
        return f"{name}__sample_weight" if has_fit_parameter(last, "sample_weight") else None
    return "sample_weight" if has_fit_parameter(estimator, "sample_weight") else None


def plugin_file(path: str) -> str | None:
    """The module name of the ``imports:`` file that ``path``'s class comes from (the
    runner hands it to every task), None for an importable module."""
    return registry.plugin_file_module(path.rpartition(".")[0])


def package_version(path: str) -> tuple[str, str | None]:
    """(top-level package of ``path``, the version of the distribution that installs it;
    None for a module no distribution installs, such as a file beside the config)."""
    top = path.split(".")[0]
    if plugin_file(path) is not None:  # its sha256 is the provenance's (imports)
        return top, None
    for dist in importlib.metadata.packages_distributions().get(top, []):
        try:
            return top, importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            continue
    try:
        module = importlib.import_module(top)
    except Exception:  # made before from this path, so rarely; no version to give
        return top, None
    return top, getattr(module, "__version__", None)
