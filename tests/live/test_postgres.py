"""PostgreSQL's own guarantees (issue 35): append-only, 8 writers, 30 kills, a restarted server,
one-message errors that never echo the password, and `audit copy` both ways."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest
from conftest import PG_PASSWORD, fresh_database
from test_processes import _go, _labelled, _start, kill_workers

from audit_core import api
from audit_core.errors import InputError
from audit_core.live import LiveAudit, connect, store
from audit_core.sequential import AuditParams


def test_the_event_log_is_append_only_on_postgresql(pg_url):
    conn = connect(pg_url)
    audit = LiveAudit.create(conn, "sdoh", "oracle", "LR", seed=5, truth="correct")
    (p,) = audit.next("ann")
    audit.label(p.case_id, 1.0, "ann")
    for sql in ("UPDATE events SET score = 0", "DELETE FROM events"):
        with pytest.raises(store.DB_ERRORS, match="append-only"):
            conn.execute(sql)
    assert [e.kind for e in store.read_events(conn, audit.audit_id)] == ["proposed", "labelled"]
    assert conn.execute("PRAGMA user_version").fetchone()[0] == store.SCHEMA_VERSION
    connect(pg_url)   # a second connect finds the schema current and migrates nothing
    assert conn.execute("SELECT COUNT(*) FROM schema_version").fetchone()[0] == 1


def test_a_newer_schema_on_the_server_is_refused_with_one_message(pg_url):
    conn = connect(pg_url)
    conn.execute(f"UPDATE schema_version SET version = {store.SCHEMA_VERSION + 1}")
    with pytest.raises(InputError, match="newer than this workbench"):
        connect(pg_url)


def test_thirty_killed_writers_lose_no_acknowledged_label_on_postgresql(pg_url):
    kill_workers(pg_url, kills=30, seed=35)


def test_eight_concurrent_writers_never_share_a_case(pg_url):
    conn = connect(pg_url)
    audit = LiveAudit.create(conn, "gpqa:none", "adaptive", "SR-LR-UI", seed=2,
                             params=AuditParams.gpqa(m=1000, budget=160), truth="correct")
    names = [f"w{i}" for i in range(8)]
    procs = {name: _start(pg_url, audit.audit_id, name, 1 + i % 3) for i, name in enumerate(names)}
    for proc in procs.values():
        _go(proc)
    outputs = {name: proc.communicate(timeout=600) for name, proc in procs.items()}
    for name, proc in procs.items():
        assert proc.returncode == 0, outputs[name][1]
    acks = {name: [ln[4:] for ln in out.splitlines() if ln.startswith("ack ")] for name, (out, _) in outputs.items()}
    everyone = [c for name in names for c in acks[name]]
    assert len(everyone) == len(set(everyone)) == 160           # no case labelled by two writers
    assert sum(1 for name in names if acks[name]) >= 4           # the writers really ran together
    events = store.read_events(conn, audit.audit_id)
    proposed = [e.case_id for e in events if e.kind == "proposed"]
    assert len(proposed) == len(set(proposed))                   # no case ever claimed twice
    assert sorted(_labelled(conn, audit.audit_id)) == sorted(everyone)
    assert LiveAudit(connect(pg_url), audit.audit_id).status().n == 160


def test_a_restarted_server_fails_one_write_with_one_message_and_then_resumes(postgres):
    url = fresh_database(postgres)
    audit = LiveAudit.create(connect(url), "sdoh", "oracle", "LR", seed=5, truth="correct")
    (p,) = audit.next("ann")
    audit.label(p.case_id, 1.0, "ann")
    postgres.stop()
    try:
        with pytest.raises(InputError, match="cannot be reached") as failure:
            api.audit_next(audit.audit_id, annotator="ann", db=url)
        assert "\n" not in str(failure.value) and "Traceback" not in str(failure.value)
        with pytest.raises(store.DB_ERRORS):   # an open audit's write fails too, recording nothing
            audit.next("ann")
    finally:
        postgres.start()
    (q,) = audit.next("ann")                  # the same open audit resumes on a new connection
    audit.label(q.case_id, audit.truth(q.case_id), "ann")
    reopened = LiveAudit(connect(url), audit.audit_id)
    assert [r.case_id for r in reopened.labels()] == [p.case_id, q.case_id]


def test_unreachable_server_and_wrong_password_say_one_line_without_the_password(postgres, tmp_path):
    wrong = postgres.url("auditpw", user="auditpw", password="not-" + PG_PASSWORD)
    with pytest.raises(InputError, match="refused the credentials") as failure:
        connect(wrong)
    assert "not-" + PG_PASSWORD not in str(failure.value)
    assert connect(postgres.url("auditpw", user="auditpw", password=PG_PASSWORD)) is not None
    nowhere = f"postgresql://auditpw:{PG_PASSWORD}@/postgres?host={tmp_path}"
    with pytest.raises(InputError, match="cannot be reached") as failure:
        connect(nowhere)
    assert PG_PASSWORD not in str(failure.value)
    result = subprocess.run([sys.executable, "-m", "audit_core", "audit", "list", "--db", nowhere],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and "Traceback" not in result.stderr and PG_PASSWORD not in result.stderr
    assert "cannot be reached" in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_audit_copy_file_to_server_and_back_replays_to_the_same_decision(pg_url, tmp_path):
    source = tmp_path / "a.sqlite"
    audit = LiveAudit.create(connect(source), "sdoh", "oracle", "LR", seed=5, truth="correct")
    while (proposals := audit.next("ann")):
        for p in proposals:
            audit.label(p.case_id, audit.truth(p.case_id), "ann")
    (p,) = LiveAudit.create(connect(source), "gpqa:large", "adaptive", "SR-LR-UI", seed=1,
                            params=AuditParams.gpqa(budget=50), truth="correct").next("bob")
    copied = api.audit_copy(source, pg_url)
    assert [r["source_id"] for r in copied] == [1, 2]
    assert copied[0]["decision"] == audit.status().decision and copied[0]["events"] > 2
    back = tmp_path / "b.sqlite"
    result = subprocess.run([sys.executable, "-m", "audit_core", "audit", "copy", "--from", pg_url, "--to",
                             str(back), "--json"], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    for target in (pg_url, back):
        conn = connect(target)
        for original_id, row in ((1, copied[0]), (2, copied[1])):
            original = store.read_events(connect(source), original_id)
            again = store.read_events(conn, row["target_id"])
            assert [e.to_dict() | {"id": 0} for e in again] == [e.to_dict() | {"id": 0} for e in original]
        status = LiveAudit(conn, copied[0]["target_id"]).status()
        assert (status.decision, status.n, status.stop) == (audit.status().decision, audit.status().n,
                                                             audit.status().stop)
        assert LiveAudit(conn, copied[1]["target_id"]).status().pending == (p.case_id,)
    assert store.audit_row(connect(back), 1)["sha256"] == store.audit_row(connect(source), 1)["sha256"]


def test_opening_the_workspace_to_read_waits_for_no_writer_on_postgresql(pg_url):
    """A connection that finds the schema current takes no write lock: ``audit status`` and every
    page's reading open of the workspace go on while another program holds the write lock (before,
    connect read the version inside the lock and waited for it, then failed after the lock wait)."""
    from audit_core.analyses import live_audit_status, open_audits

    conn = connect(pg_url)
    audit = LiveAudit.create(conn, "sdoh", "oracle", "LR", seed=5, truth="correct")
    (p,) = audit.next("ann")
    audit.label(p.case_id, 1.0, "ann")
    holder = connect(pg_url)
    open_audits.kept.clear()
    with store.write_transaction(holder):
        started = time.monotonic()
        status = live_audit_status(audit.audit_id, db=pg_url).status
        waited = time.monotonic() - started
    assert status.n == 1 and waited < store.LOCK_WAIT_SECONDS / 2, waited


def test_a_full_disk_on_the_server_is_one_message_and_loses_nothing(pg_url, monkeypatch):
    """The server's 'could not extend file' (SQLSTATE 53100, disk full) during a label: one message
    that says nothing was recorded, as on SQLite, and the label goes in once there is room."""
    import psycopg

    from audit_core.analyses import live, open_audits
    from audit_core.live import backend

    audit_id = live.start_live_audit("sdoh", "oracle", "LR", seed=5, truth="correct", db=pg_url).audit["audit_id"]
    (case,) = live.claim_cases(audit_id, "ann", db=pg_url).cases
    real = store.append_event

    def full(*args, **kwargs):   # as PgConnection raises what the server said
        raise backend.PgError(psycopg.errors.DiskFull("could not extend file base/16384/16390: No space left on device"))
    monkeypatch.setattr(store, "append_event", full)
    with pytest.raises(InputError, match="the server's disk is full .* nothing was recorded and nothing recorded "
                                         "before was lost"):
        live.record_label(audit_id, case.case_id, 1, "ann", db=pg_url)
    monkeypatch.setattr(store, "append_event", real)
    open_audits.kept.clear()
    assert live.live_audit_status(audit_id, db=pg_url).status.n == 0
    assert live.record_label(audit_id, case.case_id, 1, "ann", db=pg_url).status.n == 1
