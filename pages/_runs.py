"""Visitors' script runs in progress, so background work on a shared server waits for them.

One server serves every visitor from one interpreter: scripts run in threads that share one GIL.
The explorer's warm-up (``_cache.warm_supports``: every support of the bundled class, ~40 s of
CPU on a 2-core machine) ran in a thread beside the pages; while 20 first pages loaded at once it
held the interpreter lock in about half of py-spy's samples, and each page waited for it (issue 18
item 5: 0.23 s of server CPU per first page measured, 0.05 s once the warm-up had finished).
``app.py`` counts every run of the router
(:func:`counted`), and the warm-up computes only while no run is in progress
(:func:`wait_until_idle`): visitors first, the warm-up in the gaps. A fragment rerun (the
explorer's toggles) does not run the router: the page counts it with :func:`counting`.
"""

from __future__ import annotations

import contextlib
import functools
import threading
import time

# Background work starts only once no run has started or ended for this long. After a run, its
# last messages are still being serialised and sent by the server's event loop (same GIL), and a
# visitor clicking through toggles starts the next run within a second: a support being warmed
# when a toggle arrives slows it (each hand-over between the event loop and the script thread
# waits for the interpreter lock), so the warm-up waits for a quiet second.
SETTLE_SECONDS = 1.0

_changed = threading.Condition()
_running = 0
_last_change = 0.0


@contextlib.contextmanager
def counted():
    """Count a script run as in progress while the block runs (``app.py``: the whole router run)."""
    global _running, _last_change
    with _changed:
        _running += 1
        _last_change = time.monotonic()
    try:
        yield
    finally:
        with _changed:
            _running -= 1
            _last_change = time.monotonic()
            _changed.notify_all()


def counting(function):
    """``function`` counted as a run while it runs (a fragment: ``st.fragment(counting(view))``)."""
    @functools.wraps(function)   # the same name and module: Streamlit derives the fragment's id from them
    def counted_function(*args, **kwargs):
        with counted():
            return function(*args, **kwargs)
    return counted_function


def in_progress() -> int:
    """How many router runs are in progress now."""
    return _running


def wait_until_idle(settle: float = SETTLE_SECONDS) -> None:
    """Block (the calling background thread) until no run is in progress and none started or ended
    in the last ``settle`` seconds. Returns at once on an idle server."""
    with _changed:
        while True:
            if _running:
                _changed.wait()
                continue
            quiet = time.monotonic() - _last_change
            if quiet >= settle:
                return
            _changed.wait(settle - quiet)
