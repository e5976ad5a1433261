"""obliq report: one self-contained, valid HTML page; refitted boundaries equal the tasks.

A real tiny experiment (checker2x2 and iris, two CART-AP variants, 2 x 2-fold CV) is run
once per module; one algorithm label carries HTML metacharacters to check the escaping.
"""

import base64
import io
import shutil
import subprocess
import textwrap
from pathlib import Path

import html5lib
import numpy as np
import pandas as pd
import pytest
import yaml
from click.testing import CliRunner
from PIL import Image

from obliq_cli.analysis.aggregate import read_experiment
from obliq_cli.cli import main
from obliq_cli.config import ExperimentConfig, load_config
from obliq_cli.experiment.replay import replay_task
from obliq_cli.experiment.runner import run_experiment
from obliq_cli.report.html_report import accuracy_size_table

NASTY = "CART <b>&amp; 3"

CONFIG = """
name: tiny-report
seed: 5
datasets: [checker2x2, test-iris]
algorithms:
  - name: cart-ap
    label: "{nasty}"
    params: {{max_depth: 3}}
  - name: cart-ap
    label: CC
    pruner: {{name: cc}}
protocol: {{name: kfold, folds: 2, repeats: 2, prune_fraction: 0.2}}
metrics: [test_accuracy, n_leaves]
output: {out}
"""

XHTML = "{http://www.w3.org/1999/xhtml}"


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    root = tmp_path_factory.mktemp("report")
    out = root / "results" / "tiny-report"
    path = root / "tiny.yaml"
    path.write_text(textwrap.dedent(CONFIG.format(nasty=NASTY, out=out)))
    summary = run_experiment(load_config(path), progress=False)
    assert not summary.failed and summary.ran == 16
    return out


@pytest.fixture(scope="module")
def page(results, tmp_path_factory):
    target = tmp_path_factory.mktemp("page") / "sub" / "report.html"
    result = CliRunner().invoke(main, ["report", str(results), "-o", str(target),
                                       "--boundaries"])
    assert result.exit_code == 0, result.output
    assert result.output.strip() == str(target)
    assert [p.name for p in target.parent.iterdir()] == ["report.html"]  # no temp file left
    return target.read_text(encoding="utf-8")


def parse(text):
    """The page through html5lib's strict parser (any parse error raises)."""
    return html5lib.HTMLParser(strict=True).parse(text)


def elements(doc, tag):
    return list(doc.iter(f"{XHTML}{tag}"))


def text_of(element) -> str:
    return "".join(element.itertext())


def test_page_is_valid_html(page):
    doc = parse(page)
    assert page.startswith("<!DOCTYPE html>")
    assert elements(doc, "title") and elements(doc, "style")


def test_page_is_self_contained(page):
    doc = parse(page)
    for element in doc.iter():
        for attribute in ("src", "href"):
            value = element.get(attribute)
            if value is not None:
                assert value.startswith(("data:", "#")), (element.tag, value[:60])
    assert not elements(doc, "link")
    scripts = elements(doc, "script")  # the sortable tables' code, inline
    assert len(scripts) == 1 and scripts[0].get("src") is None
    assert "http://" not in page and "https://" not in page


def test_every_image_is_an_embedded_png(page):
    images = elements(parse(page), "img")
    alts = sorted(img.get("alt") for img in images)
    # CD diagram, the Bayesian probabilities, accuracy vs size, and the two algorithms'
    # regions on the 2-D dataset.
    assert alts == sorted(["critical-difference diagram", "accuracy against tree size",
                           "Bayesian signed-rank probabilities",
                           f"decision regions of {NASTY} on checker2x2",
                           "decision regions of CC on checker2x2"])
    for img in images:
        prefix, data = img.get("src").split(",", 1)
        assert prefix == "data:image/png;base64"
        raw = base64.b64decode(data, validate=True)
        assert raw[:8] == b"\x89PNG\r\n\x1a\n"
        with Image.open(io.BytesIO(raw)) as picture:
            picture.load()
            assert picture.width > 100 and picture.height > 100
            # not a blank canvas: several distinct colours
            assert len(picture.convert("RGB").getcolors(maxcolors=1 << 20)) > 10


