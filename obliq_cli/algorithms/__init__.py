"""Built-in algorithms register themselves on import (see obliq_cli.registry)."""

from . import apdt, c45, cart, cart_lc, fdt, gdt, hhcart, id3, ldt, multiclass, oc1, quest, svm, umt

__all__ = ["apdt", "c45", "cart", "cart_lc", "fdt", "gdt", "hhcart", "id3", "ldt",
           "multiclass", "oc1", "quest", "svm", "umt"]
