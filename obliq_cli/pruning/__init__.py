"""Built-in entries register themselves on import (see obliq_cli.registry)."""
from . import cost_complexity, network, pessimistic, validation  # noqa: F401  (registers the pruners)
