"""The worker pools of a run, one per backend (fork, loky, threading, dask, named in
``registry.BACKENDS``), and the worker processes they start.

Tasks go out in chunks (``task_chunks``) and their rows come back in completion order
(``parallel_results``); the parent writes them. A row does not depend on its chunk, its
worker or the backend (every random draw is keyed by names: ``seeds.rng_for``).

Workers die with the run and leave Ctrl-C to it. A terminal's Ctrl-C reaches every
process of the foreground group: the run and its workers. If each worker raised
KeyboardInterrupt too, dask's would print their tracebacks while the run shuts them down,
so workers ignore SIGINT and the run alone handles it (it stops the pool and says so in
one line).

``kill -9`` of the run gives it no chance to stop its workers: loky's would finish their
task and idle for minutes (the resource trackers with them, since the workers hold their
pipes open). So a worker watches its parent's pid from a daemon thread and exits
once it has been re-parented. (Linux's ``prctl(PR_SET_PDEATHSIG)`` would be quicker but
fires when the *thread* that started the worker ends, and the run starts its loky
workers from a short-lived thread while it plans.) The fork backend's workers are forked
by the run's main thread, so they do ask for ``PR_SET_PDEATHSIG``: a worker finishing its
task after its run was killed printed two BrokenPipeError tracebacks (its result's pipe
had no reader), where it now dies with the run.

SIGTERM: the run handles it as Ctrl-C (``obliq_cli.interrupts``); a worker forked from
it puts back the default action (die at once, silently), which the pool's ``terminate``
relies on.

This module imports the fit and the results folder late, in the functions that use them:
a loky or dask worker imports it to run ``worker_setup`` (its initializer) and should
watch its parent from the start, not after seconds of imports that a kill -9 of the run
could fall into.
"""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import sys
import threading
import time

from .. import fit_threads, interrupts, registry
from ..errors import ObliqError, one_line
from ..registry import BACKENDS, FORK_AVAILABLE

WATCH_INTERVAL = 1.0  # seconds between two looks at the parent's pid


def _die_with(parent: int) -> None:
    while True:
        time.sleep(WATCH_INTERVAL)
        if os.getppid() != parent:
            os._exit(1)


