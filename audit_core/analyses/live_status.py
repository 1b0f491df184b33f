"""Where a live audit stands, for the ``audit status`` command and :func:`audit_core.audit_status`,
and the result of every action on a live audit (:class:`LiveAction`).

Light on purpose (issue 24): the status is read from the audit's rows and event log
(:func:`audit_core.live.log_status.status_from_log`), which loads neither pandas nor the pool nor the
strategy's model, so ``audit status`` answers at once. Only when the rows are not what the workbench
writes, or with ``verify=True``, is the audit opened and its log replayed through the strategy
(:mod:`audit_core.analyses.open_audits`), checking every recorded proposal.
"""

from __future__ import annotations

from dataclasses import dataclass

from audit_core.analyses.common import Verdict
from audit_core.analyses.display import Displayed
from audit_core.errors import InputError
from audit_core.live.records import LabelRecord, LiveProposal, LiveStatus, SkipRecord
from audit_core.live.store import DB_ERRORS, connect, db_exists, db_name, resolve_db, workspace_failure
from audit_core.presets import FAILURE_FOUND


@dataclass(frozen=True, repr=False)
class LiveAction(Displayed):
    """What one action on a live audit did, and where the audit stands after it.

    ``audit``: its settings (``LiveAudit.to_dict()``); ``status`` after the action; ``cases``:
    the cases the action claimed (``next``) or ``()``; ``record``: the label, skip or undone
    record (None for ``next``); ``upcoming``: the case the annotator gets next, and
    ``upcoming_claimed``: whether it is already theirs (else it is only shown, so the last
    label can still be undone); ``undone``: the record is the one an undo cancelled; ``received``:
    a label of a double-labelled case that the e-processes have not seen (a further label, which
    only measures agreement, or one that waits for adjudication): case_id, score, annotator,
    verified, ts, first, waits. In JSON the record (or the received label, with ``step`` null) is
    under ``labelled``, ``skipped`` or ``undone``.
    """

    audit: dict
    status: LiveStatus
    cases: tuple[LiveProposal, ...] = ()
    record: LabelRecord | SkipRecord | None = None
    upcoming: tuple[LiveProposal, ...] = ()
    upcoming_claimed: bool = False
    undone: bool = False
    received: dict | None = None

    def to_dict(self) -> dict:
        payload = {"audit_id": self.audit["audit_id"], "cases": [c.to_dict() for c in self.cases],
                   "status": self.status.to_dict(), "next": [c.to_dict() for c in self.upcoming],
                   "next_claimed": self.upcoming_claimed}
        if self.received is not None:
            payload["labelled"] = {**self.received, "step": None}
        if self.record is not None:
            record = {"case_id": self.record.case_id, "annotator": self.record.annotator,
                      "verified": self.record.verified, "ts": self.record.ts}
            if isinstance(self.record, SkipRecord):
                record["reason"] = self.record.reason
            else:
                record.update(score=self.record.score, step=self.record.step)
            kind = "undone" if self.undone else ("skipped" if isinstance(self.record, SkipRecord) else "labelled")
            payload[kind] = record
        return payload

    @property
    def verdict(self) -> Verdict:
        """Where the audit stands, in one line (shown first in a notebook)."""
        status = self.status
        tone = "neutral" if not status.stopped else ("bad" if status.decision == FAILURE_FOUND else "good")
        return Verdict(tone, f"Audit {self.audit['audit_id']}: {status_sentence(status)}.")

    def __repr__(self) -> str:
        return f"LiveAction(audit {self.audit['audit_id']}, {self.status!r})"


def status_sentence(status: LiveStatus) -> str:
    """Where the audit stands, in words: its decision and stopping case, inconclusive, or running."""
    if status.stopped and status.stop is not None:
        return f"{status.decision} at case {status.stop} ({status.process} vs {status.auditor_process})"
    if status.done:
        return f"inconclusive after {status.n} cases (budget or pool used up)"
    return f"running: {status.n} of at most {status.budget} cases labelled, no e-process has crossed 1/α yet"



def live_audit_status(audit_id: int, db=None, verify: bool = False) -> LiveAction:
    """Where audit ``audit_id`` stands: from its event log alone (no pool, no pandas), the same
    status a replay gives; ``verify``: replay the log through the strategy instead, checking that
    every recorded proposal is the one it makes (what every write does)."""
    if not verify:
        path = resolve_db(db)
        if not db_exists(path):   # no workspace there: said so as opening it would, nothing is created
            raise InputError(f"audit database {db_name(path)}: no workspace there yet (no audit was created in it)")
        from audit_core.live.log_status import status_from_log  # numpy and the e-processes, no pandas

        try:
            conn = connect(path, create=False, read_only=True)  # reading needs no write access
            try:
                found = status_from_log(conn, int(audit_id))
            finally:
                conn.close()
        except DB_ERRORS as exc:
            raise workspace_failure(path, exc) from None
        if found is not None:
            return LiveAction(audit=found[0], status=found[1])
    from audit_core.analyses.open_audits import open_audit  # the pool and the strategy (pandas)

    with open_audit(audit_id, db) as audit:
        return LiveAction(audit=audit.to_dict(), status=audit.status())
