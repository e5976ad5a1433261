"""``obliq report``: one self-contained HTML page per set of results.

Per experiment the page holds the config as run (meta.json's ``config``, as YAML), the
tables of ``obliq table`` beside the papers' values (test accuracy and the config's other
``metrics``), the significance summary of ``obliq stats``, and the pictures that need no
refitting: Demšar's CD diagram (two or more datasets and algorithms) and accuracy against
tree size. ``boundaries=True`` also refits, on each 2-D dataset, every algorithm on the
experiment's first split (repetition 0, fold 0) exactly as its task did
(``replay.replay_task``) and shows its decision regions.

Nothing is linked: images are base64 PNG data URIs, the CSS is inline, and everything
read from files is HTML-escaped (the tables and the significance summary escape their
own cells). The page is written to a temporary file and renamed, so a reader never sees
half a report.
"""

from __future__ import annotations

import base64
import html
import io
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd

from .. import safe_io
from ..analysis.aggregate import (
    check_metric,
    pooled_by_paper,
    summarise,
)
from ..analysis.results import Results
from ..analysis.stats import check_alpha
from ..errors import ObliqError
from ..experiment.tasks import SKIPPED

CSS = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 72em;
       color: #222; line-height: 1.4; padding: 0 1em; }
h1 { font-size: 1.6em; } h2 { border-bottom: 2px solid #ccc; margin-top: 2em; }
h3 { margin-top: 1.4em; }
pre { background: #f6f6f6; border: 1px solid #ddd; padding: 0.8em; overflow-x: auto;
      font-size: 0.85em; }
table { border-collapse: collapse; margin: 0.6em 0; font-size: 0.85em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; }
th { background: #eee; } tr:nth-child(even) td { background: #fafafa; }
figure { display: inline-block; margin: 0.6em 1em 0.6em 0; vertical-align: top; }
.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(22em, 1fr));
        gap: 0.6em; }
