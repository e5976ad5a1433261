"""A metric in one file: balanced accuracy, the mean per-class recall on the test rows
(classes with no test row left out)."""

import numpy as np

from obliq_cli.experiment.metrics import Metric, register_metric


def balanced_accuracy(measured) -> float:
    matrix = measured.matrix
    true_counts = matrix.sum(axis=1)
    present = true_counts > 0
    return 100.0 * float(np.mean(np.diag(matrix)[present] / true_counts[present]))


BALANCED_ACCURACY = register_metric(Metric(
    "balanced_accuracy", "%", True, 2, percent=True, compute=balanced_accuracy,
    title="balanced accuracy"))
