"""Every case of the hardening corpus gives the outcome it should (see corpus.py)."""

import pytest
from corpus import CASES, run_case


# The signal cases run real processes for seconds each: slow (make test-slow)
@pytest.mark.parametrize("case", [
    pytest.param(c, id=c.id, marks=[pytest.mark.slow] if c.id.startswith("signal-") else [])
    for c in CASES])
def test_case(case, tmp_path):
    outcome, detail = run_case(case, tmp_path / "work")
    assert outcome == case.expect, detail


def test_case_ids_are_unique():
    assert len({c.id for c in CASES}) == len(CASES)
