"""A task's fit_cpu holds the fit alone: the kernels' compilation (or their first load from
numba's cache) happens in the runner's warm-up, once per process, before the first timed fit.

Both checks run in a fresh interpreter, where no kernel is loaded yet: one with an empty
jit cache (what a fresh clone's first task meets), one with the shared cache and every
built-in algorithm (whether the warm-up calls every kernel the timed fit calls).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from obliq_cli.config import load_config
from obliq_cli.experiment import fit
from obliq_cli.experiment.plan import plan, select_tasks

FIRST_TWICE = """
import json, time
from obliq_cli.config import load_config
from obliq_cli.experiment.fit import run_task
from obliq_cli.experiment.plan import plan, select_tasks

config = load_config("apdt_synthetic")
task = select_tasks(config, plan(config, {"apdt_problem2"})[0], ["apdt_problem2"],
                    ["APDT"])[0]
start = time.process_time()
first = run_task(task)
spent = time.process_time() - start
second = run_task(task)
print(json.dumps({"first": first["fit_cpu"], "second": second["fit_cpu"], "spent": spent,
                  "status": [first["status"], second["status"]],
                  "trees": [first["n_leaves"], second["n_leaves"]]}))
"""


@pytest.mark.slow
def test_a_fresh_processs_first_task_is_timed_without_compiling_its_kernels(tmp_path):
    """APDT's first task in a process whose jit cache is empty, as on a fresh clone (where
    it had been timed at 109 s against about 1 s for the next): its fit_cpu is within a
    factor 3 of the same task run again, while the call that ran it spent ten times its
    fit_cpu and more outside the fit (compiling)."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "empty-jit-cache"))
    out = subprocess.run([sys.executable, "-c", FIRST_TWICE], env=env, capture_output=True,
                         text=True, check=True).stdout
    seen = json.loads(out.strip().splitlines()[-1])
    assert seen["status"] == ["ok", "ok"] and seen["trees"][0] == seen["trees"][1]
    assert seen["spent"] > 10 * seen["first"], seen  # the cache was cold: kernels compiled
    assert seen["first"] < 3 * seen["second"], seen


COVERAGE = """
import importlib, json, pkgutil, sys
import numba.core.dispatcher
import obliq_cli.kernels
from obliq_cli.config import load_config
from obliq_cli.experiment import fit
from obliq_cli.experiment.plan import plan

def overloads():
    out = {}
    for info in pkgutil.iter_modules(obliq_cli.kernels.__path__):
        module = importlib.import_module("obliq_cli.kernels." + info.name)
        for name, obj in vars(module).items():
            if isinstance(obj, numba.core.dispatcher.Dispatcher):
                out[info.name + "." + name] = len(obj.overloads)
    return out

config = load_config(sys.argv[1])
tasks, _, _ = plan(config)
first = {}
for task in tasks:
    first.setdefault(task.algorithm.label, task)
grew = {}
for label, task in first.items():
    _, y, _ = fit.load_dataset_spec(task.dataset)
    fit.warm_up(task, y)
    before = overloads()
    row = fit.run_task(task)
    assert row["status"] == "ok", (label, row["error"])
    after = overloads()
    grew[label] = sorted(k for k in after if after[k] != before.get(k, 0))
print(json.dumps(grew))
"""

EVERY_ALGORITHM = """
name: warm
seed: 3
datasets: [pima]
algorithms:
  - apdt
  - c45
  - cart-ap
  - cart-lc
  - fdt
  - gdt
  - {name: gepsvm, params: {delta_grid: [0.01, 1.0]}}
  - hhcart-a
  - hhcart-d
  - id3
  - ldt
  - oc1
  - oc1-ap
  - oc1-lc
  - quest
  - {name: svm, params: {c_grid: [0.5, 8.0], gamma_grid: [0.125, 0.5]}}
  - umt
  - umt-ovo
  - umt-ovr
  - {name: oc1, label: OC1 cc, pruner: {name: cc}}
  - {name: oc1, label: OC1 LA, pruner: {name: la, params: {max_iterations: 2000}}}
  - {name: oc1, label: OC1 GA, pruner: {name: ga, params: {n_generations: 20}}}
  - {name: c45, label: C4.5 pessimistic, pruner: {name: pessimistic}}
protocol: {name: kfold, folds: 3, prune_fraction: 0.2}
output: {out}
"""


@pytest.mark.slow
def test_every_builtin_algorithms_timed_fit_calls_no_kernel_its_warm_up_did_not(
        write_config, tmp_path):
    """After ``warm_up`` (on at most WARM_ROWS of pima's 409 grow rows), the task's own
    run loads or compiles no kernel: every (kernel, signature) it calls is there."""
    from obliq_cli.registry import BUILTIN_ALGORITHMS

    path = write_config(EVERY_ALGORITHM.replace("{out}", str(tmp_path / "out")))
    config = load_config(path)
    named = {a.name for a in config.algorithms}
    assert named == set(BUILTIN_ALGORITHMS)  # a new algorithm is added here too
    assert {a.pruner.name for a in config.algorithms if a.pruner} == {
        "cc", "la", "ga", "pessimistic"}
    out = subprocess.run([sys.executable, "-c", COVERAGE, str(path)], capture_output=True,
                         text=True, check=True).stdout
    grew = json.loads(out.strip().splitlines()[-1])
    assert set(grew) == {a.label for a in config.algorithms}
    assert {label: kernels for label, kernels in grew.items() if kernels} == {}


def test_warm_up_runs_once_per_algorithm_on_a_stratified_few_rows(write_config, tmp_path,
                                                                   monkeypatch):
    """The warm-up task has at most WARM_ROWS training rows with every class of the
    task's (pima: 2), a tenth as many prune rows, and runs once per (algorithm, label,
    pruner) in a process; the task's own row is the one returned."""
    path = write_config(EVERY_ALGORITHM.replace("{out}", str(tmp_path / "out")))
    config = load_config(path)
    tasks = select_tasks(config, plan(config)[0], None, ["OC1 cc", "cart-ap"])
    seen = []
    real = fit.run_task

    def spy(task):
        seen.append((task.algorithm.label, task.split.train.copy(), task.split.prune.size))
        return real(task)

    monkeypatch.setattr(fit, "_warmed", set())
    monkeypatch.setattr(fit, "run_task", spy)
    _, y, _ = fit.load_dataset_spec(tasks[0].dataset)
    rows = [fit.run_task(task) for task in tasks]
    assert len(tasks) == 6 and all(r["status"] == "ok" for r in rows)
    warm = [(label, train, prune) for label, train, prune in seen if train.size < 300]
    assert [label for label, _, _ in warm] == ["cart-ap", "OC1 cc"]  # the config's order
    for _, train, prune in warm:
        counts = np.bincount(np.searchsorted(np.unique(y), y[train]))
        assert abs(train.size - fit.WARM_ROWS) <= 1  # rounded per class
        assert counts.size == 2 and counts.min() > 50 and prune == fit.WARM_ROWS // 10
    assert len(seen) == len(tasks) + len(warm)
    assert [r["n_test"] for r in rows] == [t.split.test.size for t in tasks]
