"""Experiments from Python: what ``obliq run``, ``obliq table`` and ``obliq stats`` call.

::

    import obliq_cli
    results = obliq_cli.run_experiment("quickstart", output="results/qs", n_jobs=2)
    results.to_frame()                   # one row per task and metric
    print(results.table(sig="CART-AP gini unpruned"))   # the text `obliq table` prints
    results.table()                      # in a notebook: the same table as html
    results.table(frame=True)            # the same numbers as a DataFrame (--format csv)
    results.stats(frame=True)            # what `obliq stats` computes
    obliq_cli.load_results("results/qs") # a finished folder, read into the same object

A thin layer: a config is read by ``config.load_config`` (or ``config.config_from_dict``),
run by ``experiment.runner.run_experiment`` and read back by
``analysis.results.Results``; tables and statistics are ``report.tables``,
``report.significance`` and ``report.bayes`` (their numbers ``analysis.stats`` and
``analysis.bayes``). Errors are ``ObliqError``s (ValueErrors),
the one-line messages the command line prints. In IPython or Jupyter a ``Results``
shows a summary and its table, and the tables of ``table()`` and ``stats()`` show
themselves, as html (``report.display``).
"""

from __future__ import annotations

import logging
import os

from .analysis.results import (
    FRAME_COLUMNS,  # noqa: F401  (to_frame's columns, as before)
    _flag,
)
from .analysis.results import Results as _Results
from .errors import ArgumentTypeError, ObliqError

log = logging.getLogger("obliq")


class Results(_Results):
    """Finished tasks of one or more experiments, as ``obliq table`` reads them
    (``analysis.results.Results``: ``runs``, ``metas``, ``experiments()``, ``to_frame()``,
    ``flagged()``), with what ``obliq table`` and ``obliq stats`` print.

    ``summary``: what the run did (``experiment.runner.RunSummary``: ran, skipped,
    failed) when the object comes from ``run_experiment``, else None; ``config``: the
    spec it ran.
    """

    def __init__(self, paths, runs, metas, show_all: bool = False, summary=None,
                 config=None):
        super().__init__(paths, runs, metas, show_all)
        self.summary = summary
        self.config = config

    def table(self, metric="test_accuracy", fmt: str = "md", layout: str = "wide",
              sig: str | None = None, alpha: float = 0.05, pooled: bool = False,
              best: bool = False, test: str | None = None, show_all: bool | None = None,
              frame: bool = False):
        """What ``obliq table`` prints, with its options (``fmt`` is --format, ``show_all``
        --all), as a ``report.display.TableOutput``: ``str()`` is the text the command
        prints, a notebook shows it as html, ``to_frame()`` gives its numbers.
        ``frame=True``: the numbers as a DataFrame instead (the rows and columns of
        ``--format csv``, ``report.tables.CSV_COLUMNS``; ``fmt`` and ``layout`` do not
        apply).

        ``metric``: a name, or several (a list; ``--metric`` repeated): one table per
        metric, one after the other as ``obliq run`` prints its config's metrics, and for
        csv one file whose rows say their metric. One table each rather than a column
        per metric: each metric keeps its own decimals, paper values, ✓ and --sig marks,
        which a shared wide table (algorithms x metrics columns) could not show legibly
        (``metrics``)."""
        from .experiment.metrics import check_metric
        from .report.display import TableOutput
        from .report.render import join_pages
        from .report.tables import check_table_options, table_frame, tables_page

        names = metrics(metric)
        for name in names:
            check_table_options(name, "csv" if frame else fmt, layout, pooled, alpha, sig,
                                test)
        results = self.showing(show_all)
        for name in names:
            check_metric(name)

        def numbers():
            return join_pages([table_frame(results, name, sig, pooled, alpha, best, test)
                               for name in names])

        if frame:
            return numbers()
        return TableOutput(join_pages([tables_page(results, name, fmt, layout, sig, pooled,
                                                   alpha, best, test) for name in names]),
                           fmt, numbers)

    def stats(self, metric="test_accuracy", test: str | None = None,
              alpha: float = 0.05, fmt: str = "md", frame: bool = False, bayes: bool = False,
              rope: float | None = None):
        """What ``obliq stats`` prints: per-dataset w/t/l of every pair of algorithms by
        the per-fold test (``test``; None: the protocol's default), Wilcoxon across
        datasets, Friedman / Iman-Davenport / Nemenyi.
        ``frame=True``: the numbers as a DataFrame (``--format csv``'s rows,
        ``analysis.significance.CSV_COLUMNS``). ``bayes=True``: ``obliq stats --bayes``
        instead (``report.bayes``: mean ranks, the Bayesian signed-rank test across
        datasets and the correlated t-test per dataset, with ``rope`` in the metric's
        units; None: 1 point of a percentage); its frame has BAYES_CSV_COLUMNS. Without
        ``frame``, a ``report.display.TableOutput`` as ``table`` gives. ``metric``: a
        name or several, one analysis each, as ``table`` takes them (``metrics``)."""
        from .analysis.significance import stats_frame
        from .experiment.metrics import check_metric
        from .report.display import TableOutput
        from .report.render import join_pages
        from .report.significance import check_stats_options, stats_page

        names = metrics(metric)
        check_stats_options(test, alpha, "csv" if frame else fmt)
        for name in names:
            check_metric(name)
        if bayes:
            from .analysis.bayes import bayes_frame, check_rope
            from .report.bayes import bayes_page

            if rope is not None:
                check_rope(rope)

            def numbers():
                return join_pages([bayes_frame(self, name, rope, alpha) for name in names])

            def page(name):
                return bayes_page(self, name, rope, alpha, fmt)
        else:
            def numbers():
                return join_pages([stats_frame(self, name, test, alpha) for name in names])

            def page(name):
                return stats_page(self, name, test, alpha, fmt)
        if frame:
            return numbers()
        return TableOutput(join_pages([page(name) for name in names]), fmt, numbers)

    def _page(self) -> list:
        from .report.display import results_page

        return results_page(self, self.table().page)

    def _repr_html_(self) -> str:
        """What a notebook shows (IPython's display protocol): ``report.display.
        results_page`` as html."""
        from .report.render import render

        return render(self._page(), "html")

    def _repr_markdown_(self) -> str:
        from .report.render import render

        return render(self._page(), "md")


