"""The ``obliq`` command: parse, call, print. Every user error is one line, exit code 2."""

from __future__ import annotations

import sys

import click

from . import registry
from .errors import ObliqError


class _Group(click.Group):
    """Turns ObliqError anywhere below into ``error: ...`` on stderr and exit 2."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except ObliqError as exc:
            lines = str(exc).strip().splitlines() or [type(exc).__name__]
            click.echo(f"error: {lines[0]}", err=True)
            sys.exit(exc.exit_code)


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
    summary = run_experiment(spec, resume=resume, force=force, progress=not no_progress,
                             scheduler=scheduler)
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
def table(results, metric, fmt, layout, sig, alpha, pooled):
    """Aggregate RESULTS (experiment folders, or a folder of them) into a table."""
    from .report.tables import render_tables

    click.echo(render_tables(list(results), metric=metric, fmt=fmt, layout=layout, sig=sig,
                             pooled=pooled, alpha=alpha))


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
def datasets():
    """List the registered datasets."""
    for entry in registry.list_datasets():
        source = entry.extra.get("source", "")
        click.echo(f"{entry.name}: {entry.summary}" + (f" [{source}]" if source else ""))
        if entry.params:
            click.echo(f"    params: {_params_text(entry.params)}")


if __name__ == "__main__":  # pragma: no cover
    main()
