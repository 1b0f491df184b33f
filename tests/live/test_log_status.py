"""`audit status` from the event log alone (issue 24): the same status and settings as a replay of
the log through the strategy, for every strategy it reads, with labels, held-out labels, skips,
undos, batches, a stop and a used-up pool; without pandas; and the replay whenever the rows are not
what the workbench writes."""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import subprocess
import sys

import pytest

from audit_core.analyses.live_status import live_audit_status
from audit_core.auditing import AuditorConfig
from audit_core.errors import InputError
from audit_core.live import LiveAudit, connect, store
from audit_core.live.log_status import LOG_STATUS_STRATEGIES, status_from_log
from audit_core.sequential import AuditParams

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _pool_csv(n: int = 14) -> bytes:
    rows = ["case,group,x1,x2,correct"]
    for i in range(n):
        rows.append(f"c{i},{'ab'[i % 2]},{(i * 37 % 11) / 10:.1f},{(i * 13 % 7) / 7:.3f},{int(i % 3 != 0)}")
    return ("\n".join(rows) + "\n").encode()


def _create(db, strategy: str, process: str = "SR-LR-UI", n: int = 14, **params) -> LiveAudit:
    config = AuditorConfig(n_heldout=3, suspects=("a",) if strategy == "informed" else None)
    return LiveAudit.create(connect(db), "pool.csv", strategy, process, seed=5, content=_pool_csv(n),
                            roles={"id": "case", "subgroups": ["group"], "features": ["x1", "x2"]},
                            params=AuditParams.gpqa(n_init=2, **params), config=config)


def _same_as_replay(db, audit_id: int) -> dict:
    """The log-only status equals a fresh replay's, field by field and in the CLI's JSON."""
    conn = connect(db)
    fast = status_from_log(conn, audit_id)
    assert fast is not None
    replay = LiveAudit(conn, audit_id)
    settings, status = fast
    assert status == replay.status()
    assert settings == replay.to_dict()
    assert json.dumps(status.to_dict()) == json.dumps(replay.status().to_dict())
    return status.to_dict()


@pytest.mark.parametrize("strategy", LOG_STATUS_STRATEGIES)
def test_the_log_status_equals_the_replay_through_labels_skips_undos_and_batches(db, strategy):
    audit = _create(db, strategy, budget=8)
    seen = [_same_as_replay(db, audit.audit_id)]             # no event yet
    score = iter([1, 0, 0.5, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1])
    for round_ in range(8):
        cases = audit.next("ann", batch=2)
        seen.append(_same_as_replay(db, audit.audit_id))     # pending, can_undo False
        if not cases:
            break
        first, *rest = cases
        audit.label(first.case_id, next(score), "ann")
        seen.append(_same_as_replay(db, audit.audit_id))
        if round_ == 1:
            audit.undo("ann")                                # pending again, an undo event in the log
            seen.append(_same_as_replay(db, audit.audit_id))
            audit.label(first.case_id, next(score), "ann")
        for case in rest:
            if round_ == 2:
                audit.skip(case.case_id, "unreadable", "ann")
                seen.append(_same_as_replay(db, audit.audit_id))
                audit.undo("ann")                            # a skip undone
                seen.append(_same_as_replay(db, audit.audit_id))
            if round_ in (2, 3):
                audit.skip(case.case_id, "out of scope", "ann")
            else:
                with contextlib.suppress(InputError):        # the test stopped inside the batch
                    audit.label(case.case_id, next(score), "ann")
            seen.append(_same_as_replay(db, audit.audit_id))
    # the walk went through what the status reports, so the comparison above saw each of these
    assert any(s["n_skipped"] for s in seen) and any(s["can_undo"] for s in seen)
    assert any(s["pending"] for s in seen) and seen[-1]["n"] >= 1
    if strategy == "pre-learned":
        assert seen[-1]["n_heldout"] == 3