def test_config_tables_and_escaping(page, results):
    doc = parse(page)
    meta_config = read_experiment(results)[1]["config"]
    pres = [text_of(p) for p in elements(doc, "pre")]
    assert len(pres) == 1 and yaml.safe_load(pres[0]) == meta_config
    tables = elements(doc, "table")
    # test_accuracy and n_leaves tables, then the significance tables
    headers = [[text_of(th).strip() for th in t.iter(f"{XHTML}th")] for t in tables]
    wide = [h for h in headers if h[:1] == ["dataset"] and "CC" in h]
    assert len(wide) >= 2 and NASTY in wide[0]
    # the label's "<b>" stayed text: no bold element anywhere
    assert not elements(doc, "b")
    body = text_of(elements(doc, "body")[0])
    assert "test_accuracy" in body and "n_leaves" in body
    # the table cells are the tables' own numbers: checker2x2, CC, mean +- sd
    runs = read_experiment(results)[0]
    cc = runs[(runs["dataset"] == "checker2x2") & (runs["algorithm"] == "CC")]
    per_rep = cc.groupby("repetition")["test_accuracy"].mean()
    assert f"{per_rep.mean():.2f} ± {per_rep.std(ddof=1):.2f}" in body


def test_replayed_tasks_are_the_stored_trees(results):
    """Every stored task replayed predicts its stored test accuracy exactly."""
    runs, meta = read_experiment(results)
    config = ExperimentConfig.from_dict(meta["config"])
    roles = {d.label: np.load(results / "folds" / f"{d.label}.npz")["roles"]
             for d in config.datasets}
    assert len(runs) == 2 * 2 * len(config.algorithms) * len(config.datasets)
    for row in runs.itertuples():
        task = replay_task(results, row.dataset, row.algorithm, row.repetition, row.fold)
        np.testing.assert_array_equal(
            task.test, np.flatnonzero(roles[row.dataset][row.repetition, row.fold] == 3))
        correct = int(np.sum(task.estimator.predict(task.X[task.test]) == task.y[task.test]))
        assert correct == row.n_test_correct
        assert 100.0 * correct / task.test.size == row.test_accuracy  # exactly
        assert task.estimator.n_leaves_ == row.n_leaves
        assert task.grow.size == int(row.n_train) and task.prune.size == int(row.n_prune)


def test_accuracy_size_table_matches_the_tables(results):
    runs, meta = read_experiment(results)
    table = accuracy_size_table(runs, meta)
    # the config's order, whatever order the tasks finished in
    assert list(dict.fromkeys(table["dataset"])) == ["checker2x2", "test-iris"]
    assert list(dict.fromkeys(table["algorithm"])) == [NASTY, "CC"]
    table = table.set_index(["dataset", "algorithm"])
    ok = runs[runs["status"] == "ok"]
    by_hand = ok.groupby(["dataset", "algorithm", "repetition"])[
        ["test_accuracy", "n_leaves"]].mean().groupby(["dataset", "algorithm"]).mean()
    pd.testing.assert_frame_equal(table.sort_index(), by_hand.sort_index(),
                                  check_names=False)


def test_plot_cd_and_size_from_results(results, tmp_path):
    for command, name in (("cd", "cd"), ("size", "size")):
        result = CliRunner().invoke(main, ["plot", command, str(results), "-o",
                                           str(tmp_path / name)])
        assert result.exit_code == 0, result.output
        assert (tmp_path / f"{name}.png").read_bytes()[:4] == b"\x89PNG"


def one_line_exit_2(args):
    result = CliRunner().invoke(main, [str(a) for a in args])
    lines = result.output.strip().splitlines()
    assert result.exit_code == 2, result.output
    assert len(lines) == 1 and lines[0].startswith("error: "), lines
    return lines[0]


