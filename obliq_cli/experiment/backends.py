"""The backends a run may use: declared in ``registry`` (the config, the CLI and the
runner read them there); kept here under their old names for existing imports."""

from ..registry import BACKENDS, DEFAULT_BACKEND, FORK_AVAILABLE

__all__ = ["BACKENDS", "DEFAULT_BACKEND", "FORK_AVAILABLE"]
