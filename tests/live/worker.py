"""Labelling process for the crash and concurrency tests (run as a script, not collected).

    python tests/live/worker.py DB AUDIT_ID ANNOTATOR BATCH

Waits for a line on stdin, then labels proposed cases with the audit's truth column until the audit is done, printing
``ack CASE_ID`` (flushed) only after the label's transaction has committed.
"""

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from audit_core.live import LiveAudit, connect  # noqa: E402


def main(db: str, audit_id: int, annotator: str, batch: int) -> None:
    audit = LiveAudit(connect(db), audit_id)
    print("ready", flush=True)
    sys.stdin.readline()             # start together with the other sessions
    while True:
        proposals = audit.next(annotator, batch=batch)
        if not proposals:
            if audit.status().done:
                break
            time.sleep(0.002)        # another session's pending cases decide what comes next
            continue
        for p in proposals:
            audit.label(p.case_id, audit.truth(p.case_id), annotator)
            print(f"ack {p.case_id}", flush=True)
            # A person pauses between labels. Without any pause one loop takes the write lock back
            # to back and SQLite's busy handler (which is not fair) can starve the other session.
            time.sleep(0.02)
    print("done", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]))
