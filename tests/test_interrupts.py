"""A signal whose exception Python drops (raised inside a ``__del__`` or a weakref
callback, as importlib's module-lock callbacks are during imports) still stops the
command: ``interrupts.checkpoint`` raises it again, and the dropped one prints nothing."""

import json
import signal

import pytest
from click.testing import CliRunner

from obliq_cli import interrupts
from obliq_cli.cli import main
from obliq_cli.errors import Terminated


@pytest.fixture(autouse=True)
def _sigint_as_python_starts_it():
    """Python's own SIGINT handler for each test, whatever started pytest: a shell runs a
    background job with SIGINT ignored, and obliq leaves an ignored SIGINT ignored
    (``interrupts._ours``), so these tests would see no Ctrl-C at all there."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


class _SignalsOnCollection:
    """Sends ``signum`` to this process while it is being collected: the handler runs
    inside ``__del__``, where its exception is "ignored" by Python."""

    def __init__(self, signum):
        self.signum = signum

    def __del__(self):
        signal.raise_signal(self.signum)


def _drop_a_signal(signum=signal.SIGTERM):
    holder = _SignalsOnCollection(signum)
    del holder  # CPython collects it here: the handler's exception is dropped


def test_a_dropped_signal_is_raised_at_the_next_checkpoint(capsys):
    with pytest.raises(Terminated), interrupts.handled():
        _drop_a_signal()
        # the code after the drop ran on: Python's own behaviour, which checkpoint mends
        reached = True
        interrupts.checkpoint()
    assert reached
    assert "Exception ignored" not in capsys.readouterr().err


def test_a_dropped_signal_ends_the_block_that_handles_signals(capsys):
    with pytest.raises(KeyboardInterrupt) as caught, interrupts.handled():
        _drop_a_signal(signal.SIGINT)
    assert not isinstance(caught.value, Terminated)
    assert capsys.readouterr().err == ""
    interrupts.checkpoint()  # raised once: nothing is left for a later checkpoint


def test_signals_acted_on_are_not_raised_again():
    with interrupts.handled():
        with pytest.raises(Terminated):
            signal.raise_signal(signal.SIGTERM)  # raised where it can propagate
        interrupts.acted_on()
        interrupts.checkpoint()


def test_other_unraisable_exceptions_are_still_reported(monkeypatch):
    class Fails:
        def __del__(self):
            raise RuntimeError("a real fault in a finaliser")

    reported = []
    monkeypatch.setattr("sys.unraisablehook", reported.append)
    with interrupts.handled():
        item = Fails()
        del item
        _drop_a_signal()
        with pytest.raises(Terminated):
            interrupts.checkpoint()
    assert [str(u.exc_value) for u in reported] == ["a real fault in a finaliser"]


@pytest.mark.parametrize("when", ["planning", "rows"])
def test_a_run_stops_on_a_dropped_sigterm(test_config, monkeypatch, when):
    """Dropped while the run plans: it stops before writing anything; dropped during its
    second row: it stops after that row, keeps both and closes the history entry as
    terminated; exit 143 and one error line either way (not exit 0 with every row)."""
    from obliq_cli.experiment import fit, runner

    config = test_config()
    out = config.parent / "results" / "tiny"
    if when == "planning":
        plan = runner.plan

        def dropping_plan(*args, **kwargs):
            _drop_a_signal()
            return plan(*args, **kwargs)

        monkeypatch.setattr(runner, "plan", dropping_plan)
    else:
        run_task, done = fit.run_task, []

        def dropping_run_task(task):
            row = run_task(task)
            done.append(row)
            if len(done) == 2:
                _drop_a_signal()
            return row

        monkeypatch.setattr(fit, "run_task", dropping_run_task)
    result = CliRunner().invoke(main, ["run", str(config), "-j", "1", "--no-progress"])
    assert result.exit_code == 143, result.output
    errors = [line for line in result.output.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and errors[0].startswith("error: terminated"), result.output
    assert "Exception ignored" not in result.output
    if when == "planning":
        assert not (out / "runs.csv").exists()
    else:
        assert (out / "runs.csv").read_text().count("\n") == 1 + 2  # header and two rows
        history = json.loads((out / "meta.json").read_text())["history"]
        assert history[-1]["outcome"] == "terminated"
