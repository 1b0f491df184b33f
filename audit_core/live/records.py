"""What a live audit shows: a proposed case, a label, a skip, and where the audit stands.

Plain frozen records (no numpy, no pandas), so that reading an audit's status from its event log
(:mod:`audit_core.live.log_status`) loads neither the pool nor the strategy.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


def _finite(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


@dataclass(frozen=True)
class LiveProposal:
    """A case proposed to an annotator.

    ``case_id`` / ``row``: the case and its pool row; ``phase``: why the strategy chose it
    (``init``, ``explore``, ``exploit``, ``ucb``, ``stratum``, ``target``, ``subset``, ``heldout``);
    ``predicted``: the auditor's predicted accuracy (None without a model); ``subgroup``: its
    stratum; ``text``: the text column's value (None without one); ``annotator``: who claimed it;
    ``counted``: whether its label enters the dual test (held-out cases of the pre-learned model
    do not); ``batch``: the proposal batch number.
    """

    case_id: str
    row: int
    phase: str
    predicted: float | None
    subgroup: str
    text: str | None
    annotator: str
    counted: bool
    batch: int

    def to_dict(self) -> dict:
        return {"case_id": self.case_id, "row": self.row, "phase": self.phase, "predicted": self.predicted,
                "subgroup": self.subgroup, "text": self.text, "annotator": self.annotator,
                "counted": self.counted, "batch": self.batch}


@dataclass(frozen=True)
class LabelRecord:
    """One label in the order received: ``step`` is its 1-based position among counted labels
    (None for a held-out label); ``log_e_model`` / ``log_e_auditor`` after it (NaN if held out);
    ``verified``: the annotator had signed in (see :mod:`audit_core.live.roles`)."""

    case_id: str
    row: int
    score: float
    annotator: str
    ts: str
    phase: str
    predicted: float
    counted: bool
    step: int | None
    log_e_model: float
    log_e_auditor: float
    verified: bool = False


@dataclass(frozen=True)
class SkipRecord:
    """A proposed case skipped without a label: ``reason`` as given, who skipped it (``verified``:
    signed in) and when."""

    case_id: str
    row: int
    reason: str
    annotator: str
    ts: str
    phase: str
    counted: bool
    verified: bool = False

    def to_dict(self) -> dict:
        return {"case_id": self.case_id, "reason": self.reason, "annotator": self.annotator, "ts": self.ts,
                "phase": self.phase, "counted": self.counted, "verified": self.verified}


@dataclass(frozen=True, repr=False)
class LiveStatus:
    """Where an audit stands.

    ``n``: counted labels; ``n_heldout``: held-out labels (pre-learned); ``n_skipped``: cases
    skipped with a reason (no label; outside the test and the budget); ``log_e_model`` /
    ``log_e_auditor``: current log e-values of the model's and the auditor's process (``process``
    / ``auditor_process``; -inf for a changepoint process before its first score, None in JSON); ``log_threshold``: -log(alpha); ``decision`` / ``stop``: the dual
    decision and its 1-based step (None while inconclusive); ``stopped``: no more labels are
    taken (a crossing or the budget); ``exhausted``: no case left to propose; ``pending``: case
    ids proposed and not labelled; ``can_undo``: the last label (or skip) may still be undone.
    """

    audit_id: int
    strategy: str
    process: str
    auditor_process: str
    n: int
    n_heldout: int
    n_skipped: int
    budget: int
    log_e_model: float
    log_e_auditor: float
    log_threshold: float
    decision: str
    stop: int | None
    stopped: bool
    exhausted: bool
    pending: tuple[str, ...]
    can_undo: bool

    @property
    def done(self) -> bool:
        return self.stopped or (self.exhausted and not self.pending)

    def to_dict(self) -> dict:
        return {"audit_id": self.audit_id, "strategy": self.strategy, "process": self.process,
                "auditor_process": self.auditor_process, "n": self.n, "n_heldout": self.n_heldout,
                "n_skipped": self.n_skipped, "budget": self.budget, "log_e_model": _finite(self.log_e_model),
                "log_e_auditor": _finite(self.log_e_auditor),
                "log_threshold": self.log_threshold, "decision": self.decision, "stop": self.stop,
                "stopped": self.stopped, "exhausted": self.exhausted, "done": self.done,
                "pending": list(self.pending), "can_undo": self.can_undo}

    def __repr__(self) -> str:
        return (f"LiveStatus(audit {self.audit_id}, n={self.n}, decision={self.decision!r}, stop={self.stop}, "
                f"pending={len(self.pending)})")
