"""The workspace database: WAL, durability settings, append-only log, schema version and migration.

The append-only log and the migration of an old workspace run on both stores (the ``db`` fixture);
the rest is SQLite's file itself (WAL, PRAGMAs, a file written by an old schema with sqlite3, a
non-database file); PostgreSQL's own counterparts are in test_postgres.py."""

import sqlite3

import pytest

from audit_core.auditing import AuditorConfig, make_sampler
from audit_core.errors import InputError
from audit_core.live import LiveAudit, connect, default_db_path, list_audits, store
from audit_core.live.pool import build_live_pool, pool_source, resolve_roles, sha256
from audit_core.sequential import AuditParams
from tests.live.helpers import label_to_end

GPQA = AuditParams.gpqa(n_init=2)


def test_wal_full_sync_and_current_schema(tmp_path):
    conn = connect(tmp_path / "w.sqlite")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2          # FULL
    assert conn.execute("PRAGMA user_version").fetchone()[0] == store.SCHEMA_VERSION == 7
    assert {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")} >= {
        "pools", "audits", "events"}


def test_default_path_is_inside_audit_home(tmp_path, monkeypatch):
    monkeypatch.setenv("AUDIT_HOME", str(tmp_path / "home"))
    assert default_db_path() == tmp_path / "home" / "audits.sqlite"
    connect()
    assert (tmp_path / "home" / "audits.sqlite").is_file()


def test_the_event_log_is_append_only(db):
    conn = connect(db)
    audit = LiveAudit.create(conn, "gpqa:large", "stratified", "LR", seed=0, params=GPQA, truth="correct")
    label_to_end(audit, limit=2)
    with pytest.raises(store.DB_ERRORS, match="append-only"):
        conn.execute("UPDATE events SET score = 0")
    with pytest.raises(store.DB_ERRORS, match="append-only"):
        conn.execute("DELETE FROM events")
    assert [a["labels"] for a in list_audits(conn)] == [2]


def _v1_workspace(path):
    """A workspace written by schema 1: proposals without a batch column."""
    conn = connect(path, migrate_to=1)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 1
    name, content, roles = pool_source("gpqa:large")
    resolved = resolve_roles(content, name, roles, "correct")
    resolved["style"] = "gpqa"
    with store.write_transaction(conn):
        pool_id = store.store_pool(conn, name, content, sha256(content))
        audit_id = store.insert_audit(conn, pool_id, "gpqa:large", resolved, GPQA.to_dict(), "adaptive", "LR", 3,
                                      {"scenario": "pool"})
    return conn, audit_id


def test_a_schema_1_workspace_is_migrated_and_its_audit_resumes(db):
    path = db
    conn, audit_id = _v1_workspace(path)
    name, content, _ = pool_source("gpqa:large")
    resolved = store.audit_row(conn, audit_id)["roles"]
    pool, _ = build_live_pool(content, name, resolved)
    sampler = make_sampler("adaptive", pool, GPQA, 3, AuditorConfig(), "LR")
    for _ in range(3):   # three labels written the way schema 1 wrote them (no batch column)
        row = sampler.select().index
        sampler.observe(row, float(pool.labels[row]))
        for kind, score in (("proposed", None), ("labelled", float(pool.labels[row]))):
            conn.execute("INSERT INTO events (audit_id, kind, case_id, annotator, ts, score) VALUES (?, ?, ?, ?, ?, ?)",
                         (audit_id, kind, str(pool.case_ids[row]), "old", store.utc_now(), score))
    conn.close()
    migrated = connect(path)
    assert migrated.execute("PRAGMA user_version").fetchone()[0] == store.SCHEMA_VERSION
    events = store.read_events(migrated, audit_id)
    assert [e.batch for e in events] == [events[0].id, None, events[2].id, None, events[4].id, None]
    with pytest.raises(store.DB_ERRORS, match="append-only"):      # the triggers survive
        migrated.execute("UPDATE events SET annotator = 'x'")
    audit = LiveAudit(migrated, audit_id)
    assert audit.status().n == 3
    (p,) = audit.next("new")
    assert p.row == sampler.select().index and p.batch == events[4].id + 1   # the same proposal as before


