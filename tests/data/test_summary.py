"""data/summary.py: what `obliq datasets show` says about a loaded dataset's features, as
a frame: each feature's range over its known values and its kind."""

import numpy as np
import pandas as pd

from obliq_cli.data.summary import FEATURE_COLUMNS, feature_summary, missing_note


def test_the_feature_frame_is_each_columns_known_values_and_kind():
    X = np.array([[1.0, 0.0, 2.0, np.nan],
                  [3.0, 9.0, 1.0, np.nan],
                  [np.nan, 4.0, 0.0, np.nan]])
    levels = [f"l{i}" for i in range(10)]
    info = {"feature_names": ["a", "b", "c", "d"], "categorical": [1, 2],
            "categories": [levels, None]}
    frame = feature_summary(X, info)
    assert list(frame.columns) == list(FEATURE_COLUMNS)
    with np.errstate(all="ignore"):
        expected = [(np.nanmin(c), np.nanmean(c), np.nanmax(c)) for c in X[:, :3].T]
    np.testing.assert_allclose(frame[["min", "mean", "max"]].to_numpy()[:3], expected)
    assert frame.loc[3, ["min", "mean", "max"]].isna().all()  # no known value
    assert frame["kind"].tolist() == [
        "numeric; 1 missing",
        "nominal: l0, l1, l2, l3, l4, l5, l6, l7 and 2 more",
        "qualitative (codes)",
        "numeric; 3 missing"]
    # limit: the first features only; unnamed features are x1, x2, ...
    first = feature_summary(X, {}, limit=2)
    pd.testing.assert_series_equal(first["feature"], pd.Series(["x1", "x2"], name="feature"))


def test_the_missing_note_says_what_the_rule_did():
    X = np.array([[1.0, np.nan], [np.nan, np.nan]])
    assert missing_note(X, {}) is None and missing_note(X, {"missing": "error"}) is None
    assert missing_note(X, {"missing": "impute"}) == "impute (3 cells)"
    assert missing_note(X, {"missing": "drop", "rows_dropped": 4}) == \
        "drop (4 incomplete rows dropped)"
