"""analyses.live keeps audits open across calls: it must see every other writer, serve threads one
at a time, and never confuse a replaced workspace with the old one."""

import shutil
import threading

from audit_core.analyses import live
from audit_core.live import LiveAudit, connect
from audit_core.sequential import AuditParams

GPQA = AuditParams.gpqa(n_init=2)


def _new(db, seed=0):
    return LiveAudit.create(connect(db), "gpqa:large", "adaptive", "LR", seed=seed, params=GPQA, truth="correct")


def test_an_open_audit_sees_labels_and_undos_written_elsewhere(db):
    other = _new(db)                                     # another process, e.g. the audit command
    (case,) = live.claim_cases(other.audit_id, "ann", db=db).cases
    assert live.live_audit_status(other.audit_id, db=db).status.pending == (case.case_id,)
    other.label(case.case_id, other.truth(case.case_id), "ann")
    seen = live.live_audit_view(other.audit_id, "ann", db=db)
    assert seen.status.n == 1 and list(seen.labels["case"]) == [case.case_id]
    other.undo("ann")
    assert live.live_audit_status(other.audit_id, db=db).status.pending == (case.case_id,)
    live.record_label(other.audit_id, case.case_id, 0, "ann", db=db, show_next=False)
    assert [r.score for r in LiveAudit(connect(db), other.audit_id).labels()] == [0.0]


def test_threads_label_one_open_audit_one_at_a_time(db):
    audit = _new(db, seed=3)
    errors, labelled = [], []

    def annotator(name: str) -> None:
        try:
            for _ in range(6):
                cases = live.claim_cases(audit.audit_id, name, db=db).cases
                for case in cases:
                    live.record_label(audit.audit_id, case.case_id, 1, name, db=db, show_next=False)
                    labelled.append(case.case_id)
        except Exception as exc:   # any error in a thread fails the test below
            errors.append(exc)

    threads = [threading.Thread(target=annotator, args=(f"a{i}",)) for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors
    fresh = LiveAudit(connect(db), audit.audit_id)
    assert len(labelled) == len(set(labelled)) == fresh.status().n
    kept = live.live_audit_status(audit.audit_id, db=db).status
    assert kept.to_dict() == fresh.status().to_dict()


def test_a_replaced_workspace_is_not_the_open_one(tmp_path):
    db = tmp_path / "w.sqlite"
    first = _new(db, seed=1)
    (case,) = live.claim_cases(first.audit_id, "ann", db=db).cases
    live.record_label(first.audit_id, case.case_id, 1, "ann", db=db)
    backup = tmp_path / "other.sqlite"
    other = _new(backup, seed=2)                         # a different workspace, no labels yet
    other.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # all of it in the main file, to copy
    other.conn.close()
    db.unlink()
    for suffix in ("-wal", "-shm"):
        (tmp_path / f"w.sqlite{suffix}").unlink(missing_ok=True)
    shutil.copy(backup, db)
    assert live.live_audit_status(first.audit_id, db=db).status.n == 0
    assert live.live_audit_status(first.audit_id, db=db).audit["seed"] == 2
