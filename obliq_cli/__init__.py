"""obliq: regenerate the benchmark tables of oblique decision-tree papers from YAML configs.

The estimator classes are importable by name (``from obliq_cli import OC1Classifier``),
and so are ``run_experiment`` / ``load_results`` (``obliq_cli.api``) and ``load_model`` /
``save_model`` / ``predict_file`` (``obliq_cli.model``); they load on first use, so that
``import obliq_cli`` (and ``obliq --help``) imports neither pandas, scikit-learn, scipy nor numba
(``tests/cli/test_startup.py`` checks).
"""

import importlib

from . import interrupts, jit_cache

if interrupts.own_process():  # Ctrl-C during the imports below: one line, not a traceback
    interrupts.guard_exit("while starting")

jit_cache.configure()  # before anything imports numba

from .errors import ObliqError  # noqa: E402
from .registry import expected_failed_checks, load_dataset, make_estimator  # noqa: E402
from .version import __version__  # noqa: E402

# function or class name -> module of obliq_cli that defines it (imported on first use)
_FUNCTIONS = {
    "load_model": "model",
    "save_model": "model",
    "predict_file": "model",
    "run_experiment": "api",
    "load_results": "api",
    "Results": "api",
}

# class name -> module of obliq_cli.algorithms that defines it
_CLASSES = {
    "APDTClassifier": "apdt",
    "C45Classifier": "c45",
    "CARTClassifier": "cart",
    "CARTLCClassifier": "cart_lc",
    "FDTClassifier": "fdt",
    "GEPSVMClassifier": "svm",
    "GeometricTreeClassifier": "gdt",
    "HHCARTAClassifier": "hhcart",
    "HHCARTDClassifier": "hhcart",
    "ID3Classifier": "id3",
    "LDTClassifier": "ldt",
    "OC1APClassifier": "oc1",
    "OC1Classifier": "oc1",
    "OC1LCClassifier": "oc1",
    "OneVsOneTrees": "multiclass",
    "OneVsRestTrees": "multiclass",
    "QUESTClassifier": "quest",
    "SVMClassifier": "svm",
    "TreeClassifier": "base",
    "UMTClassifier": "umt",
    "UMTOneVsOneClassifier": "multiclass",
    "UMTOneVsRestClassifier": "multiclass",
    # earlier names, kept as aliases
    "GeometricDecisionTree": "gdt",
    "UMTOneVsOne": "multiclass",
    "UMTOneVsRest": "multiclass",
}

__all__ = ["ObliqError", "expected_failed_checks", "load_dataset", "make_estimator",
           "__version__", *_FUNCTIONS, *_CLASSES]


def __getattr__(name):
    if name in _FUNCTIONS:
        return getattr(importlib.import_module(f"{__name__}.{_FUNCTIONS[name]}"), name)
    module = _CLASSES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.algorithms.{module}"), name)


def __dir__():
    return sorted(set(globals()) | set(_FUNCTIONS) | set(_CLASSES))
