#!/usr/bin/env bash
# The built wheel, used as a new user would: installed into a fresh venv outside the
# checkout and run from a temporary folder (a shipped config by name; a user config that
# names a catalog dataset and a CSV of the user's, by a path relative to the config; a
# plugin distribution installed beside it, run with two worker processes).
#
#   .ci/check_wheel.sh PROJECT_PYTHON WHEEL
#
# The fresh venv holds the wheel alone (installed with --no-deps); its dependencies are
# borrowed from the project venv through a .pth line, which puts that venv's
# site-packages on sys.path after the wheel's own folder without running its .pth files
# (so the editable install of the checkout stays invisible; the check below proves it).
# This saves the 1-3 minutes of installing numpy, scipy, numba, ... again. With
# OBLIQ_WHEEL_CHECK=full the venv installs the wheel's dependencies itself instead.
set -euo pipefail
project_python=$1
wheel=$(realpath "$2")
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/obliq-wheel-check.XXXXXX")
trap 'rm -rf "$work"' EXIT

base_python=$("$project_python" -c 'import sys; print(sys._base_executable)')
if [ "${OBLIQ_WHEEL_CHECK:-borrow}" = full ]; then
    "$base_python" -m venv "$work/venv"
    "$work/venv/bin/python" -m pip install --quiet "$wheel"
