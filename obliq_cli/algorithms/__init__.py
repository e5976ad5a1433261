"""Built-in algorithms register themselves on import (see obliq_cli.registry).

The package imports none of its modules: the registry imports an algorithm's module when
its name is first looked up (``registry.BUILTIN_ALGORITHMS``), so importing one algorithm
(or a plugin importing ``obliq_cli.algorithms.base``) does not load them all.
"""