@pytest.mark.parametrize("strategy", ["stratified", "pre-learned"])
def test_the_log_status_sees_a_used_up_pool_and_a_stop(db, strategy):
    small = _create(db, strategy, n=3, budget=20)     # all correct: three cases are too few to pass
    while cases := small.next("ann"):
        small.label(cases[0].case_id, 1, "ann")
    status = _same_as_replay(db, small.audit_id)
    assert status["exhausted"] and status["done"] and not status["stopped"]
    failing = _create(db, strategy, n=40, budget=30, alpha=0.2)
    while cases := failing.next("ann"):
        failing.label(cases[0].case_id, 0, "ann")
    status = _same_as_replay(db, failing.audit_id)
    assert status["stopped"] and status["decision"] == "failure mode found" and status["stop"] is not None


def test_status_reads_the_log_and_verify_replays_it(db, monkeypatch):
    audit = _create(db, "adaptive")
    (case,) = audit.next("ann")
    audit.label(case.case_id, 1, "ann")
    replays = []
    monkeypatch.setattr(LiveAudit, "status", lambda self, _real=LiveAudit.status: replays.append(1) or _real(self))
    fast = live_audit_status(audit.audit_id, db=db)
    assert replays == []                                     # no audit was opened
    verified = live_audit_status(audit.audit_id, db=db, verify=True)
    assert replays == [1] and fast.status == verified.status and fast.audit == verified.audit
    assert fast.to_dict() == verified.to_dict()


def test_without_the_stored_count_or_for_the_oracle_the_log_is_replayed(tmp_path):
    db = tmp_path / "w.sqlite"   # SQLite alone: the test edits the file with sqlite3 itself
    audit = _create(db, "adaptive")
    raw = sqlite3.connect(db, isolation_level=None)
    raw.execute("UPDATE audits SET cases = NULL")            # an audit created before schema 5
    assert status_from_log(connect(db), audit.audit_id) is None
    assert live_audit_status(audit.audit_id, db=db).status.n == 0     # replayed, and the count stored
    assert raw.execute("SELECT cases FROM audits").fetchone() == (14,)
    assert status_from_log(connect(db), audit.audit_id) is not None
    oracle = LiveAudit.create(connect(db), "pool.csv", "oracle", "LR", content=_pool_csv(), truth="correct",
                              roles={"id": "case", "subgroups": ["group"], "features": ["x1", "x2"]},
                              params=AuditParams.gpqa(n_init=2))
    assert status_from_log(connect(db), oracle.audit_id) is None    # its test parameters come from the truth
    assert live_audit_status(oracle.audit_id, db=db).audit["test_params"] == oracle.to_dict()["test_params"]


def test_a_log_changed_outside_the_workbench_is_reported_as_before(tmp_path):
    db = tmp_path / "w.sqlite"
    audit = _create(db, "adaptive")
    conn = connect(db)
    store.append_event(conn, audit.audit_id, "labelled", "c3", "mallory", score=1.0)   # never proposed
    assert status_from_log(conn, audit.audit_id) is None
    with pytest.raises(InputError, match="which was not proposed"):
        live_audit_status(audit.audit_id, db=db)
    with pytest.raises(InputError, match="no such audit"):
        live_audit_status(99, db=db)
    with pytest.raises(InputError, match="no workspace there yet"):
        live_audit_status(1, db=tmp_path / "none.sqlite")
    assert not (tmp_path / "none.sqlite").exists()


def test_a_proposal_the_strategy_would_not_make_is_caught_by_verify(tmp_path):
    """What the log-only status does not check (docs/cli.md): `--verify`, and every write, do."""
    db = tmp_path / "w.sqlite"
    audit = _create(db, "adaptive")
    (case,) = audit.next("ann")
    other = next(f"c{i}" for i in range(14) if f"c{i}" != case.case_id)
    conn = connect(db)
    audit.label(case.case_id, 1, "ann")
    store.append_event(conn, audit.audit_id, "proposed", other, "mallory", batch=99)
    assert live_audit_status(audit.audit_id, db=db).status.pending == (other,)
    with pytest.raises(InputError, match="the replayed strategy proposes"):
        live_audit_status(audit.audit_id, db=db, verify=True)


