"""The committed summary of a benchmark run (a config with no paper reference) and the
README block rendered from it: the published results of the cross-paper benchmark.

A paper config is summarised against its paper (summary.py); a benchmark has no paper,
so what the docs quote of it is its ranking. ``summarize_benchmark`` writes
``<out>/<config>/`` from one results folder:

``facts.csv``
    key, value rows (FACT_KEYS): summary.py's run facts (date, commit, tasks, wall time,
    wall fit seconds, jobs, machine, load at start) plus the metric, rope, alpha and seed of
    the analysis, ``config_tasks`` (the tasks of the whole config; see ``config_tasks``)
    and ``complete`` (true when every one of them has a row, ok or failed: a run cut
    short and then resumed is complete once the resume wrote the last row, since each
    row is written whole; its wall time then says "+1 unfinished run").
``scores.csv``
    per (dataset, algorithm) of the config: mean and sd over the repetitions of test
    accuracy and of the leaves (as ``obliq table`` prints them), the repetitions,
    ``note``: the config's skip reason, "not run" or "failed" for a cell without a result,
    and the cell's finished tasks, those flagged degenerate and their codes
    (experiment/degeneracy.py; a scores.csv written before flags lacks these three
    columns and is read as holding no flagged task). The block marks ⚠ the algorithms
    whose cells hold flagged tasks and lists those cells.
``ranks.csv`` and ``friedman.csv``
    two rankings (Demšar 2006, §3.2.2; ``stats.friedman_test``), as the Friedman test
    needs complete blocks: ``all``, every algorithm over the datasets on which all of
    them have a result; ``everywhere``, the algorithms with a result on every dataset,
    over all datasets. Per scope the mean ranks, datasets ranked first and mean accuracy
    there; chi2_F, Iman-Davenport's F_F and Nemenyi's CD, and what the scope left out.
``pairs.csv``
    ``bayes.signed_rank_pairs`` of every pair (Benavoli et al. 2014; as ``obliq stats
    --bayes`` computes it: same scores, seed and rope): P(better) / P(rope) / P(worse),
    decision and win/tie/loss counts beyond the rope.
``baselines.csv``
    per paper method of the benchmark (PAPER_METHODS), the benchmark's algorithms that its
    own paper's shipped reproduction configs run beside it (``paper_baselines``), so
    the block can read each method against the baselines its paper chose.
``cd_all.svg``, ``cd_everywhere.svg``, ``bayes.svg``
    the CD diagrams of the two scopes and the probability matrix, written with no date
    and fixed ids so the same numbers give the same bytes.

``benchmark_block`` renders the README's ``<!-- obliq benchmark: begin -->`` block: the
ranking, the figures, the Bayesian summary of the papers' methods and sentences read off
the numbers, or "not yet run" / a labelled partial summary.
"""

from __future__ import annotations

import io
import math
from pathlib import Path

import pandas as pd

from obliq_cli.experiment import degeneracy
from obliq_cli.report.agreement import format_duration
from obliq_cli.report.render import md_table
from obliq_cli.report.tables import flag_mark, format_number

FACT_KEYS = ["config", "kind", "source", "summarized", "started", "finished", "commit",
             "obliq", "tasks_ok", "tasks_total", "tasks_failed", "config_tasks",
             "datasets", "config_datasets", "complete", "run_seconds", "unfinished_runs",
             "runs", "fit_seconds", "jobs", "host", "cpu", "cores", "load", "metric",
             "rope", "alpha", "seed", "samples"]
SCORE_COLUMNS = ["dataset", "algorithm", "accuracy_mean", "accuracy_sd", "leaves_mean",
                 "leaves_sd", "repetitions", "note", "n_tasks", "n_flagged", "flags"]
RANK_COLUMNS = ["scope", "algorithm", "mean_rank", "first", "mean_accuracy", "n_datasets"]
FRIEDMAN_COLUMNS = ["scope", "k", "n_datasets", "chi2", "chi2_p", "iman_davenport",
                    "iman_davenport_p", "cd", "alpha", "left_out"]
BASELINE_COLUMNS = ["method", "baseline", "configs"]
PAIR_COLUMNS = ["algorithm", "versus", "n_datasets", "mean_difference", "p_better",
                "p_rope", "p_worse", "decision", "wins", "ties", "losses"]
