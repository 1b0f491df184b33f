"""SQLite store of live audits: one database file per workspace, WAL mode, append-only events.

Tables (schema version in ``PRAGMA user_version``, built by :data:`MIGRATIONS` in order):

* ``pools``: the pool CSV as uploaded (``content``), its ``sha256`` and a display ``name``; an
  audit never depends on a file outside the database.
* ``audits``: ``pool_id``, ``pool_spec`` (bundled key or file name), ``roles`` (JSON column roles),
  ``params`` (JSON :class:`~audit_core.sequential.AuditParams`), ``strategy``, ``process``,
  ``seed``, ``config`` (JSON :class:`~audit_core.auditing.AuditorConfig`), ``created`` (UTC).
* ``events``: ``audit_id``, ``kind`` (``proposed`` / ``labelled`` / ``skipped`` / ``undone``),
  ``case_id``, ``annotator``, ``ts`` (UTC, ISO 8601), ``score`` (labelled only), ``batch`` (the
  proposal batch; schema 2), ``reason`` (why a case was skipped; schema 3), ``verified`` (1 when
  the annotator signed in through the operator's identity provider, 0 for a name declared or taken
  from the operating system), ``source`` (``signed-in`` / ``os-user`` / ``declared``) and ``issuer``
  (the provider's, when signed in; all three schema 4). Triggers refuse UPDATE and DELETE: the log
  is append-only. ``audits.cases`` (schema 5): the number of cases in the audit's pool, so that an
  audit's status can be read from its rows alone (:mod:`audit_core.live.log_status`) without
  rebuilding the pool; NULL for an audit created before, filled the first time its pool is built.

Durability: WAL with ``synchronous=FULL``, so a transaction whose COMMIT returned survives a killed
process (and a power cut). Writers take the write lock first (``BEGIN IMMEDIATE``): two sessions
never interleave between reading the state and appending to it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from audit_core.errors import InputError
from audit_core.live import backend
from audit_core.live.backend import is_url

# Every database error either store raises: what callers catch (instead of sqlite3.Error alone).
DB_ERRORS: tuple[type[BaseException], ...] = (sqlite3.Error, backend.PgError)

EVENT_KINDS = ("proposed", "labelled", "skipped", "undone", "overlap_labelled", "adjudicated", "offered")
DEFAULT_DB_NAME = "audits.sqlite"
# How long a writer waits for another's write lock. A workbench write holds it for milliseconds (a
# claim with the auditor's model for a 20,000-case pool, about a second), so a lock held longer is
# another program's (a sqlite3 shell or a backup with an open transaction): said after this wait,
# not after SQLite's 30 s (issue 27 item 9 measured 36 s before `audit next` said so).
LOCK_WAIT_SECONDS = 5.0


# The event log is append-only: every schema that (re)creates the table puts these triggers back.
_NO_UPDATE = """CREATE TRIGGER events_no_update BEFORE UPDATE ON events
    BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END;
"""
_NO_DELETE = """CREATE TRIGGER events_no_delete BEFORE DELETE ON events
    BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END;