def test_report_errors(results, tmp_path):
    assert "no such results directory" in one_line_exit_2(
        ["report", tmp_path / "missing", "-o", tmp_path / "r.html"])
    (tmp_path / "empty").mkdir()
    assert "no runs.csv" in one_line_exit_2(["report", tmp_path / "empty", "-o",
                                             tmp_path / "r.html"])
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    one_line_exit_2(["report", results, "-o", blocker / "report.html"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file", "empty"]


def test_report_default_output_and_no_boundaries(results, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(results, copy)
    result = CliRunner().invoke(main, ["report", str(copy)])
    assert result.exit_code == 0, result.output
    text = (copy / "report.html").read_text(encoding="utf-8")
    doc = parse(text)
    # CD, Bayesian and size; no refitting without --boundaries
    assert len(elements(doc, "img")) == 3


CHROMIUM = Path("/usr/bin/chromium")


def test_results_come_first_and_the_config_and_history_last_folded(page):
    doc = parse(page)
    body = elements(doc, "body")[0]
    order = [el.tag.replace(XHTML, "") for el in body.iter()
             if el.tag.replace(XHTML, "") in ("table", "pre", "details", "img")]
    assert order[0] == "table" and order.index("img") < order.index("details")
    first = elements(doc, "table")[0]
    assert [text_of(th).strip() for th in first.iter(f"{XHTML}th")][0] == "dataset"
    details = elements(doc, "details")
    summaries = [text_of(el.find(f"{XHTML}summary")) for el in details]
    assert summaries == ["Bayesian analysis (obliq stats --bayes)", "Configuration as run",
                         "Run history"]
    assert all(el.get("open") is None for el in details)  # folded
    history = details[2].find(f".//{XHTML}table")
    rows = list(history.iter(f"{XHTML}tr"))
    assert len(rows) == 2 and "run" in text_of(rows[1])  # header + the one run
    grid = [el for el in doc.iter(f"{XHTML}div") if el.get("class") == "grid"]
    assert len(grid) == 1 and len(list(grid[0].iter(f"{XHTML}figure"))) == 2


# Reports where the first results table sits on the first screen: Chromium runs the
# page with this script and writes the table's position into the title.
PROBE = """<script>
const t = document.querySelector("table");
document.title = "probe " + Math.round(t.getBoundingClientRect().top) + " "
  + window.innerHeight + " " + t.querySelector("th").textContent.trim();
</script>"""


@pytest.mark.skipif(not CHROMIUM.exists(), reason="no /usr/bin/chromium here")
def test_the_first_screen_shows_a_results_table(page, tmp_path):
    html_file = tmp_path / "probe.html"
    html_file.write_text(page.replace("</body>", PROBE + "</body>"), encoding="utf-8")
    done = subprocess.run([str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu",
                           "--disable-background-networking", "--window-size=1280,800",
                           "--dump-dom", html_file.as_uri()],
                          check=True, capture_output=True, timeout=120, text=True)
    title = text_of(elements(parse(done.stdout), "title")[0]).split()
    assert title[0] == "probe" and title[3] == "dataset"
    top, height = int(title[1]), int(title[2])
    assert 0 < top < height * 0.6, (top, height)


@pytest.mark.skipif(not CHROMIUM.exists(), reason="no /usr/bin/chromium here")
def test_page_renders_in_a_headless_browser(page, tmp_path):
    html_file = tmp_path / "report.html"
    html_file.write_text(page, encoding="utf-8")
    shot = tmp_path / "shot.png"
    subprocess.run([str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu",
                    "--disable-background-networking", f"--screenshot={shot}",
                    "--window-size=1200,2000", html_file.as_uri()],
                   check=True, capture_output=True, timeout=120)
    with Image.open(shot) as picture:
        pixels = np.asarray(picture.convert("L"))
    assert pixels.std() > 5  # not a blank page


# --- the benchmark view: ranking, per-dataset tables, Bayesian figure ---------------------

def test_ranking_table_holds_the_mean_ranks(page, results):
    doc = parse(page)
    table = next(t for t in elements(doc, "table") if t.get("id") == "ranking-0")
    assert "sortable" in table.get("class")
    rows = [[td for td in tr.iter(f"{XHTML}td")] for tr in table.iter(f"{XHTML}tr")][1:]
    # independently: each dataset's mean accuracy over its folds (every repetition is
    # complete here), ranked with pandas (1 = best, ties averaged)
    runs = pd.read_csv(results / "runs.csv")
    means = runs.groupby(["dataset", "algorithm"])["test_accuracy"].mean().unstack()
    expected = means.rank(axis=1, ascending=False).mean(axis=0)
    shown = {text_of(r[1]): float(r[2].get("data-value")) for r in rows}
    assert shown == pytest.approx(expected.to_dict())
    places = [int(text_of(r[0])) for r in rows]
    assert places == list(range(1, len(rows) + 1))
    assert [shown[text_of(r[1])] for r in rows] == sorted(shown.values())
    mean_score = {text_of(r[1]): float(r[3].get("data-value")) for r in rows}
    assert mean_score == pytest.approx(means.mean(axis=0).to_dict())


def test_per_dataset_view_lists_every_dataset(page, results):
    doc = parse(page)
    select = next(s for s in elements(doc, "select") if s.get("id") == "datasets-0")
    options = [o.get("value") for o in select.iter(f"{XHTML}option")]
    runs = pd.read_csv(results / "runs.csv")
    assert options == list(dict.fromkeys(runs["dataset"]))
    views = [t for t in elements(doc, "table") if "dataset-view" in (t.get("class") or "")]
    assert [v.get("data-dataset") for v in views] == options
    for view in views:
        part = runs[runs["dataset"] == view.get("data-dataset")]
        # mean over each repetition's folds, then over repetitions
        expected = part.groupby(["algorithm", "repetition"])["test_accuracy"].mean() \
            .groupby("algorithm").mean()
        cells = {text_of(tr[0]): float(tr[1].get("data-value"))
                 for tr in (list(r.iter(f"{XHTML}td")) for r in view.iter(f"{XHTML}tr"))
                 if tr}
        assert cells == pytest.approx(expected.to_dict())


# Chromium runs the page with this script appended: it clicks the ranking table's
# "mean rank" header twice (descending) and writes the algorithms' order, then the
# dataset views' hidden flags, into the title.
CLICK_PROBE = """<script>
const table = document.getElementById("ranking-0");
const header = table.tHead.rows[0].cells[2];
header.click(); header.click();
const order = Array.from(table.tBodies[0].rows).map(r => r.cells[1].textContent);
const hidden = Array.from(document.querySelectorAll(".dataset-view"))
  .map(v => v.hidden ? "h" : "v").join("");
document.title = JSON.stringify({order: order, sort: header.getAttribute("aria-sort"),
                                 hidden: hidden});
</script>"""


def chromium_title(html_file, url_suffix=""):
    profile = html_file.parent / "profile"
    profile.mkdir(exist_ok=True)
    done = subprocess.run(
        [str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
         "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", f"--user-data-dir={profile}",
         "--virtual-time-budget=3000", "--dump-dom", html_file.as_uri() + url_suffix],
        check=True, capture_output=True, timeout=120, text=True)
    return text_of(elements(parse(done.stdout), "title")[0]), done.stdout


@pytest.mark.skipif(not CHROMIUM.exists(), reason="no /usr/bin/chromium here")
def test_clicking_a_header_sorts_in_a_browser(page, tmp_path):
    import json

    html_file = tmp_path / "click.html"
    html_file.write_text(page.replace("</body>", CLICK_PROBE + "</body>"), encoding="utf-8")
    title, _ = chromium_title(html_file)
    state = json.loads(title)
    doc = parse(page)
    table = next(t for t in elements(doc, "table") if t.get("id") == "ranking-0")
    rows = [list(tr.iter(f"{XHTML}td")) for tr in table.iter(f"{XHTML}tr")][1:]
    ranks = {text_of(r[1]): float(r[2].get("data-value")) for r in rows}
    assert state["sort"] == "descending"
    assert state["order"] == sorted(ranks, key=lambda a: -ranks[a])
    assert state["hidden"] == "vh"  # the select shows the first dataset only


@pytest.mark.skipif(not CHROMIUM.exists(), reason="no /usr/bin/chromium here")
def test_url_hash_sorts_and_selects_in_a_browser(page, tmp_path):
    html_file = tmp_path / "hash.html"
    html_file.write_text(page, encoding="utf-8")
    _, dom = chromium_title(html_file, "#sort=ranking-0:1:desc&dataset=datasets-0:1")
    doc = parse(dom)
    table = next(t for t in elements(doc, "table") if t.get("id") == "ranking-0")
    names = [text_of(list(tr.iter(f"{XHTML}td"))[1])
             for tr in list(table.iter(f"{XHTML}tr"))[1:]]
    assert names == sorted(names, key=str.lower, reverse=True)
    views = [t for t in elements(doc, "table") if "dataset-view" in (t.get("class") or "")]
    assert [v.get("hidden") is not None for v in views] == [True, False]
