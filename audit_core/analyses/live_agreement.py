"""Agreement, adjudication and the audit trail of a live audit (issue 34).

An audit started with an overlap plan (:class:`~audit_core.live.overlap.OverlapPlan`) has some
cases labelled by several people. :func:`live_agreement` measures how far they agree, on the labels
of those cases (every label, the first included), with :func:`audit_core.measure.interrater.agreement`:
percent agreement, Cohen's κ (exactly two labellers), Krippendorff's α (nominal for 0/1 labels,
interval for graded ones), each with a case-bootstrap interval, per audit and per subgroup; each
labeller against the others (agreement and bias); the disagreements and how each was settled.

:func:`adjudicate_case` settles one disagreement (owners and adjudicators); :func:`audit_trail` is
every event of the audit in order, for owners.

Blinding: no one is shown another's label of a case they may still be asked to label: the
disagreements listed to ``who`` leave those cases out, whatever ``who``'s role (see
:func:`live_agreement`). The statistics are over every double-labelled case.
"""

from __future__ import annotations

import json
import math
from collections import OrderedDict
from dataclasses import dataclass, replace

import pandas as pd

from audit_core.analyses.common import plural
from audit_core.analyses.open_audits import open_audit, remembered
from audit_core.errors import InputError
from audit_core.live.records import LiveStatus
from audit_core.live.roles import Identity, require
from audit_core.live.session import LiveAudit
from audit_core.live.store import read_events
from audit_core.report import ReportChart, ReportSection, ReportTable, safe_csv_bytes
from audit_core.report import format as fmt

STATISTIC_NAMES = {"percent_agreement": "percent agreement", "cohen_kappa": "Cohen's κ",
                   "krippendorff_alpha": "Krippendorff's α"}
AUDIT_TRAIL_COLUMNS = ["event", "kind", "what", "case", "annotator", "signed in", "identity", "issuer", "time (UTC)",
                       "score", "reason", "batch"]
_WHAT = {"proposed": "case proposed to the annotator", "offered": "double-labelled case claimed for a further label", "labelled": "label (the case's first)",
         "overlap_labelled": "further label of a double-labelled case", "skipped": "skipped without a label",
         "undone": "last label or skip undone", "adjudicated": "disagreement settled"}
_SCORED = ("labelled", "overlap_labelled", "adjudicated")


@dataclass(frozen=True, repr=False)
class LiveAgreement:
    """How far a live audit's labellers agree, and how their disagreements were settled.

    ``overlap``: the plan (share, labellers, label choice; share 0 without one); ``agreement``:
    :class:`~audit_core.measure.interrater.Agreement` (None before any case has two labels);
    ``statistics``: one row per subgroup (``(all)`` first) and statistic (estimate, low, high);
    ``annotators``: each labeller against the others; ``disagreements``: case, subgroup, every
    label and its author, and its settlement (score, adjudicator, reason, or empty while it waits);
    ``adjudications``: every settlement; ``waiting``: labelled cases the e-processes have not seen
    yet (label choice ``adjudicated``); ``hidden``: disagreements left out because ``who`` may still
    label them; ``chart``: per-subgroup statistics with their intervals (Vega-Lite; None without
    agreement); ``section``: the report's; ``verdict``: one line.
    """

    audit_id: int
    overlap: dict
    agreement: object | None
    statistics: pd.DataFrame
    annotators: pd.DataFrame
    disagreements: pd.DataFrame
    adjudications: pd.DataFrame
    waiting: tuple[str, ...]
    hidden: int
    chart: dict | None
    section: ReportSection
    verdict: str

    def to_dict(self) -> dict:
        """``audit agreement --json``: the agreement numbers (as ``Agreement.to_dict()``), the plan,
        the settlements and the waiting cases."""
        numbers = self.agreement.to_dict() if self.agreement is not None else {
            "percent_agreement": None, "cohen_kappa": None, "krippendorff_alpha": None, "n_cases": 0,
            "n_labels": 0, "subgroups": [], "annotators": [], "disagreements": []}
        settled = {r["case"]: r for r in self.adjudications.to_dict("records")}
        for row in numbers["disagreements"]:
            done = settled.get(row["case_id"])
            row["settled"] = None if done is None else {"score": done["score"], "adjudicator": done["adjudicator"],
                                                        "reason": done["reason"], "time": done["time (UTC)"]}
        return {"audit_id": self.audit_id, "overlap": self.overlap, **numbers,
                "adjudications": [{"case_id": r["case"], "score": r["score"], "adjudicator": r["adjudicator"],
                                   "signed_in": bool(r["signed in"]), "reason": r["reason"], "time": r["time (UTC)"]}
                                  for r in self.adjudications.to_dict("records")],
                "waiting": list(self.waiting), "hidden": self.hidden}

    def __repr__(self) -> str:
        return f"LiveAgreement(audit {self.audit_id}, {self.verdict!r})"