"""

_V1 = """
CREATE TABLE pools (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    sha256 TEXT NOT NULL UNIQUE,
    content BLOB NOT NULL
);
CREATE TABLE audits (
    id INTEGER PRIMARY KEY,
    pool_id INTEGER NOT NULL REFERENCES pools(id),
    pool_spec TEXT NOT NULL,
    roles TEXT NOT NULL,
    params TEXT NOT NULL,
    strategy TEXT NOT NULL,
    process TEXT NOT NULL,
    seed INTEGER NOT NULL,
    config TEXT NOT NULL,
    created TEXT NOT NULL
);
CREATE TABLE events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    audit_id INTEGER NOT NULL REFERENCES audits(id),
    kind TEXT NOT NULL CHECK (kind IN ('proposed', 'labelled', 'undone')),
    case_id TEXT NOT NULL,
    annotator TEXT NOT NULL,
    ts TEXT NOT NULL,
    score REAL
);
CREATE INDEX events_by_audit ON events(audit_id, id);
""" + _NO_UPDATE + _NO_DELETE

# Schema 2: proposals carry the batch they were made in (k cases claimed in one transaction). A
# schema-1 log had only single proposals, so each proposal becomes its own batch. The append-only
# triggers are lifted for the one-off back-fill and restored.
_V2 = """
ALTER TABLE events ADD COLUMN batch INTEGER;
DROP TRIGGER events_no_update;
UPDATE events SET batch = id WHERE kind = 'proposed';
""" + _NO_UPDATE

# Schema 3: a proposed case can be skipped with a reason (unreadable, out of scope, ...). SQLite cannot
# widen a CHECK constraint in place, so the events table is rebuilt (same ids, same rows) with the
# new kind and a reason column; DROP TABLE fires no trigger, and nothing references events.
_V3 = """
CREATE TABLE events_v3 (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    audit_id INTEGER NOT NULL REFERENCES audits(id),
    kind TEXT NOT NULL CHECK (kind IN ('proposed', 'labelled', 'skipped', 'undone')),
    case_id TEXT NOT NULL,
    annotator TEXT NOT NULL,
    ts TEXT NOT NULL,
    score REAL,
    batch INTEGER,
    reason TEXT
);
INSERT INTO events_v3 (id, audit_id, kind, case_id, annotator, ts, score, batch)
    SELECT id, audit_id, kind, case_id, annotator, ts, score, batch FROM events;
DROP TABLE events;
ALTER TABLE events_v3 RENAME TO events;
CREATE INDEX events_by_audit ON events(audit_id, id);
""" + _NO_UPDATE + _NO_DELETE

# Schema 4 (issue 23): who acted, and how we know. Every earlier event's name was typed in, so it is
# self-declared (verified 0, source 'declared': the column defaults). ADD COLUMN updates no row, so
# the append-only triggers stay as they are.
_V4 = """
ALTER TABLE events ADD COLUMN verified INTEGER NOT NULL DEFAULT 0 CHECK (verified IN (0, 1));
ALTER TABLE events ADD COLUMN source TEXT NOT NULL DEFAULT 'declared'
    CHECK (source IN ('signed-in', 'os-user', 'declared'));
ALTER TABLE events ADD COLUMN issuer TEXT;
"""

# Schema 5 (issue 24): the pool's number of cases, stored with the audit. Counting them takes the
# table loader (pandas); with the count stored, `audit status` reads the event log alone. Earlier
# audits get NULL and are counted the first time their pool is built (see record_cases).
_V5 = """
ALTER TABLE audits ADD COLUMN cases INTEGER CHECK (cases IS NULL OR cases >= 1);
"""

# Schema 6 (issue 34): double labelling. ``overlap_labelled``: a further label of an overlapped case
# (score; never enters the e-processes by itself); ``adjudicated``: an adjudicator's settled label
# of a case whose labels differ (score and reason). The kind CHECK is widened by rebuilding the table
# as schema 3 did (same ids, same rows, plain SQL).
_V6 = """
CREATE TABLE events_v6 (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    audit_id INTEGER NOT NULL REFERENCES audits(id),
    kind TEXT NOT NULL CHECK (kind IN ('proposed', 'labelled', 'skipped', 'undone', 'overlap_labelled',
                                       'adjudicated')),
    case_id TEXT NOT NULL,
    annotator TEXT NOT NULL,
    ts TEXT NOT NULL,
    score REAL,
    batch INTEGER,
    reason TEXT,
    verified INTEGER NOT NULL DEFAULT 0 CHECK (verified IN (0, 1)),
    source TEXT NOT NULL DEFAULT 'declared' CHECK (source IN ('signed-in', 'os-user', 'declared')),
    issuer TEXT
);
INSERT INTO events_v6 (id, audit_id, kind, case_id, annotator, ts, score, batch, reason, verified, source, issuer)
    SELECT id, audit_id, kind, case_id, annotator, ts, score, batch, reason, verified, source, issuer FROM events;
