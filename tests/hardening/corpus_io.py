"""The corpus's families of links and signals (added to ``corpus.CASES``).

Links: a case's ``setup`` plants, in the output folder ``out/`` (after a first run of the
small config there) or beside an ``-o`` path, a symbolic link into the working folder's
``outside/`` (``outside/secret.txt``, ``outside/folder/keep.npz``), a dangling link, a
hard link, a FIFO or a device node; then the command runs once. Expected: one error line
naming the path (``clean``), or, where the planted name is one obliq no longer uses
(the old predictable temporary names), a correct run (``handled``); never a file of
``outside/`` written, changed or deleted (``outside``), never a hang on the FIFO.

Signals: a real ``obliq run -j 2`` process (``runner``), stopped by SIGTERM, Ctrl-C (SIGINT
to its process group), both, or SIGKILL, at a given point (after some rows; while it
starts; after it has printed its tables, when loky's pool is being shut down). Expected
(``handled``): exit 143 / 130 with one ``error:`` line and no traceback (a killed run:
nothing printed by its workers), only rows of an uninterrupted run kept, the history
entry closed with its outcome; a ``--resume`` afterwards ends with every row.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

# ------------------------------------------------------------------------ links
SECRET = "../outside/secret.txt"  # relative: the snapshot records the link itself


def _link(path: Path, target: str) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to(target)


def _drop_last_row(out: Path) -> None:
    """runs.csv without its last row: --resume has a task to run (and a row to append)."""
    lines = (out / "runs.csv").read_bytes().splitlines(keepends=True)
    (out / "runs.csv").write_bytes(b"".join(lines[:-1]))


def plant(name: str, target: str = SECRET, *, drop_row: bool = True):
    """A setup that replaces ``out/NAME`` by a link to ``target`` (from out/)."""
    def setup(workdir: Path, out: Path) -> None:
        if drop_row:
            _drop_last_row(out)
        path = out / name
        depth = len(Path(name).parts) - 1
        _link(path, "../" * depth + target)
    return setup


def plant_copy(name: str):
    """``out/NAME`` moved to ``outside/NAME`` and linked back: a link to a file that looks
    like obliq's own (appending to it would go unnoticed)."""
    def setup(workdir: Path, out: Path) -> None:
        _drop_last_row(out)
        shutil.move(out / name, workdir / "outside" / name)
        (out / name).symlink_to(f"../outside/{name}")
    return setup


def plant_damaged_link(workdir: Path, out: Path) -> None:
    """A garbage line in runs.csv (set aside on --resume) and runs.damaged a link."""
    with open(out / "runs.csv", "ab") as handle:
        handle.write(b"\x00garbage\n")
    _link(out / "runs.damaged", SECRET)


def plant_hard_link(workdir: Path, out: Path) -> None:
    """runs.csv with a second name outside: appending would grow that file too."""
    _drop_last_row(out)
    os.link(out / "runs.csv", workdir / "outside" / "runs-snapshot.csv")


def plant_folds_link(workdir: Path, out: Path) -> None:
    """folds/ a link to a folder outside holding a file of the fold file's name."""
    shutil.copy(out / "folds" / "small.npz", workdir / "outside" / "folder" / "small.npz")
    shutil.rmtree(out / "folds")
    (out / "folds").symlink_to("../outside/folder")


def plant_fifo(name: str):
    def setup(workdir: Path, out: Path) -> None:
        path = (out / name) if not name.startswith("/") else workdir / name[1:]
        if path.exists() or path.is_symlink():
            path.unlink()
        os.mkfifo(path)
    return setup


def plant_device(workdir: Path, out: Path) -> None:
    """pred.csv a character device (a copy of /dev/null's node; a FIFO where mknod is
    not allowed): replacing it with a regular file is as wrong as writing to it."""
    path = workdir / "pred.csv"
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except (PermissionError, AttributeError):
        os.mkfifo(path)


def plant_fresh_lock(workdir: Path, out: Path) -> None:
    """A new output folder whose only file is a .obliq.lock link."""
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir()
    (out / ".obliq.lock").symlink_to(SECRET)


def plant_dangling_lock(workdir: Path, out: Path) -> None:
    """A .obliq.lock link to a file that does not exist yet (it would be created)."""
    _link(out / ".obliq.lock", "../outside/created-by-obliq.txt")


