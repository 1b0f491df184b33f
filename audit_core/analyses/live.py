"""Use cases of the "Live audit" page: start, resume, claim, label, undo, export a live audit.

Every function opens the workspace afresh (``db``: a path, or None for ``$AUDIT_HOME``) and
rebuilds the audit from its event log, so nothing lives in a browser session but the audit id
and the annotator's name: several sessions can work on one audit, and a closed browser loses
nothing. The engine is :mod:`audit_core.live`; the chart is the replay page's trajectory chart.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from audit_core.auditing import AUDITOR_FOR, BUNDLED_POOLS
from audit_core.live import LIVE_STRATEGIES, LiveAudit, LiveProposal, LiveStatus, connect, export_frame, list_audits
from audit_core.live.session import LabelRecord
from audit_core.report import ReportChart, ReportSection, ReportTable, safe_csv_bytes
from audit_core.views.charts import chart_spec, trajectory_chart
from audit_core.presets import DEFAULT_MODEL_PROCESS  # noqa: F401 (the page's default)
from audit_core.sequential import MODEL_PROCESSES

LIVE_POOLS = tuple(BUNDLED_POOLS)
LABEL_CHOICES = (("correct", 1.0), ("incorrect", 0.0), ("partial", 0.5))
PHASE_REASONS = {
    "init": "one of the first random cases that start the accuracy model",
    "explore": "a random case (exploration keeps the model honest)",
    "exploit": "the lowest predicted accuracy in the subset the model suspects to fail",
    "ucb": "an uncertain case: the model's lower confidence bound is among the lowest half",
    "stratum": "the next subgroup in the stratified rotation",
    "target": "inside the suspected subgroups",
    "subset": "inside the subset with the lowest pre-learned predictions",
    "heldout": "a held-out case that trains the pre-learned model (not counted in the audit)",
}


@dataclass(frozen=True, repr=False)
class LiveAuditView:
    """One look at a live audit.

    ``audit``: its settings (``LiveAudit.to_dict()``); ``status``; ``current``: the cases claimed
    by the annotator; ``case_tables``: per current case, its pool columns (feature columns left
    out) as a (column, value) table; ``reasons``: why each current case was chosen; ``labels``:
    every label received (step, case, score, annotator, time, phase, log E after it);
    ``trajectory``: Vega-Lite spec of log10 E of both processes against 1/alpha (None before the
    first counted label); ``section``: the Report page's section; ``verdict``: one line.
    """

    audit: dict
    status: LiveStatus
    current: tuple[LiveProposal, ...]
    case_tables: tuple[pd.DataFrame, ...]
    reasons: tuple[str, ...]
    labels: pd.DataFrame
    trajectory: dict | None
    section: ReportSection
    verdict: str

    def __repr__(self) -> str:
        return f"LiveAuditView(audit {self.audit['audit_id']}, {self.verdict!r})"


def live_audit_list(db=None) -> pd.DataFrame:
    """The audits of the workspace (id, pool, strategy, process, seed, labels, created)."""
    rows = list_audits(connect(db))
    return pd.DataFrame(rows, columns=["audit_id", "pool", "strategy", "process", "seed", "labels", "created"])


def start_live_audit(pool: str, strategy: str = "adaptive", process: str = "SR-LR-UI", seed: int = 0,
                     content: bytes | None = None, db=None) -> int:
    """Create an audit of a bundled pool key or an uploaded CSV (``content``); returns its id."""
    return LiveAudit.create(connect(db), pool, strategy=strategy, process=process, seed=int(seed),
                            content=content).audit_id


def claim_cases(audit_id: int, annotator: str, batch: int = 1, db=None) -> tuple[LiveProposal, ...]:
    """The annotator's pending cases, else ``batch`` new ones claimed (none once stopped)."""
    return LiveAudit(connect(db), audit_id).next(annotator, batch=batch)


def record_label(audit_id: int, case_id: str, score: float, annotator: str, db=None) -> LabelRecord:
    return LiveAudit(connect(db), audit_id).label(case_id, score, annotator)


def undo_last_label(audit_id: int, annotator: str, db=None) -> LabelRecord:
    return LiveAudit(connect(db), audit_id).undo(annotator)


def export_live_csv(audit_id: int, db=None) -> bytes:
    """The recorded-run CSV (for Replay), formula-looking cells neutralised."""
    return safe_csv_bytes(export_frame(LiveAudit(connect(db), audit_id)))