DROP TABLE events;
ALTER TABLE events_v6 RENAME TO events;
CREATE INDEX events_by_audit ON events(audit_id, id);
""" + _NO_UPDATE + _NO_DELETE

# Schema 7 (issue 34): ``offered``: a double-labelled case claimed by an annotator for a further
# label, so that two people are never offered the last label a case needs (as ``proposed`` claims a
# new case). The kind CHECK is widened as schema 6 did.
_V7 = _V6.replace("events_v6", "events_v7").replace("""'overlap_labelled',
                                       'adjudicated')""", """'overlap_labelled',
                                       'adjudicated', 'offered')""")

MIGRATIONS: tuple[str, ...] = (_V1, _V2, _V3, _V4, _V5, _V6, _V7)   # MIGRATIONS[v - 1] takes schema v - 1 to v
SCHEMA_VERSION = len(MIGRATIONS)


def audit_home() -> Path:
    """The data directory: ``$AUDIT_HOME``, else ``~/.audit_workbench``."""
    return Path(os.environ.get("AUDIT_HOME") or Path.home() / ".audit_workbench")


def default_db_path() -> Path:
    """The workspace database inside :func:`audit_home`."""
    return audit_home() / DEFAULT_DB_NAME


def resolve_db(db=None):
    """Where the workspace is: ``db`` (a file path or a ``postgresql://`` URL), else ``$AUDIT_DB``,
    else :func:`default_db_path`. A URL stays a string; a path becomes a :class:`Path`."""
    if db is None:
        db = os.environ.get("AUDIT_DB") or default_db_path()
    return str(db) if is_url(str(db)) else Path(db)


def db_exists(db) -> bool:
    """A SQLite workspace file is there (a PostgreSQL database is assumed to be: connecting says)."""
    return is_url(db) or Path(db).exists()


def db_name(db) -> str:
    """The workspace as messages name it: the file's name, or the URL without its password."""
    return backend.display_url(db) if is_url(db) else Path(db).name


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


@dataclass(frozen=True)
class Event:
    """One row of the event log (``score`` only for ``labelled``, ``batch`` only for ``proposed``,
    ``reason`` only for ``skipped``; ``verified`` / ``source`` / ``issuer``: how the annotator's
    identity was established, see :mod:`audit_core.live.roles`)."""

    id: int
    kind: str
    case_id: str
    annotator: str
    ts: str
    score: float | None = None
    batch: int | None = None
    reason: str | None = None
    verified: bool = False
    source: str = "declared"
    issuer: str | None = None

    def to_dict(self) -> dict:
        return {"id": self.id, "kind": self.kind, "case_id": self.case_id, "annotator": self.annotator,
                "ts": self.ts, "score": self.score, "batch": self.batch, "reason": self.reason,
                "verified": self.verified, "source": self.source, "issuer": self.issuer}


@contextmanager
def write_transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """``BEGIN IMMEDIATE`` ... ``COMMIT`` (rolled back on any exception): the writer's lock is
    taken before the state is read, so a claim is decided on the latest log."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
        conn.execute("COMMIT")
    except BaseException:
        # Also when COMMIT itself fails (a full disk): a transaction left open would hold the
        # write lock and refuse every later BEGIN on this connection.
        if conn.in_transaction:
            with contextlib.suppress(*DB_ERRORS):
                conn.execute("ROLLBACK")
        raise


def _statements(script: str) -> list[str]:
    """The SQL statements of a migration script (trigger bodies keep their inner semicolons)."""
    statements, current = [], ""
    for line in script.strip().splitlines(keepends=True):
        current += line
        if sqlite3.complete_statement(current):
            statements.append(current.strip())
            current = ""
    return statements


def migrate(conn: sqlite3.Connection, target: int = SCHEMA_VERSION) -> int:
    """Apply the missing migrations up to ``target``, one transaction each; returns the version.

    A current workspace is seen without the write lock (a version only ever goes up), so opening it
    to read never waits for a writer; when a migration is needed the version is read again inside
    the write transaction, so two processes opening a new workspace at once apply every migration
    exactly once.
    """
    postgres = isinstance(conn, backend.PgConnection)
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if target <= version <= SCHEMA_VERSION:   # autocommit on PostgreSQL: the read holds nothing after it
        return version
    while True:
        with write_transaction(conn):
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise InputError(f"audit database: schema version {version} is newer than this workbench "
                                 f"understands ({SCHEMA_VERSION}); upgrade the workbench")
            if version >= target:
                return version
            if postgres:
                conn.prepare_schema()
            for statement in _statements(MIGRATIONS[version]):
                conn.execute(statement)
            if postgres:
                conn.fix_identities()
            conn.execute(f"PRAGMA user_version = {version + 1}")


def workspace_failure(path, exc: BaseException) -> InputError:
    """One message for a database error met while using a workspace. A write runs in one
    transaction that is rolled back on failure, so a full disk loses nothing already recorded."""
    if is_url(path) or not isinstance(exc, sqlite3.Error):
        return _server_failure(str(path), exc)
    path = Path(path)
    text = str(exc)
    if "locked" in text or "busy" in text:
        return InputError(f"workspace {path.name}: another program has held its write lock for more than "
                          f"{LOCK_WAIT_SECONDS:g} s (a sqlite3 shell or a backup with an open transaction?); nothing "
                          "was recorded. Close that program and do it again")
    if "readonly" in text or "read-only" in text:
        return InputError(f"workspace {path.name}: read-only here (no write access to the file or its folder); "
                          "its status and list can be read, but labelling, claiming or exporting an audit needs write access")
    if "full" in text or "disk I/O" in text:
        return InputError(f"workspace {path.name}: the disk is full or failing ({text}); nothing was recorded and "
                          "nothing recorded before was lost. Free some space and do it again")
    if "no such table" in text or "no such column" in text or "malformed" in text:
        return InputError(f"workspace {path.name}: not a complete workspace ({text}); it was changed outside the "
                          "workbench (restore it from a backup)")
    return InputError(f"workspace {path.name}: {text}")


def _server_failure(url: str, exc: BaseException) -> InputError:
    """One message for a PostgreSQL error, never with the URL's password in it."""
    name = backend.display_url(url) if is_url(url) else url
    text = backend.scrub(" ".join(str(exc).split()), url) if is_url(url) else str(exc)
    exc = getattr(exc, "original", exc)
    pg = backend.psycopg
    if "password authentication failed" in text or "no password supplied" in text or "role" in text and "does not exist" in text:
        return InputError(f"audit database {name}: the server refused the credentials (wrong user or password); "
                          "nothing was recorded")
    if "does not exist" in text and "database" in text:
        return InputError(f"audit database {name}: no such database on the server ({text}); create it first "
                          "(createdb) or correct the URL")
    if pg and isinstance(exc, pg.errors.LockNotAvailable):
        return InputError(f"workspace {name}: another program has held its write lock for more than "
                          f"{LOCK_WAIT_SECONDS:g} s; nothing was recorded. Do it again")
    if pg and isinstance(exc, pg.errors.DiskFull | pg.errors.InsufficientResources):
        return InputError(f"audit database {name}: the server's disk is full ({text}); nothing was recorded and "
                          "nothing recorded before was lost. Free some space on the server and do it again")
    if pg and isinstance(exc, pg.OperationalError):
        return InputError(f"audit database {name}: the server cannot be reached or closed the connection "
                          f"({text}); nothing was recorded and nothing recorded before was lost. Do it again "
                          "once the server is back")
    if pg and isinstance(exc, pg.errors.UndefinedTable | pg.errors.UndefinedColumn):
        return InputError(f"workspace {name}: not a complete workspace ({text}); it was changed outside the "
                          "workbench (restore it from a backup)")
    return InputError(f"workspace {name}: {text}")


def _regular_or_missing(db: Path) -> None:
    """A workspace is a regular file (or not there yet): ``/dev/null``, a FIFO or a socket is said
    to be what it is, not a full disk, and a FIFO is never opened (it would block)."""
    try:
        info = db.stat()
    except FileNotFoundError:
        return
    except OSError as exc:
        raise InputError(f"audit database {db.name}: cannot be opened ({exc.strerror})") from None
    if stat.S_ISDIR(info.st_mode):
        raise InputError(f"audit database {db.name}: is a directory, expected a database file")
    if not stat.S_ISREG(info.st_mode):
        raise InputError(f"audit database {db.name}: not a regular file (a device, pipe or socket); "
                         "give the path of a workspace file")


def connect(path: str | os.PathLike | None = None, migrate_to: int = SCHEMA_VERSION,
            shared: bool = False, create: bool = True, read_only: bool = False) -> sqlite3.Connection:
    """Open (creating if needed) the workspace database at ``path`` (default :func:`default_db_path`).

    ``create=False``: a missing database is an error, and no folder or file is made (reading
    commands such as listing or status never create a workspace).

    ``shared``: the connection may be used from several threads, one at a time (the caller
    serialises the use; a dashboard keeps one open audit per workspace for all its sessions).

    ``read_only``: open for reading alone (:func:`connect_read_only`): nothing is written, not even
    the WAL setting or a migration, so a workspace without write access can still be read.
    """
    db = resolve_db(path)
    if is_url(db):
        return _connect_postgres(db, migrate_to)
    _regular_or_missing(db)
    if not create and not db.exists():
        raise InputError(f"audit database {db.name}: no workspace there yet (no audit was created in it)")
    if read_only:
        return connect_read_only(db, shared, migrate_to)
    try:
        db.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(db, timeout=LOCK_WAIT_SECONDS, isolation_level=None,  # transactions are explicit
                               check_same_thread=not shared)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=FULL")
        conn.execute("PRAGMA foreign_keys=ON")
        migrate(conn, migrate_to)
    except sqlite3.DatabaseError as exc:
        raise workspace_failure(db, exc) from None
    except OSError as exc:  # the folder cannot be made (permissions, a file in the way, a full disk)
        raise InputError(f"audit database {db.name}: cannot create its folder ({exc.strerror})") from None
    return conn


def _connect_postgres(url: str, migrate_to: int) -> backend.PgConnection:
    """A PostgreSQL workspace (migrated like a file; reading needs no special mode there)."""
    if backend.load_psycopg() is None:
        raise InputError(f"audit database {backend.display_url(url)}: PostgreSQL needs the psycopg package "
                         "(pip install 'psycopg[binary]')")
    try:
        conn = backend.PgConnection(url, LOCK_WAIT_SECONDS)
        migrate(conn, migrate_to)
    except backend.PgError as exc:
        raise _server_failure(url, exc) from None
    return conn


def connect_read_only(db: Path, shared: bool = False, migrate_to: int = SCHEMA_VERSION) -> sqlite3.Connection:
    """A connection that only reads the existing workspace ``db`` (``mode=ro``). A WAL database
    whose folder is not writable cannot get its shared-memory file, so it is then read as an
    immutable snapshot (``immutable=1``: without write access nothing of this workbench writes it).
    A workspace at an older schema is opened normally (and migrated) when it is writable."""
    uri = db.resolve().as_uri()
    conn = None
    try:
        for options in ("mode=ro", "mode=ro&immutable=1"):
            try:
                conn = sqlite3.connect(f"{uri}?{options}", uri=True, timeout=LOCK_WAIT_SECONDS,
                                       isolation_level=None, check_same_thread=not shared)
                version = conn.execute("PRAGMA user_version").fetchone()[0]
                break
            except sqlite3.OperationalError:
                if conn is not None:
                    conn.close()
                    conn = None
                if "immutable" in options:
                    raise
        if version > SCHEMA_VERSION:
            raise InputError(f"audit database: schema version {version} is newer than this workbench "
                             f"understands ({SCHEMA_VERSION}); upgrade the workbench")
    except sqlite3.DatabaseError as exc:
        raise workspace_failure(db, exc) from None
    if version < migrate_to:
        conn.close()
        if os.access(db, os.W_OK) and os.access(db.parent, os.W_OK):
            return connect(db, migrate_to, shared, create=False)
        raise InputError(f"workspace {db.name}: written by an older workbench (schema {version}) and read-only "
                         "here; open it once with write access to upgrade it")
    return conn


def sha256(content: bytes) -> str:
    """The checksum stored with a pool (hex SHA-256 of its bytes)."""
    return hashlib.sha256(content).hexdigest()


def has_pool(conn: sqlite3.Connection, sha256: str) -> bool:
    return conn.execute("SELECT 1 FROM pools WHERE sha256 = ?", (sha256,)).fetchone() is not None


def stored_pool_bytes(conn: sqlite3.Connection) -> int:
    """Bytes of every pool the workspace stores (the quota of a shared workspace)."""
    return int(conn.execute("SELECT COALESCE(SUM(LENGTH(content)), 0) FROM pools").fetchone()[0])


def store_pool(conn: sqlite3.Connection, name: str, content: bytes, sha256: str) -> int:
    row = conn.execute("SELECT id FROM pools WHERE sha256 = ?", (sha256,)).fetchone()
    if row:
        return int(row[0])
    return int(conn.execute("INSERT INTO pools (name, sha256, content) VALUES (?, ?, ?)",
                            (name, sha256, content)).lastrowid)


def insert_audit(conn: sqlite3.Connection, pool_id: int, pool_spec: str, roles: dict, params: dict,
                 strategy: str, process: str, seed: int, config: dict) -> int:
    return int(conn.execute(
        "INSERT INTO audits (pool_id, pool_spec, roles, params, strategy, process, seed, config, created) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (pool_id, pool_spec, json.dumps(roles), json.dumps(params), strategy, process, int(seed),
         json.dumps(config), utc_now())).lastrowid)


