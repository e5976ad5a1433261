"""What the command line says besides its results: logging on standard error.

Results (tables, predictions, paths written) go to standard output; everything else
(what was run, where it went, warnings) is logged to standard error through the
``obliq`` logger, so ``-q`` silences it and ``-v`` adds detail, and a program that
imports obliq decides for itself. Progress bars are drawn on a terminal (the command
line) and, by default, inside IPython or Jupyter (``in_ipython``, ``run_experiment``).
"""

from __future__ import annotations

import contextlib
import io
import logging
import sys
import threading

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


def in_ipython() -> bool:
    """Whether an IPython shell runs this code (a Jupyter kernel, the ``ipython``
    prompt): where ``run_experiment`` draws its progress bar unless told not to. Looked
    up in ``sys.modules`` only: importing IPython to ask would cost every other caller."""
    ipython = sys.modules.get("IPython")
    get_ipython = getattr(ipython, "get_ipython", None)
    return get_ipython is not None and get_ipython() is not None


class _ThreadStdout:
    """``sys.stdout`` while some thread captures (``captured``): a thread's writes go to
    its own buffer when it has one, everyone else's to the stream it replaced. Per
    thread, because the threading backend runs tasks side by side and a plain swap of
    ``sys.stdout`` by each would put back another task's buffer."""

    def __init__(self, stream):
        self.stream = stream
        self.local = threading.local()

    def write(self, text):
        buffer = getattr(self.local, "buffer", None)
        return (self.stream if buffer is None else buffer).write(text)

    def flush(self):
        if getattr(self.local, "buffer", None) is None:
            self.stream.flush()

    def __getattr__(self, name):
        return getattr(self.stream, name)


_router_lock = threading.Lock()
_router_users = [0]


@contextlib.contextmanager
def captured(what: str):
    """What code obliq does not own prints inside the block (an estimator's import, its
    ``fit``: a module that greets, a verbose solver) goes to the ``obliq`` log at DEBUG,
    one record naming ``what``, and not to standard output, where obliq's tables and
    error line are. Python-level writes only: a C library writing to file descriptor 1
    is not seen."""
    with _router_lock:
        if not isinstance(sys.stdout, _ThreadStdout):
            sys.stdout = _ThreadStdout(sys.stdout)
        router = sys.stdout
        _router_users[0] += 1
    previous = getattr(router.local, "buffer", None)
    router.local.buffer = buffer = io.StringIO()
    try:
        yield
    finally:
        router.local.buffer = previous
        with _router_lock:
            _router_users[0] -= 1
            if not _router_users[0] and sys.stdout is router:
                sys.stdout = router.stream
        text = buffer.getvalue().strip()
        if text:
            logging.getLogger(LOGGER).debug("%s printed: %s", what, text)
