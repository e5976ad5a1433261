"""Your own data everywhere: missing values and nominal columns (data/preprocess.py).

A tiny CSV with a nominal ``colour`` column and blank cells goes through `obliq fit`,
`obliq predict`, `obliq plot tree`, `obliq datasets show` and `obliq run`; the answers
are checked against independent computations (numpy medians, pandas' one-hot columns,
scikit-learn's NaN-taking tree) and the fit's own Python path.
"""

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from sklearn.tree import DecisionTreeClassifier

import obliq_cli
from obliq_cli.cli import main
from obliq_cli.config import AlgorithmSpec
from obliq_cli.data.preprocess import Preprocessor
from obliq_cli.errors import ObliqError
from obliq_cli.experiment.fit import fit_task
from obliq_cli.registry import register_algorithm


@register_algorithm("test-nan-tree", "test only: scikit-learn's CART, which takes NaN")
class NanTree(DecisionTreeClassifier):
    """scikit-learn's tree declares ``allow_nan``; no random_state (the runner would hand
    it a Generator), and the sizes the runner's metrics read."""

    def __init__(self, max_depth=None):
        super().__init__(max_depth=max_depth)

    def fit(self, X, y):
        super().fit(X, y)
        self.n_leaves_ = int(self.get_n_leaves())
        self.n_nodes_ = int(self.tree_.node_count)
        self.depth_ = int(self.get_depth())
        return self


def invoke(args):
    return CliRunner().invoke(main, [str(a) for a in args])


def tiny_rows(n=60, seed=0):
    """Rows of (size, colour, weight, class): the class follows colour and size; a few
    blank cells in every feature column (and '?' and 'NA', the other marks)."""
    rng = np.random.default_rng(seed)
    colour = rng.choice(["red", "green", "blue"], size=n)
    size = np.round(rng.uniform(0, 10, size=n), 2)
    weight = np.round(rng.normal(50, 5, size=n), 1)
    label = np.where((colour == "red") | (size > 7), "yes", "no")
    frame = pd.DataFrame({"size": size.astype(str), "colour": colour,
                          "weight": weight.astype(str), "class": label})
    frame.loc[[3, 17], "size"] = ""
    frame.loc[[5, 40], "colour"] = ""
    frame.loc[22, "colour"] = "?"
    frame.loc[[8, 9, 30], "weight"] = ""
    frame.loc[31, "weight"] = "NA"
    return frame


@pytest.fixture
def tiny(tmp_path):
    path = tmp_path / "tiny.csv"
    tiny_rows().to_csv(path, index=False)
    return path


def load(path, **params):
    return obliq_cli.load_dataset("file", path=str(path), **params)


# ----------------------------------------------------------------------- loading
def test_a_blank_cell_is_an_error_that_says_how_to_choose_a_policy(tiny):
    result = invoke(["datasets", "show", "--data", tiny, "--categorical", "colour"])
    assert result.exit_code == 2
    assert result.output.strip() == (
        f"error: {tiny}: missing value in column 'size', line 5; declare how to treat "
        "missing values: missing: drop | impute | native in the dataset (obliq fit "
        "--missing)")


def test_drop_removes_the_incomplete_rows_and_counts_them(tiny):
    X, y, info = load(tiny, categorical=["colour"], missing="drop")
    raw = tiny_rows()
    incomplete = raw.drop(columns="class").isin(["", "?", "NA"]).any(axis=1)
    assert info["rows_dropped"] == int(incomplete.sum()) == 9
    assert X.shape == (60 - 9, 3) and not np.isnan(X).any()
    np.testing.assert_array_equal(X[:, 0], raw.loc[~incomplete, "size"].astype(float))
    np.testing.assert_array_equal(y, raw.loc[~incomplete, "class"])


def test_impute_and_native_read_every_mark_as_nan(tiny):
    X, _, info = load(tiny, categorical=["colour"], missing="impute")
    assert info["categories"] == [["blue", "green", "red"]]
    assert sorted(zip(*np.nonzero(np.isnan(X)))) == sorted(
        [(3, 0), (17, 0), (5, 1), (40, 1), (22, 1), (8, 2), (9, 2), (30, 2), (31, 2)])
    codes = X[~np.isnan(X[:, 1]), 1]
    colours = tiny_rows()["colour"][~np.isnan(X[:, 1])]
    assert (np.array(["blue", "green", "red"])[codes.astype(int)] == colours).all()