def record_cases(conn: sqlite3.Connection, audit_id: int, cases: int) -> None:
    """Store the number of cases of an audit's pool (schema 5), when the audit is created or, for one
    created before, the first time its pool is built; a no-op once set.

    Only a cache of what the stored pool holds: where it cannot be written (a workspace opened at an
    older schema), it stays NULL and the status is computed from the pool as before."""
    with contextlib.suppress(*DB_ERRORS):
        conn.execute("UPDATE audits SET cases = ? WHERE id = ? AND cases IS NULL", (int(cases), int(audit_id)))


def _has_cases(conn: sqlite3.Connection) -> bool:
    """The audits table has schema 5's ``cases`` column (a connection may be opened at an older one)."""
    return any(row[1] == "cases" for row in conn.execute("PRAGMA table_info(audits)"))


def audit_row(conn: sqlite3.Connection, audit_id: int) -> dict:
    row = conn.execute(
        f"SELECT a.id, a.pool_spec, a.roles, a.params, a.strategy, a.process, a.seed, a.config, a.created, "
        f"{'a.cases' if _has_cases(conn) else 'NULL'}, p.name, p.sha256, p.content "
        "FROM audits a JOIN pools p ON p.id = a.pool_id WHERE a.id = ?", (int(audit_id),)).fetchone()
    if row is None:
        known = [r[0] for r in conn.execute("SELECT id FROM audits ORDER BY id")]
        raise InputError(f"audit {audit_id}: no such audit in this database"
                         + (f" (audits: {', '.join(map(str, known[-10:]))})" if known else " (it has none)"))
    keys = ("id", "pool_spec", "roles", "params", "strategy", "process", "seed", "config", "created", "cases",
            "pool_name", "sha256", "content")
    data = dict(zip(keys, row, strict=True))
    for key in ("roles", "params", "config"):
        try:
            data[key] = json.loads(data[key])
        except (TypeError, ValueError, RecursionError):
            data[key] = None
        if not isinstance(data[key], dict):
            raise InputError(f"audit {audit_id}: its stored {key} are not a JSON object; the workspace was "
                             "changed outside the workbench (restore it from a backup)")
    return data


