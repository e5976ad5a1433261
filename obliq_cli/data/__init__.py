"""Built-in datasets register themselves on import (see obliq_cli.registry)."""

from . import files
from .catalog import register_catalog

register_catalog()

__all__ = ["files"]
