"""C4.5 release 8 on continuous attributes: gain, MDL correction, gain ratio, thresholds."""

import numpy as np
import pytest
from conftest import rule_predictions

from obliq_cli import make_estimator
from obliq_cli.algorithms.c45 import choose_attribute, evaluate_attribute

# Quinlan's golf data (1993, Table 1-1): temperature, humidity; class play (1) / don't (0)
TEMP = np.array([85, 80, 83, 70, 68, 65, 64, 72, 69, 75, 75, 72, 81, 71], float)
HUMID = np.array([85, 90, 78, 96, 80, 70, 65, 95, 70, 80, 70, 90, 75, 80], float)
PLAY = np.array([0, 0, 1, 1, 1, 0, 1, 0, 1, 1, 1, 1, 1, 0])


def H(*counts):
    p = np.array(counts, float) / sum(counts)
    p = p[p > 0]
    return float(-(p * np.log2(p)).sum())


def test_humidity_gain_mdl_and_ratio_by_hand():
    # Sorted humidity (yes/no): 65(1/0) 70(2/1) 75(1/0) 78(1/0) 80(2/1) 85(0/1) 90(1/1)
    # 95(0/1) 96(1/0); left counts (yes, no) after each cut:
    left = {65: (1, 0), 70: (3, 1), 75: (4, 1), 78: (5, 1), 80: (7, 2), 85: (7, 3),
            90: (8, 4), 95: (8, 5)}
    base = H(9, 5)
    gains = {c: base - (sum(l) / 14 * H(*l) + (14 - sum(l)) / 14 * H(9 - l[0], 5 - l[1]))
             for c, l in left.items()}
    # 14 cases: MinSplit = max(2, 0.1*14/2) = 2 drops the cuts after 65 and 95, Tries = 6;
    # the best gain (cut 80, 0.102 bits) is below log2(6)/14: humidity offers no test.
    inner = {c: g for c, g in gains.items() if c not in (65, 95)}
    assert max(inner, key=inner.get) == 80
    assert gains[80] == pytest.approx(0.1022, abs=1e-4)
    assert gains[80] - np.log2(6) / 14 < 0
    assert evaluate_attribute(HUMID, PLAY, 2, 2) is None
    # Four copies (56 cases): MinSplit = 2.8, every cut is tried (Tries = 8 =
    # N_distinct - 1), gains are unchanged by the copying, the MDL charge is log2(8)/56.
    r = evaluate_attribute(np.tile(HUMID, 4), np.tile(PLAY, 4), 2, 2)
    assert max(gains, key=gains.get) == 80
    assert r["tries"] == 8
    assert r["raw_gain"] == pytest.approx(gains[80])
    assert r["gain"] == pytest.approx(gains[80] - 3 / 56)
    assert r["info"] == pytest.approx(H(9, 5))  # 36 of 56 cases <= 80
    assert (r["low"], r["high"]) == (80, 85)
    assert r["gain"] / r["info"] == pytest.approx((gains[80] - 3 / 56) / H(9, 5))


def test_temperature_offers_no_test_after_the_mdl_charge():
    # The best temperature cut (<= 83... ) gains less than log2(Tries)/14: no test.
    r = evaluate_attribute(TEMP, PLAY, 2, 2)
    values = np.unique(TEMP)
    best = 0.0
    tries = 0
    for lo in values[:-1]:
        mask = TEMP <= lo
        nl = mask.sum()
        if nl < 2 or 14 - nl < 2:
            continue
        tries += 1
        yl = PLAY[mask].sum()
        yr = PLAY[~mask].sum()
        g = H(9, 5) - nl / 14 * H(yl, nl - yl) - (14 - nl) / 14 * H(yr, 14 - nl - yr)
        best = max(best, g)
    if best - np.log2(tries) / 14 > 0:
        assert r["gain"] == pytest.approx(best - np.log2(tries) / 14)
    else:
        assert r is None


def test_only_attributes_with_average_gain_compete_on_ratio():
    results = [{"gain": 0.30, "info": 1.0}, {"gain": 0.05, "info": 0.1}, None,
               {"gain": 0.25, "info": 0.9}]
    # average gain 0.2: attribute 1 has the best ratio (0.5) but too little gain
    assert choose_attribute(results) == 0
    results[3] = {"gain": 0.25, "info": 0.5}
    assert choose_attribute(results) == 3
    assert choose_attribute([None, None]) is None


def test_threshold_is_the_largest_training_value_below_the_midpoint():
    X = np.tile(np.c_[HUMID, TEMP], (4, 1))
    y = np.tile(PLAY, 4)
    tree = make_estimator("c45").fit(X, y).tree_
    mid = make_estimator("c45", threshold="midpoint").fit(X, y).tree_
    f = tree.feature[0]
    assert f == mid.feature[0] >= 0
    vals = np.unique(X[:, f])
    assert mid.threshold[0] not in vals  # a midpoint between two values
    assert tree.threshold[0] == vals[vals <= mid.threshold[0]].max()
    assert (tree.children_left == mid.children_left).all()
    for node in np.flatnonzero(tree.feature >= 0):
        assert tree.threshold[node] in X[:, tree.feature[node]]


def test_every_split_leaves_at_least_two_cases_per_side_and_rules_agree():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 5))
    y = (X[:, 0] + X[:, 1] ** 2 + 0.3 * rng.normal(size=400) > 1).astype(int)
    m = make_estimator("c45").fit(X, y)
    t = m.tree_
    n = t.value.sum(axis=1)
    internal = np.flatnonzero(t.feature >= 0)
    assert (n[t.children_left[internal]] >= 2).all()
    assert (n[t.children_right[internal]] >= 2).all()
    assert (n[internal] >= 4).all()
    assert (rule_predictions(m, X) == m.predict(X)).all()
    assert m.tree_.to_json() == make_estimator("c45").fit(X, y).tree_.to_json()