def plant_old_tmp(name: str):
    """The temporary name obliq used to write ``out/NAME`` through (``.NAME.PID.tmp``,
    the pid being this process's in-process), planted as a link outside."""
    def setup(workdir: Path, out: Path) -> None:
        _drop_last_row(out)
        path = out / name
        path.parent.mkdir(parents=True, exist_ok=True)
        depth = len(Path(name).parts) - 1
        (path.parent / f".{path.name}.{os.getpid()}.tmp").symlink_to("../" * depth + SECRET)
        (path.parent / f".{path.name}.tmp").symlink_to("../" * depth + SECRET)
    return setup


def plant_model(workdir: Path, out: Path, then=None) -> None:
    """model.json (cart-ap on iris) and rows.csv to predict, then ``then``."""
    from click.testing import CliRunner

    from obliq_cli.cli import main

    result = CliRunner().invoke(main, ["fit", "--dataset", "iris", "--algorithm", "cart-ap",
                                       "-o", str(workdir / "model.json")])
    assert result.exit_code == 0, result.output
    (workdir / "rows.csv").write_text("sepal_length,sepal_width,petal_length,petal_width\n"
                                      "5.1,3.5,1.4,0.2\n6.7,3.0,5.2,2.3\n")
    if then is not None:
        then(workdir, out)


def _then_link(name: str):
    def setup(workdir: Path, out: Path) -> None:
        (workdir / name).symlink_to("outside/secret.txt")
    return setup


def _then_dangling(name: str):
    def setup(workdir: Path, out: Path) -> None:
        (workdir / name).symlink_to("outside/new.yaml")
    return setup


RESUME = ("run", "exp.yaml", "-o", "{out}", "--resume", "--no-progress")
FORCE = ("run", "exp.yaml", "-o", "{out}", "--force", "--no-progress")
LINK = "is a symbolic link"


def link_cases(Case, base) -> list:
    def case(id_, setup, command, fragments=(), expect="clean", changes=()):
        config = base()
        if command[:2] == ("plot", "cd"):  # Friedman's test: two algorithms, two datasets
            config = config.replace("algorithms: [cart-ap]", "algorithms: [cart-ap, id3]")
            config = config.replace("target: class}]", "target: class}, {name: again, "
                                    "path: small.csv, target: class}]")
        return Case(f"link-{id_}", config, fragments, expect=expect, command=command,
                    plant=setup, names=None, changes=changes)

    return [
        case("lock-resume", plant(".obliq.lock", drop_row=False), RESUME,
             ("out/.obliq.lock", LINK)),
        case("lock-fresh-run", plant_fresh_lock, ("run", "exp.yaml", "-o", "{out}",
                                                  "--no-progress"), ("out/.obliq.lock", LINK)),
        case("lock-dangling", plant_dangling_lock, RESUME, ("out/.obliq.lock", LINK)),
        case("runs-resume", plant_copy("runs.csv"), RESUME, ("out/runs.csv", LINK)),
        case("runs-force", plant_copy("runs.csv"), FORCE, ("out/runs.csv", LINK)),
        case("runs-hard-link", plant_hard_link, RESUME, ("out/runs.csv", "2 hard links")),
        case("runs-fifo", plant_fifo("runs.csv"), RESUME, ("out/runs.csv", "a FIFO")),
        case("damaged-resume", plant_damaged_link, RESUME, ("out/runs.damaged", LINK)),
        case("meta-resume", plant_copy("meta.json"), RESUME, ("out/meta.json", LINK)),
        case("folds-force", plant_folds_link, FORCE, ("out/folds", LINK)),
        case("folds-resume", plant_folds_link, RESUME, ("out/folds", LINK)),
        case("fold-file-resume", plant("folds/small.npz"), RESUME,
             ("out/folds/small.npz", LINK)),
        case("old-meta-tmp-name", plant_old_tmp("meta.json"), RESUME, expect="handled",
             changes=("out/",)),
        case("old-fold-tmp-name", plant_old_tmp("folds/small.npz"), FORCE,
             expect="handled", changes=("out/",)),
        case("plot-cd-figure", plant("figures/cd_test_accuracy.png", drop_row=False),
             ("plot", "cd", "{out}"), ("cd_test_accuracy.png", LINK)),
        case("plot-cd-old-tmp-name", plant_old_tmp("figures/cd_test_accuracy.png"),
             ("plot", "cd", "{out}"), expect="handled"),
        case("plot-size-figures-folder", plant("figures", "../outside/folder",
                                               drop_row=False),
             ("plot", "size", "{out}"), ("out/figures", LINK)),
        case("plot-o-link", _then_link("fig.svg"), ("plot", "size", "{out}", "-o", "fig"),
             ("fig.svg", LINK)),
        case("report-default", plant("report.html", drop_row=False), ("report", "{out}"),
             ("out/report.html", LINK)),
        case("report-old-tmp-name", plant_old_tmp("report.html"), ("report", "{out}"),
             expect="handled"),
        case("report-o-link", _then_link("page.html"), ("report", "{out}", "-o", "page.html"),
             ("page.html", LINK)),
        case("predict-o-link", lambda w, o: plant_model(w, o, _then_link("pred.csv")),
             ("predict", "model.json", "rows.csv", "-o", "pred.csv"), ("pred.csv", LINK)),
        case("predict-o-fifo", lambda w, o: plant_model(w, o, plant_fifo("/pred.csv")),
             ("predict", "model.json", "rows.csv", "-o", "pred.csv"),
             ("pred.csv", "not a regular file")),
        case("predict-o-device", lambda w, o: plant_model(w, o, plant_device),
             ("predict", "model.json", "rows.csv", "-o", "pred.csv"),
             ("pred.csv", "not a regular file")),
        case("fit-o-link", _then_link("model.json"),
             ("fit", "--dataset", "iris", "--algorithm", "cart-ap", "-o", "model.json"),
             ("model.json", LINK)),
        case("configs-copy-dangling", _then_dangling("hhcart_uci.yaml"),
             ("configs", "copy", "hhcart_uci", "."), ("hhcart_uci.yaml", "already exists")),
        case("configs-copy-force-link", _then_dangling("hhcart_uci.yaml"),
             ("configs", "copy", "hhcart_uci", ".", "--force"), ("hhcart_uci.yaml", LINK)),
    ]