def list_audits(conn: sqlite3.Connection) -> list[dict]:
    """Every audit with its counts of effective labels and skips (no pool content)."""
    rows = conn.execute("SELECT id, pool_spec, strategy, process, seed, created FROM audits ORDER BY id").fetchall()
    resolved: dict[int, list[str]] = {r[0]: [] for r in rows}
    # An undo cancels the last label or skip, so the counts come from the kinds in log order.
    for audit_id, kind in conn.execute("SELECT audit_id, kind FROM events WHERE kind IN ('labelled', 'skipped', 'undone') ORDER BY id"):
        kinds = resolved.setdefault(audit_id, [])
        if kind == "undone":
            if kinds:
                kinds.pop()
        else:
            kinds.append(kind)
    return [{"audit_id": r[0], "pool": r[1], "strategy": r[2], "process": r[3], "seed": r[4], "created": r[5],
             "labels": resolved[r[0]].count("labelled"), "skipped": resolved[r[0]].count("skipped")}
            for r in rows]


def append_event(conn: sqlite3.Connection, audit_id: int, kind: str, case_id: str, annotator: str,
                 score: float | None = None, batch: int | None = None, reason: str | None = None,
                 verified: bool = False, source: str = "declared", issuer: str | None = None) -> Event:
    """Append one event; ``verified`` / ``source`` / ``issuer`` say how ``annotator`` is known."""
    if kind not in EVENT_KINDS:
        raise InputError(f"event kind: expected one of {', '.join(EVENT_KINDS)}, got {kind!r}")
    ts = utc_now()
    cursor = conn.execute(
        "INSERT INTO events (audit_id, kind, case_id, annotator, ts, score, batch, reason, verified, source, issuer) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (int(audit_id), kind, str(case_id), str(annotator), ts, score, batch, reason, int(bool(verified)),
         source, issuer))
    return Event(int(cursor.lastrowid), kind, str(case_id), str(annotator), ts, score, batch, reason,
                 bool(verified), source, issuer)