def _die_with_parent_now() -> None:
    """Linux: SIGKILL this process when its parent dies (``prctl(PR_SET_PDEATHSIG)``)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # 1 = PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux: the watching thread does it
        pass


def worker_setup(n_workers: int | None = None, inherited_locks: tuple = (),
                 forked_from: int = 0) -> None:
    """Run first in every loky or forked worker the run starts (its ``initializer``):
    ignore SIGINT, die with the parent. (dask's local workers start with SIGINT ignored
    through ``sigint_ignored``, and end with their nanny, which lives in the run's
    process.) With ``n_workers`` (the fork pool), BLAS gets this worker's share of the
    cores, as joblib gives loky's workers, so two workers do not each start two threads;
    and it closes its copies of the run's lock files (``inherited_locks``), so that a
    worker outliving a killed run does not keep the folder locked. ``forked_from`` (the
    fork pool: the run's pid; its workers are forked with SIGINT and SIGTERM blocked,
    ``signals_blocked``): SIGTERM back to its default action, then both unblocked, and
    the worker dies with its parent at once."""
    parent = forked_from or os.getppid()
    if forked_from:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        _die_with_parent_now()
        if os.getppid() != parent:  # the run died before the request took effect
            os._exit(1)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _RUN_SIGNALS)
    for fd in inherited_locks:
        with contextlib.suppress(OSError):
            os.close(fd)
    with contextlib.suppress(ValueError):  # not the main thread: leave signals alone
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    if n_workers:
        from threadpoolctl import threadpool_limits

        threadpool_limits(max(1, (os.cpu_count() or 1) // n_workers))
    # a fit's default n_threads here: this worker's share of the cores (loky's workers
    # are not told how many there are: one thread, as inside any multi-worker run)
    fit_threads.set_process_share(n_workers or fit_threads.usable_cores())
    if not getattr(worker_setup, "_watching", False):
        worker_setup._watching = True
        threading.Thread(target=_die_with, args=(parent,), daemon=True,
                         name="obliq-parent-watch").start()


_RUN_SIGNALS = {signal.SIGINT, signal.SIGTERM}


@contextlib.contextmanager
def signals_blocked():
    """SIGINT and SIGTERM blocked in this thread while it forks workers: a child inherits
    the mask (and the run's Python handlers, which it must not run) until its
    ``worker_setup`` unblocks them; the run takes a signal that came meanwhile after."""
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, _RUN_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


@contextlib.contextmanager
def sigint_ignored():
    """SIGINT ignored while child processes start, so they inherit the disposition (an
    ignored signal stays ignored across exec; Python then installs no handler)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def check_backend(backend: str, n_jobs: int = 1, scheduler: str | None = None) -> None:
    """Fail before anything is written when the backend cannot be used."""
    if backend not in BACKENDS:
        raise ObliqError(f"unknown backend {backend!r}{registry.suggest(backend, BACKENDS)}; "
                         f"known: {', '.join(BACKENDS)}")
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or n_jobs == 0:
        raise ObliqError(f"n_jobs must be a non-zero integer (got {n_jobs!r})")
    if backend == "fork" and not FORK_AVAILABLE:
        raise ObliqError(f"backend fork runs on Linux only (this is {sys.platform}); "
                         "use loky")
    if scheduler and backend != "dask":
        raise ObliqError(f"--scheduler needs --backend dask (the backend is {backend})")
    if backend == "dask":
        try:
            import dask.distributed  # noqa: F401
        except ImportError:
            raise ObliqError('backend dask needs dask.distributed: pip install "obliq[dask]"') \
                from None


@contextlib.contextmanager
def dask_client(n_jobs: int, scheduler: str | None):
    """A dask Client: connected to ``scheduler``, else on a local cluster of
    single-threaded workers (tree growing holds the GIL; threads would contend)."""
    from dask.distributed import Client

    try:
        if scheduler:
            client = Client(scheduler, timeout="10s")
        else:
            client = Client(_local_cluster(None if n_jobs < 0 else n_jobs))
    except (OSError, TimeoutError) as exc:
        raise ObliqError(f"cannot reach the dask scheduler {scheduler or '(local)'}: "
                         f"{one_line(exc)}") from None
    _install_quiet_client_del()
    if not scheduler:  # our own workers too: joblib makes a Client in each of them
        with contextlib.suppress(Exception):
            client.run(_install_quiet_client_del)
    try:
        yield client
    finally:
        cluster = None if scheduler else client.cluster
        try:
            client.close()
        finally:
            if cluster is not None:
                cluster.close()


def _install_quiet_client_del() -> None:
    """``_quiet_client_del`` as this process's unraisable hook (once)."""
    if not getattr(sys.unraisablehook, "obliq_quiet_client", False):
        sys.unraisablehook = _quiet_client_del(sys.unraisablehook)


def _quiet_client_del(previous):
    """An unraisable-exception hook that drops what dask's ``Client.__del__`` raises
    once its event loop is closed: a Ctrl-C landing inside ``client.close()`` leaves the
    client half closed, and its finaliser then printed "Exception ignored in
    Client.__del__ ... IOLoop is closed" beside the run's one ``error: interrupted``
    line, from the run and from each worker (the Client joblib makes there dies with
    the cluster). Everything else goes to ``previous``."""
    def hook(unraisable):
        where = getattr(getattr(unraisable, "object", None), "__qualname__", "")
        if where == "Client.__del__":
            return
        previous(unraisable)
    hook.obliq_quiet_client = True
    return hook


def _local_cluster(n_workers: int | None):
    """A LocalCluster of single-threaded workers that leave Ctrl-C to the run (they start
    with SIGINT ignored), log nothing short of a crash and serve no dashboard (whose port
    another run may hold)."""
    import logging

    from dask.distributed import LocalCluster

    with sigint_ignored():
        return LocalCluster(n_workers=n_workers, threads_per_worker=1,
                            dashboard_address=":0", scheduler_kwargs={"dashboard": False},
                            silence_logs=logging.CRITICAL)


CHUNKS_PER_WORKER = 16
"""Dispatch granularity: each worker gets its tasks in about this many chunks, so small
tasks cost one round trip per chunk and the last chunks still balance the load."""

_warming: list = []  # the thread of start_workers, joined before the tasks go out


def run_tasks(tasks, out=None) -> list[dict]:
    """``fit.run_task`` over a chunk of tasks, in one call to a worker.

    ``out``: None, or the results folder on this worker's machine, where the worker then
    stores each task's test predictions itself (``store_predictions``) and returns its
    row without them. The files are written by a thread of the worker while it runs the
    chunk's next tasks, and the chunk's rows come back once all its files are durable.

    Durability, the rule: a row in runs.csv (the record of completion) never refers to a
    prediction file that a crash or a power loss could still take away. Each file's data
    are fsynced before the file is renamed into place (``safe_io.write_bytes``), and
    once the chunk's last file is renamed, one fsync of the predictions folder makes all
    of the chunk's renames durable; only then do its rows leave the worker, to be
    appended by the run. A crash before that fsync leaves files without rows, which are
    never read and which the tasks' rerun replaces. One folder fsync per chunk instead
    of one per file: on this project's test machine (ext4 on a virtual disk) a file
    written the old way cost 2.8 ms of fsyncs, 1.4 ms with the folder's fsync shared by
    a chunk of 8. The thread costs CPU (its Python work takes the GIL from the fits:
    about 2.5 ms a file) but lets the fits go on while the disk syncs: the quick start's
    task phase at -j 2 took 5.3 s with it, 6.0 s writing in turn (median of 6 rounds).
    (The run's own process did all of the fsyncs in turn while the workers waited, once:
    5 s of the quick start's 450 tasks, more than their fits on two cores.) A worker the
    pool stops may leave a hidden temporary file in predictions/, as ``kill -9`` of a run
    in the middle of a write does (never read, left by ``--force``)."""
    from . import fit

    if out is None:
        return [fit.run_task(task) for task in tasks]
    from concurrent.futures import ThreadPoolExecutor

    from . import results

    rows, writes = [], []
    with ThreadPoolExecutor(1, thread_name_prefix="obliq-predictions") as writer:
        for task in tasks:
            rows.append(fit.run_task(task))
            writes.append(writer.submit(store_predictions, out, rows[-1], False))
        # a write that failed (a full disk) fails the chunk
        wrote = [write.result() for write in writes]
    if any(wrote):
        results.sync_predictions(out)
    return rows


def store_predictions(out, row: dict, sync_folder: bool = True) -> bool:
    """Write ``row``'s test predictions (``predictions.KEY``) to their file in ``out``
    (``results.write_predictions``; ``sync_folder=False``: the caller fsyncs the folder
    before the row goes on) and take them out of the row, so the run's process appends
    the row alone. Whether a file was written."""
    from . import predictions, results

    arrays = row.pop(predictions.KEY, None)
    if arrays is None or row.get("status") != "ok":
        return False
    results.write_predictions(out, row["task"], arrays, sync_folder)
    return True


WAIT_AFTER = 0.5
"""Seconds: one job's rows held back (``_serial_results``) are appended once they have
taken this long, so a long task's row is appended as soon as it is done."""


def _serial_results(tasks, out):
    """One job's rows, in task order, in batches: each task's prediction file is written
    as it finishes (data fsynced, renamed), and after a batch of ``MAX_CHUNK`` tasks, or
    of ``WAIT_AFTER`` seconds, one fsync of the predictions folder makes the batch's
    files durable before its rows go out: the durability rule of ``run_tasks``, one
    folder fsync a batch instead of one a file.

    No writer thread here, unlike a pool's worker: in one process the thread's Python
    work takes the GIL from the fits, and measured on the quick start (450 tasks, in
    rounds) a thread made the task phase slower than writing in turn (7.8 s against 7.0
    s), where one folder fsync per 8 files made it faster (6.4 s).

    Signals: the rows held back are appended before the run stops, as one job's run has
    always kept every finished task. A Ctrl-C raised in a fit (which loses that task)
    or a signal whose exception was dropped during one (that task finished:
    ``interrupts.checkpoint``) is taken off the record while the rows go out (else the
    run's check after the first of them would stop it there), then raised."""
    from . import fit, results

    batch: list = []
    wrote = False
    started = 0.0

    def flush():
        nonlocal batch, wrote
        if wrote:
            results.sync_predictions(out)
        done, batch, wrote = batch, [], False
        return done

    for task in tasks:
        if not batch:
            started = time.perf_counter()
        try:
            row = fit.run_task(task)
            wrote = store_predictions(out, row, sync_folder=False) or wrote
        except KeyboardInterrupt:  # run_task raises nothing else; a failed write stops
            interrupts.taken()     # the run (named) once the rows before it are kept
            yield from flush()
            raise
        except BaseException:
            yield from flush()
            raise
        batch.append(row)
        stop = interrupts.taken()
        if (stop is not None or len(batch) >= MAX_CHUNK
                or time.perf_counter() - started > WAIT_AFTER):
            yield from flush()
        if stop is not None:
            raise stop
    yield from flush()


MAX_CHUNK = 8
"""At most this many tasks in a chunk: its rows reach runs.csv only when the whole chunk
is done, so a long run (3500 tasks of SVM grids) would otherwise show no progress for
minutes, lose a chunk's finished tasks to Ctrl-C and end on one worker's last chunk."""


def task_chunks(tasks: list, n_workers: int) -> list[list]:
    """Consecutive tasks (same dataset, neighbouring splits: a worker's dataset cache
    serves them) in about ``CHUNKS_PER_WORKER`` chunks per worker, ``MAX_CHUNK`` at most."""
    size = max(1, min(MAX_CHUNK, len(tasks) // (CHUNKS_PER_WORKER * max(1, n_workers))))
    return [tasks[i:i + size] for i in range(0, len(tasks), size)]


def _import_algorithms(names: tuple[str, ...]) -> None:
    """Look the run's algorithms up once: a built-in's module loads (scikit-learn, numba's
    cached kernels) in the warming worker, and only the modules the config names. A
    plugin's name is left to the tasks, which import their plugins first."""
    for name in names:
        if name in registry.BUILTIN_ALGORITHMS:
            registry.algorithm_entry(name)


def _pool_config(backend: str, n_jobs: int):
    """joblib's configuration for the run's pool: loky's workers ignore Ctrl-C (the run
    stops them) and die with the run (``worker_setup``). The same arguments
    for the early start and the tasks, so loky reuses the one executor."""
    import joblib

    setup = {"initializer": worker_setup} if backend == "loky" else {}
    if backend == "loky" and _QUIET_TRACKER not in sys.warnoptions:
        # loky's resource tracker (started with this interpreter's -W options) outlives a
        # run killed with -9 and cleans up after it, printing four lines of UserWarning
        # about the "leaked" semaphores it removes; the cleaning is all that is wanted
        sys.warnoptions.append(_QUIET_TRACKER)
    return joblib.parallel_config(backend=backend, n_jobs=n_jobs, **setup)


_QUIET_TRACKER = "ignore:resource_tracker:UserWarning"


def start_workers(n_jobs: int, backend: str, algorithms: tuple[str, ...] = ()) -> None:
    """Start loky's workers now and let them import obliq in the background, so their
    start-up overlaps the parent's planning (loky keeps one executor per process, which
    ``parallel_results`` then reuses). Nothing to do for one job or dask."""
    if n_jobs == 1 or backend != "loky":
        return
    import threading

    import joblib

    def warm():
        with _pool_config(backend, n_jobs):
            workers = joblib.effective_n_jobs(n_jobs)
            joblib.Parallel()(joblib.delayed(_import_algorithms)(algorithms)
                                for _ in range(workers))

    thread = threading.Thread(target=warm, name="obliq-start-workers", daemon=True)
    thread.start()
    _warming.append(thread)


def parallel_results(tasks, n_jobs: int, backend: str, out=None):
    """Rows of the finished tasks, in completion order (the parent writes them). The
    tasks go out in chunks (``task_chunks``); a row does not depend on its chunk.

    ``out``: the results folder. A pool on this machine (fork, loky, threading) has its
    workers store each task's predictions there (``run_tasks``), and so does a one-job
    run, in this process and in batches (``_serial_results``); a dask worker may run
    elsewhere: its rows carry the predictions to the parent's writer
    (``results.runs_appender``)."""
    import joblib

    if n_jobs == 1 and backend != "dask":  # no pool: same rows, plain tracebacks
        if out is not None:
            yield from _serial_results(tasks, out)
            return
        from . import fit

        yield from map(fit.run_task, tasks)
        return
    # a dask worker may be on another machine; the others get the folder's absolute path
    out = None if backend == "dask" or out is None else os.path.abspath(out)
    if backend == "fork":
        yield from _forked_results(tasks, n_jobs, out)
        return
    while _warming:
        _warming.pop().join()
    with _pool_config(backend, n_jobs):
        chunks = task_chunks(tasks, joblib.effective_n_jobs(n_jobs))
        outputs = joblib.Parallel(return_as="generator_unordered", batch_size=1)(
            joblib.delayed(run_tasks)(chunk, out) for chunk in chunks)
        try:
            for rows in outputs:
                yield from rows
        finally:
            with interrupts.deferred():  # a second Ctrl-C waits for the pool to stop
                _close_quietly(outputs)


def _forked_results(tasks, n_jobs: int, out=None):
    """``parallel_results`` on a pool forked from this process: the workers start with
    what the run has imported and loaded (scikit-learn, the compiled kernels' module, the
    datasets ``plan`` read), so a short run pays no worker start-up. SIGINT and SIGTERM
    are blocked while the workers are forked (one arriving then would run the run's
    handler in a worker and print its traceback; the run gets it once they are out); the
    workers ignore SIGINT, die of SIGTERM and of their parent's death
    (``worker_setup``), and the pool is terminated however the run ends."""
    import multiprocessing

    import joblib

    from . import results

    workers = joblib.effective_n_jobs(n_jobs)
    pool = None
    try:
        with signals_blocked():
            pool = multiprocessing.get_context("fork").Pool(
                workers, initializer=worker_setup,
                initargs=(workers, tuple(results.HELD_LOCKS), os.getpid()))
        for rows in pool.imap_unordered(functools.partial(run_tasks, out=out),
                                        task_chunks(tasks, workers)):
            yield from rows
    finally:
        if pool is not None:
            with interrupts.deferred():  # a second Ctrl-C waits for the pool to stop
                pool.terminate()
                pool.join()


def _close_quietly(outputs) -> None:
    """Close joblib's generator here, in the parent's thread, without its warning. When
    the run stops early (Ctrl-C arriving while the parent writes a row) joblib cancels the
    tasks in flight and warns "N tasks which were still being processed by the workers
    have been cancelled": two more lines after the run's one ``error: interrupted`` line,
    about tasks ``--resume`` runs anyway."""
    import warnings

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=UserWarning,
                                message=r".*(have been cancelled|executed +but not used)")
        outputs.close()

