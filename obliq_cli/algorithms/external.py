"""Any scikit-learn-compatible classifier as a baseline: a config's
``{estimator: sklearn.ensemble.RandomForestClassifier, params: {...}}``.

The class is named by its dotted import path, so every worker process (fork, loky, dask)
imports it by that name; nothing is registered. What obliq needs of it is scikit-learn's
estimator contract (``get_params`` / ``set_params``, ``fit``, ``predict``, ``classes_``)
and ``sklearn.base.is_classifier``. It is not one of obliq's trees: it cannot be pruned and
has no ``n_leaves_`` / ``depth_``, so the tree-size metrics stay empty for it
(``experiment.metrics``). Its randomness is scikit-learn's integer ``random_state``,
derived from the task's named seed (``random_state_from``), so rows do not depend on
``-j``, the backend or ``--resume``. Whether it takes missing values (``missing:
native``) is its ``allow_nan`` tag, read by ``data.preprocess.accepts_missing`` as for
any algorithm.

The registry reaches this module by name (``registry.external_*``), as it reaches the
built-in algorithms, so the config and the runner never import it.
"""

from __future__ import annotations

import importlib
import importlib.metadata

import numpy as np

from ..errors import ObliqError
from ..parameters import short_repr

# numpy's default_rng and scikit-learn's check_random_state take seeds below 2**32; a
# positive int32 suits every estimator (some pass it on to C code as an int)
SEED_BOUND = 2**31 - 1


def estimator_class(path: str) -> type:
    """The class at dotted ``path``; ObliqError (one line) when it cannot be imported, is
    not a class, or is not a scikit-learn classifier."""
    from sklearn.base import is_classifier

    module_name, _, attribute = path.rpartition(".")
    if not module_name or not attribute:
        raise ObliqError(f"{short_repr(path)} is not a dotted path such as "
                         f"sklearn.ensemble.RandomForestClassifier")
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # ImportError, or the module's own code failing
        first = (str(exc).strip().splitlines() or [""])[0]
        raise ObliqError(f"cannot import {module_name} ({type(exc).__name__}: "
                         f"{first})") from None
    cls = getattr(module, attribute, None)
    if cls is None:
        raise ObliqError(f"module {module_name} has no {attribute!r}")
    if not isinstance(cls, type):
        raise ObliqError(f"{path} is not a class (got {type(cls).__name__})")
    try:
        classifier = is_classifier(cls())
    except Exception as exc:
        raise ObliqError(f"{path} cannot be made with its defaults ({type(exc).__name__}: "
                         f"{exc})") from None
    if not classifier:
        raise ObliqError(f"{path} is not a scikit-learn classifier "
                         f"(sklearn.base.is_classifier is false)")
    return cls


def unknown_parameter(cls: type, params: dict) -> tuple[str, str] | None:
    """``(name, message)`` for the first key of ``params`` that ``cls().get_params()``
    lacks, with the closest known name; None when all are known."""
    from ..registry import suggest

    known = cls().get_params(deep=False)
    for name in params:
        if name not in known:
            return name, (f"{cls.__name__} has no parameter {short_repr(name)}"
                          f"{suggest(str(name), known)}")
    return None


def check_values(cls: type, params: dict) -> None:
    """scikit-learn's own check of the values (``_validate_params``, where the class
    declares its constraints); ObliqError with its first line."""
    estimator = cls(**params)
    validate = getattr(estimator, "_validate_params", None)
    if validate is None:
        return
    try:
        validate()
    except (TypeError, ValueError) as exc:
        raise ObliqError((str(exc).strip().splitlines() or [""])[0]) from None


def make(path: str, params: dict):
    """A new, unfitted estimator of the class at ``path`` with ``params``."""
    cls = estimator_class(path)
    bad = unknown_parameter(cls, params)
    if bad:
        raise ObliqError(bad[1])
    return cls(**params)


def random_state_from(rng: np.random.Generator) -> int:
    """The integer ``random_state`` of one task, drawn from the task's own stream."""
    return int(rng.integers(SEED_BOUND))


def package_version(path: str) -> tuple[str, str | None]:
    """(top-level package of ``path``, the version of the distribution that installs it;
    None for a module no distribution installs, such as a file beside the config)."""
    top = path.split(".")[0]
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