FILES = ("facts.csv", "scores.csv", "ranks.csv", "friedman.csv", "pairs.csv",
         "baselines.csv")
FIGURES = ("cd_all.svg", "cd_everywhere.svg", "bayes.svg")
SCOPES = {
    "all": "every algorithm, over the datasets on which all of them have a result",
    "everywhere": "the algorithms with a result on every dataset, over all datasets",
}
METRIC = "test_accuracy"
SIZE = "n_leaves"
DECIMALS = 4  # of every stored number: two past what the block prints

PAPER_METHODS = ("APDT", "HHCART(A)", "HHCART(D)", "GDT", "UMT")
"""The four papers' own methods as the shipped config ``benchmark`` labels them."""
REFERENCES = ("RF", "sklearn CART-CCP")
"""The outside yardsticks each paper's method is read against (none of the papers ran
them): a random forest and scikit-learn's pruned CART."""


def _r(value, decimals: int = DECIMALS):
    if value is None or isinstance(value, str) or pd.isna(value):
        return ""
    return round(float(value), decimals)


def config_tasks(meta: dict) -> int | None:
    """The tasks of the whole config in ``meta`` (not only a --datasets / --algorithms
    piece): ``tasks.unplanned_identities`` per dataset, with the cells that meta.json's
    ``skipped_cells`` names taken out. A skip rule on a dataset's facts is known only
    once a run has loaded that dataset, so before then its cells are counted (the count
    is an upper bound until every dataset was planned). None without a readable config."""
    from obliq_cli.experiment.tasks import SKIPPED, config_of, unplanned_identities

    config = config_of(meta.get("config"))
    if config is None:
        return None
    skipped = meta.get(SKIPPED) or {}
    return sum(len(unplanned_identities(config, d, skipped.get(d.label)))
               for d in config.datasets)


def _names(algorithms) -> dict:
    """label -> registered name (or the estimator's import path) of a config's algorithms."""
    return {a.get("label") or a.get("name"): a.get("estimator") or a.get("name")
            for a in algorithms or [] if isinstance(a, dict)}


def paper_baselines(meta: dict, methods=PAPER_METHODS, configs=None) -> pd.DataFrame:
    """BASELINE_COLUMNS: for each of ``methods`` in the benchmark of ``meta``, the
    benchmark's algorithms that a shipped paper config running the same algorithm (by
    registered name) runs beside it, i.e. the paper's own baselines as obliq reproduces
    them. Paper configs: the shipped ones with a reference file, less the ablations
    (``ablation_*``: obliq's own variants, not the paper's choice). ``configs``: name ->
    path (default ``resources.shipped_configs``)."""
    import yaml

    from obliq_cli.resources import shipped_configs

    bench = _names((meta.get("config") or {}).get("algorithms"))
    by_name: dict = {}
    for label, name in bench.items():
        by_name.setdefault(name, label)
    rows: dict = {}
    for config, path in (shipped_configs() if configs is None else configs).items():
        if config.startswith("ablation_"):
            continue
        plain = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
        if not isinstance(plain, dict) or not plain.get("reference"):
            continue
        names = set(_names(plain.get("algorithms")).values())
        for method in methods:
            if method not in bench or bench[method] not in names:
                continue
            for name in sorted(names - {bench[method]}):
                if name in by_name and by_name[name] not in methods:
                    rows.setdefault((method, by_name[name]), []).append(config)
    order = list(bench)
    keys = sorted(rows, key=lambda k: (order.index(k[0]), order.index(k[1])))
    return pd.DataFrame([[m, b, "; ".join(rows[(m, b)])] for m, b in keys],
                        columns=BASELINE_COLUMNS)


def _algorithms(meta: dict, ok: pd.DataFrame) -> list[str]:
    from obliq_cli.analysis.aggregate import config_order

    return config_order(meta, "algorithms", ok["algorithm"])


def _datasets(meta: dict, present) -> list[str]:
    from obliq_cli.analysis.aggregate import config_order

    return config_order(meta, "datasets", list(present), keep_all=True)


