"""Results kept on disk between processes, computed at their first use (issue 30).

A fresh server's first page, the protocol explorer on the bundled class, would otherwise import
Altair and solve CP-SAT problems for its two charts and its suggestions, the same for every server
started with the same code. :func:`cached` keeps such a result as one JSON file of plain data, named
by the SHA-256 of everything it is computed from: its kind, its inputs (plain JSON values), the
package version and a stamp of the package's code (the size and modification time of every module,
so an edit in a checkout is never served an older result). No file is committed and nothing needs
regenerating: a missing, unreadable, corrupt or foreign entry (another key inside, a value the
caller's ``decode`` refuses) is computed again and rewritten; a folder that cannot be written only
means computing every time. Entries are written to a temporary file then moved into place
(``os.replace``), so a reader never sees half an entry.

The folder is ``$AUDIT_CACHE_DIR``; unset, ``$XDG_CACHE_HOME/audit-workbench`` (default
``~/.cache/audit-workbench``); ``AUDIT_CACHE_DIR=off`` (or empty) keeps nothing on disk. Entries are
plain JSON, never pickles, so a file placed in the folder cannot run code; the folder is made
readable by its owner only (like ``$AUDIT_HOME``), and only results of the bundled data are kept, so
a visitor's upload never reaches the disk.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

ENV = "AUDIT_CACHE_DIR"
OFF = ("", "off", "none", "0")
T = TypeVar("T")


def folder() -> Path | None:
    """Where entries are kept (None: nowhere)."""
    value = os.environ.get(ENV)
    if value is not None:
        return None if value.strip().lower() in OFF else Path(value).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "audit-workbench"


@functools.lru_cache(maxsize=1)
def code_stamp() -> str:
    """The package version with the size and modification time of each of its modules (one
    ``stat`` per module, ~1 ms): a result is only read back by the code that computed it."""
    from audit_core import __version__

    package = Path(__file__).resolve().parent
    digest = hashlib.sha256(__version__.encode())
    for path in sorted(package.rglob("*.py")):
        stat = path.stat()
        digest.update(f"{path.relative_to(package)}:{stat.st_size}:{stat.st_mtime_ns}".encode())
    return digest.hexdigest()


def package_version(name: str) -> str:
    """An installed package's version, read without importing it ("none" when it is not installed):
    for the inputs of a result that depends on that package (a chart on Altair's, a solve on OR-Tools')."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return "none"


def entry_key(kind: str, inputs: Any) -> str:
    """The SHA-256 naming the entry of ``kind`` for ``inputs`` with this code."""
    text = json.dumps({"kind": kind, "inputs": inputs, "code": code_stamp()}, sort_keys=True,
                      separators=(",", ":"), default=str, ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def cached(kind: str, inputs: Any, compute: Callable[[], T], encode: Callable[[T], Any] = lambda v: v,
           decode: Callable[[Any], T] = lambda v: v) -> T:
    """The kept result of ``kind`` for ``inputs`` (``decode`` of its JSON value), else
    ``compute()``, kept for next time as ``encode`` of it. ``decode`` may raise (KeyError,
    TypeError, ValueError) on a value it does not recognise: the entry is then computed again."""
    base = folder()
    if base is None:
        return compute()
    key = entry_key(kind, inputs)
    path = base / kind / f"{key}.json"
    try:
        entry = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(entry, dict) and entry.get("key") == key and entry.get("kind") == kind:
            return decode(entry["value"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError, IndexError):
        pass   # missing, unreadable or not ours: computed again below
    value = compute()
    _write(path, {"kind": kind, "key": key, "value": encode(value)})
    return value


def _write(path: Path, entry: dict) -> None:
    try:
        path.parent.parent.mkdir(mode=0o700, parents=True, exist_ok=True)   # the folder: its owner's only
        path.parent.mkdir(mode=0o700, exist_ok=True)
        text = json.dumps(entry, sort_keys=True, ensure_ascii=False, default=str)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".json", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(text)
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
    except (OSError, TypeError, ValueError):
        pass   # a folder that cannot be written: the result is computed again next time
