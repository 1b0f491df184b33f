"""Reading a file named by a path: the one place that opens a user-named file on this machine.

A path typed into a page (Replay's *Follow a file on this machine*) comes from a visitor of a
server that may be shared, so it is read only when, after resolving symlinks and ``..``, it lies
under the data folder the person who started the server configured (environment variable
``AUDIT_DATA_DIR``, docs/deploy.md). The check cannot be raced: the path is resolved once and then
opened one component at a time from the folder with ``O_NOFOLLOW`` (a folder swapped for a symlink
in between is not followed), the opened file's device and inode are checked against the folder's
chain, and a file with a second hard link is refused. Every path read, the command line's included, must be a
regular file: pipes, devices, sockets, folders and the kernel's pseudo files (``/proc``,
``/sys``, ``/dev``) are refused before a byte is read (a FIFO would block the reader, ``/dev/zero``
never end, ``/proc/self/environ`` hold the server's secrets), and a size limit is checked on the
file's size before it is read, so a 3 GB sparse file is refused without allocating anything.
No message quotes the file's content; the path is shown as the user typed it.

:func:`write_file` is the one way an output file (a report, an export) is written.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Mapping
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
    regular file, only for a server that is strictly local); ``reason``: why not offered, in words
    for the visitor (no server path).
    """

    allowed: bool
    folder: Path | None
    reason: str = ""

    def __repr__(self) -> str:
        return f"FileAccess(allowed={self.allowed}, folder={self.folder})"


# Headers a reverse proxy adds: a request carrying one came through another server, so it may come
# from anywhere however local its Host looks.
PROXY_HEADERS = ("forwarded", "x-forwarded-for", "x-forwarded-host", "x-forwarded-proto", "x-real-ip")


def is_loopback_host(host: str | None) -> bool:
    """``host`` (a bind address or a Host header, optionally with a port) names this computer only:
    ``localhost``, ``*.localhost``, ``127.x.y.z`` or ``::1``."""
    value = str(host or "").strip().lower()
    if value.startswith("["):                       # [::1]:8501
        value = value[1: value.find("]")] if "]" in value else value[1:]
    elif value.count(":") == 1:                     # localhost:8501
        value = value.rsplit(":", 1)[0]
    return (value in LOOPBACK_ADDRESSES or value.endswith(".localhost")
            or (value.startswith("127.") and value.replace(".", "").isdigit()))


def strictly_local(server_address: str | None, request_headers: Mapping[str, str] | None) -> bool:
    """A server bound to loopback alone, and (when a request is known) this request addressed to a
    loopback Host with no reverse proxy's forwarding header. A proxy on this machine that rewrites
    Host to ``127.0.0.1`` and adds no forwarding header cannot be told from a browser here, which is
    why docs/deploy.md asks every server behind a proxy to set a data folder."""
    if not is_loopback_host(server_address):
        return False
    if request_headers is None:                     # no request (a call from Python)
        return True
    headers = {str(k).lower(): v for k, v in request_headers.items()}
    return is_loopback_host(headers.get("host")) and not any(h in headers for h in PROXY_HEADERS)


def file_access(data_dir: str | None, server_address: str | None,
                request_headers: Mapping[str, str] | None = None) -> FileAccess:
    """The follow policy of a server: under ``data_dir`` when one is configured (it must be an
    existing folder); with none, any regular file only when the server is strictly local
    (:func:`strictly_local`: bound to 127.0.0.1, localhost or ::1 and, for a page, reached through
    a loopback Host with no proxy in between: a local, single-user run), else not offered."""
    if data_dir is not None and data_dir.strip():
        folder = Path(data_dir.strip()).expanduser()
        if not folder.is_dir():
            return FileAccess(False, None, "the data folder configured for this server does not exist")
        return FileAccess(True, folder.resolve())
    if strictly_local(server_address, request_headers):
        return FileAccess(True, None)
    return FileAccess(False, None, "this server has no data folder configured, so it reads no file by path "
                                   "(uploads still work)")


def _shown(text: str) -> str:
    return repr(text if len(text) <= 120 else text[:117] + "...")


_DIR_FLAGS = os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
# O_NONBLOCK: opening a FIFO must not wait for a writer; O_NOFOLLOW: the last component is no symlink.
_FILE_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


