"""Crash safety (SIGKILL at seeded random points) and two labelling processes on one audit."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from audit_core.live import LiveAudit, connect, store
from audit_core.sequential import AuditParams

WORKER = Path(__file__).with_name("worker.py")
# No pass before step 1000 and no failure on gpqa:none: the audit runs until the pool is used up.
LONG = AuditParams.gpqa(m=1000, budget=1000)


def _start(db, audit_id, annotator, batch=1):
    proc = subprocess.Popen([sys.executable, str(WORKER), str(db), str(audit_id), annotator, str(batch)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            bufsize=1)
    assert proc.stdout.readline().strip() == "ready", proc.stderr.read()
    return proc


def _go(proc) -> None:
    proc.stdin.write("go\n")
    proc.stdin.flush()


def _labelled(conn, audit_id) -> list[str]:
    events = store.read_events(conn, audit_id)
    return [e.case_id for e in events if e.kind == "labelled"]


def kill_workers(db, kills: int, seed: int = 20261201) -> None:
    """SIGKILL a labelling process ``kills`` times at seeded random points: every acknowledged label
    is in the log, in order, plus at most the one in flight."""
    conn = connect(db)
    audit = LiveAudit.create(conn, "gpqa:none", "adaptive", "SR-LR-UI", seed=0, params=LONG, truth="correct")
    rng = np.random.default_rng(seed)
    acked: list[str] = []
    outcomes = []
    for _ in range(kills):
        proc = _start(db, audit.audit_id, "worker")
        _go(proc)
        target = int(rng.integers(3, 15))
        for _ in range(target):
            line = proc.stdout.readline().strip()
            assert line.startswith("ack "), (line, proc.stderr.read())
            acked.append(line[4:])
        time.sleep(float(rng.uniform(0.0, 0.05)))       # land anywhere in the next next/label cycle
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        # acks already written to the pipe before the kill count as acknowledged
        acked += [line[4:] for line in proc.stdout.read().splitlines() if line.startswith("ack ")]
        labelled = _labelled(conn, audit.audit_id)
        assert labelled[:len(acked)] == acked              # every acknowledged label is there, in order
        assert len(labelled) - len(acked) in (0, 1)         # plus at most the one in flight
        outcomes.append(len(labelled) - len(acked))
        acked = list(labelled)                              # the in-flight one committed: it stays
    reopened = LiveAudit(connect(db), audit.audit_id)       # the log still replays through the strategy
    assert reopened.status().n == len(acked) and len(set(acked)) == len(acked)
    assert reopened.status().decision == "inconclusive" and not reopened.status().done


def test_a_killed_labelling_process_loses_no_acknowledged_label(db):
    kill_workers(db, kills=6)


def test_two_processes_label_one_audit_without_sharing_a_case(db):
    conn = connect(db)
    audit = LiveAudit.create(conn, "gpqa:none", "adaptive", "SR-LR-UI", seed=1,
                             params=AuditParams.gpqa(m=1000, budget=200), truth="correct")
    procs = {name: _start(db, audit.audit_id, name, batch) for name, batch in (("alice", 1), ("bob", 2))}
    for proc in procs.values():
        _go(proc)
    outputs = {name: proc.communicate(timeout=600) for name, proc in procs.items()}
    for name, proc in procs.items():
        assert proc.returncode == 0, outputs[name][1]
    acks = {name: [ln[4:] for ln in out.splitlines() if ln.startswith("ack ")] for name, (out, _) in outputs.items()}
    assert acks["alice"] and acks["bob"]                     # both worked on it
    assert not set(acks["alice"]) & set(acks["bob"])
    events = store.read_events(conn, audit.audit_id)
    proposed = [e.case_id for e in events if e.kind == "proposed"]
    assert len(proposed) == len(set(proposed))               # no case was ever claimed twice
    labelled = _labelled(conn, audit.audit_id)
    assert sorted(labelled) == sorted(acks["alice"] + acks["bob"]) and len(labelled) == 200
    assert {e.annotator for e in events} == {"alice", "bob"}
    final = LiveAudit(connect(db), audit.audit_id).status()  # the interleaved log replays exactly
    assert final.n == 200 and final.stopped and final.pending == ()
