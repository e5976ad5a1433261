"""Built-in entries register themselves on import (see obliq_cli.registry)."""
