"""The layout of a results directory, shared by the runner (writer) and the report (reader).

``results/<name>/``
    ``runs.csv``   one row per finished task, appended as each task ends (columns below).
    ``meta.json``  ``{"name", "config_hash", "config": <the validated config as run, plain
                   data>, "config_path", "reference": <path of the paper's values or null>,
                   "versions": {...}, "started", "finished"}``.
    ``folds/<dataset>.npz``  per repetition, the fold of every row (see protocols).

Per-class quantities are JSON strings so the file stays one flat CSV.
"""

KEY_COLUMNS = ["config_hash", "dataset", "repetition", "fold", "algorithm"]

RUN_COLUMNS = KEY_COLUMNS + [
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
    "fit_time",         # seconds, growing + pruning
    "predict_time",     # seconds, predicting the test rows
    "macro_f1",         # fraction in [0, 1]
    "classes",          # JSON list of class labels as strings, in confusion-matrix order
    "tpr",              # JSON list, per class, fraction
    "tnr",              # JSON list, per class, fraction
    "confusion",        # JSON list of lists, rows = true class, columns = predicted
]
