"""Every compiled (numba) function of obliq, in one layer below ``tree`` and ``algorithms``.

The modules here import only numpy and numba (and each other); ``tree`` and
``algorithms`` call them. Each kernel is decorated with :data:`compiled`, the one
convention: ``numba.njit`` in nopython mode, cached on disk (``obliq_cli.jit_cache``
names the folder by a digest of this package's sources, so an edit of any kernel
recompiles every kernel, and an edit elsewhere none) and releasing the GIL, without
``fastmath``, so no sum is reordered and running the same source as Python
(``NUMBA_DISABLE_JIT=1``) gives the same numbers.

Every kernel has a reference twin of the same contract in plain numpy/Python, and
tests/kernels/test_kernels.py checks each compiled kernel against its twin on random inputs
with ties.

- :mod:`.linalg`: BLAS-independent products and symmetric eigenproblems.
- :mod:`.presort`: the presorted column orders partitioned at every split.
- :mod:`.sums`: numpy's pairwise summation order, reproduced in a loop.
- :mod:`.criteria`: the criterion codes and one candidate's score from its counts.
- :mod:`.sweep`: the sorted sweep over every threshold of many projections.
- :mod:`.line_search`: the exact one-coefficient line search of the hill climbers.
- :mod:`.apdt`, :mod:`.cart_lc`, :mod:`.hhcart`, :mod:`.ldt`, :mod:`.oc1`, :mod:`.svm`,
  :mod:`.umt`: the loops of one algorithm each.
"""

from __future__ import annotations

import numba

compiled = numba.njit(cache=True, nogil=True)
"""The decorator of every kernel (see the module docstring)."""