@dataclass(frozen=True, repr=False)
class Adjudicated:
    """One settled disagreement: ``case_id``, ``score``, ``reason``, ``adjudicator``, ``verified``
    (signed in), ``ts``; ``entered``: whether the settled label is the one the e-processes see
    (label choice ``adjudicated``); ``status`` after it."""

    audit_id: int
    case_id: str
    score: float
    reason: str
    adjudicator: str
    verified: bool
    ts: str
    entered: bool
    status: LiveStatus

    def to_dict(self) -> dict:
        return {"audit_id": self.audit_id, "adjudicated": {
            "case_id": self.case_id, "score": self.score, "reason": self.reason, "adjudicator": self.adjudicator,
            "signed_in": self.verified, "time": self.ts, "entered_e_processes": self.entered},
            "status": self.status.to_dict()}

    def __repr__(self) -> str:
        return f"Adjudicated(audit {self.audit_id}, case {self.case_id!r} = {self.score:g} by {self.adjudicator})"


def _statistics(agreement) -> pd.DataFrame:
    rows = []
    groups = (agreement.overall, *agreement.by_subgroup) if agreement is not None else ()
    for group in groups:
        for key, name in STATISTIC_NAMES.items():
            stat = getattr(group, key)
            if stat is not None:
                rows.append({"subgroup": group.subgroup, "statistic": name, "cases": group.n_cases,
                             "labels": group.n_labels, "estimate": stat.estimate, "low": stat.low, "high": stat.high})
    return pd.DataFrame(rows, columns=["subgroup", "statistic", "cases", "labels", "estimate", "low", "high"])


def _annotators(agreement) -> pd.DataFrame:
    rows = [] if agreement is None else [a.to_dict() for a in agreement.annotators]
    frame = pd.DataFrame(rows, columns=["annotator", "shared", "agreement", "mean", "others_mean", "bias"])
    return frame.rename(columns={"shared": "shared cases", "mean": "own mean label",
                                 "others_mean": "others' mean label"})


def _open_to(audit: LiveAudit, who: Identity | str | None) -> set[str]:
    """The overlapped cases ``who`` may still be asked to label, whatever their role (an
    adjudicator sees a case's labels once it is no longer theirs to label); nothing for None
    (the command line and a report made without a person)."""
    if who is None:
        return set()
    return {p.case_id for p in audit.further_cases(who)}


def _disagreements(audit: LiveAudit, labels, settled: dict, hidden_cases) -> tuple[pd.DataFrame, int]:
    queue = {d["case_id"]: d for d in audit.disagreements()}
    by_case: dict[str, list] = {}
    for row in labels:
        by_case.setdefault(row["case_id"], []).append(row)
    rows, hidden = [], 0
    for case, labels in by_case.items():
        scores = [r["score"] for r in labels]
        if len(scores) < 2 or max(scores) - min(scores) < 1e-9:
            continue
        if case in hidden_cases:
            hidden += 1
            continue
        done = settled.get(case)
        rows.append({"case": case, "subgroup": labels[0]["subgroup"],
                     "labels": "; ".join(f"{r['annotator']}: {r['score']:g}" for r in labels),
                     "settled": None if done is None else done["score"],
                     "adjudicator": "" if done is None else done["adjudicator"],
                     "reason": "" if done is None else done["reason"],
                     "state": "waits for adjudication" if case in queue else "settled"})
    return pd.DataFrame(rows, columns=["case", "subgroup", "labels", "settled", "adjudicator", "reason",
                                       "state"]), hidden


def _chart(statistics: pd.DataFrame, audit_id: int) -> dict | None:
    # Altair is loaded here, for the page and the report: the command line's JSON draws none.
    from audit_core.views.charts import agreement_chart, chart_spec

    shown = statistics[statistics["estimate"].map(lambda x: x is not None and math.isfinite(x))]
    if shown.empty:
        return None
    return chart_spec(agreement_chart(shown, title=f"Live audit {audit_id}: agreement between labellers"))


