"""Built-in entries register themselves on import (see obliq_cli.registry)."""
from . import cart  # noqa: F401  (registers the algorithms)