def score_rows(part: pd.DataFrame, meta: dict) -> pd.DataFrame:
    """scores.csv: every (dataset, algorithm) of the config, in its order."""
    from obliq_cli.analysis.aggregate import summarise
    from obliq_cli.report.tables import empty_cells

    ok = part[part["status"] == "ok"]
    config = meta.get("config") or {}
    labels = [a.get("label") for a in config.get("algorithms", []) if isinstance(a, dict)]
    algorithms = labels + [a for a in dict.fromkeys(part["algorithm"]) if a not in labels]
    datasets = _datasets(meta, part["dataset"])
    accuracy = summarise(ok, METRIC).set_index(["dataset", "algorithm"]) if len(ok) else None
    leaves = summarise(ok, SIZE).set_index(["dataset", "algorithm"]) if len(ok) else None
    notes = empty_cells(part, meta, datasets, algorithms)
    rows = []
    for d in datasets:
        for a in algorithms:
            key = (d, a)
            if accuracy is not None and key in accuracy.index:
                acc = accuracy.loc[key]
                # a forest or an external estimator has no single tree: no leaves
                size = leaves.loc[key] if key in leaves.index else {"mean": "", "sd": ""}
                rows.append([d, a, _r(acc["mean"]), _r(acc["sd"]), _r(size["mean"]),
                             _r(size["sd"]), int(acc["n_repetitions"]), "",
                             int(acc["n_tasks"]), int(acc["n_flagged"]), acc["flags"]])
            elif key in notes:
                rows.append([d, a, "", "", "", "", 0, notes[key], 0, 0, ""])
    return pd.DataFrame(rows, columns=SCORE_COLUMNS)


def rankings(scores: pd.DataFrame, higher: bool, alpha: float):
    """{scope: (FriedmanResult or None, the table it ranked, what it left out)} of the
    two scopes of the module doc."""
    from obliq_cli.analysis.stats import friedman_test
    from obliq_cli.errors import ObliqError

    everywhere = [a for a in scores.columns if scores[a].notna().all()]
    scoped = {
        "all": (scores, ", ".join(map(str, scores.index[scores.isna().any(axis=1)]))),
        "everywhere": (scores[everywhere], ", ".join(
            str(a) for a in scores.columns if a not in everywhere)),
    }
    out = {}
    for scope, (table, left_out) in scoped.items():
        try:
            result = friedman_test(table, higher, alpha)
        except ObliqError:
            result = None  # fewer than 2 complete datasets or algorithms: no ranking
        out[scope] = (result, table, left_out)
    return out


def _svg(fig) -> bytes:
    """The figure's SVG with no date and fixed clip-path ids (as cli._save_figure), its
    text kept as text: glyphs drawn as paths made the 19 x 19 probability matrix about
    1 MB to commit, as text about a tenth of that."""
    from matplotlib import rc_context

    from obliq_cli.report.plots import missing_glyphs_quiet

    buffer = io.BytesIO()
    with missing_glyphs_quiet(), rc_context({"svg.hashsalt": "obliq", "svg.fonttype": "none"}):
        fig.savefig(buffer, format="svg", metadata={"Date": None})
    return buffer.getvalue()