def _sentence(audit: LiveAudit, agreement, queue: int, waiting: int) -> str:
    plan = audit.overlap
    if not plan.active:
        return "No case is double-labelled in this audit (its overlap share is 0)."
    head = (f"{plan.share:.0%} of cases are labelled by {plan.labellers} people; the e-processes see "
            + ("the first label" if plan.label_choice == "first" else "the settled label"))
    if agreement is None:
        return head + "; no case has two labels yet."
    pa, alpha = agreement.percent_agreement, agreement.krippendorff_alpha
    out = (f"{head}. On {plural(agreement.overall.n_cases, 'case')} with two labels or more, the labellers "
           f"agree on {fmt.number(pa.estimate)} of pairs")
    if math.isfinite(alpha.estimate):
        out += f" (Krippendorff's α {fmt.number(alpha.estimate)}, {alpha.confidence:.0%} interval " \
               f"{fmt.number(alpha.low)} to {fmt.number(alpha.high)})"
    out += "."
    if queue:
        out += f" {plural(queue, 'disagreement')} to settle"
        out += f"; {plural(waiting, 'labelled case')} wait for it." if waiting else "."
    return out


# The chart and the bootstrap cost about 0.1 s, and a page reruns for every widget touched: the
# agreement changes only with the double labels, the settlements and what ``who`` may not see.
_agreements: OrderedDict[tuple, LiveAgreement] = OrderedDict()


def build_live_agreement(audit: LiveAudit, who: Identity | str | None = None, bootstrap: int = 1000,
                         confidence: float = 0.95, seed: int = 0) -> LiveAgreement:
    """:func:`live_agreement` of an open audit (the live view builds it from the audit it holds)."""
    from audit_core.measure.interrater import check_bootstrap

    check_bootstrap(bootstrap, confidence)
    labels, settlements, hidden_cases = audit.overlap_labels(), audit.adjudications(), _open_to(audit, who)
    key = (audit.audit_id, audit.created, audit.pool_spec, tuple((r["case_id"], r["annotator"], r["ts"]) for r in labels),
           tuple(a["ts"] for a in settlements), frozenset(hidden_cases), bootstrap, float(confidence), seed)
    return remembered(_agreements, key, lambda: _build(audit, labels, settlements, hidden_cases, bootstrap,
                                                       confidence, seed))


def _build(audit: LiveAudit, labels, settlements, hidden_cases, bootstrap, confidence, seed) -> LiveAgreement:
    from audit_core.measure.interrater import agreement as measure_agreement

    pairable = {}
    for row in labels:
        pairable[row["case_id"]] = pairable.get(row["case_id"], 0) + 1
    result = None
    if any(n >= 2 for n in pairable.values()):
        result = measure_agreement([r["case_id"] for r in labels], [r["annotator"] for r in labels],
                                   [r["score"] for r in labels], subgroups=[r["subgroup"] for r in labels],
                                   bootstrap=bootstrap, confidence=confidence, seed=seed)
    settled = {a["case_id"]: a for a in settlements}
    adjudications = pd.DataFrame([{"case": a["case_id"], "score": a["score"], "adjudicator": a["adjudicator"],
                                   "signed in": a["verified"], "reason": a["reason"], "time (UTC)": a["ts"]}
                                  for a in settlements],
                                 columns=["case", "score", "adjudicator", "signed in", "reason", "time (UTC)"])
    disagreements, hidden = _disagreements(audit, labels, settled, hidden_cases)
    if result is not None and hidden:
        # the numbers' own list of disagreements follows the same blinding as the table
        shown = set(disagreements["case"])
        result = _without_cases(result, shown)
    statistics = _statistics(result)
    waiting, queue = audit.waiting(), len(audit.disagreements())
    verdict = _sentence(audit, result, queue, len(waiting))
    chart = _chart(statistics, audit.audit_id)
    summary = [verdict]
    if hidden:
        summary.append(f"{plural(hidden, 'disagreement')} on cases you may still label are not listed.")
    result = LiveAgreement(audit_id=audit.audit_id, overlap=audit.overlap.to_dict(), agreement=result,
                           statistics=statistics, annotators=_annotators(result), disagreements=disagreements,
                           adjudications=adjudications, waiting=waiting, hidden=hidden, chart=chart, section=None,
                           verdict=verdict)
    section = ReportSection(
        key=f"live_agreement_{audit.audit_id}", title=f"Agreement between labellers, live audit {audit.audit_id}",
        source=f"workspace audit {audit.audit_id} of {audit.pool_spec}",
        parameters={"overlap share": audit.overlap.share, "labellers per overlapped case": audit.overlap.labellers,
                    "label the e-processes see": audit.overlap.label_choice, "bootstrap resamples": bootstrap,
                    "interval confidence": confidence, "seed": seed},
        summary=tuple(summary),
        tables=tuple(t for t in (ReportTable("Agreement statistics", statistics),
                                 ReportTable("Each labeller against the others", result.annotators),
                                 ReportTable("Disagreements and how they were settled", disagreements),
                                 ReportTable("Adjudications", adjudications)) if len(t.frame)),
        charts=(ReportChart("Agreement per subgroup", chart),) if chart else (),
        numbers={"agreement": result.to_dict()})
    return replace(result, section=section)


