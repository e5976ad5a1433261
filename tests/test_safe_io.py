"""safe_io: no write goes through a link, a FIFO or a shared inode; temporary names are
new files of unpredictable names; interrupts.deferred holds a signal for its block."""

import os
import signal
import stat

import pytest

from obliq_cli import interrupts, safe_io
from obliq_cli.errors import ObliqError, Terminated


@pytest.fixture
def outside(tmp_path):
    path = tmp_path / "outside.txt"
    path.write_text("secret\n")
    return path


def test_write_bytes_replaces_a_file_and_leaves_no_temporary(tmp_path):
    target = tmp_path / "out" / "sub" / "file.txt"
    safe_io.write_bytes(target, b"one", root=tmp_path / "out")  # folders made
    safe_io.write_bytes(target, b"two", root=tmp_path / "out")
    assert target.read_bytes() == b"two"
    assert sorted(p.name for p in target.parent.iterdir()) == ["file.txt"]


@pytest.mark.parametrize("name", ["file.txt", "dangling.txt"])
def test_write_bytes_refuses_a_link_and_writes_nothing(tmp_path, outside, name):
    link = tmp_path / name
    link.symlink_to(outside if name == "file.txt" else tmp_path / "nowhere")
    with pytest.raises(ObliqError, match=f"{name}: is a symbolic link"):
        safe_io.write_bytes(link, b"new")
    assert outside.read_text() == "secret\n" and not (tmp_path / "nowhere").exists()
    assert link.is_symlink() and sorted(p.name for p in tmp_path.iterdir()) == sorted(
        {name, "outside.txt"})


def test_a_linked_folder_below_the_root_is_refused(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "a.npz").write_bytes(b"keep")
    root = tmp_path / "out"
    root.mkdir()
    (root / "folds").symlink_to(elsewhere)
    with pytest.raises(ObliqError, match="out/folds: is a symbolic link"):
        safe_io.write_bytes(root / "folds" / "a.npz", b"new", root=root)
    with pytest.raises(ObliqError, match="out/folds: is a symbolic link"):
        safe_io.unlink(root / "folds" / "a.npz", root)
    assert (elsewhere / "a.npz").read_bytes() == b"keep"
    # the root itself is the user's: a link there is followed
    linked_root = tmp_path / "linked"
    linked_root.symlink_to(elsewhere)
    safe_io.write_bytes(linked_root / "b.txt", b"ok", root=linked_root)
    assert (elsewhere / "b.txt").read_bytes() == b"ok"


def test_a_fifo_and_a_folder_are_refused_without_blocking(tmp_path):
    fifo = tmp_path / "runs.csv"
    os.mkfifo(fifo)
    with pytest.raises(ObliqError, match="runs.csv: is a FIFO, not a regular file"):
        safe_io.open_append(fifo)  # O_NONBLOCK: refused at once, no reader awaited
    with pytest.raises(ObliqError, match="runs.csv: is a FIFO"):
        safe_io.write_bytes(fifo, b"x")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    with pytest.raises(ObliqError, match="is a folder"):
        safe_io.write_bytes(tmp_path, b"x", root=tmp_path.parent)


def test_appending_refuses_a_link_and_a_second_hard_link(tmp_path, outside):
    runs = tmp_path / "runs.csv"
    runs.symlink_to(outside)
    with pytest.raises(ObliqError, match="is a symbolic link"):
        safe_io.open_append(runs)
    with pytest.raises(ObliqError, match="is a symbolic link"):
        safe_io.truncate(runs, 0)
    runs.unlink()
    os.link(outside, runs)
    with pytest.raises(ObliqError, match="has 2 hard links"):
        safe_io.open_append(runs)
    with pytest.raises(ObliqError, match="has 2 hard links"):
        safe_io.check_file(runs, in_place=True)
    safe_io.check_file(runs)  # replaced whole (renamed over), a hard link is harmless
    assert outside.read_text() == "secret\n"
    runs.unlink()
    with safe_io.open_append(runs, text=True) as handle:
        handle.write("a,b\r\n")
    assert runs.read_bytes() == b"a,b\r\n"  # no newline translation: csv writes its own


def test_temporary_names_are_unpredictable(tmp_path, monkeypatch):
    seen = []
    real_open = os.open

    def spy(path, flags, mode=0o777, *, dir_fd=None):
        if str(path).endswith(".tmp"):
            seen.append((path, flags))
        return real_open(path, flags, mode, dir_fd=dir_fd)

    monkeypatch.setattr(os, "open", spy)
    for _ in range(2):
        safe_io.write_bytes(tmp_path / "meta.json", b"{}")
    (first, flags), (second, _) = seen
    assert first != second and first.startswith(".meta.json.") and str(os.getpid()) \
        not in first
    assert flags & os.O_EXCL and flags & os.O_CREAT and flags & os.O_NOFOLLOW