def summarize_benchmark(meta: dict, part: pd.DataFrame, facts: dict, rope: float | None = None,
                        alpha: float = 0.05) -> tuple[dict, dict]:
    """(frames by file name, SVG bytes by file name) of one benchmark's results:
    ``facts`` are summary.run_facts' (extended here), ``part`` its rows of runs.csv."""
    from obliq_cli.analysis.aggregate import check_metric
    from obliq_cli.analysis.bayes import SAMPLES, default_rope, signed_rank_pairs
    from obliq_cli.analysis.stats import dataset_scores, rank_algorithms

    m = check_metric(METRIC)
    rope = default_rope(METRIC) if rope is None else rope
    seed = int((meta.get("config") or {}).get("seed") or 0)
    ok = part[part["status"] == "ok"]
    algorithms = _algorithms(meta, ok)
    scores = (dataset_scores(ok, METRIC).reindex(columns=algorithms) if len(ok)
              else pd.DataFrame())
    total = config_tasks(meta)
    planned = _datasets(meta, [])
    facts = dict(facts, kind="benchmark", config_tasks="" if total is None else total,
                 datasets=len(scores.index), config_datasets=len(planned),
                 metric=METRIC, rope=rope, alpha=alpha, seed=seed, samples=SAMPLES)
    # complete: every task of the config has its row (a failed task is a result too, its
    # cell says so); an interrupted run whose rest a resume ran is complete, each row
    # being written whole, and its wall time counts the unfinished run apart
    facts["complete"] = str(bool(
        total is not None and int(facts["tasks_ok"]) + int(facts["tasks_failed"]) >= total
    )).lower()
    rank_rows, friedman_rows = [], []
    if scores.shape[0] >= 2 and scores.shape[1] >= 2:
        for scope, (result, table, left_out) in rankings(scores, m.higher, alpha).items():
            if result is None:
                friedman_rows.append([scope, table.shape[1], len(table.dropna()), "", "", "",
                                      "", "", alpha, left_out])
                continue
            complete = table.dropna()
            first = (rank_algorithms(complete, m.higher) == 1).sum(axis=0)
            for a, rank in result.average_ranks.items():
                rank_rows.append([scope, a, _r(rank), int(first[a]), _r(complete[a].mean()),
                                  result.n_datasets])
            friedman_rows.append([scope, result.n_algorithms, result.n_datasets,
                                  _r(result.chi2), _r(result.chi2_pvalue, 6),
                                  _r(result.iman_davenport), _r(result.iman_davenport_pvalue, 6),
                                  _r(result.critical_difference), alpha, left_out])
    pairs = (signed_rank_pairs(scores, m.higher, rope, seed) if scores.shape[1] >= 2
             else pd.DataFrame(columns=["algorithm", "versus"]))
    pair_rows = [[r.algorithm, r.versus, r.n_datasets, _r(r.mean_difference),
                  _r(r.p_better), _r(r.p_rope), _r(r.p_worse), r.decision, r.mean_wins,
                  r.mean_ties, r.mean_losses] for r in pairs.itertuples(index=False)]
    frames = {
        "facts.csv": pd.DataFrame({"key": FACT_KEYS,
                                   "value": [facts.get(k, "") for k in FACT_KEYS]}),
        "scores.csv": score_rows(part, meta),
        "ranks.csv": pd.DataFrame(rank_rows, columns=RANK_COLUMNS),
        "friedman.csv": pd.DataFrame(friedman_rows, columns=FRIEDMAN_COLUMNS),
        "pairs.csv": pd.DataFrame(pair_rows, columns=PAIR_COLUMNS),
        "baselines.csv": paper_baselines(meta),
    }
    # drawn from the numbers as written, so that the committed CSVs redraw the committed
    # figures byte for byte (``stale_figures``)
    return frames, draw_figures(_read_back(frames))


def _read_back(frames: dict) -> dict:
    """``frames`` as ``read_benchmark`` would read them from disk (text cells)."""
    out = {name[:-4]: pd.read_csv(io.StringIO(frame.to_csv(index=False)), dtype=str,
                                  keep_default_na=False) for name, frame in frames.items()}
    out["facts"] = dict(zip(out["facts"]["key"], out["facts"]["value"]))
    return out


def draw_figures(bench: dict) -> dict:
    """SVG bytes by file name (FIGURES) from a benchmark summary's numbers: a CD diagram
    per scope with a ranking, and the probability matrix of the pairs."""
    from obliq_cli.analysis.aggregate import check_metric
    from obliq_cli.analysis.bayes import probability_matrix
    from obliq_cli.report.plots import plot_bayes_matrix, plot_critical_difference

    facts = bench["facts"]
    name, label = facts.get("config", ""), check_metric(facts.get("metric") or METRIC).label
    figures = {}
    ranks, friedman = bench["ranks"], bench["friedman"].set_index("scope")
    for scope in SCOPES:
        mine = ranks[ranks["scope"] == scope]
        if mine.empty:
            continue
        average = pd.Series([float(v) for v in mine["mean_rank"]], index=list(mine["algorithm"]))
        n = friedman.at[scope, "n_datasets"]
        figures[f"cd_{scope}.svg"] = _svg(plot_critical_difference(
            average, float(friedman.at[scope, "cd"]),
            f"{name}: average rank, {label} ({scope}, N = {n})"))
    pairs = bench["pairs"]
    if len(pairs) and int(facts.get("datasets") or 0) >= 2:
        numbers = pairs.assign(**{c: [float(v) if v else math.nan for v in pairs[c]]
                                  for c in ("p_better", "p_rope", "p_worse")})
        algorithms = list(dict.fromkeys([*pairs["algorithm"], *pairs["versus"]]))
        figures["bayes.svg"] = _svg(plot_bayes_matrix(
            algorithms, *probability_matrix(numbers, algorithms),
            title=f"{name}: Bayesian signed-rank, {label}",
            rope_width=float(facts.get("rope") or 0)))
    return figures


