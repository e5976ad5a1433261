"""The ``obliq`` command: parse, call, print. Every user error is one line, exit code 2."""

from __future__ import annotations

import contextlib
import functools
import importlib
import logging
import sys

import click
import click.shell_completion

from . import registry
from .errors import ObliqError
from .registry import BACKENDS, DEFAULT_BACKEND
from .report.render import FORMATS, LAYOUTS, LISTING_FORMATS

log = logging.getLogger("obliq")


MAX_LINE = 1000  # an error line quotes user values: a 100 kB name must not fill the screen


def _error_line(message: str) -> str:
    line = (message.strip().splitlines() or ["unknown error"])[0]
    return f"error: {line if len(line) <= MAX_LINE else line[:MAX_LINE - 3] + '...'}"


def _fail(message: str, code: int = 2):
    click.echo(_error_line(message), err=True)
    sys.exit(code)


def _quiet_exit_on_closed_pipe():
    """The reader of our output left (``obliq algorithms | head``): that is not an error.
    Stop quietly; stdout goes to devnull so the exit's flush cannot fail again."""
    import os

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    sys.exit(0)


@contextlib.contextmanager
def _imports_kept_from_the_collector():
    """The obliq process's heavy imports (scikit-learn, scipy, pandas, numba: about a
    million objects that live as long as the process) with the cyclic garbage collector
    off, then moved out of its sight (``gc.freeze``). Each full collection walks every
    object it tracks: three of them during these imports and one more in a run's closing
    tables took 0.25-0.45 s of the quick start's run (none freed anything of theirs);
    with the imports frozen, a run makes no full collection of them. A fork pool's
    workers inherit the frozen objects and leave their pages unwritten, as the gc
    module's documentation advises before a fork. Not in a program that calls the
    command in-process (``interrupts.own_process``)."""
    import gc

    from . import interrupts

    if not interrupts.own_process() or not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        gc.enable()


def _quick_shutdown() -> None:
    """Spare the obliq process the last collections of Python's shutdown, once its
    command is done. The shutdown clears every module and runs the cyclic garbage
    collector over what is left: every object scikit-learn, scipy, pandas and numba made
    at import: 0.5 s after the quick start's tables, 0.07 s with them frozen (measured
    in that run's process). ``gc.freeze`` takes them out of the collector's sight;
    reference counting still frees what it frees, atexit hooks and the flush of stdout
    and stderr still run. Only what a collection would have found (objects in reference
    cycles) is left to the process's end, as Python leaves objects alive at exit anyway;
    nothing obliq writes waits on one: every file is closed by its with block. Not in a
    program that calls the command in-process (``interrupts.own_process``)."""
    import gc

    gc.freeze()


def _seed(ctx, param, value):
    """A seed as a config's ``seed`` takes it: an integer >= 0 (numpy's seeds are), said
    in one error line (a negative one was a traceback from numpy's SeedSequence)."""
    if value is not None and value < 0:
        raise ObliqError(f"--seed: must be an integer >= 0 (got {value})")
    return value


class _Group(click.Group):
    """Lists its commands in SECTIONS. Turns ObliqError anywhere below into one line
    ``error: ...`` on stderr and exit 2; so is an OSError (a results folder that cannot
    be written, a full disk). SIGTERM is handled as Ctrl-C (one line, exit 143 where
    Ctrl-C gives 130), and once the command is done either signal ends the process with
    one line, never exit 0 (``interrupts``)."""

    def format_commands(self, ctx, formatter):
        _format_sections(self, ctx, formatter, SECTIONS)

    def invoke(self, ctx):
        from . import interrupts
        from .errors import Terminated

        own = interrupts.own_process()
        try:  # in the obliq process, what follows the command is Python's shutdown
            with interrupts.handled(then_guard=own):
                return self._invoke(ctx)
        except Terminated:  # SIGTERM outside a run's task loop (which says more)
            _fail("terminated", 143)
        except KeyboardInterrupt:  # Ctrl-C outside a run's task loop
            _fail("interrupted", 130)
        finally:
            if own:
                _quick_shutdown()

    def _invoke(self, ctx):
        try:
            result = super().invoke(ctx)
            sys.stdout.flush()  # a closed pipe shows here, not at interpreter exit
            return result
        except BrokenPipeError:
            _quiet_exit_on_closed_pipe()
        except ObliqError as exc:
            for problem in getattr(exc, "problems", [])[:-1]:  # a config's several
                click.echo(_error_line(problem), err=True)
            last = (getattr(exc, "problems", None) or [str(exc)])[-1]
            _fail(last or type(exc).__name__, exc.exit_code)
        except OSError as exc:
            where = f"{exc.filename}: " if getattr(exc, "filename", None) else ""
            _fail(f"{where}{exc.strerror or exc}")


# ------------------------------------------------- the options' one vocabulary
def _complete_tests(ctx, param, incomplete):
    """--test's values: the names of the tests registry (analysis.stats.TESTS), read only
    when a shell asks (it imports pandas)."""
    from .analysis.stats import TESTS

    return [name for name in TESTS if name.startswith(incomplete)]


def _complete_metrics(ctx, param, incomplete):
    """--metric's values: the metric registry's names (plugins' too, once loaded)."""
    return [name for name in registry.list_metrics() if name.startswith(incomplete)]