def test_deferred_holds_a_signal_until_its_block_ends():
    with pytest.raises(Terminated), interrupts.handled():
        with pytest.raises(Terminated):
            with interrupts.deferred():
                os.kill(os.getpid(), signal.SIGTERM)
                for _ in range(1000):  # the handler runs, holds it, and the block goes on
                    pass
                reached = True
        assert reached
        interrupts.acted_on()  # as the run does once its interrupt has stopped it
        # a block already ending by an interrupt reports that one, not the held one
        with pytest.raises(KeyboardInterrupt) as caught:
            with interrupts.deferred():
                os.kill(os.getpid(), signal.SIGTERM)
                for _ in range(1000):
                    pass
                raise KeyboardInterrupt
        assert type(caught.value) is KeyboardInterrupt
        # ... but that one was not the signal's (an estimator's own): the held SIGTERM,
        # acted on by nothing, is raised when the command ends (interrupts.checkpoint)
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL


def test_a_signal_held_while_a_generator_closes_is_not_raised_from_its_close():
    # the fork pool's row generator stops its pool in a deferred block when the run has
    # stopped consuming it; a second signal there (SIGTERM, then Ctrl-C) was raised out of
    # the generator's close and, the close being the garbage collector's, printed
    # "Exception ignored in: <generator object _forked_results ...>" and a traceback
    import sys

    ignored = []
    previous_hook, sys.unraisablehook = sys.unraisablehook, ignored.append
    stopped = []

    def rows():
        try:
            yield 1
            yield 2
        finally:
            with interrupts.deferred():
                os.kill(os.getpid(), signal.SIGINT)
                for _ in range(1000):
                    pass
                stopped.append(True)

    try:
        with interrupts.handled():
            with pytest.raises(Terminated):
                for _ in rows():
                    raise Terminated()
            interrupts.acted_on()  # the run's handling of the first signal: it stops
    finally:
        sys.unraisablehook = previous_hook
    assert stopped == [True] and ignored == []


def test_a_damaged_npz_file_is_closed_however_its_load_ends(tmp_path):
    # numpy's np.load(path) keeps its handle open when the archive is truncated; the
    # ResourceWarning came out later, in whichever test ran next (a flaky CI failure)
    import gc
    import warnings
    import zipfile

    import numpy as np

    path = tmp_path / "folds.npz"
    np.savez_compressed(path, roles=np.arange(300))
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            with safe_io.read_npz(path):
                pass
        except zipfile.BadZipFile:
            pass
        gc.collect()
    assert [str(w.message) for w in seen if w.category is ResourceWarning] == []
    np.savez_compressed(path, roles=np.arange(3))
    with safe_io.read_npz(path) as data:
        assert data["roles"].tolist() == [0, 1, 2]


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="reads /proc (Linux)")
def test_a_new_folder_is_synced_into_its_parent(tmp_path, monkeypatch):
    """A folder write_bytes creates is fsynced into its parent before any file in it
    counts as durable, each level once; an existing folder is not synced again."""
    events = []
    real_mkdir, real_fsync = os.mkdir, os.fsync

    def mkdir(name, *args, **kwargs):
        events.append(("mkdir", str(name)))
        return real_mkdir(name, *args, **kwargs)

    def fsync(fd):
        events.append(("fsync", os.readlink(f"/proc/self/fd/{fd}")))
        return real_fsync(fd)

    monkeypatch.setattr(safe_io.os, "mkdir", mkdir)
    monkeypatch.setattr(safe_io.os, "fsync", fsync)
    safe_io.write_bytes(tmp_path / "a" / "b" / "f.txt", b"x", tmp_path)
    # (the root itself goes through Path.mkdir, exist_ok: an absolute name)
    parents = (str(tmp_path), str(tmp_path / "a"))
    folder_syncs = [e for e in events if (e[0] == "mkdir" and "/" not in e[1])
                    or (e[0] == "fsync" and e[1] in parents)]
    assert folder_syncs == [("mkdir", "a"), ("fsync", str(tmp_path)),
                            ("mkdir", "b"), ("fsync", str(tmp_path / "a"))]
    events.clear()
    safe_io.write_bytes(tmp_path / "a" / "b" / "g.txt", b"y", tmp_path)
    assert [e for e in events if e[0] == "fsync" and e[1] in parents] == []