def read_events(conn: sqlite3.Connection, audit_id: int, after: int = 0) -> list[Event]:
    """Events of one audit with id > ``after``, in log order."""
    rows = conn.execute("SELECT id, kind, case_id, annotator, ts, score, batch, reason, verified, source, issuer "
                        "FROM events WHERE audit_id = ? AND id > ? ORDER BY id",
                        (int(audit_id), int(after))).fetchall()
    return [Event(*row[:8], bool(row[8]), *row[9:]) for row in rows]


def effective_events(events: list[Event]) -> list[Event]:
    """The log with every undone label or skip and its ``undone`` event removed."""
    kept: list[Event] = []
    for event in events:
        if event.kind == "undone":
            for i in range(len(kept) - 1, -1, -1):
                if kept[i].kind in ("labelled", "skipped"):
                    del kept[i]
                    break
        else:
            kept.append(event)
    return kept


def next_batch_number(conn: sqlite3.Connection, audit_id: int) -> int:
    row = conn.execute("SELECT MAX(batch) FROM events WHERE audit_id = ?", (int(audit_id),)).fetchone()
    return int(row[0] or 0) + 1


@dataclass(frozen=True)
class CopiedAudit:
    """One audit copied by :func:`copy_audits`: its id in the source and in the target, and the
    number of events copied (every one, in log order, with its time and who acted)."""

    source_id: int
    target_id: int
    events: int


