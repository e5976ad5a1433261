"""Built-in datasets register themselves on import (see obliq_cli.registry)."""

from . import files, keel  # noqa: F401
