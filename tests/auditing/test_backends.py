"""Dask backend: identical results whatever the backend and worker count; progress as futures finish."""

import pytest

from audit_core.auditing import load_pool, paper_params, run_study
from audit_core.auditing.backends import chunked
from audit_core.auditing.plan import plan_audit
from audit_core.errors import InputError

distributed = pytest.importorskip("distributed")

ROWS = [("adaptive", "SR-LR-UI"), ("stratified", "LR"), ("oracle", "LR")]
PARAMS = paper_params("gpqa", budget=60)


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, host="127.0.0.1",
                                  protocol="tcp://", dashboard_address=None, silence_logs=40) as cluster, \
            distributed.Client(cluster) as c:
        yield c


def _same(a, b):
    columns = [c for c in a.results.columns if c not in ("seconds", "cases")]
    assert a.results[columns].equals(b.results[columns])
    assert all((x == y).all() for x, y in zip(a.results["cases"], b.results["cases"], strict=False))
    summary = [c for c in a.summary.columns if c != "seconds_per_audit"]
    assert a.summary[summary].equals(b.summary[summary])


def test_dask_equals_local_serial_and_parallel(client):
    pool = load_pool("gpqa:small")
    serial = run_study(pool, ROWS, 5, PARAMS, seed=11, jobs=1)
    parallel = run_study(pool, ROWS, 5, PARAMS, seed=11, jobs=2)
    seen = []
    on_dask = run_study(pool, ROWS, 5, PARAMS, seed=11, backend="dask", client=client,
                        progress=lambda done, total: seen.append((done, total)))
    _same(serial, parallel)
    _same(serial, on_dask)
    assert seen[-1] == (15, 15) and [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_dask_by_address_and_worker_count(client):
    pool = load_pool("gpqa:small")
    address = client.scheduler.address
    assert address.startswith("tcp://127.0.0.1:")
    by_address = run_study(pool, ROWS[:2], 4, PARAMS, seed=2, backend="dask", address=address)
    one_worker = run_study(pool, ROWS[:2], 4, PARAMS, seed=2, jobs=1)
    _same(by_address, one_worker)


def test_plan_on_dask_equals_local(client):
    pool = load_pool("gpqa:large")
    local = plan_audit(pool, "stratified", "LR", PARAMS, replicates=6, seed=5, jobs=1)
    remote = plan_audit(pool, "stratified", "LR", PARAMS, replicates=6, seed=5, backend="dask", client=client)
    assert local.curves.equals(remote.curves) and local.budget_table.equals(remote.budget_table)
    assert local.labels_needed.equals(remote.labels_needed)


def test_bad_backend_and_address():
    pool = load_pool("gpqa:small")
    with pytest.raises(InputError, match="backend"):
        run_study(pool, ROWS[:1], 1, PARAMS, backend="spark")
    with pytest.raises(InputError, match="address"):
        run_study(pool, ROWS[:1], 1, PARAMS, backend="dask", address="localhost:1")


def test_chunks_cover_every_unit_once():
    units = [(r, j) for r in range(50) for j in range(3)]
    chunks = chunked(units, 2)
    assert [u for c in chunks for u in c] == units and max(map(len, chunks)) <= 64