class _DeclaredChoice(click.Choice):
    """A choice among the names a module of obliq declares (``DECLARED``: the option's
    declaration, module and name), read on first use: the data's declarations import
    pandas, which ``obliq --help`` must not (tests/cli/test_startup.py)."""

    def __init__(self, declaration: str):
        self.declaration = declaration
        self.case_sensitive = True

    @functools.cached_property
    def choices(self):
        module, _, name = DECLARED[self.declaration].rpartition(".")
        return tuple(getattr(importlib.import_module(module, __package__), name))


# Where each declared choice list of an option lives (read by _DeclaredChoice).
DECLARED = {"missing": ".data.preprocess.MISSING_POLICIES",
            "nominal": ".data.preprocess.NOMINAL_RULES",
            "decimal": ".data.files.DECIMAL_MARKS"}
# The shells click completes (its own registry, which add_completion_class extends).
SHELLS = tuple(click.shell_completion._available_shells)


def _format_option(func):
    """``--format`` of every rendered table: report/render.py's FORMATS."""
    return click.option("--format", "fmt", type=click.Choice(FORMATS), default="md",
                        show_default=True)(func)


def _test_option(func):
    """``--test``: a per-fold test of the tests registry, checked by its owner
    (analysis.stats.check_test: one error line naming the choices)."""
    return click.option("--test", default=None, help=_TEST_HELP, metavar="NAME",
                        shell_complete=_complete_tests)(func)


def _metric_option(help_text: str, multiple: bool = False, default="test_accuracy"):
    """``--metric``: a name of the metric registry, checked by its owner once the results
    are read (their config's plugins may register it). ``multiple``: repeatable, given on
    as ``metrics`` (``default`` a tuple, or None for none)."""
    if multiple:
        return click.option("--metric", "metrics", multiple=True, metavar="M",
                            default=default, show_default=bool(default),
                            help=help_text, shell_complete=_complete_metrics)
    return click.option("--metric", default=default, show_default=True, metavar="M",
                        help=help_text, shell_complete=_complete_metrics)


class _AliasedOption(click.Option):
    """An option whose old spellings (``aliases``) still parse but are not shown."""

    def __init__(self, *args, aliases=(), **kwargs):
        self.aliases = tuple(aliases)
        super().__init__([*args[0], *self.aliases], *args[1:], **kwargs)

    def get_help_record(self, ctx):
        opts = self.opts
        self.opts = [o for o in opts if o not in self.aliases]
        try:
            return super().get_help_record(ctx)
        finally:
            self.opts = opts


def _filter_option(kind: str, metavar: str, help_text: str, aliases=()):
    """``--datasets A,B`` / ``--algorithms X,Y``: repeatable, each value a comma list of
    labels or names, given on as one list (an old spelling kept as a hidden alias)."""
    def split(ctx, param, values):
        return [part.strip() for value in values for part in value.split(",")
                if part.strip()]

    return click.option(f"--{kind}", kind, cls=_AliasedOption, aliases=aliases,
                        multiple=True, metavar=metavar, callback=split, help=help_text)


def _alpha_option(func):
    return click.option("--alpha", type=float, default=0.05, show_default=True)(func)


# ``obliq --help`` lists the commands in these sections (plot's own help, in PLOT_SECTIONS)
SECTIONS = (("Experiments", ("run", "configs")),
            ("Results", ("table", "stats", "agree", "claims", "report", "plot")),
            ("Models", ("fit", "predict")),
            ("Catalog", ("algorithms", "pruners", "datasets")),
            ("Shell", ("completion",)))
PLOT_SECTIONS = (("From stored results", ("cd", "bayes", "size")),
                 ("Fitting a tree now", ("boundary", "tree", "pruning")))


def _format_sections(group, ctx, formatter, sections):
    """click's command listing, one titled block per section; a command no section
    names (a plugin's) under "Other commands"."""
    shown = {name: cmd for name in group.list_commands(ctx)
             if (cmd := group.get_command(ctx, name)) is not None and not cmd.hidden}
    placed = {name for _, names in sections for name in names}
    blocks = [(title, [n for n in names if n in shown]) for title, names in sections]
    blocks.append(("Other commands", [n for n in shown if n not in placed]))
    limit = formatter.width - 6 - max((len(n) for n in shown), default=0)
    for title, names in blocks:
        if names:
            with formatter.section(title):
                formatter.write_dl([(n, shown[n].get_short_help_str(limit)) for n in names])


class _PlotGroup(click.Group):
    def format_commands(self, ctx, formatter):
        _format_sections(self, ctx, formatter, PLOT_SECTIONS)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="obliq")
@click.option("-v", "--verbose", count=True, help="Say more on standard error (-v: debug).")
@click.option("-q", "--quiet", count=True,
              help="Say less: -q warnings and errors only, -qq errors only.")
def main(verbose, quiet):
    """Regenerate decision-tree papers' benchmark tables from YAML experiment configs."""
    from .logs import configure

    configure(verbose, quiet)


def _explicit(ctx, name, value):
    """A CLI value only when the user gave it (explicit flags override the file)."""
    source = ctx.get_parameter_source(name)
    return value if source == click.core.ParameterSource.COMMANDLINE else None


@main.command(short_help="Run an experiment config and print its tables.")
@click.argument("config")
@click.option("-o", "--output",
              help="Results directory (default: the config's, or results/<name>).")
@click.option("-j", "--jobs", "n_jobs", type=int, default=1, show_default="the config's n_jobs",
              help="Parallel tasks (-1: all cores).")
@click.option("--backend", type=click.Choice(BACKENDS), default=DEFAULT_BACKEND,
              show_default="the config's backend", help="joblib backend.")