# ----------------------------------------------------------------------- impute
def test_impute_learns_on_the_grow_rows_only(tiny):
    """The fill values are the grow rows' median / most frequent level; the test rows'
    values, however extreme, change neither them nor the tree."""
    X, y, info = load(tiny, categorical=["colour"], missing="impute")
    grow, test = np.arange(0, 40), np.arange(40, 60)
    algo = AlgorithmSpec("cart-ap", "cart-ap")
    names = (0, "tiny", 0, 0, "cart-ap")
    fitted = fit_task(algo, "tiny", X, y, info, grow, grow[:0], names)
    expected = np.nanmedian(X[grow], axis=0)
    levels, counts = np.unique(X[grow, 1][~np.isnan(X[grow, 1])], return_counts=True)
    expected[1] = levels[np.argmax(counts)]
    np.testing.assert_array_equal(fitted.preprocess.fill_, expected)
    # the test rows' NaNs get the grow rows' values
    assert np.isnan(X[40, 1])
    assert fitted.X[40, fitted.preprocess.output_names_.index(
        f"colour={info['categories'][0][int(expected[1])]}")] == 1.0
    # now make the test rows extreme (and all missing in one column): nothing moves
    changed = X.copy()
    changed[test, 0] = 1e6
    changed[test, 2] = np.nan
    changed[test, 1] = 0.0
    again = fit_task(algo, "tiny", changed, y, info, grow, grow[:0], names)
    np.testing.assert_array_equal(again.preprocess.fill_, fitted.preprocess.fill_)
    assert again.estimator.export_text() == fitted.estimator.export_text()
    np.testing.assert_array_equal(again.X[grow], fitted.X[grow])
    # a filled test cell is the grow part's median, not the test part's
    assert again.X[45, fitted.preprocess.output_names_.index("weight")] == expected[2]


# ----------------------------------------------------------------- nominal rules
def test_onehot_columns_are_pandas_dummies_and_codes_stay_codes(tiny):
    X, y, info = load(tiny, categorical=["colour"], missing="drop")
    onehot = Preprocessor.for_task(obliq_cli.make_estimator("oc1"), info, 3).fit(X)
    assert onehot.encoding == "onehot"
    assert onehot.output_names_ == ["size", "colour=blue", "colour=green", "colour=red",
                                    "weight"]
    raw = tiny_rows()
    kept = raw[~raw.drop(columns="class").isin(["", "?", "NA"]).any(axis=1)]
    dummies = pd.get_dummies(kept["colour"], prefix="colour", prefix_sep="=", dtype=float)
    np.testing.assert_array_equal(onehot.transform(X)[:, 1:4], dummies.to_numpy())
    # codes: the loaded matrix itself, as the papers' datasets get it
    X2, _, info2 = load(tiny, categorical=["colour"], missing="drop", nominal="codes")
    codes = Preprocessor.for_task(obliq_cli.make_estimator("oc1"), info2, 3).fit(X2)
    assert codes.output_names_ == ["size", "colour", "weight"]
    assert codes.transform(X2) is not None and codes.identity
    # an algorithm with categorical_features takes the codes and the indices
    native = Preprocessor.for_task(obliq_cli.make_estimator("hhcart-d"), info, 3).fit(X)
    assert native.encoding == "native" and native.categorical_out_ == [1]
    assert native.transform(X) is X


def test_the_papers_qualitative_datasets_keep_their_codes():
    """australian (HHCART Table 4) declares categorical columns: hhcart and quest get
    the codes natively, every other algorithm the codes as numbers: the same matrix."""
    X, _, info = obliq_cli.load_dataset("australian")
    assert info["categorical"] and info["nominal"] == "codes" and "categories" not in info
    for name, encoding in [("hhcart-d", "native"), ("quest", "native"), ("oc1", "codes"),
                           ("cart-ap", "codes")]:
        prep = Preprocessor.for_task(obliq_cli.make_estimator(name), info, X.shape[1])
        assert prep.encoding == encoding and prep.fit(X).transform(X) is X
    from obliq_cli.config import load_config
    from obliq_cli.experiment.provenance import data_notes

    notes = data_notes(load_config("hhcart_mixed"))["australian"]
    assert set(notes["nominal"].values()) <= {"native", "codes"}
    assert "missing" not in notes


