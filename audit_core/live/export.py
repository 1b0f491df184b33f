"""Export a live audit as a labelled CSV in the recorded-run format (``data/recorded_run.csv``).

Columns: ``order`` (1-based, the order labels were received), the pool's own columns except its
features, its order column and its true-accuracy column, with the score column (the pool's score
column name, else ``correct``) holding the live labels, followed by ``auditor_phase`` and
``auditor_prediction`` (rounded to 4 decimals, empty without a model), and last ``annotator`` (who
gave the label) and ``annotator_verified`` (``true`` when they had signed in through the
operator's identity provider, ``false`` for a typed-in or operating-system name; issue 23). For
the SDoH-style pool this is exactly ``order,case_id,note_id,category,definition,correct,
auditor_phase,auditor_prediction,provenance,annotator,annotator_verified``; without the last two
columns it is ``data/recorded_run.csv``. Only counted labels are written: the pre-learned model's held-out
labels are outside the dual test, so :func:`~audit_core.sequential.replay` of the file with the
audit's ``test_params`` and processes gives exactly the live trajectories, decision and stop.
Text cells that a spreadsheet would run as a formula are neutralised.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from audit_core.errors import InputError
from audit_core.live.pool import PLACEHOLDER_SCORE, TRUTH_NAMES
from audit_core.live.session import LiveAudit
from audit_core.report.safety import safe_csv_bytes

DEFAULT_SCORE_COLUMN = "correct"
IDENTITY_COLUMNS = ("annotator", "annotator_verified")


@dataclass(frozen=True)
class ExportResult:
    """``path`` written, ``n`` rows, ``columns`` in file order."""

    path: str
    n: int
    columns: tuple[str, ...]

    def to_dict(self) -> dict:
        return {"path": self.path, "n": self.n, "columns": list(self.columns)}


def _score_text(y: float) -> str:
    return str(int(y)) if float(y).is_integer() else repr(float(y))


def export_frame(audit: LiveAudit) -> pd.DataFrame:
    """The labelled rows of ``audit`` in the order received (see the module doc)."""
    records = [r for r in audit.labels() if r.counted]
    data = audit.data
    dropped = set(data.features) | set(TRUTH_NAMES) | {PLACEHOLDER_SCORE, data.order, audit.roles.get("truth")}
    score = audit.roles.get("score") or DEFAULT_SCORE_COLUMN
    columns = [c for c in data.frame.columns if c == score or (c not in dropped and c != "order")]
    if score not in columns:
        columns.append(score)
    rows = [r.row for r in records]
    frame = data.frame.iloc[rows][[c for c in columns if c != score]].astype(str).reset_index(drop=True)
    frame.insert(0, "order", np.arange(1, len(records) + 1))
    at = columns.index(score) + 1
    frame.insert(at, score, [_score_text(r.score) for r in records])
    frame.insert(at + 1, "auditor_phase", [r.phase for r in records])
    frame.insert(at + 2, "auditor_prediction", np.round(np.array([r.predicted for r in records], dtype=float), 4))
    # Who labelled: a pool's own column of the same name keeps its name, ours gets a "live_" prefix.
    name, verified = (c if c not in frame.columns else f"live_{c}" for c in IDENTITY_COLUMNS)
    frame[name] = [r.annotator for r in records]
    frame[verified] = ["true" if r.verified else "false" for r in records]
    return frame


def export_csv(audit: LiveAudit, out: str | os.PathLike) -> ExportResult:
    """Write :func:`export_frame` to ``out`` (UTF-8, ``\\n`` line ends)."""
    frame = export_frame(audit)
    if frame.empty:
        raise InputError(f"audit {audit.audit_id}: no labels to export yet")
    path = Path(out)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(safe_csv_bytes(frame))
    except OSError as exc:
        raise InputError(f"export file {path}: {exc.strerror}") from None
    return ExportResult(path=str(path), n=len(frame), columns=tuple(frame.columns))
