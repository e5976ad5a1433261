"""obliq: regenerate the benchmark tables of oblique decision-tree papers from YAML configs."""

from .registry import load_dataset, make_estimator

__version__ = "0.1.0"
__all__ = ["load_dataset", "make_estimator", "__version__"]
