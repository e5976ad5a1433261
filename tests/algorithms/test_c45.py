"""C4.5 release 8 on continuous attributes: gain, MDL correction, gain ratio, thresholds."""

import numpy as np
import pytest
from conftest import GOLF, GOLF_Y, golf_unknown, rule_predictions

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
    # Sorted temperature (yes/no): 64(1/0) 65(0/1) 68(1/0) 69(1/0) 70(1/0) 71(0/1) 72(1/1)
    # 75(2/0) 80(0/1) 81(1/0) 83(1/0) 85(0/1): 12 values, 11 cuts; left counts after each:
    left = {64: (1, 0), 65: (1, 1), 68: (2, 1), 69: (3, 1), 70: (4, 1), 71: (4, 2),
            72: (5, 3), 75: (7, 3), 80: (7, 4), 81: (8, 4), 83: (9, 4)}
    gains = {c: H(9, 5) - (sum(l) / 14 * H(*l) + (14 - sum(l)) / 14 * H(9 - l[0], 5 - l[1]))
             for c, l in left.items()}
    # 14 cases: MinSplit 2 drops the cuts after 64 and 83 (one case on a side), Tries = 9;
    # the best of the rest (cut 70, 0.045 bits) is far below log2(9)/14: no test.
    inner = {c: g for c, g in gains.items() if c not in (64, 83)}
    assert max(inner, key=inner.get) == 70
    assert inner[70] == pytest.approx(0.0453, abs=1e-4)
    assert inner[70] < np.log2(9) / 14
    assert evaluate_attribute(TEMP, PLAY, 2, 2) is None
    # Four copies (56 cases): every cut is tried (Tries = 11) and the cut after 83, the
    # best (0.113 bits), survives the charge log2(11)/56.
    r = evaluate_attribute(np.tile(TEMP, 4), np.tile(PLAY, 4), 2, 2)
    assert max(gains, key=gains.get) == 83
    assert gains[83] == pytest.approx(0.1134, abs=1e-4)
    assert r["tries"] == 11
    assert (r["low"], r["high"]) == (83, 85)
    assert r["raw_gain"] == pytest.approx(gains[83])
    assert r["gain"] == pytest.approx(gains[83] - np.log2(11) / 56)


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


# --- Nominal attributes and unknown values (Quinlan 1993, ch. 2-3) ----------------------

from obliq_cli.algorithms.c45 import evaluate_attributes, evaluate_general  # noqa: E402
from obliq_cli.errors import DataError  # noqa: E402

GOLF_NAMES = ["outlook", "temperature", "humidity", "windy"]
GOLF_CATEGORIES = {0: ["sunny", "overcast", "rain"], 3: ["true", "false"]}


def test_outlook_gain_with_one_unknown_value_by_hand():
    X = golf_unknown()
    codes = (GOLF_Y == "Play").astype(np.int64)
    results = evaluate_general(X.T, codes, np.ones(14), 2, 2, {0: 3, 3: 2}, 14)
    # 13 known cases: 8 Play, 5 Don't; sunny 2/3, overcast 3/0, rain 3/2 (Play/Don't).
    info_known = H(8, 5)
    info_outlook = 5 / 13 * H(2, 3) + 3 / 13 * H(3) + 5 / 13 * H(3, 2)
    assert info_known == pytest.approx(0.961, abs=1e-3)
    assert info_outlook == pytest.approx(0.747, abs=1e-3)
    gain = 13 / 14 * (info_known - info_outlook)
    assert gain == pytest.approx(0.199, abs=1e-3)  # Quinlan: 0.199
    # split information counts the unknown case as a fourth subset: 5, 3, 5, 1 of 14
    split = H(5, 3, 5, 1)
    assert split == pytest.approx(1.809, abs=1e-3)  # Quinlan: 1.809
    r = results[0]
    assert r["categories"] == 3
    assert r["gain"] == pytest.approx(gain)
    assert r["info"] == pytest.approx(split)
    # windy (all known): 6 true (3/3), 8 false (6/2)
    windy = H(9, 5) - 6 / 14 * H(3, 3) - 8 / 14 * H(6, 2)
    assert results[3]["gain"] == pytest.approx(windy)
    assert results[3]["info"] == pytest.approx(H(6, 8))


