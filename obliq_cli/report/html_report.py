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
from ..errors import ObliqError
from .aggregate import check_metric, each_experiment, load_results, summarise
from .stats import check_alpha

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
.meta { color: #555; font-size: 0.9em; }
"""


def figure_png(fig, dpi: int = 100) -> bytes:
    """A figure rendered as PNG bytes (Agg canvas; no file, no pyplot)."""
    from .plots import missing_glyphs_quiet

    buffer = io.BytesIO()
    with missing_glyphs_quiet():
        fig.savefig(buffer, format="png", dpi=dpi)
    return buffer.getvalue()


def _img(fig, caption: str, alt: str) -> str:
    data = base64.b64encode(figure_png(fig)).decode("ascii")
    return (f'<figure><img alt="{html.escape(alt)}" src="data:image/png;base64,{data}">'
            f"<figcaption>{html.escape(caption)}</figcaption></figure>")


def _note(text: str) -> str:
    return f'<p class="note">{html.escape(text)}</p>'


# ------------------------------------------------------------ figures from results
def accuracy_size_table(runs: pd.DataFrame, meta: dict | None = None) -> pd.DataFrame:
    """Mean test accuracy and mean leaves per (dataset, algorithm) of one experiment, as
    ``obliq table`` computes them (fold means per repetition, then the mean over
    repetitions). Columns dataset, algorithm, test_accuracy, n_leaves (NaN when the model
    has no size, e.g. an SVM); rows in the config's order of datasets and algorithms
    when ``meta`` holds it, else as first seen."""
    keys = ["experiment", "dataset", "algorithm"]
    accuracy = summarise(runs, "test_accuracy")[keys + ["mean"]].rename(
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


def size_figure(runs: pd.DataFrame, meta: dict):
    """Accuracy against size for one experiment's runs (``meta``: its meta.json)."""
    from .plots import plot_accuracy_vs_size

    return plot_accuracy_vs_size(accuracy_size_table(runs, meta),
                                 title=f"{meta['name']}: test accuracy against tree size")


def cd_figure(runs: pd.DataFrame, name: str, metric: str = "test_accuracy",
              alpha: float = 0.05):
    """(CD diagram, Friedman result) for one experiment's runs; ObliqError when fewer
    than 2 datasets or algorithms have complete results (``friedman_test``)."""
    from .plots import plot_critical_difference
    from .stats import dataset_scores, friedman_test

    higher = check_metric(metric).higher
    result = friedman_test(dataset_scores(runs, metric), higher, alpha)
    # Short enough for one line; the test statistics go to the caption.
    title = f"{name}: average rank, {check_metric(metric).label}"
    return plot_critical_difference(result.average_ranks, result.critical_difference,
                                    title), result


def bayes_figure(runs: pd.DataFrame, meta: dict, metric: str = "test_accuracy",
                 rope: float | None = None, alpha: float = 0.05):
    """(probability matrix, signed-rank pairs, rope) of one experiment: the Bayesian
    signed-rank test of every pair across datasets (``bayes.experiment_bayes``) drawn by
    ``plots.plot_bayes_matrix``; ObliqError when fewer than 2 algorithms have results."""
    from .bayes import default_rope, experiment_bayes, probability_matrix
    from .plots import plot_bayes_matrix

    rope = default_rope(metric) if rope is None else rope
    _, _, pairs, _ = experiment_bayes(runs, meta, metric, rope, alpha)
    algorithms = list(dict.fromkeys([*pairs["algorithm"], *pairs["versus"]]))
    matrix = probability_matrix(pairs, algorithms)
    title = f"{meta['name']}: Bayesian signed-rank, {check_metric(metric).label}"
    return plot_bayes_matrix(algorithms, *matrix, title=title, rope_width=rope), pairs, rope


# ------------------------------------------------------------------ refitting
def boundary_figures(meta: dict, resolution: int = 300) -> list[str]:
    """HTML <figure>s (or notes) of every algorithm's decision regions on every 2-D
    dataset of the experiment: the task of repetition 0, fold 0, replayed
    (``replay.replay_task``)."""
    from ..config import ExperimentConfig
    from ..experiment.replay import replay_task
    from ..experiment.runner import load_dataset_spec
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
            if not algo.runs_on(label):
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


def _experiment_section(index: int, runs: pd.DataFrame, meta: dict, boundaries: bool,
                        alpha: float) -> str:
    """One experiment as a paper's results section: the tables beside the paper's, the
    significance, the CD diagram and accuracy against size; then, folded, the config as
    run and the run history."""
    import yaml

    from .significance import format_stats
    from .tables import format_tables

    name = str(meta["name"])
    config = meta.get("config") or {}
    parts = [f'<h2 id="experiment-{index}">{html.escape(name)}</h2>']
    ok = runs[runs["status"] == "ok"]
    metrics = ["test_accuracy"] + [m for m in config.get("metrics", []) if m != "test_accuracy"]
    for metric in metrics:
        parts.append(f"<h3>{html.escape(check_metric(metric).label)}</h3>")
        try:
            parts.append(format_tables(runs, [meta], metric=metric, fmt="html"))
        except ObliqError as exc:
            parts.append(_note(f"{metric}: {exc}"))
    if not ok.empty:
        parts.append("<h3>Significance</h3>")
        try:
            parts.append(format_stats(runs, [meta], metric="test_accuracy", alpha=alpha,
                                      fmt="html"))
        except ObliqError as exc:
            parts.append(_note(f"significance: {exc}"))
        parts.append("<h3>Figures</h3>")
        figures = []
        n_datasets, n_algorithms = ok["dataset"].nunique(), ok["algorithm"].nunique()
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


def build_report(paths, boundaries: bool = False, alpha: float = 0.05) -> str:
    """The whole page for the experiments under ``paths`` (folders or a folder of them)."""
    check_alpha(alpha)
    runs, metas = load_results(paths)
    sections, contents = [], []
    for i, (meta, part, _) in enumerate(each_experiment(runs, metas)):
        sections.append(_experiment_section(i, part, meta, boundaries, alpha))
        contents.append(f'<li><a href="#experiment-{i}">{html.escape(str(meta["name"]))}</a>'
                        f"</li>")
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    title = "obliq report: " + ", ".join(str(m["name"]) for m in metas)
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
        "</body>",
        "</html>",
        "",
    ])


def write_report(paths, output, boundaries: bool = False, alpha: float = 0.05,
                 root=None) -> Path:
    """Build the page, then write it to ``output`` atomically (``safe_io.write_bytes``: a
    temporary file of an unpredictable name, renamed; no link followed below ``root``,
    default the page's folder)."""
    output = Path(output)
    if output.is_dir():
        raise ObliqError(f"{output}: is a directory (give a file name, e.g. report.html)")
    safe_io.check_file(output, root)  # a link is refused before the page is built
    page = build_report(paths, boundaries, alpha)
    return safe_io.write_bytes(output, page.encode("utf-8"), root)
