"""The layout of a results directory, shared by the runner (writer) and the report (reader).

``results/<name>/``
    ``runs.csv``   one row per finished task, appended as each task ends (columns below).
                   A row belongs to the task whose identity hash is its ``task`` column
                   (``tasks.task_identity``); the last row of a task wins.
    ``meta.json``  ``{"written_by": "obliq", "name", "config_hash", "config": <the
                   validated config of the latest run, plain data>, "config_path",
                   "reference": <path of the paper's values or null>, "history": [one entry
                   per invocation of ``obliq run``: started, finished, command, config_hash,
                   tasks total / run / skipped / failed, versions, host, backend, n_jobs,
                   machine: cpu model, cores, 1-minute load average at the start],
                   "task_identities": [the identities of the latest config's tasks, sorted;
                   folders written before lack it and readers recompute them]}``.
    ``folds/<file name of the dataset label>.npz``  per repetition, the fold of every row
                   (see protocols); the file name is ``results.safe_file_name(label)``.
    ``predictions/<task identity>.npz``  each finished task's test predictions (class
                   codes, float32 probabilities), written just before its row
                   (``predictions.py``); folders written before them lack the folder.
    ``.obliq.lock`` held (flock) by the run writing into the folder.
    ``runs.damaged`` lines of runs.csv that were not rows obliq wrote, moved aside by a
                   resume (kept for inspection, never read).

Per-class quantities are JSON strings so the file stays one flat CSV.

Times (``TIME_COLUMNS``): ``fit_cpu`` is the CPU seconds of growing + pruning, the time
every claim and ``make bench`` compares: the process's CPU time for a task alone in its
process (no pool, fork, loky), the thread's for a task that shares it (threading, dask),
which then leaves out work handed to BLAS's threads (``obliq_cli.timing`` says when that
is). The algorithm's kernels are compiled or loaded before its first timed fit in each
process (``fit.warm_up``), so neither is in it. ``fit_time`` is the same fit in wall
seconds and ``predict_time`` predicting the test rows in wall seconds: both also measure
whatever else the machine was doing. Folders written before ``fit_cpu`` existed lack the
column; they are read with it blank, and a resume keeps their header (its new rows have no
``fit_cpu`` either), so they stay one table. The same holds for ``oblique_fraction``
(tree shape), added later still.
"""

# What identifies a stored row: the task identity hash. The readable key columns follow it.
KEY_COLUMNS = ["task"]
LABEL_COLUMNS = ["dataset", "repetition", "fold", "algorithm"]

RUN_COLUMNS = ["task", "config_hash"] + LABEL_COLUMNS + [
    "algorithm_name",   # registered name, e.g. "cart-ap"; `algorithm` is the config label
    "pruner",           # registered pruner name or "" for none
    "status",           # "ok" or "error"
    "error",            # one-line message when status == "error"
    "n_train",          # rows used to grow the tree
    "n_prune",          # rows held out for pruning (0 when none)
    "n_test",
    "n_test_correct",   # integer, for OC1-style pooled accuracy
    "test_accuracy",    # percent
    "train_accuracy",   # percent, on the rows used to grow
    "n_leaves",
    "n_internal",
    "depth",
    "oblique_fraction", # internal nodes splitting on more than one column / internal nodes
                        # (blank: one leaf, or no tree); files written before it lack it
    "fit_time",         # seconds, growing + pruning (wall clock)
    "fit_cpu",          # CPU seconds, growing + pruning (see Times above)
    "predict_time",     # seconds, predicting the test rows (wall clock)
    "macro_f1",         # fraction in [0, 1]
    "classes",          # JSON list of class labels as strings, in confusion-matrix order
    "tpr",              # JSON list, per class, fraction
    "tnr",              # JSON list, per class, fraction
    "confusion",        # JSON list of lists, rows = true class, columns = predicted
    "extra",            # JSON object: registered metrics that have no column of their own
    "flags",            # degenerate fit: "" or codes joined by ";" (degeneracy.py); files
                        # written before it lack the column and are read without it
]

# Numbers the readers need, numeric in every "ok" row (blank allowed: not measured).
NUMERIC_COLUMNS = ["n_test", "n_test_correct", "test_accuracy", "train_accuracy", "n_leaves",
                   "n_internal", "depth", "fit_time", "predict_time", "macro_f1"]
# Numbers added to RUN_COLUMNS later: numeric in every "ok" row that has them, blank when
# read from a folder written before them.
LATER_NUMERIC_COLUMNS = ["fit_cpu", "oblique_fraction"]
# Measured times: they differ between two runs of the same task (every other column of
# an "ok" row is the same for any backend, n_jobs or machine).
TIME_COLUMNS = ["fit_time", "fit_cpu", "predict_time"]
STATUSES = ("ok", "error")

# What a stored number can be, [low, high] per numeric column (``results.impossible_cell``,
# the runs reader's check): accuracies are percentages, the F1 and the oblique share
# fractions, sizes counts and times seconds. The upper bounds of counts and seconds are
# far above any run (10^12 rows; 30 years) but keep a hand-made 1e308, whose sum over
# the folds is infinite, out of every mean.
MAX_COUNT = 1e12
MAX_SECONDS = 1e9
COLUMN_RANGES = {
    **dict.fromkeys(["test_accuracy", "train_accuracy"], (0.0, 100.0)),
    **dict.fromkeys(["macro_f1", "oblique_fraction"], (0.0, 1.0)),
    **dict.fromkeys(["n_test", "n_test_correct", "n_leaves", "n_internal", "depth"],
                    (0.0, MAX_COUNT)),
    **dict.fromkeys(TIME_COLUMNS, (0.0, MAX_SECONDS)),
}
RATE_LIST_COLUMNS = ["tpr", "tnr"]  # JSON lists of per-class fractions in [0, 1] or null