def stale_figures(folder) -> list[str]:
    """The figures of a benchmark summary folder that its CSVs do not redraw byte for
    byte (missing, extra or different); empty when they agree."""
    folder = Path(folder)
    drawn = draw_figures(read_benchmark(folder))
    out = [f for f, data in drawn.items()
           if not (folder / f).is_file() or (folder / f).read_bytes() != data]
    return out + [f for f in FIGURES if (folder / f).is_file() and f not in drawn]


# --- rendering -------------------------------------------------------------------------------

def text_csv(path: Path) -> pd.DataFrame:
    """A summary CSV with every cell as text ("" for empty), or an ObliqError naming it."""
    from obliq_cli.errors import ObliqError

    try:
        return pd.read_csv(path, dtype=str, keep_default_na=False)
    except (OSError, ValueError, pd.errors.ParserError) as exc:
        raise ObliqError(f"{path}: cannot be read as a CSV ({exc})") from exc


def read_benchmark(folder) -> dict:
    """A benchmark summary folder read back: its files as frames of text, facts as a
    dict, and which figures it holds."""
    folder = Path(folder)
    out = {name[:-4]: text_csv(folder / name) for name in FILES if (folder / name).is_file()}
    out["facts"] = dict(zip(out["facts"]["key"], out["facts"]["value"]))
    out["figures"] = [f for f in FIGURES if (folder / f).is_file()]
    return out


def _p(text) -> str:
    return format_number(float(text), 2) if str(text).strip() else "–"


def _tasks(facts: dict) -> str:
    ok, total = facts.get("tasks_ok", "0"), facts.get("config_tasks", "")
    # before a run has loaded every dataset, the cells its skip rules on the data's facts
    # leave out are still counted (config_tasks)
    bound = "" if facts.get("datasets") == facts.get("config_datasets") else "at most "
    text = f"{ok} of {bound}{total} tasks" if str(total).strip() else f"{ok} tasks"
    if str(facts.get("tasks_failed", "")).strip() not in ("", "0"):
        text += f" ({facts['tasks_failed']} failed)"
    return text


def _run_line(facts: dict) -> str:
    seconds = float(facts["run_seconds"]) if str(facts.get("run_seconds", "")).strip() else None
    fit = float(facts["fit_seconds"]) if str(facts.get("fit_seconds", "")).strip() else None
    machine = facts.get("cpu", "") or facts.get("host", "")
    if facts.get("cores"):
        machine += f", {facts['cores']} cores"
    parts = [f"Run of {facts.get('started', '')[:10]} (commit {facts.get('commit', '')})",
             _tasks(facts)]
    if seconds is not None:
        parts.append(f"wall time {format_duration(seconds)} with -j {facts.get('jobs', '')}")
    if fit is not None:
        parts.append(f"wall fit time summed over the tasks {format_duration(fit)}")
    parts.append(f"on {machine}, 1-minute load at start {facts.get('load', '') or '?'}")
    return "; ".join(parts) + "."


def _places(ranking: pd.DataFrame) -> list[int]:
    """Each algorithm's place in a ranking sorted by mean rank: one more than the number
    ranked strictly before it, so equal mean ranks share a place (1, 2, 2, 4)."""
    means = [float(v) for v in ranking["mean_rank"]]
    return [1 + sum(m < mine for m in means) for mine in means]


def _flagged(scores: pd.DataFrame) -> pd.Series:
    """The tasks flagged degenerate per row of scores.csv (0 throughout for a file
    written before flags)."""
    if "n_flagged" not in scores.columns:
        return pd.Series(0, index=scores.index)
    return scores["n_flagged"].map(lambda v: int(float(v)) if str(v).strip() else 0)


