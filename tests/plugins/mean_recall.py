"""A metric in one file: the mean per-class recall (balanced accuracy, which obliq
reads from stored predictions under that name) on the test rows
(classes with no test row left out)."""

import numpy as np

from obliq_cli.experiment.metrics import Metric, register_metric


def mean_recall(measured) -> float:
    matrix = measured.matrix
    true_counts = matrix.sum(axis=1)
    present = true_counts > 0
    return 100.0 * float(np.mean(np.diag(matrix)[present] / true_counts[present]))


MEAN_RECALL = register_metric(Metric(
    "mean_recall", "%", True, 2, percent=True, compute=mean_recall,
    title="mean recall"))
