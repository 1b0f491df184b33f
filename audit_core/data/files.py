"""Reading a file named by a path: the one place that opens a user-named file on this machine.

A path typed into a page (Replay's *Follow a file on this machine*) comes from a visitor of a
server that may be shared, so it is read only when, after resolving symlinks and ``..``, it lies
under the data folder the person who started the server configured (environment variable
``AUDIT_DATA_DIR``, docs/deploy.md). Every path read, the command line's included, must be a
regular file: pipes, devices, sockets, folders and the kernel's pseudo files (``/proc``,
``/sys``, ``/dev``) are refused before a byte is read (a FIFO would block the reader, ``/dev/zero``
never end, ``/proc/self/environ`` hold the server's secrets), and a size limit is checked on the
file's size before it is read, so a 3 GB sparse file is refused without allocating anything.
No message quotes the file's content; the path is shown as the user typed it.

:func:`write_file` is the one way an output file (a report, an export) is written.
"""

from __future__ import annotations

import contextlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from audit_core.errors import InputError

DATA_DIR_ENV = "AUDIT_DATA_DIR"
MAX_FOLLOW_BYTES = 50 * 2**20  # as Streamlit's upload limit (server.maxUploadSize = 50 MB)
LOOPBACK_ADDRESSES = frozenset({"127.0.0.1", "localhost", "::1"})
_SYSTEM_ROOTS = (Path("/proc"), Path("/sys"), Path("/dev"))
_SQLITE_MAGIC = b"SQLite format 3\x00"


@dataclass(frozen=True)
class FileAccess:
    """Whether a server lets its visitors follow files, and where.

    ``allowed``: the option is offered at all; ``folder``: files must resolve under it (None: any
    regular file, only for a server bound to this machine's loopback address); ``reason``: why not
    offered, in words for the visitor (no server path).
    """

    allowed: bool
    folder: Path | None
    reason: str = ""

    def __repr__(self) -> str:
        return f"FileAccess(allowed={self.allowed}, folder={self.folder})"


def file_access(data_dir: str | None, server_address: str | None) -> FileAccess:
    """The follow policy of a server: under ``data_dir`` when one is configured (it must be an
    existing folder); with none, any regular file only when the server listens on loopback alone
    (``server.address`` 127.0.0.1, localhost or ::1: a local, single-user run), else not offered."""
    if data_dir is not None and data_dir.strip():
        folder = Path(data_dir.strip()).expanduser()
        if not folder.is_dir():
            return FileAccess(False, None, "the data folder configured for this server does not exist")
        return FileAccess(True, folder.resolve())
    if (server_address or "").strip().strip("[]") in LOOPBACK_ADDRESSES:
        return FileAccess(True, None)
    return FileAccess(False, None, "this server has no data folder configured, so it reads no file by path "
                                   "(uploads still work)")


def _shown(text: str) -> str:
    return repr(text if len(text) <= 120 else text[:117] + "...")


def read_file(path: str | os.PathLike, folder: Path | None = None, max_bytes: int | None = None) -> bytes:
    """The bytes of a regular file, read once (a file still growing is read up to its size now).

    ``folder``: the path (relative paths are taken from it) must resolve, symlinks and ``..``
    included, to a file under it. ``max_bytes``: a larger file is refused from its size alone.
    Raises :class:`InputError` naming the path as given and the reason, never the content.
    """
    text = str(path).strip()
    if not text or "\x00" in text:
        raise InputError("file path: give the path of a file")
    shown = _shown(text)
    given = Path(text) if folder is not None else Path(text).expanduser()
    try:
        # Not strict: a path outside the folder is refused the same way whether it exists or not.
        resolved = (Path(folder) / given if folder is not None else given).resolve()
    except (OSError, RuntimeError):  # a symlink loop
        raise InputError(f"{shown}: cannot be resolved (a symlink loop?)") from None
    if folder is not None and not resolved.is_relative_to(Path(folder).resolve()):
        raise InputError(f"{shown}: outside this server's data folder; only files under it can be read")
    if any(resolved.is_relative_to(root) for root in _SYSTEM_ROOTS):
        raise InputError(f"{shown}: a system file, not a data file")
    try:
        # O_NONBLOCK: opening a FIFO must not wait for a writer; O_NOFOLLOW: no symlink swapped in
        # since the path was resolved.
        fd = os.open(resolved, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise InputError(f"{shown}: file not found") from None
    except OSError as exc:
        raise InputError(f"{shown}: cannot be opened ({exc.strerror})") from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise InputError(f"{shown}: a folder, not a file")
        if not stat.S_ISREG(info.st_mode):
            raise InputError(f"{shown}: not a regular file (a pipe, device or socket)")
        if max_bytes is not None and info.st_size > max_bytes:
            raise InputError(f"{shown}: {info.st_size / 2**20:,.0f} MB, larger than the limit of "
                             f"{max_bytes / 2**20:,.0f} MB")
        with os.fdopen(os.dup(fd), "rb") as handle:
            data = handle.read(info.st_size)
    except OSError as exc:
        raise InputError(f"{shown}: cannot be read ({exc.strerror})") from None
    finally:
        os.close(fd)
    if data.startswith(_SQLITE_MAGIC):
        raise InputError(f"{shown}: a SQLite database (a workspace?), not a data file")
    return data


def writable_target(path: str | os.PathLike, what: str = "output file") -> Path:
    """``path`` if a file may be written there: an existing target must be a regular file (a
    folder, a device such as ``/dev/full``, a FIFO that would block, or a kernel file under
    ``/proc``/``/sys``/``/dev`` is refused). Checked before the work that produces the file."""
    target = Path(path)
    shown = _shown(str(target))
    try:
        if any(target.resolve().is_relative_to(root) for root in _SYSTEM_ROOTS):
            raise InputError(f"{what} {shown}: a system path, not a place for a file")
        if target.is_dir():
            raise InputError(f"{what} {shown}: a folder; give a file name")
        if target.exists() and not target.is_file():
            raise InputError(f"{what} {shown}: not a regular file (a device, pipe or socket)")
    except OSError as exc:  # e.g. a name longer than the file system allows
        raise InputError(f"{what} {shown}: cannot be written ({exc.strerror or exc})") from None
    return target


def write_file(path: str | os.PathLike, data: bytes, what: str = "output file") -> Path:
    """Write ``data`` to ``path`` whole or not at all: into a temporary file beside it, then renamed
    over it, so a full disk leaves no truncated file (:func:`writable_target` first). Any OS error
    (name too long, no permission, no space) is one :class:`InputError` naming the path."""
    target = writable_target(path, what)
    temporary = target.with_name(f".{target.name[:200]}.{os.getpid()}.tmp")
    try:
        with open(temporary, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, target)
    except OSError as exc:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise InputError(f"{what} {_shown(str(target))}: cannot be written ({exc.strerror or exc})") from None
    return target