def _flag_note(bench: dict) -> str:
    """The note under the ranking naming the cells of scores.csv that hold flagged tasks
    (``degeneracy.note``), "" when none do."""
    scores = bench["scores"]
    flagged = _flagged(scores)
    if not flagged.any():
        return ""
    cells = [(r.dataset, r.algorithm, int(f), int(float(r.n_tasks)), str(r.flags).split(";"))
             for r, f in zip(scores.itertuples(index=False), flagged) if f]
    tasks = sum(int(float(v)) for v in scores["n_tasks"] if str(v).strip())
    return degeneracy.note(cells, tasks)


def _ranking_table(bench: dict) -> str:
    ranks = bench["ranks"]
    scope_all = ranks[ranks["scope"] == "all"]
    every = ranks[ranks["scope"] == "everywhere"].set_index("algorithm")
    scores = bench["scores"]
    flagged = _flagged(scores).groupby(scores["algorithm"]).sum()
    rows = []
    places = _places(scope_all)
    for place, r in zip(places, scope_all.itertuples(index=False)):
        mine = scores[(scores["algorithm"] == r.algorithm) & (scores["accuracy_mean"] != "")]
        leaves = [float(v) for v in mine["leaves_mean"] if v]
        rows.append([str(place), r.algorithm + flag_mark(flagged.get(r.algorithm, 0)),
                     format_number(float(r.mean_rank), 2), r.first,
                     format_number(float(r.mean_accuracy), 2),
                     format_number(float(every.at[r.algorithm, "mean_rank"]), 2)
                     if r.algorithm in every.index else "–",
                     str(len(mine)),
                     format_number(sum(leaves) / len(leaves), 1) if leaves else "–"])
    return md_table(rows, ["place", "algorithm", "mean rank", "ranked first",
                             "mean accuracy (%)", "mean rank (everywhere)",
                             "datasets with a result", "mean leaves"])


def _friedman_text(bench: dict) -> str:
    lines = []
    for r in bench["friedman"].itertuples(index=False):
        what = f"- `{r.scope}` ({SCOPES.get(r.scope, r.scope)})"
        if not str(r.chi2).strip():
            lines.append(f"{what}: no ranking, fewer than 2 complete datasets "
                         f"({r.n_datasets}) or algorithms ({r.k})")
            continue
        k, n = int(r.k), int(r.n_datasets)
        iman = ("∞" if float(r.iman_davenport) == math.inf
                else format_number(float(r.iman_davenport), 2))
        lines.append(
            f"{what}: k = {k}, N = {n}; Friedman χ²_F = {format_number(float(r.chi2), 2)} "
            f"(p = {float(r.chi2_p):.2g}), Iman-Davenport F_F = {iman} ({k - 1}, "
            f"{(k - 1) * (n - 1)} df, p = {float(r.iman_davenport_p):.2g}), Nemenyi CD = "
            f"{format_number(float(r.cd), 2)} at α = {r.alpha}"
            + (f"; left out: {r.left_out}" if r.left_out else ""))
    return "\n".join(lines)


def _pair(pairs: pd.DataFrame, a: str, b: str):
    """(P(a better), P(rope), P(b better), wins, ties, losses of a) from pairs.csv, or None."""
    found = pairs[(pairs["algorithm"] == a) & (pairs["versus"] == b)]
    if len(found):
        r = found.iloc[0]
        return r["p_better"], r["p_rope"], r["p_worse"], r["wins"], r["ties"], r["losses"]
    found = pairs[(pairs["algorithm"] == b) & (pairs["versus"] == a)]
    if len(found):
        r = found.iloc[0]
        return r["p_worse"], r["p_rope"], r["p_better"], r["losses"], r["ties"], r["wins"]
    return None


def _decided(pairs: pd.DataFrame, a: str) -> dict:
    """Per decision, the algorithms ``a`` is decided better than / worse than /
    equivalent to, or undecided against (from ``a``'s side)."""
    flip = {"better": "worse", "worse": "better"}
    out: dict = {"better": [], "worse": [], "equivalent": [], "undecided": [], "no test": []}
    for r in pairs.itertuples(index=False):
        if r.algorithm == a:
            out[r.decision].append(r.versus)
        elif r.versus == a:
            out[flip.get(r.decision, r.decision)].append(r.algorithm)
    return out


