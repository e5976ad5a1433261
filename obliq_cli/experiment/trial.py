"""One trial fit of an ``estimator:`` or ``pipeline:`` entry on each dataset, before the run.

obliq knows its own algorithms' parameters (declared bounds); of a scikit-learn class it
knows only what ``get_params`` and ``clone`` say (the config's check). Whether the values
suit the data (k-NN's ``n_neighbors`` above the training rows, a PCA step keeping more
components than the data has columns), scikit-learn's own value checks (made in
``fit``), or a class that exits or raises in ``fit`` or ``predict``: only a fit can tell,
and without one such an entry failed every task, or ended the run. So ``plan.plan``
fits each such entry once per dataset it runs on, as a task fits it (``fit.fit_task``:
its parameters there, a seeded ``random_state``, the dataset's preprocessing), on at
most ``TRIAL_ROWS`` rows drawn per class from the smallest training part of its tasks,
and predicts a few of that task's test rows. A failure is one error line naming the
config, the algorithm and the dataset, before anything is written.

A failure on the drawn rows may be theirs (too few for the parameters): the trial is
then made again on that whole training part, and only a failure there (where a task
would fail too) refuses the run. What the trial prints goes to the log.
"""

from __future__ import annotations

import numpy as np

from .. import interrupts
from ..errors import ObliqError, one_line
from ..logs import captured
from . import limits
from .protocols import take_count
from .seeds import rng_for

TRIAL_ROWS = 40
"""Rows of the trial fit: enough for every class of a small dataset to appear, few
enough that a slow estimator (an SVM grid, a forest of hundreds of trees) costs little."""
TRIAL_TEST_ROWS = 5


def _fit_once(fit_task, algo, label: str, X, y, info: dict, grow: np.ndarray,
              test: np.ndarray, names: tuple, timeout: float | None) -> None:
    def trial():
        with captured(f"trial fit of {algo.label} on {label}"):
            fitted = fit_task(algo, label, X, y, info, grow, grow[:0], names,
                              info.get("sample_weight"))
            fitted.estimator.predict(fitted.X[test])

    limits.within(timeout, trial)


def failure(fit_task, algo, label: str, X, y, info: dict, parts, seed: int,
            timeout: float | None = None) -> str | None:
    """Why a task of ``algo`` (an AlgorithmSpec) on dataset ``label`` cannot succeed, as
    the trial fit found it (``Type: message``, with the rows it had), or None. ``parts``:
    the (grow rows, test rows) of each of its tasks; ``fit_task``: ``fit.fit_task``
    (handed in by the plan). ``timeout``: the config's, which the trial keeps as a task
    does; a trial past it is not made again on more rows (it would take longer)."""
    grow, test = min(parts, key=lambda part: part[0].size)
    names = (seed, label, "trial", algo.label)
    test = test[:TRIAL_TEST_ROWS]
    rows = grow
    if grow.size > TRIAL_ROWS:
        drawn = take_count(grow, y, TRIAL_ROWS, True, rng_for(*names))[1]
        if np.unique(y[drawn]).size == np.unique(y[grow]).size:
            rows = drawn
    for attempt in ([rows, grow] if rows.size < grow.size else [grow]):
        try:
            _fit_once(fit_task, algo, label, X, y, info, attempt, test, names, timeout)
            return None
        except limits.TaskTimeout as exc:
            return f"a trial fit on {attempt.size} training rows failed: {exc}"
        except BaseException as exc:  # whatever the estimator raises, exits included
            if interrupts.from_signal(exc):
                raise
            reason = one_line(exc)
    return f"a trial fit on {grow.size} training rows (its smallest task's) failed: {reason}"


def check(config, j: int, algo, label: str, X, y, info: dict, parts, fit_task) -> None:
    """``failure`` as the plan's ObliqError naming the config, ``algorithms[j]`` and the
    dataset."""
    reason = failure(fit_task, algo, label, X, y, info, parts, config.seed, config.timeout)
    if reason is not None:
        raise ObliqError(f"{config.path}: algorithms[{j}] ({algo.label}) on {label}: "
                         f"{reason}")
