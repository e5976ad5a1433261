"""What the command line says besides its results: logging on standard error.

Results (tables, predictions, paths written) go to standard output; everything else
(what was run, where it went, warnings) is logged to standard error through the
``obliq`` logger, so ``-q`` silences it and ``-v`` adds detail, and a program that
imports obliq decides for itself. Progress bars are drawn only on a terminal.
"""

from __future__ import annotations

import logging
import sys

LOGGER = "obliq"


class _Formatter(logging.Formatter):
    """The message as is (it says what it is: ``failed: ...``); ``debug: `` marks -v's
    detail."""

    def format(self, record: logging.LogRecord) -> str:
        text = record.getMessage()
        return f"debug: {text}" if record.levelno < logging.INFO else text


def configure(verbose: int = 0, quiet: int = 0) -> int:
    """Send the ``obliq`` logger to standard error at INFO, one step more detailed per
    ``-v`` (DEBUG) and quieter per ``-q`` (WARNING, then ERROR). Returns the level."""
    level = min(logging.ERROR, max(logging.DEBUG, logging.INFO + 10 * (quiet - verbose)))
    logger = logging.getLogger(LOGGER)
    for handler in list(logger.handlers):
        if getattr(handler, "_obliq_cli", False):
            logger.removeHandler(handler)
    handler = logging.StreamHandler(sys.stderr)
    handler._obliq_cli = True
    handler.setFormatter(_Formatter())
    logger.addHandler(handler)
    logger.setLevel(level)
    logger.propagate = False
    return level


def show_progress(requested: bool = True) -> bool:
    """Whether to draw a progress bar: asked for, not quieted, and on a terminal (a
    file or a pipe gets no carriage-return frames)."""
    return (requested and logging.getLogger(LOGGER).isEnabledFor(logging.INFO)
            and sys.stderr.isatty())
