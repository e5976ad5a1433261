"""``python -m obliq_cli``: the ``obliq`` command, for an environment without its script."""

from .cli import main

main()