def _without_cases(result, shown: set[str]):
    return replace(result, disagreements=tuple(d for d in result.disagreements if d.case_id in shown))


def live_agreement(audit_id: int, who: Identity | str | None = None, db=None, bootstrap: int = 1000,
                   confidence: float = 0.95, seed: int = 0) -> LiveAgreement:
    """Agreement between the labellers of audit ``audit_id`` (see the module doc): intervals from
    ``bootstrap`` case resamples drawn from ``seed`` at ``confidence``. ``who``: whose view (a viewer or
    annotator is not shown the labels of cases they may still be asked to label; None: everything,
    as the command line and owners see it)."""
    with open_audit(audit_id, db) as audit:
        return build_live_agreement(audit, who, bootstrap=bootstrap, confidence=confidence, seed=seed)


def adjudicate_case(audit_id: int, case_id: str, score, reason: str, adjudicator: Identity | str,
                    db=None) -> Adjudicated:
    """Settle the disagreement on ``case_id`` with the label ``score`` and ``reason`` (an owner or an
    adjudicator; an append-only ``adjudicated`` event with the name and time)."""
    with open_audit(audit_id, db) as audit:
        event = audit.adjudicate(str(case_id), score, reason, adjudicator)
        return Adjudicated(audit_id=audit.audit_id, case_id=event.case_id, score=float(event.score),
                           reason=event.reason, adjudicator=event.annotator, verified=bool(event.verified),
                           ts=event.ts, entered=audit.overlap.label_choice == "adjudicated", status=audit.status())


def audit_trail(audit_id: int, who: Identity | str | None = None, db=None) -> pd.DataFrame:
    """Every event of the audit in log order, undone ones included (owners only): a ``started`` row
    (the audit's creation time), then each event's id, kind, what it means, case, who, whether they
    had signed in, how their name is known, the provider, time, score, reason (a skip's or an
    adjudication's), proposal batch. Role changes are not events: they are the operator's roles file."""
    if who is not None:
        require(who, "audit trail")
    with open_audit(audit_id, db) as audit:
        events = read_events(audit.conn, audit.audit_id)
        created, status, labels = audit.created, audit.status(), audit.labels()
    rows = [[0, "started", "audit created", "", "", False, "", "", created, math.nan, "", math.nan]]
    for e in events:
        rows.append([e.id, e.kind, _WHAT.get(e.kind, e.kind), e.case_id, e.annotator, e.verified, e.source, e.issuer,
                     e.ts, math.nan if e.score is None else e.score, e.reason or "",
                     math.nan if e.batch is None else e.batch])
    if status.stop is not None:
        # the stop is no event of its own: it follows the label that made one e-process reach 1/alpha
        last = [r for r in labels if r.counted][status.stop - 1]
        at = max((i for i, row in enumerate(rows) if row[3] == last.case_id and row[1] in _SCORED), default=len(rows) - 1)
        rows.insert(at + 1, [rows[at][0], "stopped", f"the dual test stopped: {status.decision}", last.case_id, "",
                             False, "", "", last.ts, math.nan, "", math.nan])
    return pd.DataFrame(rows, columns=AUDIT_TRAIL_COLUMNS)


def audit_trail_records(trail: pd.DataFrame) -> list[dict]:
    """The trail's rows as JSON-ready records (missing scores and batches as None)."""
    return trail.astype(object).where(trail.notna(), None).to_dict("records")


def audit_trail_bytes(audit_id: int, trail: pd.DataFrame, suffix: str) -> bytes:
    """The trail as a file: ``.csv`` (formula-looking cells neutralised) or ``.json``
    (``{"audit_id", "events"}``)."""
    suffix = suffix.lower()
    if suffix == ".csv":
        return safe_csv_bytes(trail)
    if suffix == ".json":
        return json.dumps({"audit_id": audit_id, "events": audit_trail_records(trail)}, indent=1,
                          ensure_ascii=False).encode()
    raise InputError(f"trail file: expected a .csv or .json file name, got {suffix or 'no suffix'!r}")


__all__ = ["audit_trail_bytes", "audit_trail_records", "AUDIT_TRAIL_COLUMNS", "Adjudicated", "LiveAgreement", "adjudicate_case", "audit_trail",
           "build_live_agreement", "live_agreement"]
