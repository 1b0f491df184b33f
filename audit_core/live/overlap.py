"""Double labelling in live audits (issue 34): which cases are overlapped and which label counts.

An audit started with an overlap :class:`OverlapPlan` (``share`` of cases, ``labellers`` per
overlapped case, ``label_choice``) gives each overlapped case to ``labellers`` distinct
annotators: the first as any case (the strategy's proposal), the others after it, each of whom
has not labelled it; nobody is shown another's label.

Which cases are overlapped is fixed before any label: case ``c`` of an audit with seed ``s`` is
overlapped when ``SHA-256("s:c")`` read as a number in [0, 1) is below ``share``. It depends on
neither labels nor their order, so it cannot steer the audit.

Which label the e-processes see (``label_choice``, chosen at start):

* ``first``: the first label, at once; the further labels only measure agreement, and an
  adjudication is recorded beside the decision without changing it.
* ``adjudicated``: an overlapped case waits until settled, by all its labels agreeing or by an
  adjudicator's ``adjudicated`` event; its settled label then enters the e-processes. Labels enter
  in the order their cases got their *first* label, whether or not a case waits: a case that
  waits holds back every later one. Agreement and disagreement (which depend on label values)
  therefore change only *when* a label enters, never the order of the labels the e-processes see,
  so the sequence they test is the one the first-label audit would test, with settled values.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass

from audit_core.errors import InputError

LABEL_CHOICES = ("first", "adjudicated")


@dataclass(frozen=True)
class OverlapPlan:
    """``share`` of cases overlapped (0-1), ``labellers`` per overlapped case (>= 2), and
    ``label_choice`` (``first`` / ``adjudicated``, see the module doc)."""

    share: float = 0.0
    labellers: int = 2
    label_choice: str = "first"

    def __post_init__(self) -> None:
        share = self.share
        if isinstance(share, bool) or not isinstance(share, (int, float)) or not math.isfinite(share) \
                or not 0.0 <= share <= 1.0:
            raise InputError(f"overlap: expected a share between 0 and 1 (0-100 %), got {share!r}")
        if isinstance(self.labellers, bool) or not isinstance(self.labellers, int) or self.labellers < 2:
            raise InputError(f"labellers: expected a whole number >= 2 per overlapped case, got {self.labellers!r}")
        if self.label_choice not in LABEL_CHOICES:
            raise InputError(f"label choice: expected one of {', '.join(LABEL_CHOICES)}, got {self.label_choice!r}")

    @property
    def active(self) -> bool:
        return self.share > 0.0

    def to_dict(self) -> dict:
        return {"share": float(self.share), "labellers": int(self.labellers), "label_choice": self.label_choice}

    @classmethod
    def from_dict(cls, data) -> OverlapPlan:
        if data is None:
            return cls()
        if not isinstance(data, dict):
            raise InputError("overlap: the stored settings are not a JSON object; the workspace was changed "
                             "outside the workbench")
        return cls(float(data.get("share", 0.0)), int(data.get("labellers", 2)), str(data.get("label_choice", "first")))

    def __repr__(self) -> str:
        return f"OverlapPlan({self.share:.0%} × {self.labellers}, {self.label_choice})"


def overlap_draw(seed: int, case_id: str) -> float:
    """The case's number in [0, 1): ``SHA-256("seed:case_id")``'s first 8 bytes over 2^64."""
    digest = hashlib.sha256(f"{int(seed)}:{case_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2.0 ** 64


def is_overlapped(plan: OverlapPlan, seed: int, case_id: str) -> bool:
    """Whether ``case_id`` is double-labelled under ``plan`` (decided before any label)."""
    return plan.active and overlap_draw(seed, case_id) < plan.share
