"""The weight of a row, written once for the fit and for every pruner.

A row weighs its ``sample_weight`` (1 when none is given) times the weight its class gets
from ``class_weight`` (None: 1; ``"balanced"``: ``n / (n_classes * n_c)`` over the rows of
the part being weighed, scikit-learn's ``compute_sample_weight``; a mapping: the weight
named for the label, 1 for a label not named). The fit weighs its growing rows so
(``algorithms.base.fit_weights``); a pruner weighs the rows it reads by the same rule
(``pruning.weights``): the growing rows carry the very weights the tree was grown with,
and a separate pruning part carries its own sample weights times the class weights
computed on its own rows, so ``"balanced"`` balances the rows each error is counted on.

``None`` stands for "every row weighs the same": an unweighted fit or pruning then takes
its integer path of old, bit for bit, and a common factor changes no comparison.
"""

from __future__ import annotations

import inspect

import numpy as np

from .errors import DataError
from .parameters import short_repr

# The rows' weights the runner hands every pruner (experiment.fit): data, like the rows
# themselves, not parameters a config sets, so they have no declaration and a config's
# pruner params naming one is refused as unknown.
WEIGHT_ARGUMENTS = ("sample_weight", "prune_weight")


def takes_weights(prune) -> bool:
    """Whether pruner function ``prune`` can be called with every ``WEIGHT_ARGUMENTS``
    keyword (it names them, or takes ``**kwargs``): the built-in pruners do; a plugin's
    written before weights existed may not, and would fail every weighted task."""
    try:
        params = inspect.signature(prune).parameters.values()
    except (TypeError, ValueError):  # no signature to read (a builtin): let it be called
        return True
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return True
    named = {p.name for p in params if p.kind is not p.POSITIONAL_ONLY}
    return all(name in named for name in WEIGHT_ARGUMENTS)


def row_weights(class_weight, sample_weight, y, n_rows: int, *,
                check_names: bool = True) -> np.ndarray | None:
    """The weight of each of ``n_rows`` rows with labels ``y`` (module docstring), or None
    when all are equal. ``sample_weight``: None, a number or one non-negative finite weight
    per row. ``check_names``: a ``class_weight`` mapping naming a label absent from ``y`` is
    a DataError (the fit's check; a pruning part may simply lack a class). A DataError
    for weights that are negative, not finite, of the wrong length or all zero.
    scikit-learn's own ValueErrors pass through (the fit words them on one line)."""
    from sklearn.utils.class_weight import compute_sample_weight
    from sklearn.utils.validation import _check_sample_weight

    weights = None
    if sample_weight is not None:
        weights = _check_sample_weight(sample_weight, np.empty((n_rows, 0)),
                                       dtype=np.float64, ensure_non_negative=True)
        if not np.isfinite(weights).all():
            raise DataError("sample_weight holds a weight that is not finite")
    if class_weight is not None:
        present = set(np.asarray(y).tolist())
        if isinstance(class_weight, dict):
            # a key written as a number for labels read as text (YAML's {0: 1, 1: 5} on a
            # CSV's "0"/"1") names the label it spells; any other unknown key is refused
            by_text = {str(label): label for label in present}
            class_weight = {k if k in present or str(k) not in by_text else by_text[str(k)]: v
                            for k, v in class_weight.items()}
            unknown = set(class_weight) - present
            if unknown and check_names:
                raise DataError(f"class_weight names {short_repr(sorted(map(str, unknown)))}, "
                                f"not a class of y (the classes are "
                                f"{short_repr(sorted(map(str, present)))})")
            # each label's weight, read per class (scikit-learn's own lookup fails on
            # text labels that spell numbers); an absent label's weighs no row
            labels, index = np.unique(np.asarray(y), return_inverse=True)
            factors = np.array([float(class_weight.get(label, 1.0))
                                for label in labels.tolist()])  # a loop over classes
            per_class = factors[index.ravel()]
        else:
            per_class = compute_sample_weight(class_weight, y)
        weights = per_class if weights is None else weights * per_class
    if weights is None:
        return None
    if not weights.sum() > 0:
        raise DataError("sample_weight: every row weighs 0 (after class_weight)")
    if (weights == weights[0]).all():
        return None
    return np.ascontiguousarray(weights, dtype=np.float64)
