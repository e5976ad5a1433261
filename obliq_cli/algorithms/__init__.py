"""Built-in algorithms register themselves on import (see obliq_cli.registry)."""

from . import cart, gdt, svm

__all__ = ["cart", "gdt", "svm"]
