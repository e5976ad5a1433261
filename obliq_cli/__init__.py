"""obliq: regenerate the benchmark tables of oblique decision-tree papers from YAML configs."""

from .registry import load_dataset, make_estimator

__version__ = "0.1.0"

from .model import load_model, save_model  # noqa: E402  (model reads __version__)

__all__ = ["load_dataset", "load_model", "make_estimator", "save_model", "__version__"]
