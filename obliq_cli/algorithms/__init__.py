"""Built-in algorithms register themselves on import (see obliq_cli.registry)."""

from . import cart, gdt

__all__ = ["cart", "gdt"]