@click.option("--scheduler",
              help="With --backend dask: the scheduler address (else a local cluster).")
@click.option("--resume", is_flag=True, help="Skip tasks already in runs.csv.")
@click.option("--force", is_flag=True, help="Delete earlier results of this experiment first.")
@click.option("--accept-changed-code", is_flag=True,
              help="With --resume: go on although a plugin, an estimator's package or an "
                   "imports: file changed since the stored rows (meta.json's history says "
                   "so).")
@click.option("--no-progress", is_flag=True, help="No progress bar.")
@_filter_option("datasets", "A,B", "Run only these datasets' tasks (labels or names in the "
                "config); the same rows as a full run, into the same folder.")
@_filter_option("algorithms", "X,Y", "Run only these algorithms' tasks (labels or names in "
                "the config).")
@click.pass_context
def run(ctx, config, output, n_jobs, backend, scheduler, resume, force, accept_changed_code,
        no_progress, datasets, algorithms):
    """Run the experiment CONFIG (a YAML file, or a shipped config's name: obliq configs)
    and print its table."""
    with _imports_kept_from_the_collector():
        from .api import run_experiment
        from .experiment import runner  # noqa: F401  (the run's machinery, now)
        from .logs import show_progress

    results = run_experiment(config, output=output, n_jobs=_explicit(ctx, "n_jobs", n_jobs),
                             backend=_explicit(ctx, "backend", backend), resume=resume,
                             force=force, progress=show_progress(not no_progress),
                             scheduler=scheduler, accept_changed_code=accept_changed_code,
                             datasets=list(datasets) or None,
                             algorithms=list(algorithms) or None)
    summary = results.summary
    for note in summary.notes:
        log.warning("note: %s", note)
    log.info("%d task(s) run, %d already done, %d failed; results in %s", summary.ran,
             summary.skipped, len(summary.failed), summary.output)
    for metric in results.config.metrics:
        click.echo(results.table(metric=metric))
        click.echo()
    from .experiment.degeneracy import cell_text

    for cell in results.flagged().itertuples():
        log.warning("degenerate: %s / %s: %s (runs.csv's flags)", cell.dataset,
                    cell.algorithm, cell_text(cell.n_flagged, cell.n_tasks,
                                              cell.flags.split(";")))
    if summary.failed:
        for line in summary.failed[:10]:
            log.warning("failed: %s", line)
        more = len(summary.failed) - 10
        if more > 0:
            log.warning("... and %d more (see runs.csv)", more)
        sys.exit(1)


@main.group(invoke_without_command=True,
            short_help="List, show or copy the paper configs shipped with obliq.")
@click.pass_context
def configs(ctx):
    """The paper configs shipped with obliq: list them, show one, copy one out to edit.

    `obliq run NAME` runs a shipped config by name from any folder."""
    if ctx.invoked_subcommand is None:
        ctx.invoke(configs_list)


@configs.command("list")
def configs_list():
    """Each shipped config's name and the paper table it reproduces."""
    from .resources import config_summary, shipped_configs

    for name, path in shipped_configs().items():
        click.echo(f"{name:16} {config_summary(path)}")


@configs.command("show")
@click.argument("name")
def configs_show(name):
    """Print the shipped config NAME."""
    from .resources import resolve_config

    click.echo(resolve_config(name).read_text(encoding="utf-8"), nl=False)


@configs.command("copy", short_help="Copy a shipped config and its reference file to edit.")
@click.argument("name")
@click.argument("folder", default=".", type=click.Path(file_okay=False))
@click.option("--force", is_flag=True, help="Overwrite files that exist.")
def configs_copy(name, folder, force):
    """Copy the shipped config NAME (and the reference file it names) into FOLDER."""
    from pathlib import Path

    from .resources import copy_config

    for path in copy_config(name, Path(folder), force):
        click.echo(str(path))


_TEST_HELP = ("Per-fold test for the v / * marks: t (paired t), 5x2t (Dietterich), 5x2f "
              "(Alpaydin's combined F), 5x2t-combined (Yildiz), corrected-t (Nadeau-Bengio), "
              "mcnemar (McNemar on the stored test predictions). Default: the protocol's "
              "(5x2t for r x 2 CV, corrected-t for other k-fold CV and random splits, t "
              "for a shared test part), named in the output.")


@main.command(short_help="Tabulate results, beside the papers' values.")
@click.argument("results", nargs=-1, required=True, type=click.Path())
@_metric_option("test_accuracy, test_error, n_leaves, n_nodes, depth, fit_time, macro_f1, "
                "...; balanced_accuracy, auc, log_loss from the stored predictions. "
                "Repeatable: one table per metric (csv: one file, a metric column).",
                multiple=True, default=("test_accuracy",))
@_format_option
@click.option("--layout", type=click.Choice(LAYOUTS), default="wide", show_default=True)
@click.option("--sig", metavar="REF", help="Mark cells that differ significantly from REF.")
@_alpha_option
@click.option("--pooled", is_flag=True, help="OC1-style accuracy: pool each repetition's folds.")
@click.option("--best", is_flag=True,
              help="The best repetition (highest test accuracy) instead of the mean.")
@_test_option
@click.option("--all", "show_all", is_flag=True,
              help="Also the stored rows of tasks that are no longer in the config.")
