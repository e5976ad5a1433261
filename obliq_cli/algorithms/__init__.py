"""Built-in algorithms register themselves on import (see obliq_cli.registry)."""

from . import cart, cart_lc, fdt, gdt, hhcart, oc1, quest, svm

__all__ = ["cart", "cart_lc", "fdt", "gdt", "hhcart", "oc1", "quest", "svm"]