def load_results(path, show_all: bool = False) -> Results:
    """The finished tasks under ``path`` (an experiment folder, a folder of them, or a
    list of such paths), as ``obliq table`` reads them; ``show_all`` also keeps the rows
    of tasks that left the config (``obliq table --all``)."""
    return Results.read(path, show_all)


def metrics(value) -> list[str]:
    """The metrics of a table (``Results.table``'s and ``stats``'s ``metric``): a name, or
    several (a list or tuple, ``--metric`` repeated) in the order given, each once."""
    if isinstance(value, str):
        return [value]
    if (not isinstance(value, (list, tuple)) or not value
            or not all(isinstance(v, str) for v in value)):
        raise ArgumentTypeError(f"metric: give a metric's name or a list of them (got "
                                f"{value!r})")
    return list(dict.fromkeys(value))


def name_list(value, option: str) -> list[str] | None:
    """A selection of names (``--datasets a,b``, ``datasets=["a", "b"]``): a string or
    strings, each split at commas, stripped; None when not given. ObliqError for an empty
    selection or a value that is not text."""
    if value is None:
        return None
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, (list, tuple)) or not all(isinstance(v, str) for v in items):
        raise ObliqError(f"--{option}: give names separated by commas (got "
                         f"{type(value).__name__})")
    names = [part.strip() for item in items for part in item.split(",") if part.strip()]
    if not names:
        raise ObliqError(f"--{option}: give at least one name")
    return list(dict.fromkeys(names))


def run_experiment(config, output=None, n_jobs: int | None = None, backend: str | None = None,
                   resume: bool = False, force: bool = False, progress: bool | None = None,
                   scheduler: str | None = None, accept_changed_code: bool = False,
                   datasets=None, algorithms=None) -> Results:
    """Run (or with ``resume`` continue) an experiment and read its results back.

    ``config``: a YAML file's path, a shipped config's name ("quickstart", ``obliq
    configs``), a dict holding what the YAML would (relative paths in it are taken from
    the current folder) or an ``ExperimentConfig``. ``output``, ``n_jobs`` and
    ``backend`` override the config's (None keeps it); ``force`` first deletes what
    obliq wrote in the output folder; ``scheduler``: a dask scheduler's address;
    ``accept_changed_code``: resume although the plugins, estimator packages or
    ``imports:`` files of the stored rows changed (meta.json's history says so);
    ``datasets`` / ``algorithms``: run only the tasks of these (labels or names as the
    config gives them; a string is split at commas), as ``obliq run --datasets
    --algorithms`` (the rows are those a full run writes; ``resume`` later adds the
    rest). ``progress``: draw a progress bar (tqdm.auto: a widget in a Jupyter notebook
    with ipywidgets, text on stderr elsewhere); None draws it inside IPython or Jupyter
    (``logs.in_ipython``) and not elsewhere. Raises
    ObliqError, having written nothing, for bad input; a task that fails is stored with
    status "error" and listed in ``Results.summary.failed``.
    """
    from .config import ExperimentConfig, config_from_dict, load_config
    from .experiment.runner import run_experiment as run
    from .logs import in_ipython

    for name, value in (("resume", resume), ("force", force),
                        ("accept_changed_code", accept_changed_code)):
        _flag(value, name)
    if progress is not None:  # None: on inside IPython only
        _flag(progress, "progress")
    if resume and force:
        raise ObliqError("--resume and --force exclude each other")
    if output is not None and (isinstance(output, bytes)
                               or not isinstance(output, (str, os.PathLike))):
        raise ArgumentTypeError(f"output: must be a folder path (got {type(output).__name__})")
    overrides = {"output": None if output is None else os.fspath(output), "n_jobs": n_jobs,
                 "backend": backend}
    if isinstance(config, ExperimentConfig):
        spec = config.with_overrides(**overrides)
    elif isinstance(config, dict):
        spec = config_from_dict(config, overrides)
    elif isinstance(config, (str, os.PathLike)):
        spec = load_config(config, overrides)
    else:
        raise ObliqError(f"config: give a YAML file's path, a shipped config's name or a "
                         f"dict of settings (got {type(config).__name__})")
    log.debug("config %s: %d dataset(s) x %d algorithm(s), %s protocol, %d job(s) on %s",
              spec.path, len(spec.datasets), len(spec.algorithms), spec.protocol.name,
              spec.n_jobs, spec.backend)
    summary = run(spec, n_jobs=spec.n_jobs, backend=spec.backend, scheduler=scheduler,
                  resume=resume, force=force,
                  progress=in_ipython() if progress is None else bool(progress),
                  accept_changed_code=accept_changed_code,
                  datasets=name_list(datasets, "datasets"),
                  algorithms=name_list(algorithms, "algorithms"))
    results = load_results(summary.output)
    results.summary, results.config = summary, spec
    return results