def _labels_table(labels: tuple[LabelRecord, ...]) -> pd.DataFrame:
    return pd.DataFrame([{"step": r.step, "case": r.case_id, "score": r.score, "annotator": r.annotator,
                          "time (UTC)": r.ts, "why chosen": r.phase,
                          "log E model": r.log_e_model if r.counted else None,
                          "log E auditor": r.log_e_auditor if r.counted else None} for r in labels],
                        columns=["step", "case", "score", "annotator", "time (UTC)", "why chosen",
                                 "log E model", "log E auditor"])


def _trajectory(audit: LiveAudit, labels: tuple[LabelRecord, ...], status: LiveStatus) -> dict | None:
    counted = [r for r in labels if r.counted]
    rows = []
    for name, test, attr in ((audit.process, "model's null", "log_e_model"),
                             (AUDITOR_FOR[audit.process], "auditor's null", "log_e_auditor")):
        rows += [{"step": r.step, "process": name, "test": test, "log10_e": getattr(r, attr) / math.log(10)}
                 for r in counted if math.isfinite(getattr(r, attr))]
    if not rows:
        return None
    stops = pd.DataFrame(columns=["process", "test", "step", "log10_e"])
    if status.stop is not None:
        model_won = status.decision.startswith("failure")
        hit = counted[status.stop - 1]
        stops = pd.DataFrame([{"process": audit.process if model_won else AUDITOR_FOR[audit.process],
                               "test": "model's null" if model_won else "auditor's null", "step": status.stop,
                               "log10_e": (hit.log_e_model if model_won else hit.log_e_auditor) / math.log(10)}])
    return chart_spec(trajectory_chart(pd.DataFrame(rows), stops, status.log_threshold / math.log(10),
                                       audit.params.m, title=f"Live audit {audit.audit_id}: e-processes"))


def _case_table(audit: LiveAudit, row: int) -> pd.DataFrame:
    frame = audit.data.frame
    hidden = set(audit.data.features) | {audit.roles.get("score"), audit.roles.get("truth")}
    shown = [c for c in frame.columns if c not in hidden and not str(c).startswith("_live")]
    return pd.DataFrame({"column": shown, "value": [str(frame[c].iloc[row]) for c in shown]})


def _verdict(status: LiveStatus) -> str:
    if status.stopped and status.stop is not None:
        return f"{status.decision} at case {status.stop} ({status.process} vs {status.auditor_process})"
    if status.done:
        return f"inconclusive after {status.n} cases (budget or pool used up)"
    return f"running: {status.n} of at most {status.budget} cases labelled, no e-process has crossed 1/α yet"


def live_audit_view(audit_id: int, annotator: str | None = None, claim: bool = False, db=None) -> LiveAuditView:
    """The audit's state; with ``claim`` the annotator's next case is claimed first."""
    audit = LiveAudit(connect(db), audit_id)
    current = audit.next(annotator) if claim and annotator else (audit.pending(annotator) if annotator else ())
    status = audit.status()
    labels = audit.labels()
    table = _labels_table(labels)
    spec = _trajectory(audit, labels, status)
    verdict = _verdict(status)
    settings = audit.to_dict()
    section = ReportSection(
        key=f"live_audit_{audit.audit_id}", title=f"Live audit {audit.audit_id} of {audit.pool_spec}",
        source=f"workspace audit {audit.audit_id} (strategy {audit.strategy}, seed {audit.seed})",
        parameters={**audit.test_params.to_dict(), "strategy": audit.strategy, "model process": audit.process,
                    "auditor process": AUDITOR_FOR[audit.process]},
        summary=(f"Dual test: {verdict}.", f"{status.n} counted labels, {status.n_heldout} held out."),
        tables=(ReportTable("Labels in the order received", table),),
        charts=(ReportChart("E-process trajectories", spec),) if spec else (),
        numbers={"audit": settings, "status": status.to_dict()})
    return LiveAuditView(audit=settings, status=status, current=tuple(current),
                         case_tables=tuple(_case_table(audit, p.row) for p in current),
                         reasons=tuple(PHASE_REASONS.get(p.phase, p.phase) for p in current), labels=table,
                         trajectory=spec, section=section, verdict=verdict)


__all__ = ["LABEL_CHOICES", "LIVE_POOLS", "LiveAuditView", "LIVE_STRATEGIES", "MODEL_PROCESSES", "claim_cases",
           "export_live_csv", "live_audit_list", "live_audit_view", "record_label", "start_live_audit",
           "undo_last_label"]