def test_golf_tree_with_an_unknown_outlook_is_quinlans():
    est = make_estimator("c45", categorical_features=[0, 3]).fit(golf_unknown(), GOLF_Y)
    text = est.export_text(GOLF_NAMES, category_names=GOLF_CATEGORIES)
    # Quinlan 1993, ch. 3: the unknown case reaches sunny with weight 5/13, overcast 3/13
    # and rain 5/13: "Don't Play (3.4/0.4)", "Play (3.2)", "Don't Play (2.4/0.4)".
    w = 5 / 13
    assert text.splitlines() == [
        "root [5, 9]",
        f"|   outlook = sunny: [3, {2 + w:g}]",
        "|   |   humidity <= 75: class Play [0, 2]",
        f"|   |   humidity > 75: class Don't Play [3, {w:g}]",
        f"|   outlook = overcast: class Play [0, {3 + 3 / 13:g}]",
        f"|   outlook = rain: [2, {3 + w:g}]",
        f"|   |   windy = true: class Don't Play [2, {w:g}]",
        "|   |   windy = false: class Play [0, 3]",
    ]
    tree = est.tree_
    np.testing.assert_allclose(tree.value[tree.children(0)].sum(axis=1),
                               [5 + w, 3 + 3 / 13, 5 + w])
    # Quinlan's classification of (sunny, 75, humidity unknown, windy false): the case
    # goes to both humidity leaves with weights 2/5.4 and 3.4/5.4, so
    # P(Play) = (2 + 5/13) / (5 + 5/13) = 0.44 and P(Don't Play) = 3 / (5 + 5/13) = 0.56.
    proba = est.predict_proba(np.array([[0, 75, np.nan, 1]]))
    np.testing.assert_allclose(proba, [[3 / (5 + w), (2 + w) / (5 + w)]])
    assert est.predict(np.array([[0, 75, np.nan, 1]]))[0] == "Don't Play"
    # An outlook code never seen in training is unknown: spread the same as NaN.
    np.testing.assert_array_equal(est.predict_proba(np.array([[7, 70, 80, 0]])),
                                  est.predict_proba(np.array([[np.nan, 70, 80, 0]])))


def test_nominal_attributes_split_multiway_without_unknowns():
    est = make_estimator("c45", categorical_features=[0, 3]).fit(GOLF, GOLF_Y)
    tree = est.tree_
    assert tree.n_branches[0] == 3 and tree.feature[0] == 0
    text = est.export_text(GOLF_NAMES, category_names=GOLF_CATEGORIES)
    assert "|   outlook = overcast: class Play [0, 4]" in text.splitlines()
    assert "|   |   windy = true: class Don't Play [2, 0]" in text.splitlines()
    assert (rule_predictions(est, GOLF) == est.predict(GOLF)).all()
    assert (est.predict(GOLF) == GOLF_Y).all()
    # Without categorical_features every column is continuous: binary tests only.
    plain = make_estimator("c45").fit(GOLF, GOLF_Y).tree_
    assert (plain.n_branches <= 2).all()


def test_json_round_trip_of_a_tree_with_unknowns_predicts_identically():
    import json

    est = make_estimator("c45", categorical_features=[0, 3]).fit(golf_unknown(), GOLF_Y)
    data = json.loads(json.dumps(est.export_json()))
    back = make_estimator("c45").load_tree(data)
    rng = np.random.default_rng(0)
    Q = np.c_[rng.integers(0, 4, 200), rng.uniform(60, 90, 200), rng.uniform(60, 100, 200),
              rng.integers(0, 2, 200)].astype(float)
    Q[rng.uniform(size=Q.shape) < 0.2] = np.nan
    np.testing.assert_array_equal(back.predict_proba(Q), est.predict_proba(Q))
    np.testing.assert_array_equal(back.predict(Q), est.predict(Q))