def table(results, metrics, fmt, layout, sig, alpha, pooled, best, test, show_all):
    """Aggregate RESULTS (experiment folders, or a folder of them) into a table."""
    from .api import load_results
    from .report.tables import check_table_options

    for metric in metrics:  # before reading
        check_table_options(metric, fmt, layout, pooled, alpha, sig, test)
    click.echo(load_results(results, show_all).table(
        metric=list(metrics), fmt=fmt, layout=layout, sig=sig, pooled=pooled, alpha=alpha,
        best=best, test=test))


@main.command(short_help="Test every pair of algorithms for significant differences.")
@click.argument("results", nargs=-1, required=True, type=click.Path())
@_metric_option("test_accuracy, test_error, n_leaves, n_nodes, depth, fit_time, macro_f1, "
                "... Repeatable: the analysis of each metric in turn.", multiple=True,
                default=("test_accuracy",))
@_test_option
@_alpha_option
@_format_option
@click.option("--bayes", is_flag=True,
              help="Bayesian analysis instead (baycomp): mean ranks, the signed-rank test "
                   "across datasets, the correlated t-test per dataset.")
@click.option("--rope", type=float, default=None, metavar="R",
              help="--bayes: region of practical equivalence in the metric's units "
                   "[default: 1 for percentages, 0.01 for rates in [0, 1], else 0].")
def stats(results, metrics, test, alpha, fmt, bayes, rope):
    """Significance tests of every pair of algorithms in RESULTS: per-dataset w/t/l by the
    per-fold test, Wilcoxon across datasets, Friedman / Iman-Davenport / Nemenyi CD.
    With --bayes: P(better) / P(rope) / P(worse) of every pair (Benavoli et al. 2017)."""
    from .api import load_results
    from .report.significance import check_stats_options

    check_stats_options(test, alpha, fmt)  # before reading
    if rope is not None:
        from .analysis.bayes import check_rope

        if not bayes:
            raise ObliqError("--rope goes with --bayes")
        check_rope(rope)
    click.echo(load_results(results).stats(metric=list(metrics), test=test, alpha=alpha,
                                           fmt=fmt, bayes=bayes, rope=rope))


@main.command(short_help="Count our values that agree with the papers', and the misses.")
@click.argument("results", nargs=-1, required=True, type=click.Path())
@_metric_option("Compare only this metric (repeatable; M@best: the best repetition). "
                "Default: every metric of the reference but the times.", multiple=True,
                default=None)
@_filter_option("algorithms", "X,Y", "Only these algorithms (labels; repeatable).",
                aliases=("--algorithm",))
@_format_option
@click.option("--summary", is_flag=True,
              help="One row per experiment: tasks ok, run time, agreement per metric.")
def agree(results, metrics, algorithms, fmt, summary):
    """How many values of RESULTS (experiment folders, or a folder of them) agree with the
    papers' (obliq table's ✓), per experiment, algorithm and metric, and the misses.
    Misses are findings, not errors: the exit code is 0."""
    from .report.agreement import render_agreement

    click.echo(render_agreement(list(results), metrics, algorithms, fmt, summary).rstrip("\n"))


@main.command(short_help="Check the papers' headline claims against the results.")
@click.argument("results", nargs=-1, required=True, type=click.Path())
@_format_option
@click.option("--claims", "claim_files", multiple=True, type=click.Path(), metavar="FILE",
              help="Check the claims of this YAML file (repeatable) instead of the papers' "
                   "shipped ones (obliq_cli/configs/references/claims/).")
def claims(results, fmt, claim_files):
    """The papers' headline claims checked against RESULTS (experiment folders, or a folder
    of them), each with the test its paper uses: holds / partly / does not hold / not
    testable here, with the evidence. Verdicts are findings: the exit code is 0."""
    from .report.claims import render_claims

    click.echo(render_claims(list(results), list(claim_files), fmt).rstrip("\n"))


def _params_text(params: dict) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in params.items())


@main.command()
def algorithms():
    """List the registered algorithms and their default parameters."""
    for entry in registry.list_algorithms():
        click.echo(f"{entry.name}: {entry.summary}")
        click.echo(f"    params: {_params_text(entry.obj().get_params())}")
    click.echo("\npruners:")
    for entry in registry.list_pruners():
        click.echo(f"{entry.name}: {entry.summary}")
        click.echo(f"    params: {_params_text(entry.params)}")


@main.command()
def pruners():
    """List the registered pruners and their default parameters."""
    for entry in registry.list_pruners():
        click.echo(f"{entry.name}: {entry.summary}")
        click.echo(f"    params: {_params_text(entry.params)}")