def _versus(bench: dict, methods, references) -> list[tuple[str, str, str]]:
    """(method, versus, why) rows of the Bayesian table: each method present against the
    outside references, then against its own paper's baselines (baselines.csv)."""
    pairs = bench["pairs"]
    present = set(pairs["algorithm"]) | set(pairs["versus"])
    baselines = bench.get("baselines")
    out = []
    for a in [m for m in methods if m in present]:
        for b in references:
            if b in present and b != a:
                out.append((a, b, "outside reference"))
        if baselines is not None:
            for r in baselines[baselines["method"] == a].itertuples(index=False):
                if r.baseline in present and r.baseline not in references:
                    out.append((a, r.baseline, f"its paper ({r.configs})"))
    return out


def _bayes_table(bench: dict, methods, references) -> str:
    pairs = bench["pairs"]
    rows = []
    for a, b, why in _versus(bench, methods, references):
        p = _pair(pairs, a, b)
        if p is None:
            continue
        decided = _decided(pairs, a)
        decision = next((d for d, names in decided.items() if b in names), "")
        rows.append([a, b, why, _p(p[0]), _p(p[1]), _p(p[2]), f"{p[3]}/{p[4]}/{p[5]}",
                     decision])
    if not rows:
        return "None of the papers' methods has results in this summary."
    return md_table(rows, ["method", "versus", "baseline of", "P(better)", "P(rope)",
                             "P(worse)", "w/t/l", "decision"])


def _names_text(names) -> str:
    names = list(names)
    if not names:
        return "none"
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + f" and {names[-1]}"


def _reading(bench: dict, methods, references) -> str:
    """Generated sentences per paper method: its place and mean rank, the Bayesian
    probabilities against the outside references, the decisions against its own paper's
    baselines and against every other algorithm; then which methods hold up."""
    ranks = bench["ranks"]
    scope_all = ranks[ranks["scope"] == "all"].reset_index(drop=True)
    pairs = bench["pairs"]
    k = len(scope_all)
    lines, held, fell = [], [], []
    rows = _versus(bench, methods, references)
    for a in methods:
        found = scope_all.index[scope_all["algorithm"] == a]
        if not len(found):
            continue
        place = _places(scope_all)[int(found[0])]
        r = scope_all.iloc[found[0]]
        text = (f"- {a} ranks {place} of {k} (mean rank {format_number(float(r['mean_rank']), 2)} "
                f"over {r['n_datasets']} datasets)")
        scores = bench["scores"]
        mine = _flagged(scores)[(scores["algorithm"] == a) & (scores["accuracy_mean"] != "")]
        if mine.any():
            text += (f" {degeneracy.MARK} {int((mine > 0).sum())} of its {len(mine)} cells "
                     f"hold tasks flagged degenerate")
        against = []
        for b in references:
            p = _pair(pairs, a, b)
            if p is not None and str(p[0]).strip():
                against.append(f"P({a} better than {b}) = {_p(p[0])}, P(equivalent) = "
                               f"{_p(p[1])}, P({b} better) = {_p(p[2])}")
        decided = _decided(pairs, a)
        own = [b for m, b, why in rows if m == a and why.startswith("its paper")]
        if own:
            better = [b for b in own if b in decided["better"]]
            worse = [b for b in own if b in decided["worse"]]
            against.append(f"against its paper's baselines ({_names_text(own)}) it is "
                           f"decided better than {_names_text(better)} and worse than "
                           f"{_names_text(worse)}")
            (held if len(better) == len(own) else fell).append(a)
        against.append(f"against all {k - 1} others: better than "
                       f"{len(decided['better'])}, worse than {len(decided['worse'])}, "
                       f"equivalent to {len(decided['equivalent'])}, undecided "
                       f"{len(decided['undecided'])}")
        lines.append(text + "; " + "; ".join(against) + ".")
    if held or fell:
        lines.append(f"- Decided better than every baseline of its own paper outside that "
                     f"paper: {_names_text(held)}; not so: {_names_text(fell)}.")
    return "\n".join(lines)


