"""Errors that the command line turns into one line and exit code 2.

Every user-facing failure (bad config, unknown name, malformed data) raises an
``ObliqError`` whose message already names the file and the field; the CLI prints
``error: <message>`` and exits 2 without a traceback.

``ObliqError`` is a ``ValueError``, so code written for scikit-learn (``GridSearchCV``,
``check_estimator``, a user's ``except ValueError``) catches ours too. A bad parameter
value is an ``obliq_cli.parameters.ParameterError``: an ``ObliqError`` that is also
scikit-learn's ``InvalidParameterError`` (it lives beside the declarations it checks, so
that importing this module stays free of scikit-learn).
"""

import contextlib


class ObliqError(ValueError):
    """A user-facing error: the message is shown as is, on one line."""

    exit_code = 2


class ConfigError(ObliqError):
    """A configuration file or field is wrong (names file and field)."""


class DataError(ObliqError):
    """A dataset cannot be loaded or is unusable (names dataset/file and what is wrong)."""


class DataTypeError(DataError, TypeError):
    """Data of a type that cannot be used (sparse, or cells that are not numbers)."""


class ArgumentTypeError(ObliqError, TypeError):
    """A Python caller passed a value of the wrong type (``load_results(5)``): a
    TypeError too, as Python's own would be."""


class UnknownNameError(ObliqError):
    """A name (algorithm, dataset, pruner, protocol) is not registered."""


class Interrupted(ObliqError):
    """The user stopped a run (Ctrl-C, or SIGTERM: ``exit_code=143``); what finished is
    kept. Exit code 130 = 128 + SIGINT (143 = 128 + SIGTERM), as a shell reports a process
    that the signal ended."""

    exit_code = 130

    def __init__(self, message: str, exit_code: int = 130):
        super().__init__(message)
        self.exit_code = exit_code


class Interrupt(KeyboardInterrupt):
    """Ctrl-C as the handler of ``obliq_cli.interrupts`` raises it: told apart from a
    KeyboardInterrupt that code obliq runs raises itself (an estimator's ``fit``), which
    is that task's error rather than the user stopping the run
    (``interrupts.from_signal``)."""


class Terminated(Interrupt):
    """SIGTERM, raised by the handler of ``obliq_cli.interrupts`` so that everything that
    stops a run on Ctrl-C (a KeyboardInterrupt) stops it on SIGTERM too: the pool
    stopped, the finished rows kept, the history entry closed."""


def one_line(exc: BaseException) -> str:
    """``Type: first line of the message`` of ``exc`` (``SystemExit: 3``, ``KeyboardInterrupt``):
    what a task's row and a one-line error say of an exception."""
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}".rstrip(": ")


@contextlib.contextmanager
def naming_file(path):
    """An OSError raised inside is re-raised naming ``path``: a write to a full disk says
    only 'No space left on device', and the command line prints the file it is given."""
    try:
        yield
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from None