def _data_options(func):
    """``--data PATH --target COL [--categorical C ...] [--missing P] [--nominal R]
    [--delimiter D] [--decimal M] [--weights COL]``: the user's own CSV or ARFF file
    instead of ``--dataset``."""
    options = [
        click.option("--data", "data_path", type=click.Path(dir_okay=False), metavar="PATH",
                     help="Your own CSV (header row) or ARFF file instead of --dataset."),
        click.option("--target", help="With --data: the class column (default: the last)."),
        click.option("--categorical", multiple=True, metavar="COL",
                     help="With --data: a nominal column (repeatable)."),
        click.option("--missing", type=_DeclaredChoice("missing"),
                     help="With --data: what a blank, ? or NA cell means: error (the "
                          "default), drop the row, impute (medians / most frequent level "
                          "of the rows grown on) or native (the algorithm takes NaN)."),
        click.option("--nominal", type=_DeclaredChoice("nominal"),
                     help="With --data: nominal columns for algorithms without "
                          "categorical_features: onehot (the default) or codes."),
        click.option("--delimiter", help="With --data: the CSV's delimiter (default ',')."),
        click.option("--decimal", type=_DeclaredChoice("decimal"),
                     help="With --data: the CSV's decimal mark (default '.'; ',' reads "
                          "3,14 as 3.14)."),
        click.option("--weights", metavar="COL",
                     help="With --data: a column of row weights, read as a config's "
                          "weights: (not a feature; the fit and the pruner weigh each "
                          "row by it)."),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def _data_source(dataset, data_path, target, categorical, missing, nominal, delimiter,
                 decimal=None, weights=None):
    """(registered dataset name, its parameters, label) from ``--dataset`` or ``--data``;
    giving both, or neither, or a file option without ``--data`` is one error line."""
    from pathlib import Path

    given = {"--target": target, "--categorical": categorical or None, "--missing": missing,
             "--nominal": nominal, "--delimiter": delimiter, "--decimal": decimal,
             "--weights": weights}
    if dataset and data_path:
        raise ObliqError("give --dataset NAME or --data PATH, not both")
    if not data_path:
        stray = [flag for flag, value in given.items() if value is not None]
        if stray:
            raise ObliqError(f"{stray[0]} needs --data PATH (a catalog dataset declares its "
                             f"own columns and missing-value rule)")
        if not dataset:
            raise ObliqError("give --dataset NAME (obliq datasets) or --data PATH")
        if registry.dataset_entry(dataset).obj is registry.dataset_entry("file").obj:
            raise ObliqError(f"--dataset {dataset}: give your file as --data PATH (with "
                             f"--target, --categorical, --missing as needed)")
        return dataset, {}, dataset
    params = {"path": str(data_path)}
    values = {"target": target, "missing": missing, "nominal": nominal,
              "delimiter": delimiter, "decimal": decimal, "weights": weights}
    params.update({k: v for k, v in values.items() if v is not None})
    if categorical:
        params["categorical"] = list(categorical)
    return "file", params, Path(data_path).stem


@main.group(invoke_without_command=True,
            short_help="List, show or check the dataset catalog and your own files.")
@click.pass_context
def datasets(ctx):
    """The dataset catalog (obliq_cli/data/catalog.yaml) and your own files."""
    if ctx.invoked_subcommand is None:
        ctx.invoke(datasets_list)


@datasets.command("list", short_help="Rows, features, classes, source and status of each dataset.")
@click.option("--format", "fmt", type=click.Choice(LISTING_FORMATS), default="plain",
              show_default=True)
def datasets_list(fmt):
    """Name, rows, features, classes, source, papers and status of every dataset."""
    from .data.summary import catalog_rows
    from .report.render import listing

    columns = ["name", "rows", "features", "classes", "source", "papers", "status"]
    if fmt == "md":
        columns.append("licence")
    click.echo(listing(catalog_rows(), columns, fmt))


@datasets.command("show", short_help="One dataset (or your file): its entry, classes and features.")
@click.argument("name", required=False)
@_data_options
def datasets_show(name, data_path, target, categorical, missing, nominal, delimiter,
                  decimal, weights):
    """One dataset (NAME, or your file: --data PATH): its catalog entry, class counts, a
    feature summary (missing cells, levels), the differences from the paper."""
    import yaml

    from .data.summary import feature_summary, missing_note

    name, params, label = _data_source(name, data_path, target, categorical, missing,
                                       nominal, delimiter, decimal, weights)
    entry = registry.dataset_entry(name)
    item = entry.extra.get("entry")
    if item is not None:
        click.echo(yaml.safe_dump(item, sort_keys=False, allow_unicode=True).rstrip())
        click.echo()
    X, y, info = registry.load_dataset(name, **params)
    click.echo(f"loaded: {X.shape[0]} rows x {X.shape[1]} features from {info['source']}")
    click.echo("classes: " + ", ".join(f"{k}: {v}" for k, v in info["class_counts"].items()))
    if (note := missing_note(X, info)) is not None:
        click.echo(f"missing: {note}")
    features = feature_summary(X, info, limit=30)
    click.echo(f"{'feature':24} {'min':>12} {'mean':>12} {'max':>12}  kind")
    for row in features.itertuples(index=False):
        click.echo(f"{str(row.feature)[:24]:24} {row.min:12.4g} {row.mean:12.4g} "
                   f"{row.max:12.4g}  {row.kind}")
    if X.shape[1] > len(features):
        click.echo(f"... {X.shape[1] - len(features)} more features")
    if "fixed_split" in info:
        train, test = info["fixed_split"]
        click.echo(f"fixed split: {len(train)} train / {len(test)} test")
    if item is not None and item.get("notes"):
        click.echo(f"differences from the paper: {item['notes']}")


@datasets.command("check", short_help="Load every available catalog entry and verify its counts.")
def datasets_check():
    """Load every available catalog entry and verify its counts; exit 1 on a mismatch."""
    from .data.summary import check_catalog

    failures = 0
    for name, ok, text in check_catalog():
        click.echo(f"{name:16} {text}")
        failures += not ok
    if failures:
        log.error("%d dataset(s) failed", failures)
        sys.exit(1)


# ------------------------------------------------------------------- pictures
def _key_values(pairs, option: str) -> dict:
    """``key=value`` options as a dict; values read as YAML (0.1, null, gini, [1, 2])."""
    from .yaml_input import brief, parse_yaml

    out = {}
    for text in pairs:
        key, sep, value = text.partition("=")
        if not sep or not key.strip():
            raise ObliqError(f"{option}: expected key=value (got {brief(text)})")
        try:
            out[key.strip()] = parse_yaml(value, f"{option} {key.strip()}")
        except ObliqError:
            raise ObliqError(f"{option}: {key.strip()}: not a value ({brief(value)})") from None
    return out


def _figure_base(output: str | None, default: str):
    """The output path without .png/.svg (both are written)."""
    from pathlib import Path

    base = Path(output or default)
    return base.with_suffix("") if base.suffix.lower() in (".png", ".svg") else base


def _save_figure(fig, base, root=None) -> None:
    """``report.plots.save_figure`` (``base``.png and ``base``.svg, no link followed below
    ``root``); print the two paths, then the figure's caption line if it has one."""
    from .report.plots import save_figure

    for path in save_figure(fig, base, root):
        click.echo(str(path))
    note = getattr(fig, "obliq_note", "")  # plots._caption's line, e.g. the ⚠ methods
    if note:
        click.echo(note)


def _picture_source(dataset, data_path, target, categorical, missing, nominal, delimiter,
                    results, decimal=None, weights=None):
    """``_data_source`` for a picture fitted now; None with ``--results`` (which names a
    stored task by the config's dataset label)."""
    if results is None:
        return _data_source(dataset, data_path, target, categorical, missing, nominal,
                            delimiter, decimal, weights)
    if data_path:
        raise ObliqError("--results replays a stored task: --data does not apply")
    if not dataset:
        raise ObliqError("--results needs --dataset LABEL (the config's dataset label)")
    return None


def _terms(ctx, param, value):
    """``--terms``: a count >= 1, or ``all`` (None)."""
    text = str(value).strip().lower()
    if text == "all":
        return None
    if text.isascii() and text.isdigit() and int(text) >= 1:
        return int(text)
    raise ObliqError(f"--terms: must be an integer >= 1 or 'all' (got {value!r})")


def _fit_options(func):
    """The options shared by the commands that fit one tree for a picture."""
    options = [
        click.option("--dataset", help="A registered dataset (or --data PATH)."),
        _data_options,
        click.option("--algorithm", required=True, help="A registered algorithm."),
        click.option("--param", "params", multiple=True, metavar="KEY=VALUE",
                     help="An algorithm parameter (repeatable)."),
        click.option("--pruner", help="Prune with this registered pruner."),
        click.option("--pruner-param", "pruner_params", multiple=True, metavar="KEY=VALUE",
                     help="A pruner parameter (repeatable)."),
        click.option("--seed", type=int, default=0, show_default=True, callback=_seed,
                     help="Seed of the names (seed, dataset, 'plot', 0, algorithm)."),
        click.option("--results", type=click.Path(file_okay=False),
                     help="Replay a stored task of this results folder instead (DATASET "
                          "and ALGORITHM are then the config's labels)."),
        click.option("--repetition", type=int, default=0, show_default=True,
                     help="With --results: the task's repetition."),
        click.option("--fold", type=int, default=0, show_default=True,
                     help="With --results: the task's fold."),
        click.option("-o", "--output", metavar="PATH",
                     help="Writes PATH.png and PATH.svg."),
    ]
    for option in reversed(options):
        func = option(func)
    return func


@main.command(short_help="Grow one tree on a whole dataset or file; keep it as a JSON model.")
@click.option("--dataset", help="A registered dataset (obliq datasets), or --data PATH.")
@_data_options
@click.option("--algorithm", required=True, help="A registered algorithm.")
@click.option("--param", "params", multiple=True, metavar="KEY=VALUE",
              help="An algorithm parameter (repeatable).")
@click.option("--pruner", help="Prune with this registered pruner.")
@click.option("--pruner-param", "pruner_params", multiple=True, metavar="KEY=VALUE",
              help="A pruner parameter (repeatable).")
@click.option("--seed", type=int, default=0, show_default=True, callback=_seed,
              help="Seed of the names (seed, dataset, 'plot', 0, algorithm).")
@click.option("-o", "--output", required=True, metavar="FILE",
              help="The model file to write (JSON).")
def fit(dataset, data_path, target, categorical, missing, nominal, delimiter, decimal,
        weights, algorithm, params, pruner, pruner_params, seed, output):
    """Grow (and prune) one tree on all rows of DATASET (or your file, --data) and keep it
    as a JSON model file for `obliq predict` (feature names, category levels, the
    missing-value rule, classes, algorithm, parameters, obliq version)."""
    from .experiment.replay import check_fit_options, fit_on_all_rows
    from .model import save_fitted

    name, data_params, label = _data_source(dataset, data_path, target, categorical, missing,
                                            nominal, delimiter, decimal, weights)
    pruner_values = _key_values(pruner_params, "--pruner-param")
    algo = check_fit_options(algorithm, _key_values(params, "--param"), pruner, pruner_values)
    task = fit_on_all_rows(name, algo, seed, params=data_params, label=label)
    estimator, X, info = task.estimator, task.X, task.info
    path = save_fitted(output, estimator, info, algorithm=algorithm, pruner=pruner,
                       pruner_params=pruner_values, dataset=label, seed=seed,
                       data_params=data_params)
    dropped = int(info.get("rows_dropped") or 0)
    log.info("%s: %s on %s (%d rows%s, %s; %s leaves)", path, algorithm, label, X.shape[0],
             f", {dropped} incomplete dropped" if dropped else "",
             info["preprocess"].describe(), getattr(estimator, "n_leaves_", "?"))
    click.echo(str(path))


@main.command(short_help="Predict the rows of a CSV file with a model from obliq fit.")
@click.argument("model", type=click.Path())  # a folder: one error line (model_schema)
@click.argument("data", type=click.Path(dir_okay=False))
@click.option("-o", "--output", metavar="FILE",
              help="Write the predictions here (CSV) instead of to standard output.")
@click.option("--proba", is_flag=True, help="Add one column of class probability per class.")
@click.option("--delimiter", help="The CSV's delimiter (default: the training file's, or ',').")
@click.option("--decimal", type=_DeclaredChoice("decimal"),
              help="The CSV's decimal mark (default: the training file's, or '.').")
@click.option("--id", "id_column", metavar="COLUMN",
              help="Key each output row by this input column (default: the 1-based row "
                   "number, column 'row').")
@click.option("--strict", is_flag=True,
              help="Stop at a category the model never saw (default: leave that row "
                   "unpredicted, with a note saying why).")
def predict(model, data, output, proba, delimiter, decimal, id_column, strict):
    """Predict the rows of DATA (a CSV with a header naming the model's columns, in any
    order, other columns ignored; the raw file the model was trained from works as it
    is) with the tree in MODEL (from `obliq fit`). The output keys each row (--id COLUMN,
    or its 1-based number) and has a note column: a row with a level the model never
    saw is left unpredicted and its note says which (--strict: stop there instead)."""
    from .model import predict_file, write_text

    found = predict_file(model, data, proba, delimiter, decimal, id_column, strict)
    if found.unpredicted:
        log.warning("%s: %d row(s) left unpredicted (see the note column)", data,
                    found.unpredicted)
    if output:
        log.info("%s: %d predictions", write_text(output, found.text),
                 found.rows - found.unpredicted)
    else:
        click.echo(found.text, nl=False)


@main.group(cls=_PlotGroup,
            short_help="Draw decision regions, trees, CD diagrams and pruning curves.")
def plot():
    """Pictures: decision regions, tree diagrams, CD diagrams, accuracy vs size, pruning."""


@plot.command("boundary", short_help="Decision regions of a tree on a 2-D dataset.")
@_fit_options
def plot_boundary(dataset, data_path, target, categorical, missing, nominal, delimiter,
                  decimal, weights, algorithm, params, pruner, pruner_params, seed, results,
                  repetition, fold, output):
    """Decision regions (and a tree's hyperplanes) on a 2-D dataset (or your file, --data),
    fitted on all rows (or a stored task replayed, --results); the points are the rows it
    grew on."""
    from .experiment.replay import picture_task
    from .report.plots import plot_decision_regions

    source = _picture_source(dataset, data_path, target, categorical, missing, nominal,
                             delimiter, results, decimal, weights)
    dataset = source[2] if source else dataset
    task = picture_task(dataset, algorithm, _key_values(params, "--param"), pruner,
                        _key_values(pruner_params, "--pruner-param"), seed, results,
                        repetition, fold, need_2d=True, source=source)
    fig = plot_decision_regions(task.estimator, task.X[task.grow], task.y[task.grow],
                                task.info.get("feature_names"),
                                title=task.title(dataset, algorithm, pruner, seed, results))
    suffix = f"_{pruner}" if pruner else ""
    _save_figure(fig, _figure_base(output, f"figures/{dataset}_{algorithm}{suffix}"))


@plot.command("tree", short_help="A fitted tree as a diagram of its rules and class counts.")
@_fit_options
@click.option("--max-depth", type=int, help="Draw the nodes down to this depth only.")
@click.option("--terms", default="3", show_default=True, metavar="K|all", callback=_terms,
              help="Terms of each oblique rule shown (the largest abs(w_j) x sd_j; the "
                   "rest counted as '(+N more)'), or all.")
def plot_tree(dataset, data_path, target, categorical, missing, nominal, delimiter, decimal,
              weights, algorithm, params, pruner, pruner_params, seed, results, repetition, fold,
              output, max_depth, terms):
    """A fitted tree as a diagram of its rules and class counts, fitted on all rows of
    DATASET (or your file, --data), or a stored task replayed (--results). The canvas is
    sized to the tree, so every box and the title lie inside it."""
    from .experiment.replay import picture_task
    from .report.plots import plot_fitted_tree

    source = _picture_source(dataset, data_path, target, categorical, missing, nominal,
                             delimiter, results, decimal, weights)
    dataset = source[2] if source else dataset
    task = picture_task(dataset, algorithm, _key_values(params, "--param"), pruner,
                        _key_values(pruner_params, "--pruner-param"), seed, results,
                        repetition, fold, source=source)
    fig = plot_fitted_tree(task.estimator, task.info, max_depth, terms,
                           task.title(dataset, algorithm, pruner, seed, results),
                           f"{algorithm} + {pruner}" if pruner else algorithm)
    suffix = f"_{pruner}" if pruner else ""
    _save_figure(fig, _figure_base(output, f"figures/{dataset}_{algorithm}{suffix}_tree"))


def _one_experiment(results: str):
    """(rows, meta) of the one experiment in the folder ``results`` (a figure's)."""
    from .api import load_results

    meta, runs, _ = load_results(results).only()
    return runs, meta


@plot.command("cd", short_help="Demšar's critical-difference diagram of one experiment.")
@click.argument("results", type=click.Path())
@_metric_option("The metric ranked.")
@_alpha_option
@click.option("-o", "--output", metavar="PATH",
              help="Writes PATH.png and PATH.svg (default RESULTS/figures/cd_METRIC).")
def plot_cd(results, metric, alpha, output):
    """Demšar's critical-difference diagram of one experiment (Friedman + Nemenyi)."""
    from .report.html_report import cd_figure

    runs, meta = _one_experiment(results)
    fig, _ = cd_figure(runs, str(meta["name"]), metric, alpha)
    safe = metric.replace(":", "_")
    _save_figure(fig, _figure_base(output, f"{meta['results_dir']}/figures/cd_{safe}"),
                 None if output else meta["results_dir"])


@plot.command("bayes", short_help="Bayesian signed-rank probabilities of every pair.")
@click.argument("results", type=click.Path())
@_metric_option("The metric compared.")
@click.option("--rope", type=float, default=None, metavar="R",
              help="Region of practical equivalence in the metric's units "
                   "[default: 1 for percentages, 0.01 for rates in [0, 1], else 0].")
@click.option("-o", "--output", metavar="PATH",
              help="Writes PATH.png and PATH.svg (default RESULTS/figures/bayes_METRIC).")
def plot_bayes(results, metric, rope, output):
    """P(better) / P(rope) / P(worse) of every pair of algorithms of one experiment by the
    Bayesian signed-rank test across datasets (obliq stats --bayes), as a matrix."""
    from .analysis.bayes import check_rope
    from .report.html_report import bayes_figure

    if rope is not None:
        check_rope(rope)
    runs, meta = _one_experiment(results)
    fig, _, _ = bayes_figure(runs, meta, metric, rope)
    safe = metric.replace(":", "_")
    _save_figure(fig, _figure_base(output, f"{meta['results_dir']}/figures/bayes_{safe}"),
                 None if output else meta["results_dir"])


@plot.command("size")
@click.argument("results", type=click.Path())
@click.option("-o", "--output", metavar="PATH",
              help="Writes PATH.png and PATH.svg (default RESULTS/figures/accuracy_vs_size).")
def plot_size(results, output):
    """Mean test accuracy against mean leaves, one panel per dataset."""
    from .report.html_report import size_figure

    runs, meta = _one_experiment(results)
    fig = size_figure(runs, meta)
    _save_figure(fig, _figure_base(output, f"{meta['results_dir']}/figures/accuracy_vs_size"),
                 None if output else meta["results_dir"])


@plot.command("pruning", short_help="Learning curves of LA and GA pruning (APDT paper, Figure 6).")
@click.option("--dataset", required=True, help="A registered two-class dataset.")
@click.option("--algorithm", required=True, help="A registered algorithm.")
@click.option("--param", "params", multiple=True, metavar="KEY=VALUE",
              help="An algorithm parameter (repeatable).")
@click.option("--pruners", default="la,ga", show_default=True,
              help="Comma-separated pruners that record a learning curve.")
@click.option("--pruner-param", "pruner_params", multiple=True, metavar="KEY=VALUE",
              help="A pruner parameter, given to every pruner that has it (repeatable), "
                   "e.g. q0=sparse initial_density=sparse.")
@click.option("--seed", type=int, default=0, show_default=True, callback=_seed)
@click.option("-o", "--output", metavar="PATH", help="Writes PATH.png and PATH.svg.")
def plot_pruning(dataset, algorithm, params, pruners, pruner_params, seed, output):
    """Learning curves of LA and GA pruning of one tree (APDT paper, Figure 6)."""
    from .experiment.replay import pruning_curves
    from .report.plots import plot_learning_curves

    names = [p.strip() for p in pruners.split(",") if p.strip()]
    found = pruning_curves(dataset, algorithm, _key_values(params, "--param"), names,
                           _key_values(pruner_params, "--pruner-param"), seed)
    fig = plot_learning_curves(found.curves, found.steps, found.units,
                               "best training accuracy (%)", found.title)
    _save_figure(fig, _figure_base(output, f"figures/{dataset}_{algorithm}_pruning"))


@main.command(short_help="Write one self-contained HTML page of the results.")
@click.argument("results", nargs=-1, required=True, type=click.Path())
@click.option("-o", "--output", metavar="FILE",
              help="The HTML file (default: RESULTS/report.html of the first RESULTS).")
@click.option("--boundaries", is_flag=True,
              help="Also refit each algorithm on each 2-D dataset's first split and show "
                   "its decision regions (slower).")
@_alpha_option
@click.option("--rope", type=float, default=None, metavar="R",
              help="The Bayesian comparison's region of practical equivalence, in accuracy "
                   "points [default: 1].")
def report(results, output, boundaries, alpha, rope):
    """One self-contained HTML page: configs, tables, significance, pictures; with several
    algorithms and datasets a sortable ranking, a per-dataset view and the Bayesian
    comparison."""
    from pathlib import Path

    from .report.html_report import write_report

    target = Path(output) if output else Path(results[0]) / "report.html"
    root = None if output else Path(results[0])  # no link followed inside RESULTS
    click.echo(str(write_report(list(results), target, boundaries, alpha, root, rope)))


@main.command(short_help="Print the shell completion script of obliq.")
@click.argument("shell", type=click.Choice(SHELLS))
def completion(shell):
    """Print the completion script of SHELL (click's, through _OBLIQ_COMPLETE); load it
    with e.g. `eval "$(obliq completion bash)"` in ~/.bashrc."""
    from click.shell_completion import get_completion_class

    script = get_completion_class(shell)(main, {}, "obliq", "_OBLIQ_COMPLETE")
    click.echo(script.source())


if __name__ == "__main__":  # pragma: no cover
    main()