def ranking_top(bench: dict | None, name: str, top: int, page: str) -> str:
    """The first ``top`` places of ``benchmark_block``'s ranking table and a line linking
    the whole of it (``page``): the README's headline of the benchmark."""
    if bench is None or bench["ranks"].empty:
        return f"Not yet run: docs/results holds no ranking of `{name}`."
    lines = _ranking_table(bench).split("\n")
    facts = bench["facts"]
    flagged = "; ⚠ tasks flagged degenerate" if any("⚠" in ln for ln in lines) else ""
    return (f"The first {top} of {len(lines) - 2} methods by mean rank of "
            f"{facts.get('metric')} over {facts.get('datasets')} datasets "
            f"({_tasks(facts)}{flagged}; the whole ranking, "
            f"CD diagrams and Bayesian tests: [{page}]({page})):\n\n"
            + "\n".join(lines[:2 + top]))


def benchmark_block(bench: dict | None, name: str, where: str, methods=PAPER_METHODS,
                    references=REFERENCES) -> str:
    """The README's benchmark section from ``read_benchmark``'s dict (None: no summary)."""
    fix = f"`obliq run {name} -j 2`, then `make reproductions RESULTS=results`"
    if bench is None:
        return (f"Not yet run: docs/results holds no summary of `{name}` ({fix}). The "
                f"ranking, the CD diagram and the Bayesian summary appear here then.")
    facts = bench["facts"]
    parts = []
    if facts.get("complete") != "true":
        parts.append(f"**Not yet run in full: this is a partial summary, not the result** "
                     f"({_tasks(facts)}, {facts.get('datasets')} of "
                     f"{facts.get('config_datasets')} datasets; the rest: {fix}).")
    parts.append(_run_line(facts))
    if bench["ranks"].empty:
        parts.append("No ranking: fewer than 2 datasets or algorithms with results.")
        return "\n\n".join(parts)
    parts.append(
        f"Ranking by {facts.get('metric')} (each dataset scored by its mean over the "
        f"folds, 1 = best, ties share their ranks; Demšar 2006). The Friedman test needs "
        f"complete blocks, so two rankings: mean rank over the datasets on which every "
        f"algorithm has a result (the table's order), and mean rank (everywhere) of the "
        f"algorithms with a result on every dataset, over all datasets (– for the others: "
        f"their skip rules leave cells out). Mean accuracy is over the first ranking's "
        f"datasets, mean leaves over every dataset with a result.")
    parts.append(_ranking_table(bench))
    parts.append(f"Every cell's mean ± sd over the repetitions (accuracy, leaves) and the "
                 f"reason of each cell left out: [{where}/{name}/scores.csv]"
                 f"({where}/{name}/scores.csv).")
    flagged = _flag_note(bench)
    if flagged:
        parts.append(flagged)
    parts.append(_friedman_text(bench))
    for figure, alt in (("cd_all.svg", "CD diagram, every algorithm"),
                        ("cd_everywhere.svg", "CD diagram, the algorithms run everywhere")):
        if figure in bench["figures"]:
            parts.append(f"![{alt}]({where}/{name}/{figure})")
    parts.append(
        f"Bayesian signed-rank test across datasets (Benavoli et al. 2014, baycomp; "
        f"`obliq stats --bayes`), rope {facts.get('rope')} points, over the datasets both "
        f"have a result on, {facts.get('samples')} draws seeded from the config's seed "
        f"({facts.get('seed')}): each paper's method against the outside references and "
        f"against the baselines its own paper runs beside it (obliq's reproduction "
        f"configs of that paper), P(better) / P(rope) / P(worse) from the method's side, "
        f"w/t/l the datasets beyond / within / below the rope; a probability above 0.95 "
        f"decides.")
    parts.append(_bayes_table(bench, methods, references))
    if "bayes.svg" in bench["figures"]:
        parts.append(f"![Bayesian signed-rank probabilities]({where}/{name}/bayes.svg)")
    reading = _reading(bench, methods, references)
    if reading:
        parts.append("Read off the numbers above:\n\n" + reading)
    return "\n\n".join(parts)