def _same(a: os.stat_result, b: os.stat_result) -> bool:
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def _open_walking(resolved: Path, top: Path, shown: str) -> int:
    """A read-only descriptor of ``resolved`` (symlink-free, under ``top``), opened one component
    at a time from ``top`` with ``openat(..., O_NOFOLLOW)``: a folder swapped for a symlink after
    the path was resolved stops the walk (``ELOOP`` / ``ENOTDIR``) instead of leading out of it.

    Once the file is open, every link of the chain is checked again from the file upwards (each
    descriptor's device and inode are those its name in its parent now has, and the top is still
    ``top``), so a folder moved out of ``top`` during the walk is caught too."""
    parts = resolved.relative_to(top).parts
    if not parts:
        raise InputError(f"{shown}: a folder, not a file")
    chain = [os.open(top, _DIR_FLAGS)]
    try:
        try:
            for part in parts[:-1]:
                chain.append(os.open(part, _DIR_FLAGS, dir_fd=chain[-1]))
            fd = os.open(parts[-1], _FILE_FLAGS, dir_fd=chain[-1])
        except FileNotFoundError:
            raise InputError(f"{shown}: file not found") from None
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                raise InputError(f"{shown}: changed while it was opened (a folder or file replaced by a "
                                 "link); not read") from None
            raise InputError(f"{shown}: cannot be opened ({exc.strerror})") from None
        try:
            ok = _same(os.fstat(fd), os.stat(parts[-1], dir_fd=chain[-1], follow_symlinks=False))
            for i in range(len(chain) - 1, 0, -1):
                ok = ok and _same(os.fstat(chain[i]), os.stat(parts[i - 1], dir_fd=chain[i - 1],
                                                              follow_symlinks=False))
            ok = ok and _same(os.fstat(chain[0]), os.stat(top, follow_symlinks=False))
        except OSError:
            ok = False
        if not ok:
            os.close(fd)
            raise InputError(f"{shown}: changed while it was opened (moved or replaced); not read")
        return fd
    finally:
        for descriptor in chain:
            os.close(descriptor)


def read_file(path: str | os.PathLike, folder: Path | None = None, max_bytes: int | None = None) -> bytes:
    """The bytes of a regular file, read once (a file still growing is read up to its size now).

    The path is resolved once (symlinks and ``..``); the file is then opened by walking that
    resolved path with ``O_NOFOLLOW`` on every component (:func:`_open_walking`), so nothing
    swapped in after the check is followed. ``folder``: the path (relative paths are taken from
    it) must resolve to a file under it, walked from the folder itself, and a file with more than
    one hard link is refused (another name of it may lie outside). ``max_bytes``: a larger file is
    refused from its size alone. Raises :class:`InputError` naming the path as given and the
    reason, never the content.
    """
    text = str(path).strip()
    if not text or "\x00" in text:
        raise InputError("file path: give the path of a file")
    shown = _shown(text)
    given = Path(text) if folder is not None else Path(text).expanduser()
    try:
        # Not strict: a path outside the folder is refused the same way whether it exists or not.
        resolved = (Path(folder) / given if folder is not None else given).resolve()
        top = Path(folder).resolve() if folder is not None else Path(resolved.anchor)
    except (OSError, RuntimeError):  # a symlink loop
        raise InputError(f"{shown}: cannot be resolved (a symlink loop?)") from None
    if folder is not None and not resolved.is_relative_to(top):
        raise InputError(f"{shown}: outside this server's data folder; only files under it can be read")
    if any(resolved.is_relative_to(root) for root in _SYSTEM_ROOTS):
        raise InputError(f"{shown}: a system file, not a data file")
    fd = _open_walking(resolved, top, shown)
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise InputError(f"{shown}: a folder, not a file")
        if not stat.S_ISREG(info.st_mode):
            raise InputError(f"{shown}: not a regular file (a pipe, device or socket)")
        if folder is not None and info.st_nlink > 1:
            raise InputError(f"{shown}: has {info.st_nlink} hard links; a file in the data folder is read only "
                             "when it has no other name (copy it in instead of linking it)")
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
    over it, so a full disk or a Ctrl-C leaves no truncated file (and no temporary one) (:func:`writable_target` first). Any OS error
    (name too long, no permission, no space) is one :class:`InputError` naming the path."""
    target = writable_target(path, what)
    temporary = target.with_name(f".{target.name[:200]}.{os.getpid()}.tmp")
    try:
        with open(temporary, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, target)
    except BaseException as exc:  # also Ctrl-C (KeyboardInterrupt): the temporary file goes too
        with contextlib.suppress(OSError):
            temporary.unlink()
        if isinstance(exc, OSError):
            raise InputError(f"{what} {_shown(str(target))}: cannot be written ({exc.strerror or exc})") from None
        raise
    return target