# ------------------------------------------------------------ fit and predict
def test_fit_impute_then_predict_equals_the_python_path(tiny, tmp_path):
    model = tmp_path / "m.json"
    result = invoke(["fit", "--data", tiny, "--categorical", "colour", "--missing", "impute",
                     "--algorithm", "cart-ap", "--param", "max_depth=3", "-o", model])
    assert result.exit_code == 0, result.output
    data = json.loads(model.read_text())
    assert data["format_version"] == 2
    assert data["feature_names"] == ["size", "colour=blue", "colour=green", "colour=red",
                                     "weight"]
    stored = data["preprocess"]
    assert stored["categories"] == {"colour": ["blue", "green", "red"]}
    X, y, info = load(tiny, categorical=["colour"], missing="impute")
    assert stored["fill"]["size"] == float(np.nanmedian(X[:, 0]))
    assert stored["fill"]["weight"] == float(np.nanmedian(X[:, 2]))
    assert stored["fill"]["colour"] == tiny_rows()["colour"].replace(
        {"": None, "?": None}).mode().sort_values().iloc[0]
    # the raw file as it is, strings and blanks included
    result = invoke(["predict", model, tiny, "--proba"])
    assert result.exit_code == 0, result.output
    predicted = pd.read_csv(pd.io.common.StringIO(result.output), dtype=str)
    # the Python API: the same preprocessing and tree
    estimator = obliq_cli.make_estimator("cart-ap", max_depth=3)
    prep = Preprocessor.for_task(estimator, info, X.shape[1]).fit(X)
    estimator.fit(prep.transform(X), y)
    assert predicted["prediction"].tolist() == estimator.predict(prep.transform(X)).tolist()
    loaded, meta = obliq_cli.load_model(model)
    again = Preprocessor.from_dict(meta["preprocess"])
    rows = pd.DataFrame(again.transform(X), columns=meta["feature_names"])
    assert loaded.predict(rows).tolist() == predicted["prediction"].tolist()
    assert np.mean(predicted["prediction"] == y) > 0.8  # colour and size are learned


def test_unseen_category_and_absent_column_are_one_line_each(tiny, tmp_path):
    model = tmp_path / "m.json"
    assert invoke(["fit", "--data", tiny, "--categorical", "colour", "--missing", "impute",
                   "--algorithm", "cart-ap", "-o", model]).exit_code == 0
    rows = tmp_path / "new.csv"
    rows.write_text("colour,weight,size\nred,50,1\nblue,,3\npurple,48,2\n")
    out = tmp_path / "pred.csv"
    result = invoke(["predict", model, rows, "-o", out, "--strict"])
    assert result.exit_code == 2 and not out.exists()
    assert result.output.strip() == (f"error: {rows}: line 4, column colour: unseen "
                                     "category 'purple' (the model knows blue, green, red; "
                                     "without --strict the row is left unpredicted with a "
                                     "note)")
    rows.write_text("colour,size\nred,1\n")
    result = invoke(["predict", model, rows])
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1
    assert result.output.startswith(f"error: {rows}: the columns do not match the model's "
                                    "features: missing weight")
    rows.write_text("colour,weight,size\nred,50,1\n,,\n")  # columns in another order
    result = invoke(["predict", model, rows])
    assert result.exit_code == 0 and len(result.output.splitlines()) == 3


def test_a_version_1_model_file_still_loads_and_predicts(tmp_path):
    """Version 1 (no preprocess) as `obliq fit` wrote it before: the same tree and rows."""
    X, y, info = obliq_cli.load_dataset("wisconsin")
    est = obliq_cli.make_estimator("cart-ap", max_depth=2).fit(X, y)
    v1 = {"format": "obliq-model", "format_version": 1, "obliq_version": "0.1.0",
          "algorithm": "cart-ap", "params": est.get_params(), "pruner": None,
          "trained_on": {"dataset": "wisconsin", "seed": 0},
          "feature_names": info["feature_names"], "classes": ["2", "4"],
          "estimator": est.export_json()}
    path = tmp_path / "old.json"
    path.write_text(json.dumps(v1))
    loaded, meta = obliq_cli.load_model(path)
    assert "preprocess" not in meta
    csv = tmp_path / "rows.csv"
    pd.DataFrame(X[:50], columns=info["feature_names"]).to_csv(csv, index=False)
    result = invoke(["predict", path, csv])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[1:] == [
        f"{i + 1},{p}," for i, p in enumerate(est.predict(X[:50]))]
    path.write_text(json.dumps({**v1, "format_version": 3}))
    with pytest.raises(ObliqError, match="reads versions 1, 2"):
        obliq_cli.load_model(path)