def copy_audits(source, target, audit_ids: list[int] | None = None) -> list[CopiedAudit]:
    """Copy audits (all, or ``audit_ids``) with their pools and every event from connection
    ``source`` to ``target`` (either store), in one write transaction on the target.

    A pool is checked against its SHA-256 before it is copied and stored once per checksum (one the
    target already has is reused). The target gives new audit and event ids; the events keep their
    order, kind, case, annotator, time, score, batch, reason and identity columns, so the copy
    replays to the same state and decision as the source.
    """
    rows = source.execute("SELECT id FROM audits ORDER BY id").fetchall()
    wanted = [int(r[0]) for r in rows] if audit_ids is None else [int(a) for a in audit_ids]
    copied: list[CopiedAudit] = []
    with write_transaction(target):
        for audit_id in wanted:
            row = audit_row(source, audit_id)
            if sha256(bytes(row["content"])) != row["sha256"]:
                raise InputError(f"audit {audit_id}: the stored pool does not match its checksum; not copied")
            pool_id = store_pool(target, row["pool_name"], bytes(row["content"]), row["sha256"])
            new_id = insert_audit(target, pool_id, row["pool_spec"], row["roles"], row["params"], row["strategy"],
                                  row["process"], int(row["seed"]), row["config"])
            target.execute("UPDATE audits SET created = ? WHERE id = ?", (row["created"], new_id))
            if row["cases"] is not None:
                record_cases(target, new_id, int(row["cases"]))
            events = read_events(source, audit_id)
            for e in events:
                target.execute(
                    "INSERT INTO events (audit_id, kind, case_id, annotator, ts, score, batch, reason, verified, "
                    "source, issuer) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (new_id, e.kind, e.case_id, e.annotator, e.ts, e.score, e.batch, e.reason, int(e.verified),
                     e.source, e.issuer))
            copied.append(CopiedAudit(audit_id, new_id, len(events)))
    return copied