def test_weighted_evaluation_agrees_with_the_compiled_sweep_without_unknowns():
    rng = np.random.default_rng(4)
    X = np.round(rng.normal(size=(300, 4)) * 3, 1)
    y = (X[:, 0] + X[:, 1] * X[:, 2] + rng.normal(size=300) > 0).astype(np.int64)
    fast = evaluate_attributes(X, y, 2, 2)
    general = evaluate_general(np.ascontiguousarray(X.T), y, np.ones(300), 2, 2, {}, 300)
    for a, b in zip(fast, general):
        assert (a is None) == (b is None)
        if a is not None:
            assert b["gain"] == pytest.approx(a["gain"], rel=1e-9)
            assert b["info"] == pytest.approx(a["info"], rel=1e-9)
            assert (b["low"], b["high"], b["tries"]) == (a["low"], a["high"], a["tries"])
    assert choose_attribute(fast) == choose_attribute(general)
    # Weights of 2 are the same as every row twice.
    twice = evaluate_general(np.ascontiguousarray(np.tile(X, (2, 1)).T), np.tile(y, 2),
                             np.ones(600), 2, 2, {}, 600)
    doubled = evaluate_general(np.ascontiguousarray(X.T), y, np.full(300, 2.0), 2, 2, {}, 600)
    for a, b in zip(twice, doubled):
        if a is not None:
            assert b["gain"] == pytest.approx(a["gain"], rel=1e-9)


def test_unknown_values_on_a_continuous_attribute_and_its_mdl_charge():
    # Humidity with four copies of the golf data and one humidity unknown among them.
    X = np.tile(HUMID, 4)[:, None].copy()
    y = np.tile(PLAY, 4)
    X[0, 0] = np.nan  # a Don't Play case (85)
    r = evaluate_general(np.ascontiguousarray(X.T), y, np.ones(56), 2, 2, {}, 56)[0]
    known = np.tile(HUMID, 4)[1:]
    yk = y[1:]
    left = known <= 80
    gain80 = H(36, 19) - (left.sum() * H(*np.bincount(yk[left], minlength=2))
                          + (~left).sum() * H(*np.bincount(yk[~left], minlength=2))) / 55
    # gain on the 55 known cases times 55/56, charged log2(Tries = 8)/56 (all cases)
    assert r["raw_gain"] == pytest.approx(55 / 56 * gain80)
    assert r["gain"] == pytest.approx(55 / 56 * gain80 - 3 / 56)
    assert r["info"] == pytest.approx(H(36, 19, 1))
    assert (r["low"], r["high"]) == (80, 85)


def test_category_codes_are_checked_and_nan_is_declared():
    with pytest.raises(DataError, match="categorical feature 0 holds 0.5"):
        make_estimator("c45", categorical_features=[0]).fit([[0.5], [1.0]], [0, 1])
    assert make_estimator("c45").__sklearn_tags__().input_tags.allow_nan
    assert "categorical_features" in make_estimator("c45").get_params()


def test_many_valued_nominal_attributes_stay_out_of_the_average_gain():
    many = {"gain": 0.5, "info": 1.0, "in_average": False}
    # FormTree: with nothing to average, AvGain = 1E6 and no attribute passes
    assert choose_attribute([many]) is None
    # otherwise the average (0.2) is over the others, and the many-valued one competes
    assert choose_attribute([many, {"gain": 0.2, "info": 1.0}]) == 0
    assert choose_attribute([many, {"gain": 0.6, "info": 1.0}]) == 1
    # 14 cases, an identifier of 14 values: 14 >= 0.3 * 14, so out of the average
    ids = np.c_[np.arange(14.0), GOLF[:, 1]]
    codes = (GOLF_Y == "Play").astype(np.int64)
    r = evaluate_general(ids.T, codes, np.ones(14), 2, 2, {0: 14}, 14)
    assert r[0] is None  # every value holds one case: no two subsets of MINOBJS = 2
    pairs = np.c_[np.repeat(np.arange(7.0), 2), GOLF[:, 1]]
    r = evaluate_general(pairs.T, codes, np.ones(14), 2, 2, {0: 7}, 14)
    assert r[0]["in_average"] is False and r[0]["gain"] > 0
    r = evaluate_general(pairs[:, :1].T, codes, np.ones(14), 2, 2, {0: 7}, 14, multival=True)
    assert r[0]["in_average"] is True
