"""Following a run while it is written: read the file again whenever it changes and replay it.

An Inspect AI ``.eval`` log is rewritten while the evaluation runs (status ``started``) and gets
its final status (``success``, ``error``, ``cancelled``) when it ends; a labelled CSV or lm-eval
samples file just grows. :func:`follow_run` polls the file's size and modification time every
``every`` seconds, replays each new version, and ends when the log records a final status or
when the file has not changed for ``idle`` seconds. A version that cannot be read (a half-written
file, caught between two writes) is reported and the last good replay kept; the next change is
read again. Every replay is of the samples finished at that moment, in the order replay uses, so
the decision shown at each reading is the one an auditor stopping then would have (the
e-processes are valid at any such data-dependent time).
"""

from __future__ import annotations

import datetime as dt
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from audit_core.errors import InputError

RUNNING = "started"  # an Inspect log's status while the evaluation runs


@dataclass(frozen=True, repr=False)
class Reading:
    """One reading of a followed file: ``number`` (1, 2, ...), ``at`` (local time, HH:MM:SS),
    ``size`` in bytes, ``status`` (an Inspect log's run status, else None), and either ``view``
    (what ``replay`` returned for this version) or ``error`` (why this version could not be read;
    the previous view still holds)."""

    number: int
    at: str
    size: int
    status: str | None
    view: object | None = field(default=None)
    error: str | None = None

    @property
    def finished(self) -> bool:
        """The log records that its run ended (not for a CSV or lm-eval file, which cannot say)."""
        return self.error is None and self.status is not None and self.status != RUNNING

    def __repr__(self) -> str:
        what = f"error={self.error!r}" if self.error else f"status={self.status!r}"
        return f"Reading(number={self.number}, at={self.at}, size={self.size}, {what})"


def _state(path: Path) -> tuple[int, int] | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return stat.st_mtime_ns, stat.st_size


def follow_run(path: str | os.PathLike, replay: Callable[[object], object], every: float = 2.0, idle: float = 60.0,
               sleep: Callable[[float], None] = time.sleep, clock: Callable[[], float] = time.monotonic
               ) -> Iterator[Reading]:
    """Yield a :class:`Reading` for the file at ``path`` now and after each change (module doc).
    ``replay`` turns a run source (:func:`audit_core.analyses.run_source`) into a view; it may
    raise InputError for a version that cannot be read."""
    from audit_core.analyses.sources import run_source
    from audit_core.data.sources import run_status_of

    if not isinstance(every, (int, float)) or not every > 0 or not isinstance(idle, (int, float)) or not idle > 0:
        raise InputError(f"follow: the polling interval and the idle time must be positive seconds, got {every!r} "
                         f"and {idle!r}")
    path = Path(path)
    if not path.is_file():
        raise InputError(f"follow: {path.name!r} is not a file (follow one log or CSV)")
    seen, changed_at, number = None, clock(), 0
    while True:
        state = _state(path)
        if state is not None and state != seen:
            seen, changed_at, number = state, clock(), number + 1
            at = dt.datetime.now().strftime("%H:%M:%S")
            try:
                raw = path.read_bytes()
                source = run_source(raw, name=path.name, check=False)
                reading = Reading(number, at, len(raw), run_status_of(raw, path.name), view=replay(source))
            except InputError as exc:
                reading = Reading(number, at, state[1], None, error=str(exc))
            yield reading
            if reading.finished:
                return
        elif clock() - changed_at >= idle:
            return
        sleep(every)
