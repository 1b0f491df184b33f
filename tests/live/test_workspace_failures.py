"""The workspace fails cleanly (issue 18, item 4): a full disk during ``audit label``, a workspace
whose rows were changed by hand, and reading commands on a missing workspace each end in one
message (exit 2), nothing recorded is lost and nothing is created. Rows changed by hand are tried
on both stores; the rest is about SQLite's file (a full disk, a lock, /dev/null, read-only) and
its PostgreSQL counterparts (a restarted server, an unreachable one) are in test_postgres.py."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sqlite3
import subprocess
import uuid
from pathlib import Path

import pytest

import audit_core.live.store as store
from audit_core.analyses import open_audits
from audit_core.cli import main


def _json(capsys, argv):
    code = main(argv + ["--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return json.loads(captured.out)


def _fails(capsys, argv, *needles):
    code = main(argv)
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and "Traceback" not in err, err
    assert all(n in lines[0] for n in needles), lines[0]
    return lines[0]


@pytest.fixture
def audit(tmp_path, capsys):
    """A SQLite workspace with one audit whose first case is labelled and second claimed."""
    return _one_audit(tmp_path / "w.sqlite", capsys)


@pytest.fixture
def audit_on_either(db, capsys):
    """The same on both stores (the ``db`` fixture: a SQLite file, a fresh PostgreSQL database)."""
    return _one_audit(db, capsys)


def _one_audit(db, capsys):
    args = ["--db", str(db)]
    audit_id = str(_json(capsys, ["audit", "new", "--pool", "gpqa:small", "--seed", "3"] + args)["audit_id"])
    (first,) = _json(capsys, ["audit", "next", "--audit", audit_id] + args)["cases"]
    _json(capsys, ["audit", "label", "--audit", audit_id, first["case_id"], "1"] + args)
    (second,) = _json(capsys, ["audit", "next", "--audit", audit_id] + args)["cases"]
    return db, audit_id, first["case_id"], second["case_id"]


def _status(capsys, db, audit_id):
    return _json(capsys, ["audit", "status", "--audit", audit_id, "--db", str(db)])


def test_disk_full_while_labelling_is_one_message_and_loses_nothing(audit, capsys, monkeypatch):
    db, audit_id, first, second = audit

    def full(*args, **kwargs):
        raise sqlite3.OperationalError("database or disk is full")
    monkeypatch.setattr(store, "append_event", full)
    _fails(capsys, ["audit", "label", "--audit", audit_id, second, "0", "--db", str(db)],
           "disk is full", "nothing was recorded and nothing recorded before was lost")
    monkeypatch.undo()
    status = _status(capsys, db, audit_id)
    assert status["n"] == 1 and status["pending"] == [second]  # the first label kept, the second still to do
    labelled = _json(capsys, ["audit", "label", "--audit", audit_id, second, "0", "--db", str(db)])
    assert labelled["status"]["n"] == 2  # once there is room again, the same label goes in


@pytest.fixture
def tiny_disk(tmp_path):
    """A 1 MB tmpfs (needs the right to mount: root in a container); skipped where not allowed."""
    mount_point = tmp_path / f"tiny-{uuid.uuid4().hex[:6]}"
    mount_point.mkdir()
    if shutil.which("mount") is None:
        pytest.skip("no mount command")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mount_point)], capture_output=True)
    if done.returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    yield mount_point
    for opened in list(open_audits.kept.values()):  # the workspace stays open in this process
        opened.conn.close()
    open_audits.kept.clear()
    if subprocess.run(["umount", str(mount_point)], capture_output=True).returncode != 0:
        subprocess.run(["umount", "-l", str(mount_point)], check=False)


def test_a_real_full_disk_while_labelling(audit, tiny_disk, capsys):
    db, audit_id, first, second = audit
    small = tiny_disk / "w.sqlite"
    with sqlite3.connect(db) as source, sqlite3.connect(small) as target:
        source.backup(target)  # the WAL's content included
    source.close()
    target.close()
    filler = tiny_disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)  # take every free block
    try:
        with contextlib.suppress(OSError):  # ENOSPC ends the filling: the disk is full
            while os.write(fd, b"\0" * 4096):
                continue
    finally:
        os.close(fd)
    _fails(capsys, ["audit", "label", "--audit", audit_id, second, "0", "--db", str(small)], "disk is full")
    filler.unlink()
    status = _status(capsys, small, audit_id)
    assert status["n"] == 1 and status["pending"] == [second]
    assert _json(capsys, ["audit", "label", "--audit", audit_id, second, "0", "--db", str(small)])["status"]["n"] == 2


def _tamper(db, sql, *params):
    # A new process (each command is one) opens the audit afresh; this one forgets the audits it
    # keeps open, as a restarted server would.
    open_audits.kept.clear()
    if store.is_url(str(db)):
        conn = store.connect(str(db))
        with store.write_transaction(conn):
            conn.execute(sql, params)
    else:
        conn = sqlite3.connect(db)
        conn.execute(sql, params)
        conn.commit()
    conn.close()


def test_a_label_for_a_case_never_proposed_is_named(audit_on_either, capsys):
    db, audit_id, first, second = audit_on_either
    _tamper(db, "INSERT INTO events (audit_id, kind, case_id, annotator, ts, score) "
                "VALUES (?, 'labelled', 'Q1', 'mallory', '2026-01-01T00:00:00', 1.0)", int(audit_id))
    _fails(capsys, ["audit", "status", "--audit", audit_id, "--db", str(db)],
           "labelled case 'Q1', which was not proposed", "changed outside the workbench")


@pytest.mark.parametrize("params, needle", [('{"q": "x"}', "stored parameters are not valid"),
                                            ('[1, 2]', "stored params are not a JSON object"),
                                            ("{not json", "stored params are not a JSON object")])
def test_stored_parameters_changed_by_hand_are_named(audit_on_either, capsys, params, needle):
    db, audit_id, _, _ = audit_on_either
    _tamper(db, "UPDATE audits SET params = ? WHERE id = ?", params, int(audit_id))
    _fails(capsys, ["audit", "status", "--audit", audit_id, "--db", str(db)], needle)


def test_a_workspace_without_its_events_table(audit, capsys):
    db, audit_id, _, _ = audit
    _tamper(db, "DROP TABLE events")
    for action in (["status"], ["next"], ["list"]):
        argv = ["audit", *action, "--db", str(db)] + ([] if action == ["list"] else ["--audit", audit_id])
        _fails(capsys, argv, "not a complete workspace", "no such table: events")


def test_reading_commands_on_a_missing_workspace_create_nothing(tmp_path, capsys):
    db = tmp_path / "x" / "y" / "z.sqlite"
    assert _json(capsys, ["audit", "list", "--db", str(db)]) == {"audits": []}
    _fails(capsys, ["audit", "status", "--audit", "1", "--db", str(db)], "no workspace there yet")
    _fails(capsys, ["audit", "next", "--audit", "1", "--db", str(db)], "no workspace there yet")
    assert not (tmp_path / "x").exists()


# ------------------------------------------------------------------ issue 27, item 9

def test_a_workspace_locked_by_another_program_is_said_within_the_lock_wait(audit, capsys):
    """Another program (a sqlite3 shell with an open transaction) holds the write lock: `audit
    next` said so after 36 s; now after LOCK_WAIT_SECONDS, naming the cause."""
    db, audit_id = str(audit[0]), audit[1]
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        import time
        started = time.perf_counter()
        line = _fails(capsys, ["audit", "next", "--audit", audit_id, "--annotator", "Bo", "--db", db],
                      "another program has held its write lock", "nothing was recorded")
        elapsed = time.perf_counter() - started
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert store.LOCK_WAIT_SECONDS <= 5 and elapsed < store.LOCK_WAIT_SECONDS + 5, f"{elapsed:.1f} s: {line}"
    # reading is not blocked by a writer (WAL): the status comes at once
    assert _json(capsys, ["audit", "status", "--audit", audit_id, "--db", db])["audit"]["audit_id"] == int(audit_id)


@pytest.mark.parametrize("target", ["/dev/null", "fifo"])
@pytest.mark.parametrize("command", [["audit", "new", "--pool", "gpqa:small"], ["audit", "status", "--audit", "1"],
                                     ["audit", "next", "--audit", "1", "--annotator", "Bo"], ["audit", "list"]])
def test_dev_null_and_a_fifo_as_workspace_are_named_not_a_full_disk(target, command, tmp_path, capsys):
    import threading
    if target == "fifo":
        target = str(tmp_path / "pipe.sqlite")
        os.mkfifo(target)
    outcome = []
    worker = threading.Thread(target=lambda: outcome.append(_fails(capsys, [*command, "--db", target],
                                                                   "not a regular file")), daemon=True)
    worker.start()
    worker.join(30)
    assert not worker.is_alive(), "opening the workspace blocked"
    assert outcome and "disk" not in outcome[0], outcome


def _as_reader_without_write_access(folder, argv) -> tuple[int, str]:
    """``main(argv)`` run without write access to ``folder``: chmod for an ordinary user; for root
    (whom permissions do not stop) in a forked child that drops to the user nobody."""
    import io
    import sys
    for path in [folder, *folder.iterdir()]:
        path.chmod(0o555 if path.is_dir() else 0o444)
    if os.geteuid() != 0:
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            code = main(argv)
        return code, err.getvalue()
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        code = 99
        try:
            os.setgid(65534)
            os.setuid(65534)
            err = io.StringIO()
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
                code = main(argv)
            os.write(write_end, f"{code}\n{err.getvalue()}".encode())
        except BaseException as exc:
            os.write(write_end, f"98\n{exc!r}".encode())
        finally:
            os._exit(0)
    os.close(write_end)
    os.waitpid(pid, 0)
    with os.fdopen(read_end) as reader:
        code, _, err = reader.read().partition("\n")
    sys.stderr.write(err)
    return int(code), err


def test_a_read_only_workspace_can_be_read_by_status_and_list(capsys):
    """`audit status` on a workspace without write access failed ("attempt to write a readonly
    database"): opening ran the WAL setting and the migrations, both writes."""
    import tempfile
    top = Path(tempfile.mkdtemp())   # not under pytest's tmp folder, which only root may enter
    top.chmod(0o755)
    folder = top / "ro"
    folder.mkdir()
    db = str(folder / "w.sqlite")
    assert main(["audit", "new", "--pool", "gpqa:small", "--db", db]) == 0
    for argv in (["audit", "status", "--audit", "1"], ["audit", "list"]):  # warm: the child imports nothing
        assert main([*argv, "--db", db]) == 0
    capsys.readouterr()
    try:
        for argv in (["audit", "status", "--audit", "1", "--json"], ["audit", "list", "--json"]):
            code, err = _as_reader_without_write_access(folder, [*argv, "--db", db])
            assert code == 0, err
        code, err = _as_reader_without_write_access(folder, ["audit", "next", "--audit", "1", "--annotator", "Bo",
                                                             "--db", db])
        assert code == 2 and "read-only here" in err and "Traceback" not in err, err
    finally:
        for path in [folder, *folder.iterdir()]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        shutil.rmtree(top)
