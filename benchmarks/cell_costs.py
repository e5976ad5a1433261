"""CPU seconds of one task of each (dataset, algorithm) cell of a config, and the whole
config's CPU time extrapolated from them.

Each cell runs its first task (repetition 0, fold 0) exactly as ``obliq run`` would
(``fit.run_task``: the same split, parameters, seeds, pruning and inner searches), in
this process with one BLAS thread, timed in CPU seconds (``time.process_time``: on a
shared machine wall time measures the other users). A cell's estimate is that time times
its number of tasks (repetitions x folds); the config's is the sum. A task over
``--limit`` CPU seconds is stopped (SIGPROF) and reported as ">limit". Cells the config
skips (``skip:``, ``only:``) are not run.

Run: ``python benchmarks/cell_costs.py benchmark [--datasets a,b] [--algorithms x,y]
[--limit 300] [--csv costs.csv]``; prints one line per cell as it finishes, then the
cells by cost and the total.
"""

from __future__ import annotations

import argparse
import csv
import signal
import sys
import time
from dataclasses import dataclass

from threadpoolctl import threadpool_limits

from obliq_cli.config import load_config
from obliq_cli.errors import ObliqError


class Overtime(Exception):
    pass


def _overtime(signum, frame):
    raise Overtime


@dataclass
class Cell:
    dataset: str
    algorithm: str
    rows: int
    n_train: int
    tasks: int
    seconds: float  # CPU seconds of the one task; inf when stopped at the limit
    status: str

    @property
    def estimate(self) -> float:
        return self.seconds * self.tasks


def warm_up(task) -> None:
    """The runner's warm-up of ``task``'s algorithm (``fit.warm_up``: once per process,
    an untimed run on a few of its rows), here before the timing starts: the first fit of
    an algorithm in a process loads (or compiles) its numba kernels, seconds that a run
    pays once per worker, not once per task."""
    import warnings

    from obliq_cli.experiment.fit import load_dataset_spec
    from obliq_cli.experiment.fit import warm_up as runner_warm_up

    # its few rows can make scikit-learn warn (more than half the rows a class of their
    # own); the warm-up's row is dropped, and so are its warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        runner_warm_up(task, load_dataset_spec(task.dataset)[1])


def task_cpu_seconds(task, limit: float) -> tuple[float, str]:
    """(CPU seconds of ``run_task(task)``, its status: ok, error: ..., or overtime)."""
    from obliq_cli.experiment.fit import run_task

    previous = signal.signal(signal.SIGPROF, _overtime)
    signal.setitimer(signal.ITIMER_PROF, limit)
    start = time.process_time()
    try:
        row = run_task(task)
    except Overtime:
        return float("inf"), "overtime"
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)
    seconds = time.process_time() - start
    if row["status"] != "ok":
        if "Overtime" in row["error"]:
            return float("inf"), "overtime"
        return seconds, f"error: {row['error']}"
    return seconds, "ok"


def cell_costs(config, limit: float, datasets=None, algorithms=None, out=sys.stderr):
    """One ``Cell`` per (dataset, algorithm) task group of ``config`` that
    ``plan.plan`` plans (optionally only ``datasets`` / ``algorithms``, labels or names
    as ``obliq run --datasets --algorithms`` takes them)."""
    from obliq_cli.experiment.fit import load_dataset_spec
    from obliq_cli.experiment.plan import chosen_labels, plan, select_tasks

    labels = None if datasets is None else chosen_labels(config, "datasets", config.datasets,
                                                         datasets)
    tasks = select_tasks(config, plan(config, labels)[0], datasets, algorithms)
    groups: dict = {}
    for task in tasks:
        groups.setdefault((task.dataset.label, task.algorithm.label), []).append(task)
    cells = []
    for (dataset, algorithm), group in groups.items():
        first = group[0]
        warm_up(first)
        seconds, status = task_cpu_seconds(first, limit)
        rows = len(load_dataset_spec(first.dataset)[1])
        cell = Cell(dataset, algorithm, rows, int(first.split.train.size + first.split.prune.size),
                    len(group), seconds, status)
        cells.append(cell)
        shown = f">{limit:g}" if status == "overtime" else f"{seconds:.2f}"
        print(f"  {dataset:14} {algorithm:14} {rows:6} rows {shown:>9} s x {len(group)} "
              f"{status if status != 'ok' else ''}", file=out, flush=True)
    return cells


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("config")
    parser.add_argument("--datasets", default="")
    parser.add_argument("--algorithms", default="")
    parser.add_argument("--limit", type=float, default=300.0)
    parser.add_argument("--csv", default="")
    args = parser.parse_args()

    def names(text):
        return [w.strip() for w in text.split(",") if w.strip()] or None

    try:
        config = load_config(args.config)
        with threadpool_limits(1):
            cells = cell_costs(config, args.limit, names(args.datasets), names(args.algorithms))
    except ObliqError as exc:
        sys.exit(f"error: {exc}")
    if args.csv:
        with open(args.csv, "w", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(["dataset", "algorithm", "rows", "n_train", "tasks", "seconds",
                             "estimate", "status"])
            for c in cells:
                writer.writerow([c.dataset, c.algorithm, c.rows, c.n_train, c.tasks,
                                 f"{c.seconds:.3f}", f"{c.estimate:.1f}", c.status])
    cells.sort(key=lambda c: -c.estimate)
    total = sum(c.estimate for c in cells if c.status != "overtime")
    print(f"{'dataset':14} {'algorithm':14} {'rows':>6} {'s/task':>9} {'tasks':>5} "
          f"{'cell s':>9}")
    for c in cells[:30]:
        print(f"{c.dataset:14} {c.algorithm:14} {c.rows:6} {c.seconds:9.2f} {c.tasks:5} "
              f"{c.estimate:9.0f} {c.status if c.status != 'ok' else ''}")
    over = [c for c in cells if c.status == "overtime"]
    print(f"total: {total / 3600:.2f} CPU hours over {len(cells)} cells"
          + (f" (+ {len(over)} cells over {args.limit:g} s a task, not counted)" if over else ""))


if __name__ == "__main__":
    main()