def test_native_needs_an_algorithm_that_takes_nan(tiny, tmp_path):
    result = invoke(["fit", "--data", tiny, "--categorical", "colour", "--missing", "native",
                     "--algorithm", "oc1", "-o", tmp_path / "m.json"])
    assert result.exit_code == 2 and not (tmp_path / "m.json").exists()
    assert result.output.strip() == ("error: missing: native, but algorithm 'oc1' does not "
                                     "accept missing values; use impute or drop")
    X, y, info = load(tiny, categorical=["colour"], missing="native", nominal="codes")
    rows = np.arange(len(y))
    fitted = fit_task(AlgorithmSpec("test-nan-tree", "t"), "tiny", X, y, info, rows,
                      rows[:0], (0, "tiny", 0, 0, "t"))
    assert fitted.X is X  # NaN reaches scikit-learn's tree untouched
    plain = DecisionTreeClassifier().fit(X, y)
    assert (fitted.estimator.predict(X) == plain.predict(X)).all()


# -------------------------------------------------------------------- obliq run
CONFIG = """
name: mine
datasets:
  - {{name: mine, path: {path}, target: class, categorical: [colour], missing: {missing}}}
algorithms:
  - {{name: test-nan-tree, label: sk}}
  - {{name: oc1, params: {{n_restarts: 1}}}}
  - {{name: hhcart-d, params: {{max_depth: 2}}}}
  - {{name: cart-ap, params: {{max_depth: 3}}}}
protocol: {{name: kfold, folds: 3}}
metrics: [test_accuracy]
output: {out}
"""


def test_a_run_refuses_native_for_oc1_before_writing(tiny, tmp_path):
    config = tmp_path / "x.yaml"
    out = tmp_path / "out"
    config.write_text(CONFIG.format(path=tiny, missing="native", out=out))
    result = invoke(["run", config, "--no-progress"])
    assert result.exit_code == 2 and not out.exists()
    assert result.output.strip() == (
        f"error: {config}: datasets[0] (mine): missing: native, but algorithm 'oc1' "
        "(algorithms[1]) does not accept missing values; use impute or drop")


def test_a_run_records_drops_and_each_algorithms_encoding(tiny, tmp_path):
    config = tmp_path / "x.yaml"
    out = tmp_path / "out"
    config.write_text(CONFIG.format(path=tiny, missing="drop", out=out))
    result = invoke(["run", config, "--no-progress"])
    assert result.exit_code == 0, result.output
    entry = json.loads((out / "meta.json").read_text())["history"][-1]
    assert entry["data"] == {"mine": {"missing": "drop", "rows_dropped": 9, "nominal": {
        "sk": "onehot", "oc1": "onehot", "hhcart-d": "native", "cart-ap": "onehot"}}}
    runs = pd.read_csv(out / "runs.csv")
    assert (runs["status"] == "ok").all() and len(runs) == 12
    assert (runs.groupby(["repetition", "fold"])["n_test"].first().sum()) == 51
    # impute: every row stays; the folds hold all 60
    out2 = tmp_path / "out2"
    config.write_text(CONFIG.format(path=tiny, missing="impute", out=out2))
    assert invoke(["run", config, "--no-progress"]).exit_code == 0
    runs = pd.read_csv(out2 / "runs.csv")
    assert (runs["status"] == "ok").all()
    assert runs.groupby(["repetition", "fold"])["n_test"].first().sum() == 60