else
    "$base_python" -m venv --without-pip "$work/venv"
    "$project_python" -m pip --python "$work/venv/bin/python" install --quiet --no-deps "$wheel"
    deps=$("$project_python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
    site=$("$work/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
    echo "$deps" > "$site/_obliq_check_deps.pth"
fi
bin="$work/venv/bin"
# a plugin distribution of its own (tests/plugin_example), built and installed beside it
cp -r "$here/tests/plugin_example" "$work/plugin"
"$project_python" -m pip wheel --quiet --no-deps --no-build-isolation -w "$work/dist" "$work/plugin"
"$project_python" -m pip --python "$bin/python" install --quiet --no-deps "$work"/dist/obliq_toy-*.whl
mkdir -p "$work/run/mine/data"
cd "$work/run"

# the package imported is the wheel's, not the checkout's
"$bin/python" - "$work/venv" "$here" <<'PY'
import sys
import obliq_cli
where = obliq_cli.__file__
assert where.startswith(sys.argv[1]) and not where.startswith(sys.argv[2]), where
print(f"obliq_cli from {where}")
PY

"$bin/obliq" configs | head -n 2                    # | head ends quietly
"$bin/obliq" run apdt_ml -j 2 --no-progress > shipped.txt    # with its reference file
grep -q "iris" shipped.txt && grep -q "(paper)" shipped.txt
echo "shipped config apdt_ml, by name, beside the paper's values: ok"

# a piece of the shipped benchmark: two datasets, two algorithms, one of them two-class
# only (skipped on iris with its reason in the cell); the other cells read "not run"
"$bin/obliq" run benchmark --datasets iris,heart --algorithms cart-ap,FDT -j 2 \
    --no-progress > bench.txt
grep -q "two-class method" bench.txt && grep -q "not run" bench.txt
test "$(grep -c ',ok,' results/benchmark/runs.csv)" = 30
echo "a piece of the shipped config benchmark (--datasets, --algorithms): ok"

# a user config beside a user CSV (wisconsin written out as a file of the user's)
"$bin/python" - <<'PY'
import numpy as np
import obliq_cli
X, y, info = obliq_cli.load_dataset("wisconsin")
header = ",".join(info["feature_names"] + ["class"])
rows = np.column_stack([X, y]).astype(object)
np.savetxt("mine/data/cells.csv", rows, delimiter=",", fmt="%s", header=header, comments="")
PY
cat > mine/two.yaml <<'YAML'
name: two
datasets:
  - pima
  - {name: cells, path: data/cells.csv, target: class}
algorithms: [cart-ap, {name: cart-ap, label: CART-AP 0-SE, pruner: cc}]
protocol: {name: kfold, folds: 3, repeats: 1, prune_fraction: 0.1}
YAML
"$bin/obliq" run mine/two.yaml -j 2 --no-progress > two.txt
grep -q cells two.txt && grep -q pima two.txt
test -f results/two/runs.csv
echo "user config (catalog dataset + user CSV relative to the config): ok"
cat two.txt

# a researcher's own experiment: a CSV with a nominal column and blank cells, scikit-learn
# classifiers beside obliq's trees, gaps imputed for most and passed natively to C4.5 and
# CART-AP; -j 2 and -j 1 give the same rows; a fitted model predicts the raw CSV
"$bin/python" - <<'PY'
import numpy as np
rng = np.random.default_rng(7)
a, b = rng.normal(size=120), rng.normal(size=120)
colour = rng.choice(["red", "green", "blue"], size=120)
y = np.where(a + 0.8 * (colour == "red") - 0.5 * b > 0.2, "yes", "no")
lines = ["a,b,colour,y"]
for i in range(120):
    cells = [f"{a[i]:.4f}", f"{b[i]:.4f}", str(colour[i]), str(y[i])]
    lines += [",".join("" if rng.random() < 0.08 and j < 3 else c for j, c in enumerate(cells))]
open("mine/data/gaps.csv", "w").write("\n".join(lines) + "\n")
PY
for jobs in 1 2; do
cat > mine/own$jobs.yaml <<YAML
name: own$jobs
datasets:
  - {name: gaps, path: data/gaps.csv, target: y, categorical: [colour], missing: impute}
algorithms:
  - {estimator: sklearn.ensemble.RandomForestClassifier, label: RF, params: {n_estimators: 20}}
  - {estimator: sklearn.tree.DecisionTreeClassifier, label: DT}
  - {name: c45, missing: native}
  - {name: cart-ap, missing: native}
  - oc1
protocol: {name: kfold, folds: 3, repeats: 2, stratified: true}
metrics: [test_accuracy, n_leaves]
YAML
"$bin/obliq" run mine/own$jobs.yaml -j $jobs --no-progress > own$jobs.txt
done
cat own2.txt
grep -q "| gaps .*| - .*| - " own2.txt  # no leaves for the forest and the tree of scikit-learn
"$bin/python" - <<'PY'
import csv
from obliq_cli.experiment.schema import TIME_COLUMNS  # the clocks: they differ run to run
def rows(name):
    out = {}
    for row in csv.DictReader(open(f"results/{name}/runs.csv")):
        assert row["status"] == "ok", row
        for column in (*TIME_COLUMNS, "config_hash"):
            del row[column]
        out[row["task"]] = row
    return out
assert rows("own1") == rows("own2") and len(rows("own1")) == 30
PY
"$bin/obliq" fit --data mine/data/gaps.csv --target y --categorical colour --missing impute \
    --algorithm c45 -o gaps-model.json
"$bin/obliq" predict gaps-model.json mine/data/gaps.csv -o gaps-pred.csv
test "$(wc -l < gaps-pred.csv)" = 121
echo "own experiment (sklearn baselines, user CSV with gaps, -j 1 = -j 2, fit/predict raw CSV): ok"

# the plugin's algorithm, pruner and dataset: listed, and run by two worker processes
"$bin/obliq" algorithms | grep "^toy-stump: "
cat > mine/toy.yaml <<'YAML'
name: toy
datasets: [toy-band, pima]
algorithms: [toy-stump, {name: cart-ap, label: CART-AP kept, pruner: toy-keep}]
protocol: {name: kfold, folds: 3, repeats: 1}
YAML
"$bin/obliq" run mine/toy.yaml -j 2 --no-progress > toy.txt
cat toy.txt
test "$(grep -c ',ok,' results/toy/runs.csv)" = 12
echo "plugin distribution obliq-toy: listed and run with -j 2: ok"
echo "wheel check done in ${SECONDS}s"
