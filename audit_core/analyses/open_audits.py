"""The live audits kept open in this process, shared by the live use cases and ``audit status``.

Reopening an audit rebuilds the pool and replays the whole event log (0.8 s for 60 labels on a
10,000-case pool), while an open audit only reads the events appended since its last look, by
anyone (another session, the CLI). Keyed by the database file's identity, so a replaced workspace
is never confused with the old one; each audit has a lock, because Streamlit runs every browser
session in its own thread.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager

from audit_core.errors import InputError
from audit_core.live import LiveAudit, connect
from audit_core.live.store import DB_ERRORS, is_url, resolve_db, workspace_failure

OPEN_AUDITS_KEPT = 8
kept: OrderedDict[tuple, LiveAudit] = OrderedDict()
_audit_locks: dict[tuple, threading.Lock] = {}
registry_lock = threading.Lock()   # guards ``kept`` and the live use cases' own small caches


@contextmanager
def open_audit(audit_id: int, db) -> Iterator[LiveAudit]:
    """The audit ``audit_id`` of workspace ``db``, open and caught up, for this caller alone."""
    path = resolve_db(db)
    if is_url(path):   # a server's database: its URL is its identity
        key = (path, 0, 0, int(audit_id))
    else:
        try:
            info = path.stat()
        except OSError:                        # no workspace there: said so, nothing is created
            raise InputError(f"audit database {path.name}: no workspace there yet (no audit was created in it)") from None
        key = (str(path.resolve()), info.st_dev, info.st_ino, int(audit_id))
    with registry_lock:
        lock = _audit_locks.setdefault(key, threading.Lock())
    with lock:
        with registry_lock:
            audit = kept.get(key)
        try:
            if audit is None:
                audit = LiveAudit(connect(path, shared=True), int(audit_id))
            with registry_lock:
                kept[key] = audit
                kept.move_to_end(key)
                while len(kept) > OPEN_AUDITS_KEPT:
                    # The lock stays (one small object per audit ever opened): dropping it while a thread
                    # holds it would let a second lock admit another thread to the same open audit.
                    kept.popitem(last=False)
            yield audit
        except DB_ERRORS as exc:
            with registry_lock:  # opened again from the database next time
                kept.pop(key, None)
            raise workspace_failure(path, exc) from None


def remembered(cache, key, compute):
    """``cache[key]``, else ``compute()`` kept under ``key`` (``cache``: an OrderedDict holding at most
    four results per open audit, oldest dropped first); the live use cases' small caches of what a
    page draws again on every rerun while an audit has not changed."""
    with registry_lock:
        if key in cache:
            cache.move_to_end(key)
            return cache[key]
    value = compute()
    with registry_lock:
        cache[key] = value
        while len(cache) > 4 * OPEN_AUDITS_KEPT:
            cache.popitem(last=False)
    return value

