"""Where a study's audits run: the local process pool (default) or a Dask cluster.

Every audit is a pure function of (pool, rows, params, config, seed, replicate, row) (see
:mod:`audit_core.auditing.units` for the seeding), so any backend, worker count or completion
order gives the same records; only the measured ``seconds`` differ.

Dask (``dask.distributed``): with no address a ``LocalCluster`` on 127.0.0.1 is started for the
study (``n_workers`` single-threaded worker processes, no dashboard) and closed afterwards; with
``address`` (``tcp://HOST:PORT``) an existing scheduler is used and left running; an existing
``distributed.Client`` can be passed directly. The pool and the settings are scattered to the
workers once; units go out in chunks and ``progress(done, total)`` is called as each chunk's
future completes. Ray would fit the same shape (``ray.remote`` tasks over chunks); it is not a
dependency.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence

BACKENDS = ("local", "dask")


def chunked(units: Sequence, n_workers: int, largest: int = 64) -> list[list]:
    """Units in chunks: small enough to keep every worker busy to the end, large enough to pay
    for a task's scheduling overhead (about a millisecond on Dask)."""
    size = max(1, min(largest, len(units) // (max(1, n_workers) * 8) or 1))
    return [list(units[i:i + size]) for i in range(0, len(units), size)]


def _dask_chunk(units, pool, rows, params, config, seed):
    from audit_core.auditing.units import run_unit

    return [run_unit(pool, rows, params, config, seed, r, j) for r, j in units]


@contextlib.contextmanager
def dask_client(address: str | None = None, n_workers: int = 2, client=None):
    """A ``distributed.Client``: the one given, one connected to ``address``, or one on a fresh
    ``LocalCluster`` (closed on exit)."""
    from audit_core.errors import InputError

    if client is not None:
        yield client
        return
    try:
        from distributed import Client, LocalCluster
    except ImportError:  # pragma: no cover - dask[distributed] is in requirements.txt
        raise InputError("backend dask: the dask[distributed] package is not installed") from None
    if address is not None:
        if not str(address).startswith(("tcp://", "tls://", "inproc://")):
            raise InputError(f"dask address: expected tcp://HOST:PORT, got {address!r}")
        try:
            with Client(address, timeout="10s") as connected:
                yield connected
        except OSError as exc:
            raise InputError(f"dask address {address}: no scheduler reachable ({exc})") from None
        return
    with LocalCluster(n_workers=max(1, n_workers), threads_per_worker=1, host="127.0.0.1",
                      dashboard_address=None, silence_logs=40) as cluster, Client(cluster) as local:
        yield local


def run_units_dask(units, pool, rows, params, config, seed, progress: Callable[[int, int], None] | None = None,
                   address: str | None = None, n_workers: int = 2, client=None) -> list[dict]:
    """The records of ``units`` ((replicate, row) pairs) computed on Dask, in completion order."""
    from distributed import as_completed

    with dask_client(address, n_workers, client) as c:
        workers = max(1, len(c.scheduler_info().get("workers", {})) or n_workers)
        # hash=False: keys unique to this call. Content-hashed keys are shared by every study that
        # scatters equal settings on one client, and the release of an earlier study's futures
        # could then drop data this study depends on ("lost dependencies", seen in CI).
        shared = c.scatter([pool, rows, params, config], broadcast=True, hash=False)
        futures = [c.submit(_dask_chunk, chunk, *shared, seed, pure=False) for chunk in chunked(units, workers)]
        records: list[dict] = []
        total = len(units)
        for future in as_completed(futures):
            part = future.result()
            records.extend(part)
            if progress:
                progress(len(records), total)
        return records