def test_a_schema_2_log_is_rebuilt_for_skips_with_every_event_kept(tmp_path):
    path = tmp_path / "v2.sqlite"
    conn, audit_id = _v1_workspace(path)
    store.migrate(conn, 2)
    name, content, _ = pool_source("gpqa:large")
    pool, _ = build_live_pool(content, name, store.audit_row(conn, audit_id)["roles"])
    sampler = make_sampler("adaptive", pool, GPQA, 3, AuditorConfig(), "LR")
    for batch in range(4):   # four labels written the way schema 2 wrote them
        row = sampler.select().index
        sampler.observe(row, float(pool.labels[row]))
        for kind, score, number in (("proposed", None, batch + 1), ("labelled", float(pool.labels[row]), None)):
            conn.execute("INSERT INTO events (audit_id, kind, case_id, annotator, ts, score, batch) "
                         "VALUES (?, ?, ?, ?, ?, ?, ?)", (audit_id, kind, str(pool.case_ids[row]), "old",
                                                          store.utc_now(), score, number))
    before = conn.execute("SELECT * FROM events ORDER BY id").fetchall()
    with pytest.raises(sqlite3.IntegrityError):            # schema 2 knows no skip
        conn.execute("INSERT INTO events (audit_id, kind, case_id, annotator, ts) VALUES (1, 'skipped', 'x', 'a', 't')")
    conn.close()
    migrated = connect(path, migrate_to=3)
    assert migrated.execute("PRAGMA user_version").fetchone()[0] == 3
    after = migrated.execute("SELECT * FROM events ORDER BY id").fetchall()
    assert [row[:-1] for row in after] == before and len(after) == 8 and {row[-1] for row in after} == {None}
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):       # the triggers are rebuilt
        migrated.execute("DELETE FROM events")
    with pytest.raises(sqlite3.IntegrityError):            # the kind is still checked
        migrated.execute("INSERT INTO events (audit_id, kind, case_id, annotator, ts) VALUES (1, 'bogus', 'x', 'a', 't')")
    store.migrate(migrated)                                 # on to the current schema
    resumed = LiveAudit(migrated, audit_id)
    assert resumed.status().n == 4
    (case,) = resumed.next("ann")
    assert case.row == sampler.select().index              # the same proposal as before the migration
    skipped = resumed.skip(case.case_id, "unreadable", "ann")
    assert skipped.reason == "unreadable" and resumed.status().n_skipped == 1
    assert list_audits(migrated)[0]["labels"] == 4 and list_audits(migrated)[0]["skipped"] == 1


def test_a_newer_schema_or_a_non_database_is_refused(tmp_path):
    conn = connect(tmp_path / "new.sqlite")
    conn.execute("PRAGMA user_version = 99")
    conn.close()
    with pytest.raises(InputError, match="schema version 99 is newer"):
        connect(tmp_path / "new.sqlite")
    (tmp_path / "junk.sqlite").write_bytes(b"not a database at all" * 100)
    with pytest.raises(InputError, match="junk.sqlite"):
        connect(tmp_path / "junk.sqlite")
    with pytest.raises(InputError, match="is a directory"):
        connect(tmp_path)
    with pytest.raises(InputError, match="no such audit"):
        LiveAudit(conn=connect(tmp_path / "w.sqlite"), audit_id=5)


def test_a_schema_3_log_gains_identity_columns_every_old_event_self_declared(tmp_path):
    """Schema 4 (issue 23): events say whether the annotator signed in; names written before it
    were typed in, so they are marked self-declared; the log stays append-only."""
    path = tmp_path / "v3.sqlite"
    conn = connect(path, migrate_to=3)
    LiveAudit.create(conn, "gpqa:large", "stratified", "LR", seed=0, params=GPQA, truth="correct")
    conn.close()
    conn = sqlite3.connect(path, isolation_level=None)   # two labels written the way schema 3 wrote them
    name, content, _ = pool_source("gpqa:large")
    roles = store.audit_row(conn, 1)["roles"]
    pool, _ = build_live_pool(content, name, roles)
    sampler = make_sampler("stratified", pool, AuditParams(**store.audit_row(conn, 1)["params"]), 0, AuditorConfig(),
                           "LR")
    for batch in range(2):
        row = sampler.select().index
        sampler.observe(row, float(pool.labels[row]))
        for kind, score, number in (("proposed", None, batch + 1), ("labelled", float(pool.labels[row]), None)):
            conn.execute("INSERT INTO events (audit_id, kind, case_id, annotator, ts, score, batch) "
                         "VALUES (1, ?, ?, 'typed', ?, ?, ?)", (kind, str(pool.case_ids[row]), store.utc_now(),
                                                               score, number))
    before = conn.execute("SELECT * FROM events ORDER BY id").fetchall()
    assert len(before[0]) == 9                               # schema 3: no identity columns
    conn.close()
    migrated = connect(path)
    assert migrated.execute("PRAGMA user_version").fetchone()[0] == store.SCHEMA_VERSION == 7
    after = migrated.execute("SELECT * FROM events ORDER BY id").fetchall()
    assert [row[:9] for row in after] == before
    assert {row[9:] for row in after} == {(0, "declared", None)}
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        migrated.execute("UPDATE events SET verified = 1")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        migrated.execute("DELETE FROM events")
    with pytest.raises(sqlite3.IntegrityError):               # verified is 0 or 1, the source one of three
        migrated.execute("INSERT INTO events (audit_id, kind, case_id, annotator, ts, verified) "
                         "VALUES (1, 'labelled', 'x', 'a', 't', 2)")
    with pytest.raises(sqlite3.IntegrityError):
        migrated.execute("INSERT INTO events (audit_id, kind, case_id, annotator, ts, source) "
                         "VALUES (1, 'labelled', 'x', 'a', 't', 'trust me')")
    resumed = LiveAudit(migrated, 1)
    assert resumed.status().n == 2 and {(r.annotator, r.verified) for r in resumed.labels()} == {("typed", False)}
