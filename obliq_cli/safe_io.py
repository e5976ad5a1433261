"""Writing files without following links: every file obliq writes goes through here.

A results folder may hold what obliq did not put there: ``runs.csv`` or ``.obliq.lock``
as a symbolic link to a file elsewhere, ``folds/`` as a link to another folder, a
temporary name planted in advance. Followed, each would make obliq append to, truncate,
replace or delete a file outside the folder it was told to write in. So:

- the folder a caller names as ``root`` (a results folder, or the folder of an ``-o``
  path) is taken as given, links and all: that is the user's choice of place;
- every name below it (``folds/``, ``figures/``, the file itself) is opened relative to
  its folder's descriptor with ``O_NOFOLLOW``, and a name that is a symbolic link or not
  what it should be (a device, a FIFO, a folder where a file belongs) is refused with
  one ``ObliqError`` naming the path, before anything is written;
- a file written in place (appended to, truncated, the lock) must also have no other
  hard link: a ``cp -al`` snapshot of a results folder would otherwise grow with it;
- a whole file goes to a new temporary name in the target's folder, created with
  ``O_EXCL`` and random characters (nothing planted can be it), and is renamed over the
  target: a reader sees the old or the new file, never half of one.

Opening a FIFO for writing blocks until a reader comes; ``O_NONBLOCK`` on every open
makes it fail at once instead (then the descriptor is set back to blocking).
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from pathlib import Path

from .errors import ObliqError, naming_file

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_KINDS = {stat.S_IFDIR: "a folder", stat.S_IFCHR: "a character device",
          stat.S_IFBLK: "a block device", stat.S_IFIFO: "a FIFO", stat.S_IFSOCK: "a socket",
          stat.S_IFLNK: "a symbolic link"}


def _what(mode: int) -> str:
    return _KINDS.get(stat.S_IFMT(mode), "not a regular file")


def _refuse(path, mode: int) -> ObliqError:
    if stat.S_ISLNK(mode):
        return ObliqError(f"{path}: is a symbolic link; obliq does not write through links "
                          f"(remove it or use another output)")
    if stat.S_ISDIR(mode):
        return ObliqError(f"{path}: is a folder, where obliq writes a file")
    return ObliqError(f"{path}: is {_what(mode)}, not a regular file; obliq writes only "
                      f"regular files (remove it or use another output)")


def _shared(path, links: int) -> ObliqError:
    return ObliqError(f"{path}: has {links} hard links; obliq does not write into a file "
                      f"that another name shares (copy it to a file of its own first)")


def _split(path, root) -> tuple[Path, tuple[str, ...], str]:
    """(root, the folders from root to the file's folder, the file's name)."""
    path = Path(path)
    root = Path(root) if root is not None else path.parent
    parts = path.relative_to(root).parts  # ValueError: a caller's mistake
    if not parts:
        raise ValueError(f"{path} names no file below {root}")
    return root, parts[:-1], parts[-1]


@contextlib.contextmanager
def folder_fd(path, root=None, create: bool = True):
    """A descriptor of the folder ``path`` (None when it is missing and not ``create``).
    ``root`` (default: ``path`` itself) is opened as given, links followed; each folder
    below it is opened with O_NOFOLLOW and made when missing (with ``create``)."""
    path = Path(path)
    root = path if root is None else Path(root)
    below = path.relative_to(root).parts
    if create:
        with naming_file(root):
            root.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(root, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
    except FileNotFoundError:
        if create:
            raise
        yield None
        return
    except NotADirectoryError:
        raise ObliqError(f"{root}: exists and is not a folder") from None
    try:
        where = root
        for part in below:
            where = where / part
            if create:
                with contextlib.suppress(FileExistsError), naming_file(where):
                    os.mkdir(part, dir_fd=fd)
                    # the new folder's own entry durable in its parent, as a renamed
                    # file's is in its folder: files synced inside it are then found
                    _fsync_dir(fd)
            try:
                inner = os.open(part, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC,
                                dir_fd=fd)
            except FileNotFoundError:
                if create:
                    raise
                yield None
                return
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                    raise _refuse(where, os.stat(part, dir_fd=fd,
                                                 follow_symlinks=False).st_mode) from None
                raise OSError(exc.errno, exc.strerror, str(where)) from None
            os.close(fd)
            fd = inner
        yield fd
    finally:
        os.close(fd)


def check_file(path, root=None, in_place: bool = False) -> None:
    """Refuse (ObliqError) ``path`` when it, or a folder between ``root`` and it, is a
    symbolic link or not a regular file (a folder), or with ``in_place`` (a file obliq
    appends to or truncates) when it has another hard link; nothing when it does not
    exist."""
    root, folders, name = _split(path, root)
    with folder_fd(root.joinpath(*folders), root, create=False) as fd:
        if fd is None:
            return
        try:
            info = os.stat(name, dir_fd=fd, follow_symlinks=False)
        except FileNotFoundError:
            return
        if not stat.S_ISREG(info.st_mode):
            raise _refuse(path, info.st_mode)
        if in_place and info.st_nlink > 1:
            raise _shared(path, info.st_nlink)


def check_folder(path, root) -> None:
    """Refuse ``path`` (a folder below ``root``) when it or a folder on the way is a
    symbolic link or not a folder; nothing when it does not exist."""
    with folder_fd(path, root, create=False):
        pass


def _open_below(path, root, flags: int, create_folders: bool):
    """A descriptor of the file ``path`` opened with ``flags`` | O_NOFOLLOW | O_NONBLOCK,
    checked to be a regular file of one link, then set back to blocking."""
    root, folders, name = _split(path, root)
    with folder_fd(root.joinpath(*folders), root, create=create_folders) as dir_fd:
        if dir_fd is None:
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", str(path))
        try:
            fd = os.open(name, flags | _NOFOLLOW | _NONBLOCK | _CLOEXEC, 0o666,
                         dir_fd=dir_fd)
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENXIO, errno.EISDIR, errno.ENOTDIR):
                try:
                    mode = os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode
                except OSError:
                    mode = stat.S_IFLNK if exc.errno == errno.ELOOP else 0
                raise _refuse(path, mode) from None
            raise OSError(exc.errno, exc.strerror, str(path)) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise _refuse(path, info.st_mode)
        if info.st_nlink > 1:
            raise _shared(path, info.st_nlink)
        if _NONBLOCK:
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_append(path, root=None, *, text: bool = False):
    """``path`` opened for appending (made when missing), without following a link; a
    text file (UTF-8, no newline translation: csv writes its own) with ``text``."""
    fd = _open_below(path, root, os.O_WRONLY | os.O_APPEND | os.O_CREAT, True)
    if text:
        return os.fdopen(fd, "a", encoding="utf-8", newline="")
    return os.fdopen(fd, "ab")


def open_update(path, root=None):
    """``path`` opened for reading and writing in text (made when missing): the lock."""
    fd = _open_below(path, root, os.O_RDWR | os.O_CREAT, True)
    return os.fdopen(fd, "r+", encoding="utf-8", newline="")


def truncate(path, size: int, root=None) -> None:
    """Cut ``path`` to ``size`` bytes, without following a link."""
    fd = _open_below(path, root, os.O_WRONLY, False)
    try:
        with naming_file(path):
            os.ftruncate(fd, size)
    finally:
        os.close(fd)


def _fsync_dir(fd: int) -> None:
    with contextlib.suppress(OSError):
        os.fsync(fd)


def _no_step(name: str) -> None:
    """No pause between the steps of a write (tests pass their own)."""


def write_bytes(path, data: bytes, root=None, step=_no_step,
                sync_folder: bool = True) -> Path:
    """Write ``data`` as the file ``path`` through a temporary file of an unpredictable
    name in its folder, then rename it into place. A ``path`` that is a link or not a
    regular file, or a link among the folders below ``root`` (default: the file's own
    folder; folders missing below it are made), is refused and nothing is written.
    ``step(name)`` is called between the steps (tests stop the process there).

    Durability: the data are fsynced before the rename, so the name never holds a part
    of them; then the folder is fsynced, which makes the rename itself survive a power
    loss. ``sync_folder=False`` leaves that last fsync to the caller (``sync_folder``),
    who must make it before anything refers to the file: a caller writing several files
    of one folder pays one folder fsync for all of them."""
    path = Path(path)
    root, folders, name = _split(path, root)
    with folder_fd(root.joinpath(*folders), root, create=True) as dir_fd:
        with contextlib.suppress(FileNotFoundError):
            mode = os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode
            if not stat.S_ISREG(mode):
                raise _refuse(path, mode)
        for _ in range(100):
            tmp = f".{name[:80]}.{secrets.token_hex(8)}.tmp"
            try:
                with naming_file(path):
                    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW
                                 | _CLOEXEC, 0o666, dir_fd=dir_fd)
                break
            except FileExistsError:
                continue
        else:  # pragma: no cover - 100 collisions of 64 random bits
            raise ObliqError(f"{path}: cannot make a temporary file beside it")
        try:
            with naming_file(path), os.fdopen(fd, "wb") as handle:  # a full disk names it
                handle.write(data)
                step(f"write {name} (temporary)")
                handle.flush()
                os.fsync(handle.fileno())
            step(f"rename {name}")
            with naming_file(path):
                os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
            tmp = None
            if sync_folder:
                _fsync_dir(dir_fd)
        finally:
            if tmp is not None:
                with contextlib.suppress(OSError):
                    os.unlink(tmp, dir_fd=dir_fd)
    return path


def sync_folder(path, root=None) -> None:
    """fsync the folder ``path`` (below ``root``, links refused as ``folder_fd`` does):
    the renames ``write_bytes(..., sync_folder=False)`` made in it become durable;
    nothing when it is missing."""
    with folder_fd(path, root, create=False) as fd:
        if fd is not None:
            _fsync_dir(fd)


def write_text(path, text: str, root=None) -> Path:
    """``write_bytes`` of ``text`` in UTF-8."""
    return write_bytes(path, text.encode("utf-8", "surrogateescape"), root)


def unlink(path, root=None) -> None:
    """Delete the file ``path`` (a link itself, never what it points at); nothing when it
    or its folder is missing; refused when a folder between ``root`` and it is a link."""
    root, folders, name = _split(path, root)
    with folder_fd(root.joinpath(*folders), root, create=False) as fd:
        if fd is not None:
            with contextlib.suppress(FileNotFoundError), naming_file(path):
                os.unlink(name, dir_fd=fd)


def remove_empty_folder(path, root) -> None:
    """Delete the folder ``path`` below ``root`` when it is empty (files obliq did not
    write stay, and so does the folder); refused when it is a link."""
    path = Path(path)
    check_folder(path, root)
    with folder_fd(path.parent, root, create=False) as fd:
        if fd is not None:
            with contextlib.suppress(OSError):
                os.rmdir(path.name, dir_fd=fd)


@contextlib.contextmanager
def read_npz(path, **kwargs):
    """``np.load(path)`` of an ``.npz`` file, the file closed however the load ends:
    given a path, numpy leaves its own file open when the archive is damaged (a
    truncated ``folds/*.npz`` raises BadZipFile with the handle still open, later a
    ResourceWarning in whatever runs next); given our handle, it closes nothing of ours."""
    import numpy as np

    with open(path, "rb") as handle, np.load(handle, **kwargs) as data:
        yield data