.grid figure { margin: 0; } .grid figure img { width: 100%; }
details { margin: 1em 0; } summary { cursor: pointer; font-weight: bold; }
figure img { max-width: 100%; border: 1px solid #ddd; }
figcaption { font-size: 0.85em; color: #555; max-width: 40em; }
.note { color: #8a4b00; }
.degenerate { color: #b00020; font-weight: bold; cursor: help; }
.meta { color: #555; font-size: 0.9em; }
table.sortable th { cursor: pointer; user-select: none; }
table.sortable th[aria-sort="ascending"]::after { content: " \\25B2"; }
table.sortable th[aria-sort="descending"]::after { content: " \\25BC"; }
.dataset-view[hidden] { display: none; }
"""

SCRIPT = """
(function () {
  // Sortable tables: a click on a header sorts the rows by that column (numbers by the
  // cell's data-value, text otherwise); a second click reverses. No external code.
  function key(cell) {
    var v = cell.getAttribute("data-value");
    if (v !== null && v !== "" && !isNaN(Number(v))) { return Number(v); }
    return cell.textContent.trim().toLowerCase();
  }
  function sortTable(table, column, descending) {
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = key(a.cells[column]), y = key(b.cells[column]);
      var order = (typeof x === "number" && typeof y === "number") ? x - y
        : String(x).localeCompare(String(y));
      return descending ? -order : order;
    });
    rows.forEach(function (row) { body.appendChild(row); });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, i) {
      if (i === column) {
        th.setAttribute("aria-sort", descending ? "descending" : "ascending");
      } else { th.removeAttribute("aria-sort"); }
    });
  }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, i) {
      th.addEventListener("click", function () {
        sortTable(table, i, th.getAttribute("aria-sort") === "ascending");
      });
    });
  });
  // The per-dataset view: the select shows one dataset's table.
  document.querySelectorAll("select.dataset-select").forEach(function (select) {
    function show() {
      document.querySelectorAll(".dataset-view[data-group='" + select.getAttribute(
        "data-group") + "']").forEach(function (view) {
        view.hidden = view.getAttribute("data-dataset") !== select.value;
      });
    }
    select.addEventListener("change", show);
    show();
  });
  // A link or a test can ask for a state in the URL: #sort=TABLE_ID:COLUMN:asc|desc and
  // &dataset=SELECT_ID:INDEX (e.g. #sort=ranking-0:3:desc&dataset=datasets-0:1).
  var hash = decodeURIComponent(window.location.hash.replace(/^#/, ""));
  hash.split("&").forEach(function (part) {
    var pair = part.split("="), args = (pair[1] || "").split(":");
    if (pair[0] === "sort") {
      var table = document.getElementById(args[0]);
      if (table) { sortTable(table, Number(args[1]), args[2] === "desc"); }
    } else if (pair[0] === "dataset") {
      var select = document.getElementById(args[0]);
      if (select && select.options[Number(args[1])]) {
        select.selectedIndex = Number(args[1]);
        select.dispatchEvent(new Event("change"));
      }
    }
  });
})();
"""


def figure_png(fig, dpi: int = 100) -> bytes:
    """A figure rendered as PNG bytes (Agg canvas; no file, no pyplot)."""
    from .plots import missing_glyphs_quiet

    buffer = io.BytesIO()
    with missing_glyphs_quiet():
        fig.savefig(buffer, format="png", dpi=dpi)
    return buffer.getvalue()


def _img(fig, caption: str, alt: str) -> str:
    # the figure's own line (plots._caption: e.g. its ⚠ methods) ends the caption too
    caption = " ".join(filter(None, [caption, getattr(fig, "obliq_note", "")]))
    data = base64.b64encode(figure_png(fig)).decode("ascii")
    return (f'<figure><img alt="{html.escape(alt)}" src="data:image/png;base64,{data}">'
            f"<figcaption>{html.escape(caption)}</figcaption></figure>")


def _note(text: str) -> str:
    return f'<p class="note">{html.escape(text)}</p>'


# ------------------------------------------------------------ figures from results
def accuracy_size_table(runs: pd.DataFrame, meta: dict | None = None) -> pd.DataFrame:
    """Mean test accuracy and mean leaves per (dataset, algorithm) of one experiment, as
    ``obliq table`` computes them (fold means per repetition, or pooled where the paper
    pools, then the mean over repetitions). Columns dataset, algorithm, test_accuracy,
    n_leaves (NaN when the model has no size, e.g. an SVM); rows in the config's order of
    datasets and algorithms when ``meta`` holds it, else as first seen."""
    keys = ["experiment", "dataset", "algorithm"]
    pooled = pooled_by_paper(meta or {}, "test_accuracy")
    accuracy = summarise(runs, "test_accuracy", pooled)[keys + ["mean"]].rename(
        columns={"mean": "test_accuracy"})
    size = summarise(runs, "n_leaves")[keys + ["mean"]].rename(columns={"mean": "n_leaves"})
    both = accuracy.merge(size, on=keys, how="left")
    config = (meta or {}).get("config") or {}
    order = []
    for column, entries in (("dataset", config.get("datasets", [])),
                            ("algorithm", config.get("algorithms", []))):
        labels = [e.get("label") for e in entries if isinstance(e, dict)]
        position = {label: i for i, label in enumerate(labels)}
        order.append(both[column].map(position).fillna(len(labels)))
    if order:
        both = both.assign(_d=order[0], _a=order[1]).sort_values(["_d", "_a"], kind="stable")
    return both[["dataset", "algorithm", "test_accuracy", "n_leaves"]].reset_index(drop=True)


def flagged_methods(runs: pd.DataFrame, metric: str, datasets=None) -> dict:
    """{algorithm: (cells holding flagged tasks, cells)} of one experiment's runs on
    ``datasets`` (default all; ``tables.flagged_methods``): the methods a figure of
    ``metric`` marks with ⚠, and its caption line (``degeneracy.figure_note``)."""
    from .tables import flagged_methods as counted

    return counted(summarise(runs, metric), datasets)


def size_figure(runs: pd.DataFrame, meta: dict):
    """Accuracy against size for one experiment's runs (``meta``: its meta.json); a
    method whose cells hold flagged tasks is marked in the legend and counted under it."""
    from ..experiment.degeneracy import figure_note, marked
    from .plots import plot_accuracy_vs_size

    tidy = accuracy_size_table(runs, meta)
    drawn = tidy.dropna(subset=["test_accuracy", "n_leaves"])  # as plot_accuracy_vs_size
    methods = {a: counts for a, counts in flagged_methods(
        runs, "test_accuracy", set(drawn["dataset"])).items() if a in set(drawn["algorithm"])}
    tidy = tidy.assign(algorithm=[marked(a, methods) for a in tidy["algorithm"]])
    return plot_accuracy_vs_size(tidy, title=f"{meta['name']}: test accuracy against tree size",
                                 note=figure_note(methods))


def cd_figure(runs: pd.DataFrame, name: str, metric: str = "test_accuracy",
              alpha: float = 0.05):
    """(CD diagram, Friedman result) for one experiment's runs; ObliqError when fewer
    than 2 datasets or algorithms have complete results (``friedman_test``). A method
    whose cells on the ranked datasets hold flagged tasks is marked and counted."""
    from ..analysis.stats import dataset_scores, friedman_test
    from ..experiment.degeneracy import figure_note, marked
    from .plots import plot_critical_difference

    higher = check_metric(metric).higher
    scores = dataset_scores(runs, metric)
    result = friedman_test(scores, higher, alpha)
    # the ranks rest on the datasets with a score for every algorithm (friedman_test)
    methods = flagged_methods(runs, metric, scores.dropna().index)
    # Short enough for one line; the test statistics go to the caption.
    title = f"{name}: average rank, {check_metric(metric).label}"
    ranks = result.average_ranks.rename(index=lambda a: marked(a, methods))
    return plot_critical_difference(ranks, result.critical_difference, title,
                                    figure_note(methods)), result


def bayes_figure(runs: pd.DataFrame, meta: dict, metric: str = "test_accuracy",
                 rope: float | None = None, alpha: float = 0.05):
    """(probability matrix, signed-rank pairs, rope) of one experiment: the Bayesian
    signed-rank test of every pair across datasets (``analysis.bayes.bayes_numbers``) drawn
    by ``plots.plot_bayes_matrix``; ObliqError when fewer than 2 algorithms have results."""
    from ..analysis.bayes import bayes_numbers, default_rope

    rope = default_rope(metric) if rope is None else rope
    pairs = bayes_numbers(runs, meta, metric, rope, alpha).pairs
    return (_bayes_matrix(pairs, str(meta["name"]), metric, rope,
                          flagged_methods(runs, metric)), pairs, rope)


def _bayes_matrix(pairs: pd.DataFrame, name: str, metric: str, rope: float,
                  methods: dict):
    """The probability matrix of ``bayes.signed_rank_pairs`` rows; ``methods``
    (``flagged_methods``) marked and counted. Its line under the figure (and so its
    caption) says how many datasets the posterior rests on and warns below
    ``bayes.FEW_DATASETS``."""
    from ..analysis.bayes import probability_matrix
    from ..experiment.degeneracy import figure_note, marked
    from .bayes import datasets_text, few_datasets_warning
    from .plots import plot_bayes_matrix

    algorithms = list(dict.fromkeys([*pairs["algorithm"], *pairs["versus"]]))
    matrix = probability_matrix(pairs, algorithms)
    title = f"{name}: Bayesian signed-rank, {check_metric(metric).label}"
    warning = few_datasets_warning(pairs)
    note = " ".join(filter(None, [f"Signed-rank posterior over {datasets_text(pairs)}.",
                                  f"{warning}." if warning else "", figure_note(methods)]))
    return plot_bayes_matrix([marked(a, methods) for a in algorithms], *matrix, title=title,
                             rope_width=rope, note=note)


# ------------------------------------------------------------------ benchmark view
def _cell(text, value=None, flagged: str = "") -> str:
    """A td of ``text`` (sorted by ``value``); ``flagged``: the title of the ⚠ of a cell
    holding tasks flagged degenerate (render.html_marks makes the span)."""
    from .render import html_marks
    from .tables import flag_mark

    data = "" if value is None or value != value else f' data-value="{value!r}"'
    cell = f"<td{data}>{html.escape(str(text))}{flag_mark(1 if flagged else 0)}</td>"
    return html_marks(cell, [flagged]) if flagged else cell


def _flag_title(row) -> str:
    """The ⚠ title of a ``summarise`` row holding flagged tasks, "" for the others."""
    from ..experiment.degeneracy import cell_text

    flagged = row.get("n_flagged", 0)
    if pd.isna(flagged) or not flagged:
        return ""
    return cell_text(int(flagged), int(row["n_tasks"]), str(row["flags"]).split(";"))


def benchmark_view(index: int, runs: pd.DataFrame, meta: dict, alpha: float = 0.05,
                   rope: float | None = None) -> list[str]:
    """The parts of a page that show a benchmark (several algorithms on several
    datasets): a ranking table sortable by clicking its headers (mean rank, mean
    score over the datasets, datasets ranked first), a per-dataset view (a select and one
    table per dataset: each algorithm's mean ± sd and rank there), and the Bayesian
    signed-rank probabilities (``bayes_figure``) with their table. Test accuracy
    throughout, as the rest of the page."""
    from ..analysis.bayes import default_rope
    from ..analysis.stats import dataset_scores, rank_algorithms
    from .bayes import experiment_bayes
    from .render import render

    metric = "test_accuracy"
    m = check_metric(metric)
    config = meta.get("config") or {}
    labels = [a.get("label") for a in config.get("algorithms", []) if isinstance(a, dict)]
    scores = dataset_scores(runs, metric)
    algorithms = [a for a in labels if a in scores.columns] + [
        a for a in scores.columns if a not in labels]
    scores = scores[algorithms]
    complete = scores.dropna()
    summary = summarise(runs, metric)
    # the ranking rests on every cell: an algorithm holding flagged tasks says so
    flagged = summary.groupby("algorithm", sort=False)["n_flagged"].sum()
    parts = ["<h3>Benchmark</h3>"]
    if len(complete) >= 1:
        ranks = rank_algorithms(complete, m.higher)
        mean_rank = ranks.mean(axis=0)
        first = (ranks == 1).sum(axis=0)
        order = mean_rank.sort_values(kind="stable").index
        rows = []
        for place, algorithm in enumerate(order, start=1):
            mean_score = float(complete[algorithm].mean())
            mine = int(flagged.get(algorithm, 0))
            rows.append("<tr>" + _cell(place, place)
                        + _cell(algorithm, flagged=f"{mine} of its tasks flagged degenerate: "
                                                   f"see the note below" if mine else "")
                        + _cell(f"{mean_rank[algorithm]:.2f}", float(mean_rank[algorithm]))
                        + _cell(f"{mean_score:.2f}", mean_score)
                        + _cell(int(first[algorithm]), int(first[algorithm])) + "</tr>")
        head = ["place", "algorithm", "mean rank", f"mean {m.label}",
                "datasets ranked first"]
        parts.append(
            f'<p>Ranking over the {len(complete)} datasets with results for every '
            f'algorithm (1 = best; each dataset scored by its mean {html.escape(m.label)} '
            f"over the folds; click a header to sort).</p>")
        parts.append(f'<table class="sortable" id="ranking-{index}"><thead><tr>'
                     + "".join(f"<th>{html.escape(h)}</th>" for h in head)
                     + "</tr></thead><tbody>" + "".join(rows) + "</tbody></table>")
    from ..analysis.aggregate import config_order
    from ..analysis.tables import degenerate_note

    datasets = config_order(meta, "datasets", scores.index)
    options = "".join(f'<option value="{html.escape(str(d))}">{html.escape(str(d))}'
                      f"</option>" for d in datasets)
    parts.append(f'<p><label for="datasets-{index}">Per dataset:</label> '
                 f'<select class="dataset-select" id="datasets-{index}" '
                 f'data-group="{index}">{options}</select></p>')
    for dataset in datasets:
        part = summary[summary["dataset"] == dataset].set_index("algorithm")
        row_ranks = rank_algorithms(scores.loc[[dataset]].dropna(axis=1), m.higher)
        rows = []
        for algorithm in algorithms:
            if algorithm not in part.index:
                continue
            mean, sd = float(part.at[algorithm, "mean"]), part.at[algorithm, "sd"]
            rank = (float(row_ranks.at[dataset, algorithm])
                    if algorithm in row_ranks.columns else float("nan"))
            spread = f" ± {float(sd):.2f}" if sd == sd else ""
            rows.append("<tr>" + _cell(algorithm)
                        + _cell(f"{mean:.2f}{spread}", mean,
                                _flag_title(part.loc[algorithm]))
                        + _cell(f"{rank:g}" if rank == rank else "", rank) + "</tr>")
        parts.append(
            f'<table class="sortable dataset-view" data-group="{index}" '
            f'data-dataset="{html.escape(str(dataset))}" '
            f'id="dataset-{index}-{datasets.index(dataset)}">'
            f"<caption>{html.escape(str(dataset))}</caption><thead><tr><th>algorithm</th>"
            f"<th>{html.escape(m.label)}</th><th>rank</th></tr></thead><tbody>"
            + "".join(rows) + "</tbody></table>")
    parts += [_note(text) for text in degenerate_note(summary, datasets, algorithms)]
    if len(algorithms) >= 2 and len(datasets) >= 2:
        try:
            # computed once for the figure and the tables (the draws take the time)
            used = default_rope(metric) if rope is None else rope
            _, blocks, pairs, _ = experiment_bayes(runs, meta, metric, used, alpha)
            fig = _bayes_matrix(pairs, str(meta["name"]), metric, used,
                                flagged_methods(runs, metric))
            parts.append(_img(fig, f"Bayesian signed-rank test across datasets (Benavoli et "
                                   f"al. 2017, baycomp), rope {used:g} points: each cell "
                                   f"gives P(row better), P(practically equivalent), "
                                   f"P(column better).",
                              "Bayesian signed-rank probabilities"))
            parts.append("<details><summary>Bayesian analysis (obliq stats --bayes)"
                         "</summary>")
            parts.append(render([blocks], "html"))
            parts.append("</details>")
        except ObliqError as exc:
            parts.append(_note(f"Bayesian comparison: {exc}"))
    return parts


# ------------------------------------------------------------------ refitting
def boundary_figures(meta: dict, resolution: int = 300) -> list[str]:
    """HTML <figure>s (or notes) of every algorithm's decision regions on every 2-D
    dataset of the experiment: the task of repetition 0, fold 0, replayed
    (``replay.replay_task``)."""
    from ..config import ExperimentConfig
    from ..experiment.fit import load_dataset_spec
    from ..experiment.replay import replay_task
    from .plots import plot_decision_regions

    config = ExperimentConfig.from_dict(meta["config"])
    parts: list[str] = []
    for dataset in config.datasets:
        label = dataset.label
        try:
            X, _, _ = load_dataset_spec(dataset)
        except ObliqError as exc:
            parts.append(_note(f"{label}: cannot load the dataset to refit: {exc}"))
            continue
        if X.shape[1] != 2:
            continue
        for algo in config.algorithms:
            if not algo.runs_on(label) or algo.label in (meta.get(SKIPPED) or {}).get(label, {}):
                continue
            try:
                task = replay_task(meta.get("results_dir", "."), label, algo.label, 0, 0)
                fig = plot_decision_regions(
                    task.estimator, task.X[task.grow], task.y[task.grow],
                    task.info.get("feature_names"), resolution=resolution,
                    title=f"{algo.label} on {label}: repetition 0, fold 0 "
                          f"({task.grow.size} rows grown on)")
            except Exception as exc:  # as in run_task: one failing fit is noted, not fatal
                first = (str(exc).strip().splitlines() or [""])[0]
                what = first if isinstance(exc, ObliqError) else \
                    f"{type(exc).__name__}: {first}"
                parts.append(_note(f"{algo.label} on {label}: cannot refit: {what}"))
                continue
            parts.append(_img(fig, f"{algo.label} on {label}: decision regions of the "
                                   f"tree of repetition 0, fold 0, replayed as its task "
                                   f"ran; the points are the rows it grew on",
                              f"decision regions of {algo.label} on {label}"))
    return parts


# --------------------------------------------------------------------- the page
def _history_table(meta: dict) -> str:
    """The run history of meta.json as an HTML table (one row per ``obliq run``)."""
    history = [h for h in meta.get("history") or [] if isinstance(h, dict)]
    if not history:
        return _note("meta.json holds no run history (written by an older obliq)")
    rows = []
    for h in history:
        tasks = h.get("tasks") or {}
        versions = h.get("versions") or {}
        cells = [h.get("started") or "", h.get("finished") or "(did not finish)",
                 h.get("command", ""), tasks.get("ran", ""), tasks.get("skipped", ""),
                 tasks.get("failed", ""), h.get("backend", ""), h.get("n_jobs", ""),
                 h.get("host", ""), versions.get("obliq", ""),
                 ", ".join(f"{k} {v}" for k, v in versions.items()
                           if k not in ("obliq", "git_commit") and v)]
        rows.append("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in cells)
                    + "</tr>")
    head = ["started", "finished", "command", "ran", "skipped", "failed", "backend", "jobs",
            "host", "obliq", "dependencies"]
    return ("<table><thead><tr>" + "".join(f"<th>{h}</th>" for h in head)
            + "</tr></thead><tbody>" + "".join(rows) + "</tbody></table>")


def _experiment_section(index: int, alone: Results, boundaries: bool, alpha: float,
                        rope: float | None = None) -> str:
    """One experiment (``alone``: results holding it only) as a paper's results section:
    the tables beside the paper's, the significance, the CD diagram and accuracy against
    size; then, folded, the config as run and the run history."""
    import yaml

    from .significance import format_stats
    from .tables import format_tables

    runs, meta = alone.runs, alone.metas[0]
    name = str(meta["name"])
    config = meta.get("config") or {}
    parts = [f'<h2 id="experiment-{index}">{html.escape(name)}</h2>']
    ok = runs[runs["status"] == "ok"]
    metrics = ["test_accuracy"] + [m for m in config.get("metrics", []) if m != "test_accuracy"]
    for metric in metrics:
        parts.append(f"<h3>{html.escape(check_metric(metric).label)}</h3>")
        try:
            parts.append(format_tables(alone, metric=metric, fmt="html"))
        except ObliqError as exc:
            parts.append(_note(f"{metric}: {exc}"))
    if not ok.empty:
        parts.append("<h3>Significance</h3>")
        try:
            parts.append(format_stats(alone, metric="test_accuracy", alpha=alpha, fmt="html"))
        except ObliqError as exc:
            parts.append(_note(f"significance: {exc}"))
        n_datasets, n_algorithms = ok["dataset"].nunique(), ok["algorithm"].nunique()
        if n_datasets >= 2 and n_algorithms >= 2:
            parts += benchmark_view(index, runs, meta, alpha, rope)
        parts.append("<h3>Figures</h3>")
        figures = []
        if n_datasets >= 2 and n_algorithms >= 2:
            try:
                fig, result = cd_figure(runs, name, "test_accuracy", alpha)
                figures.append(_img(
                    fig, f"Critical-difference diagram (Demšar 2006): average ranks of test "
                         f"accuracy over {result.n_datasets} datasets (1 = best; Friedman "
                         f"p = {result.chi2_pvalue:.3g}); bars join algorithms whose ranks "
                         f"differ by less than the Nemenyi CD = "
                         f"{result.critical_difference:.3g} (alpha = {alpha:g}).",
                    "critical-difference diagram"))
            except ObliqError as exc:
                figures.append(_note(f"CD diagram: {exc}"))
        else:
            figures.append(_note(f"no CD diagram: it needs at least 2 datasets and 2 "
                                 f"algorithms (here {n_datasets} and {n_algorithms})"))
        try:
            figures.append(_img(size_figure(runs, meta),
                                "Mean test accuracy against mean number of leaves, one "
                                "panel per dataset.", "accuracy against tree size"))
        except ObliqError as exc:
            figures.append(_note(f"accuracy vs size: {exc}"))
        parts.append('<div class="figures">' + "\n".join(figures) + "</div>")
        if boundaries:
            parts.append("<h3>Decision regions (2-D datasets, replayed)</h3>")
            shown = boundary_figures(meta)
            parts.append('<div class="grid">' + "\n".join(
                shown or [_note("no 2-D dataset in this experiment")]) + "</div>")
    else:
        parts.append(_note("no finished task yet: no statistics or figures"))
    parts.append("<details><summary>Configuration as run</summary>")
    facts = [f"results: {meta['results_dir']}"]
    if meta.get("config_hash"):
        facts.append(f"config_hash: {meta['config_hash']}")
    parts.append(f'<p class="meta">{html.escape("; ".join(facts))}</p>')
    if config:
        text = yaml.safe_dump(config, sort_keys=False, allow_unicode=True)
        parts.append(f"<pre>{html.escape(text)}</pre>")
    else:
        parts.append(_note("meta.json holds no config"))
    parts.append("</details>")
    parts.append("<details><summary>Run history</summary>")
    parts.append(_history_table(meta))
    parts.append("</details>")
    return "\n".join(parts)


def build_report(results, boundaries: bool = False, alpha: float = 0.05,
                 rope: float | None = None) -> str:
    """The whole page for the experiments of ``results`` (a ``Results``, or folders or a
    folder of them); ``rope``: the Bayesian comparison's, in accuracy points (None: 1)."""
    check_alpha(alpha)
    if rope is not None:
        from ..analysis.bayes import check_rope

        check_rope(rope)
    results = Results.of(results)
    sections, contents = [], []
    for i, experiment in enumerate(results.experiments()):
        sections.append(_experiment_section(i, results.alone(experiment), boundaries, alpha,
                                            rope))
        contents.append(f'<li><a href="#experiment-{i}">{html.escape(str(experiment.name))}'
                        f"</a></li>")
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    title = "obliq report: " + ", ".join(str(m["name"]) for m in results.metas)
    return "\n".join([
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{html.escape(title)}</title>",
        f"<style>{CSS}</style>",
        "</head>",
        "<body>",
        f"<h1>{html.escape(title)}</h1>",
        f'<p class="meta">written {stamp} by obliq report; self-contained (no external '
        f"files or links).</p>",
        "<ul>", *contents, "</ul>",
        *sections,
        f"<script>{SCRIPT}</script>",
        "</body>",
        "</html>",
        "",
    ])


def write_report(results, output, boundaries: bool = False, alpha: float = 0.05,
                 root=None, rope: float | None = None) -> Path:
    """Build the page, then write it to ``output`` atomically (``safe_io.write_bytes``: a
    temporary file of an unpredictable name, renamed; no link followed below ``root``,
    default the page's folder)."""
    output = Path(output)
    if output.is_dir():
        raise ObliqError(f"{output}: is a directory (give a file name, e.g. report.html)")
    safe_io.check_file(output, root)  # a link is refused before the page is built
    page = build_report(results, boundaries, alpha, rope)
    return safe_io.write_bytes(output, page.encode("utf-8"), root)