def test_audit_status_loads_no_pandas_and_prints_what_the_replay_prints(tmp_path):
    db = tmp_path / "w.sqlite"
    audit = _create(db, "pre-learned")
    for _ in range(5):
        (case,) = audit.next("ann")
        audit.label(case.case_id, 1, "ann")
    audit.undo("ann")
    probe = ("import sys, json; from audit_core.cli import main; code = main(sys.argv[1:]); "
             "heavy = sorted(m for m in ('pandas', 'scipy', 'sklearn', 'ortools', 'altair', 'pyarrow') if m in sys.modules); "
             "print(json.dumps(heavy), file=sys.stderr); sys.exit(code)")
    env = {**os.environ, "PYTHONPATH": ROOT}
    args = ["audit", "status", "--audit", str(audit.audit_id), "--db", str(db), "--json"]
    fast = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, text=True, cwd=ROOT, env=env)
    full = subprocess.run([sys.executable, "-c", probe, *args, "--verify"], capture_output=True, text=True, cwd=ROOT,
                          env=env)
    assert fast.returncode == 0 and full.returncode == 0, fast.stderr + full.stderr
    assert json.loads(fast.stderr.strip().splitlines()[-1]) == []
    assert "pandas" in json.loads(full.stderr.strip().splitlines()[-1])   # the probe can see a heavy import
    assert fast.stdout == full.stdout and json.loads(fast.stdout)["n"] == 1
    text = [subprocess.run([sys.executable, "-m", "audit_core", *args[:-1], *extra], capture_output=True, text=True,
                           cwd=ROOT, env=env).stdout for extra in ((), ("--verify",))]
    assert text[0] == text[1] and "n = 1 of" in text[0]


@pytest.mark.parametrize("pool_size", [3, 14])
def test_a_label_with_the_next_case_shown_replays_the_log_once(tmp_path, monkeypatch, pool_size):
    """`audit label` shows the next case (a select on the strategy's state, which is then thrown
    away): the status it prints is read before that, not from a second replay of the whole log."""
    from audit_core.analyses import live, open_audits

    db = tmp_path / "w.sqlite"
    audit = _create(db, "stratified", n=pool_size, budget=20)
    for _ in range(min(pool_size - 1, 4)):
        (case,) = audit.next("ann")
        audit.label(case.case_id, 1, "ann")
    (case,) = live.claim_cases(audit.audit_id, "ann", db=db).cases     # the last case when pool_size is 3
    replays = []
    monkeypatch.setattr(LiveAudit, "_fresh_state",
                        lambda self, _real=LiveAudit._fresh_state: replays.append(1) or _real(self))
    open_audits.kept.clear()                                # as in a new process
    action = live.record_label(audit.audit_id, case.case_id, 1, "ann", db=db)
    assert len(replays) == 1
    monkeypatch.undo()
    fresh = LiveAudit(connect(db), audit.audit_id)
    assert action.status == fresh.status() and action.audit == fresh.to_dict()
    assert action.status.exhausted == (pool_size == 3) and bool(action.upcoming) == (pool_size != 3)


def test_an_undo_replays_the_log_once_and_reports_what_a_replay_reports(tmp_path, monkeypatch):
    from audit_core.analyses import live, open_audits

    db = tmp_path / "w.sqlite"
    audit = _create(db, "pre-learned", budget=20)
    for score in (1, 0, 1, 1, 0):
        (case,) = audit.next("ann")
        audit.label(case.case_id, score, "ann")
    replays = []
    monkeypatch.setattr(LiveAudit, "_fresh_state",
                        lambda self, _real=LiveAudit._fresh_state: replays.append(1) or _real(self))
    open_audits.kept.clear()                                # as in a new process
    action = live.undo_last_label(audit.audit_id, "ann", db=db)
    assert len(replays) == 1 and action.record.score == 0 and action.undone
    monkeypatch.undo()
    fresh = LiveAudit(connect(db), audit.audit_id)
    assert action.status == fresh.status() and action.audit == fresh.to_dict()
    assert action.status.pending == (action.record.case_id,) and not action.status.can_undo   # a proposal came after the label before it