# ---------------------------------------------------------------------- signals
OBLIQ = Path(sys.executable).with_name("obliq")
LONG = """name: long
seed: 4
datasets: [{name: twonorm_gen, params: {n: 300}}]
algorithms: [cart-ap, {name: oc1, params: {n_restarts: 2}}]
protocol: {name: kfold, folds: 4, repeats: 6}
"""


def _rows(out: Path) -> dict:
    """{task: row without its times} of runs.csv's whole rows."""
    from obliq_cli.experiment.results import read_runs_file
    from obliq_cli.experiment.schema import TIME_COLUMNS

    if not (out / "runs.csv").is_file():
        return {}
    runs = read_runs_file(out / "runs.csv")
    return {r["task"]: {k: v for k, v in r.items() if k not in TIME_COLUMNS}
            for r in runs.rows}


def _start(args, cwd: Path):
    return subprocess.Popen(
        [str(OBLIQ), *args], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def _wait_rows(proc, runs: Path, n: int) -> bool:
    deadline = time.monotonic() + 120
    while proc.poll() is None and time.monotonic() < deadline:
        if runs.is_file() and runs.read_bytes().count(b"\n") > n:
            return True
        time.sleep(0.01)
    return False


def _send(proc, signum: int) -> None:
    if signum == signal.SIGINT:  # as a terminal sends it: to the whole group
        os.killpg(proc.pid, signum)
    else:
        proc.send_signal(signum)


def _group_left(pgid: int) -> list[int]:
    text = subprocess.run(["ps", "-eo", "pid=,pgid=,stat="], capture_output=True,
                          text=True).stdout
    return [int(p) for p, g, s in (line.split() for line in text.splitlines())
            if int(g) == pgid and not s.startswith("Z")]


_REFERENCE: dict = {}
_PRINTED: list[int] = []  # lines an uninterrupted run prints on standard output


def _reference(workdir: Path) -> dict:
    """The rows of an uninterrupted run of LONG (once per process)."""
    if not _REFERENCE:
        out = workdir / "whole"
        proc = _start(["run", "long.yaml", "-o", str(out), "-j", "2", "--no-progress"],
                      workdir)
        printed, _ = proc.communicate(timeout=600)
        assert proc.returncode == 0
        _REFERENCE.update(_rows(out))
        _PRINTED.append(len(printed.splitlines()))
    return _REFERENCE


def signal_case(case, workdir: Path) -> tuple[str, str]:
    """Run ``obliq run -j 2`` on LONG and stop it as ``case.command`` says:
    (backend, when, signal, ...) with when = rows:N | start:SECONDS | printed."""
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "long.yaml").write_text(LONG)
    reference = _reference(workdir)
    backend, when, *signums = case.command
    signums = [getattr(signal, name) for name in signums]
    out = workdir / "out"
    proc = _start(["run", "long.yaml", "-o", str(out), "-j", "2", "--backend", backend,
                   "--no-progress"], workdir)
    kind, _, value = when.partition(":")
    if kind == "rows":
        _wait_rows(proc, out / "runs.csv", int(value))
    elif kind == "start":
        time.sleep(float(value))
    else:  # printed: all the tables are out, the pool is being shut down
        for _ in range(_PRINTED[0]):
            proc.stdout.readline()
    reached = proc.poll() is None
    for i, signum in enumerate(signums):
        if i:
            time.sleep(0.05)
        if proc.poll() is None:
            _send(proc, signum)
    try:
        _, err = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return "hang", f"{when} {signums}: no end after 120 s"
    for _ in range(300):  # up to 30 s on a busy machine (loky: a look a second)
        if not _group_left(proc.pid):
            break
        time.sleep(0.1)
    if _group_left(proc.pid):
        return "hang", f"workers left behind: {_group_left(proc.pid)}"
    if "Traceback" in err or "Warning" in err:
        return "traceback", err[-400:]
    first = signums[0]
    code = proc.returncode
    lines = [line for line in err.splitlines() if line.strip()]
    if first == signal.SIGKILL:
        if lines:
            return "traceback", f"printed after kill -9: {lines[:3]}"
    elif reached:
        expected = {signal.SIGINT: 130, signal.SIGTERM: 143}
        if code == 0:
            return "wrong", f"exit 0 after {first.name}"
        # or killed by the signal itself: Python gives back the default action at its
        # very end, after the last moment its handler could run (a shell reports 130/143)
        allowed = {expected[s] for s in signums} | {-s for s in signums}
        if code not in allowed:
            return "wrong", f"exit {code} after {first.name}: {lines[-2:]}"
        errors = [line for line in lines if line.startswith("error: ")]
        if len(errors) != 1 or not errors[0].startswith(("error: interrupted",
                                                         "error: terminated")):
            return "traceback", f"not one error line: {lines[-3:]}"
    rows = _rows(out)
    wrong = [task for task, row in rows.items() if reference.get(task) != row]
    if wrong:
        return "wrong", f"{len(wrong)} row(s) differ from an uninterrupted run's"
    meta = out / "meta.json"
    if meta.is_file() and first != signal.SIGKILL:
        history = json.loads(meta.read_text())["history"]
        if not history[-1]["finished"]:
            return "wrong", "the history entry was left unfinished"
        outcome = history[-1].get("outcome")
        allowed = {"finished", {signal.SIGINT: "interrupted",
                                signal.SIGTERM: "terminated"}[first]}
        if outcome not in allowed:
            return "wrong", f"history outcome {outcome!r} after {first.name}"
    kept = len(rows)
    proc = _start(["run", "long.yaml", "-o", str(out), "-j", "2", "--resume", "--no-progress"],
                  workdir)
    _, err = proc.communicate(timeout=600)
    if proc.returncode != 0 or "Traceback" in err:
        return "traceback", f"--resume: exit {proc.returncode}: {err[-300:]}"
    final = _rows(out)
    if len(final) < len(reference):
        return "lost", f"{len(reference) - len(final)} row(s) missing after --resume"
    if final != reference:
        return "wrong", "the resumed rows differ from an uninterrupted run's"
    return "handled", f"exit {code}, {kept} row(s) kept, then resumed to {len(final)}"


def signal_cases(Case) -> list:
    def case(id_, *command):
        return Case(f"signal-{id_}", "", command=command, expect="handled",
                    runner=signal_case)

    return [
        case("fork-sigterm-among-rows", "fork", "rows:10", "SIGTERM"),
        case("fork-ctrl-c-among-rows", "fork", "rows:10", "SIGINT"),
        case("fork-kill-9-among-rows", "fork", "rows:10", "SIGKILL"),
        case("fork-sigterm-then-ctrl-c", "fork", "rows:10", "SIGTERM", "SIGINT"),
        case("fork-ctrl-c-while-starting", "fork", "start:0.3", "SIGINT"),
        case("fork-sigterm-while-starting", "fork", "start:0.3", "SIGTERM"),
        case("loky-sigterm-among-rows", "loky", "rows:10", "SIGTERM"),
        case("loky-kill-9-among-rows", "loky", "rows:10", "SIGKILL"),
        case("loky-ctrl-c-at-shutdown", "loky", "printed", "SIGINT"),
    ]


def io_cases(Case, base) -> list:
    return link_cases(Case, base) + signal_cases(Case)