# ------------------------------------------------------- the other commands
def test_datasets_show_reads_your_file(tiny):
    result = invoke(["datasets", "show", "--data", tiny, "--categorical", "colour",
                     "--missing", "impute"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == f"loaded: 60 rows x 3 features from {tiny}"
    assert "missing: impute (9 cells)" in lines
    colour = next(line for line in lines if line.startswith("colour"))
    assert colour.endswith("nominal: blue, green, red; 3 missing")
    size = next(line for line in lines if line.startswith("size"))
    assert f"{np.nanmean(load(tiny, categorical=['colour'], missing='impute')[0][:, 0]):.4g}" \
        in size.split()
    result = invoke(["datasets", "show", "pima", "--data", tiny])
    assert result.exit_code == 2 and "not both" in result.output


def test_plot_tree_of_your_file_writes_the_picture(tiny, tmp_path):
    base = tmp_path / "pic"
    result = invoke(["plot", "tree", "--data", tiny, "--categorical", "colour", "--missing",
                     "drop", "--algorithm", "cart-ap", "-o", base])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "pic.png").stat().st_size > 0
    svg = (tmp_path / "pic.svg").read_text()
    assert "colour=red" in svg  # the rules name the one-hot columns
    result = invoke(["plot", "tree", "--target", "class", "--algorithm", "cart-ap"])
    assert result.exit_code == 2 and "--target needs --data" in result.output


def test_a_catalog_entry_may_declare_its_own_rules():
    """``missing`` / ``nominal`` in a catalog entry act as in a config; an entry without
    them (every paper's) gives the arrays it always gave, with no levels."""
    from obliq_cli.data.catalog import build_arrays

    frame = pd.DataFrame({0: ["1", "?", "3", "4"], 1: ["b", "a", "", "b"],
                          2: ["x", "y", "x", "y"]})
    entry = {"name": "t", "columns": ["a", "c", "class"], "categorical": ["c"]}
    dropped = build_arrays({**entry, "missing": "drop", "nominal": "onehot"}, frame, None)
    assert dropped["rows_dropped"] == 2 and dropped["categories"] == [["b"]]
    np.testing.assert_array_equal(dropped["X"], [[1.0, 0.0], [4.0, 0.0]])
    kept = build_arrays({**entry, "missing": "impute"}, frame, None)
    np.testing.assert_array_equal(kept["X"], [[1, 1], [np.nan, 0], [3, np.nan], [4, 1]])
    assert kept["categories"] == [["a", "b"]]
    plain = build_arrays(entry, frame.iloc[[0, 3]], None)
    assert "categories" not in plain and "rows_dropped" not in plain


def test_a_registered_dataset_refuses_a_files_options(tmp_path):
    config = tmp_path / "x.yaml"
    config.write_text("name: x\ndatasets: [{name: pima, missing: impute}]\n"
                      "algorithms: [cart-ap]\nprotocol: {name: kfold}\n")
    result = invoke(["run", config])
    assert result.exit_code == 2
    assert result.output.strip() == (f"error: {config}: datasets[0].missing: applies to your "
                                     "own file only (give its path:); a registered dataset "
                                     "declares its own (catalog.yaml) (line 2)")


def test_an_arff_headers_levels_are_the_declared_categories(tmp_path):
    """A level the ARFF header declares but no row holds still gets its one-hot column
    (zero in training), so a new row holding it is predicted, not refused."""
    arff = tmp_path / "t.arff"
    rows = "\n".join(f"{s},{c},{k}" for s, c, k in [
        (1, "red", "a"), (2, "green", "b"), ("?", "red", "a"), (4, "?", "b"),
        (5, "red", "a"), (6, "green", "b")])
    arff.write_text("@relation t\n@attribute size numeric\n"
                    "@attribute colour {red,green,white}\n@attribute class {a,b}\n"
                    f"@data\n{rows}\n")
    X, y, info = load(arff, categorical=["colour"], missing="impute")
    assert info["categories"] == [["green", "red", "white"]]
    model = tmp_path / "m.json"
    assert invoke(["fit", "--data", arff, "--categorical", "colour", "--missing", "impute",
                   "--algorithm", "cart-ap", "-o", model]).exit_code == 0
    assert json.loads(model.read_text())["feature_names"] == [
        "size", "colour=green", "colour=red", "colour=white"]
    new = tmp_path / "new.csv"
    new.write_text("size,colour\n3,white\n3,red\n")
    result = invoke(["predict", model, new])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[2] == "2,a,"  # red rows are class a


def test_dataset_file_on_the_command_line_points_to_data(tmp_path):
    result = invoke(["fit", "--dataset", "file", "--algorithm", "cart-ap", "-o",
                     tmp_path / "m.json"])
    assert result.exit_code == 2 and result.output.strip() == (
        "error: --dataset file: give your file as --data PATH (with --target, --categorical, "
        "--missing as needed)")
