"""Issue 18, item 3: live-audit pools are bounded, and the auditor's model is built without
whole-pool temporaries.

Before: a 30 MB pool made ``audit new`` take 2.9 GB and every ``next`` 16 s and 2.8 GB (the
model's design, 8 members x 49 columns x 8 bytes per case, was built from three whole-pool
temporaries), and every uploaded pool was stored with no quota."""

import sqlite3
import tracemalloc

import numpy as np
import pytest

from audit_core.auditing.model import OnlineEnsemble
from audit_core.cli import main
from audit_core.errors import InputError
from audit_core.live import pool as live_pool
from audit_core.live import store
from audit_core.live.session import LiveAudit


def _pool_csv(n: int, seed: int = 0) -> bytes:
    rng = np.random.default_rng(seed)
    rows = [f"c{i},g{i % 5},{rng.normal():.4f},{rng.normal():.4f}" for i in range(n)]
    return ("case_id,grp,f1,f2\n" + "\n".join(rows) + "\n").encode()


def test_design_is_built_in_blocks_bitwise_as_the_whole_pool_formula_with_little_extra_memory():
    x = np.random.default_rng(3).standard_normal((20_000, 16))
    tracemalloc.start()
    model = OnlineEnsemble(x, np.random.default_rng(1))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 1.3 * model.phi.nbytes  # whole-pool temporaries peaked near 3x
    rng = np.random.default_rng(1)  # the formula the model documents, on the whole pool at once
    w = rng.standard_normal((8, 16, 32)) / 4.0
    b = rng.uniform(-1.0, 1.0, size=(8, 1, 32))
    hidden = np.tanh(np.einsum("nd,kdh->knh", x, w) + b) / np.sqrt(32)
    whole = np.concatenate([np.ones((8, len(x), 1)), np.broadcast_to(x / 4.0, (8, len(x), 16)), hidden], axis=2)
    assert np.array_equal(model.phi, whole)


def test_a_30_mb_pool_file_is_refused_before_it_is_read(tmp_path, capsys):
    path = tmp_path / "pool30.csv"
    with open(path, "wb") as f:
        f.truncate(30 * 2**20)  # sparse: the size alone must refuse it
    assert main(["audit", "new", "--pool", str(path), "--db", str(tmp_path / "w.sqlite")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"at most {live_pool.MAX_POOL_BYTES // 2**20} MB" in err[0]


def test_an_upload_over_the_size_quota_is_refused(tmp_path):
    conn = store.connect(tmp_path / "w.sqlite")
    with pytest.raises(InputError, match="at most 20 MB"):
        LiveAudit.create(conn, "big.csv", content=b"x" * (live_pool.MAX_POOL_BYTES + 1))


def test_a_pool_over_the_case_limit_is_refused_naming_it(tmp_path):
    conn = store.connect(tmp_path / "w.sqlite")
    with pytest.raises(InputError, match=f"at most {live_pool.MAX_POOL_CASES:,} cases"):
        LiveAudit.create(conn, "many.csv", content=_pool_csv(live_pool.MAX_POOL_CASES + 1), strategy="stratified",
                         process="LR")


def test_the_workspace_quota_counts_stored_pools_and_not_a_pool_stored_again(tmp_path, monkeypatch):
    first, second = _pool_csv(300, 1), _pool_csv(300, 2)
    monkeypatch.setattr("audit_core.live.session.MAX_WORKSPACE_POOL_BYTES", len(first) + len(second) - 1)
    conn = store.connect(tmp_path / "w.sqlite")
    LiveAudit.create(conn, "a.csv", content=first, strategy="stratified", process="LR")
    LiveAudit.create(conn, "a.csv", content=first, strategy="stratified", process="LR")  # stored once
    with pytest.raises(InputError, match="the workspace already stores"):
        LiveAudit.create(conn, "b.csv", content=second, strategy="stratified", process="LR")
    assert sqlite3.connect(tmp_path / "w.sqlite").execute("SELECT COUNT(*) FROM pools").fetchone()[0] == 1
