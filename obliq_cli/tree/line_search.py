"""The criterion code the line search kernel takes (``obliq_cli.kernels.line_search``)."""

from __future__ import annotations

from ..kernels.criteria import ENTROPY, GINI, TWOING
from .impurity import entropy_split, gini_split, twoing_split

_CODES = {gini_split: GINI, twoing_split: TWOING, entropy_split: ENTROPY}


def criterion_code(criterion) -> int:
    """The kernel code of a criterion of :mod:`obliq_cli.tree.impurity`."""
    try:
        return _CODES[criterion]
    except KeyError:
        raise ValueError(f"the line search supports gini, twoing and entropy, not "
                         f"{getattr(criterion, '__name__', criterion)!r}") from None
