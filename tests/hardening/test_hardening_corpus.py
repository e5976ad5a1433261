"""Every case of the hardening corpus gives the outcome it should (see corpus.py)."""

import pytest
from corpus import CASES, run_case


def _slow(case) -> bool:
    """The signal cases run real processes for seconds each, and the external family's
    fork, loky and dask cases start a pool each: slow (make test-slow)."""
    return case.id.startswith("signal-") or (case.id.startswith("external-")
                                             and case.id.endswith(("-fork", "-loky", "-dask")))


@pytest.mark.parametrize("case", [
    pytest.param(c, id=c.id, marks=[pytest.mark.slow] if _slow(c) else []) for c in CASES])
def test_case(case, tmp_path):
    outcome, detail = run_case(case, tmp_path / "work")
    assert outcome == case.expect, detail


def test_case_ids_are_unique():
    assert len({c.id for c in CASES}) == len(CASES)
