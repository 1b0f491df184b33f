"""Use cases of live audits (the "Live audit" page and the ``audit`` command): start, resume,
claim, label, skip, undo, export.

Every function works on the audit's event log in the workspace (``db``: a path, or None for
``$AUDIT_HOME``), catching up with whatever was appended since, so nothing lives in a browser
session but the audit id and the annotator's name: several sessions can work on one audit, and a
closed browser loses nothing. Open audits are kept between calls (:mod:`audit_core.analyses.open_audits`). The engine is :mod:`audit_core.live`; the chart is the replay page's trajectory chart.

Who acts (issue 23): every write takes ``annotator``, a name or an
:class:`~audit_core.live.roles.Identity`; creation, export and the audit trail take ``who``.
Double labelling, agreement and adjudication (issue 34): :mod:`audit_core.analyses.live_agreement`. An
Identity's role is enforced by the engine (:class:`~audit_core.live.roles.PermissionDenied`, an
InputError); a plain name or ``who=None`` acts as a self-declared owner (the command line, a
dashboard without sign-in). :func:`session_identity` turns a sign-in into an Identity, checked
against the configured provider (issue 27): its issuer, a verified address only when
``email_verified`` is the boolean true, and an expiry after which its writes are refused
(:class:`~audit_core.live.roles.SignInExpired`); :func:`sign_in_problem` says why a sign-in cannot
start (a missing setting, a provider that does not answer).
"""

from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import dataclass, replace
from pathlib import Path

import pandas as pd

from audit_core.analyses import open_audits
from audit_core.analyses.common import plural
from audit_core.analyses.live_agreement import (  # noqa: F401 (re-exported)
    Adjudicated,
    LiveAgreement,
    adjudicate_case,
    audit_trail,
    audit_trail_bytes,
    build_live_agreement,
    live_agreement,
)
from audit_core.analyses.live_status import LiveAction, live_audit_status, status_sentence  # noqa: F401 (re-exported)
from audit_core.analyses.open_audits import open_audit
from audit_core.auditing import AUDITOR_FOR, BUNDLED_POOLS
from audit_core.errors import InputError
from audit_core.live import (
    LIVE_STRATEGIES,
    ExportResult,
    LabelRecord,
    LiveAudit,
    LiveProposal,
    LiveStatus,
    SkipRecord,
    connect,
    export_csv,
    export_frame,
    list_audits,
)
from audit_core.live.export import DEFAULT_SCORE_COLUMN
from audit_core.live.log_status import status_from_log
from audit_core.live.overlap import LABEL_CHOICES as OVERLAP_LABEL_CHOICES
from audit_core.live.overlap import OverlapPlan
from audit_core.live.roles import (
    DEFAULT_ROLE,
    ROLES,
    ROLES_FILE_ENV,
    Identity,
    PermissionDenied,
    RolePolicy,
    SignInExpired,
    allows,
    as_identity,
    declared,
    expired,
    load_role_policy,
    may,
    os_user,
    parse_role_policy,
    reachable_by_others,
    require,
    signed_in,
    utc_time,
)
from audit_core.live.session import DEFAULT_ANNOTATOR
from audit_core.live.sign_in import configured_issuer, provider_problem, provider_settings, settings_problem
from audit_core.live.store import (
    DB_ERRORS,
    copy_audits,
    db_exists,
    db_name,
    is_url,
    resolve_db,
    workspace_failure,
)
from audit_core.presets import DEFAULT_MODEL_PROCESS  # noqa: F401 (the page's default)
from audit_core.report import ReportChart, ReportSection, ReportTable, safe_csv_bytes
from audit_core.report import format as fmt
from audit_core.sequential import MODEL_PROCESSES

LIVE_POOLS = tuple(BUNDLED_POOLS)
LABEL_CHOICES = (("correct", 1.0), ("incorrect", 0.0), ("partial", 0.5))
SKIP_CAVEAT = ("{cases} skipped without a label (listed with their reasons): the dual test covers the "
               "labelled cases, and the whole pool only if the skips do not depend on whether the model was right.")
# Reasons offered for a skip (the annotator may write their own).
SKIP_REASONS = ("the item is unreadable or broken", "the item is outside the audit's scope",
                "I cannot judge this item (expertise)", "the reference answer is wrong")
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
    every label received (step, case, score, annotator, signed in, time, phase, log E after it);
    ``skips``: every case skipped without a label (case, reason, annotator, signed in, time,
    phase); ``by_annotator``: who labelled and skipped how many cases (:func:`annotator_counts`);
    ``undoable``: the label or skip an undo would cancel now (None when none can be undone);
    ``trajectory``: Vega-Lite spec of log10 E of both processes against 1/alpha (None before the
    first counted label); ``section``: the Report page's section; ``verdict``: one line;
    ``agreement``: the labellers' agreement and adjudications
    (:class:`~audit_core.analyses.live_agreement.LiveAgreement`, None without double labelling).
    In ``labels`` the score and log E of a double-labelled case the annotator may still be asked to
    label are hidden (NaN): no one sees another's label first.
    """

    audit: dict
    status: LiveStatus
    current: tuple[LiveProposal, ...]
    case_tables: tuple[pd.DataFrame, ...]
    reasons: tuple[str, ...]
    labels: pd.DataFrame
    skips: pd.DataFrame
    by_annotator: pd.DataFrame
    undoable: LabelRecord | SkipRecord | None
    trajectory: dict | None
    section: ReportSection
    verdict: str
    agreement: LiveAgreement | None = None

    def __repr__(self) -> str:
        return f"LiveAuditView(audit {self.audit['audit_id']}, {self.verdict!r})"


def skip_note(n: int) -> str:
    """What ``n`` skipped cases mean for the guarantee (one sentence)."""
    return SKIP_CAVEAT.format(cases=plural(n, "case"))


def live_audit_list(db=None) -> pd.DataFrame:
    """The audits of the workspace (id, pool, strategy, process, seed, labels, skipped, created)."""
    path = resolve_db(db)
    if not db_exists(path):  # listing creates no folder and no database
        rows = []
    else:
        try:
            rows = list_audits(connect(path, create=False, read_only=True))
        except DB_ERRORS as exc:
            raise workspace_failure(path, exc) from None
    return pd.DataFrame(rows, columns=["audit_id", "pool", "strategy", "process", "seed", "labels", "skipped",
                                       "created"])


def copy_live_audits(source, target, audit_ids: list[int] | None = None) -> list[dict]:
    """Copy audits (all, or ``audit_ids``) with every event and their pools' checksums from workspace
    ``source`` to workspace ``target`` (file paths or PostgreSQL URLs; the target is created if
    needed); one row per audit (``source_id``, ``target_id``, ``events``, ``decision``), the decision
    read from the copy's replay."""
    source, target = resolve_db(source), resolve_db(target)
    if not db_exists(source):
        raise InputError(f"audit database {db_name(source)}: no workspace there yet (no audit was created in it)")
    if not is_url(source) and not is_url(target) and Path(source).resolve() == Path(target).resolve():
        raise InputError("audit copy: the source and the target are the same workspace")
    where = source
    try:
        src = connect(source, create=False, read_only=True)
        where = target
        dst = connect(target)
        where = source
        copied = copy_audits(src, dst, audit_ids)
        where = target
        rows = [{"source_id": c.source_id, "target_id": c.target_id, "events": c.events,
                 "decision": LiveAudit(dst, c.target_id).status().decision} for c in copied]
    except DB_ERRORS as exc:
        raise workspace_failure(where, exc) from None
    return rows


def start_live_audit(pool: str, strategy: str = "adaptive", process: str = "SR-LR-UI", seed: int = 0,
                     content: bytes | None = None, db=None, overlap: float = 0.0, labellers: int = 2,
                     label_choice: str = "first", **settings) -> LiveAction:
    """Create an audit of a bundled pool key, a CSV or Inspect AI log path, or uploaded bytes
    (``content``). ``overlap``: the share of cases (0-1) labelled by ``labellers`` people each, and
    ``label_choice`` the label the e-processes see (``first`` / ``adjudicated``; see
    :mod:`audit_core.live.overlap`). ``settings``: :meth:`LiveAudit.create`'s (``style``, ``roles``,
    ``truth``, ``config``, ``who``: the creator, refused unless an owner; parameter overrides such as
    ``q``, ``alpha``, ``m``, ``budget``)."""
    plan = OverlapPlan(overlap, labellers, label_choice)
    path = resolve_db(db)
    try:
        audit = LiveAudit.create(connect(path), pool, strategy=strategy, process=process, seed=int(seed),
                                 content=content, overlap=plan if plan.active else None, **settings)
    except DB_ERRORS as exc:
        raise workspace_failure(path, exc) from None
    return LiveAction(audit=audit.to_dict(), status=audit.status())


def claim_cases(audit_id: int, annotator: Identity | str, batch: int = 1, db=None) -> LiveAction:
    """The annotator's pending cases, else ``batch`` new ones claimed (none once stopped)."""
    with open_audit(audit_id, db) as audit:
        cases = audit.next(annotator, batch=batch)
        return LiveAction(audit=audit.to_dict(), status=audit.status(), cases=cases)


def _after(audit: LiveAudit, record, annotator: Identity | str, show_next: bool) -> LiveAction:
    # The preview selects on the live sampler state and so makes the next look replay the log:
    # the page, which claims the next case itself, does without it.
    # The settings and the status are read first, from the state the write left: after the preview
    # they would cost a second replay of the whole log (the strategy's model refit on every label).
    settings, status = audit.to_dict(), audit.status()
    upcoming, claimed = audit.preview(annotator) if show_next else ((), False)
    return LiveAction(audit=settings, status=status, record=record, upcoming=upcoming, upcoming_claimed=claimed)


def record_label(audit_id: int, case_id: str, score, annotator: Identity | str, db=None, show_next: bool = True) -> LiveAction:
    """Record a label (0/1 or graded in [0, 1]); with ``show_next`` the next case is shown, not claimed.
    A label of a double-labelled case that the e-processes do not see (yet) is the action's
    ``received``, not its ``record``."""
    with open_audit(audit_id, db) as audit:
        record = audit.label(case_id, score, annotator)
        if isinstance(record, LabelRecord):
            return _after(audit, record, annotator, show_next)
        name = as_identity(annotator).name
        mine = [r for r in audit.overlap_labels() if r["case_id"] == str(case_id) and r["annotator"] == name][-1]
        received = {"case_id": mine["case_id"], "score": mine["score"], "annotator": name,
                    "verified": mine["verified"], "ts": mine["ts"], "first": mine["first"],
                    "waits": mine["case_id"] in audit.waiting()}
        return replace(_after(audit, None, annotator, show_next), received=received)


def skip_case(audit_id: int, case_id: str, reason: str, annotator: Identity | str, db=None, show_next: bool = True) -> LiveAction:
    """Skip a proposed case with a reason (no label; see :mod:`audit_core.live.session`)."""
    with open_audit(audit_id, db) as audit:
        return _after(audit, audit.skip(case_id, reason, annotator), annotator, show_next)


def undo_last_label(audit_id: int, annotator: Identity | str, db=None) -> LiveAction:
    """Undo the last label or skip (only before the next case is proposed)."""
    with open_audit(audit_id, db) as audit:
        record = audit.undo(annotator)
        # An undo leaves the strategy's state to be rebuilt without the label: the status after it is
        # read from the log (the same, tests/live/test_log_status.py), not from a second replay.
        found = status_from_log(audit.conn, audit.audit_id)
        settings, status = found if found is not None else (audit.to_dict(), audit.status())
        return LiveAction(audit=settings, status=status, record=record, undone=True)


def _may_export(who: Identity | str | None) -> None:
    if who is not None:
        require(who, "export")


def export_live_csv(audit_id: int, db=None, who: Identity | str | None = None) -> bytes:
    """The recorded-run CSV (for Replay) with who labelled, formula-looking cells neutralised
    (``who``: refused unless an owner)."""
    _may_export(who)
    with open_audit(audit_id, db) as audit:
        return safe_csv_bytes(export_frame(audit))


@dataclass(frozen=True)
class ReplayHandoff:
    """What the Replay page needs to replay a live audit's export exactly as it ran.

    ``name`` / ``data``: the recorded-run CSV; ``score``: its score column; ``style``: the
    parameter defaults; ``params``: the dual test's q, alpha, m, q − δ (``q_mod``), q + δ′
    (``q_aud``) and eta; ``model_process`` / ``auditor_process``; ``planned_n``: the audit's
    budget, declared before its first label, to which Replay tunes the overall interval.
    """

    name: str
    data: bytes
    score: str
    style: str
    params: dict
    model_process: str
    auditor_process: str
    planned_n: int


def replay_handoff(audit_id: int, db=None, who: Identity | str | None = None) -> ReplayHandoff:
    """The export of a live audit with the settings under which its replay equals the live run
    (``who``: refused unless an owner)."""
    _may_export(who)
    with open_audit(audit_id, db) as audit:
        frame = export_frame(audit)
        test, roles, process, budget = audit.test_params, audit.roles, audit.process, audit.params.budget
    if frame.empty:
        raise InputError(f"audit {audit_id}: no labels to replay yet")
    return ReplayHandoff(name=f"live_audit_{audit_id}.csv", data=safe_csv_bytes(frame),
                         score=roles.get("score") or DEFAULT_SCORE_COLUMN, style=roles.get("style") or "gpqa",
                         params={"q": test.q, "alpha": test.alpha, "m": test.m, "q_mod": test.q_mod,
                                 "q_aud": test.q_aud, "eta": test.eta},
                         model_process=process, auditor_process=AUDITOR_FOR[process], planned_n=budget)


def export_live_file(audit_id: int, out, db=None, who: Identity | str | None = None) -> ExportResult:
    """Write the recorded-run CSV to ``out``."""
    _may_export(who)
    with open_audit(audit_id, db) as audit:
        return export_csv(audit, out)


LOG_E_MODEL, LOG_E_AUDITOR = f"{fmt.LOG_E_LABEL} model", f"{fmt.LOG_E_LABEL} auditor"


def _log10(log_e) -> float:
    """log₁₀ E for people (one base on every page); NaN, shown "—", where there is no value."""
    value = fmt.log10_e(log_e)
    return math.nan if value is None else value


def annotator_counts(labels, skips) -> pd.DataFrame:
    """Who labelled how many cases: one row per (annotator, signed in), with their effective
    ``labels`` (held-out ones included) and ``skipped`` cases, most labels first."""
    counts: dict[tuple[str, bool], list[int]] = {}
    for record in labels:
        counts.setdefault((record.annotator, record.verified), [0, 0])[0] += 1
    for record in skips:
        counts.setdefault((record.annotator, record.verified), [0, 0])[1] += 1
    rows = sorted(((name, verified, n, k) for (name, verified), (n, k) in counts.items()),
                  key=lambda row: (-row[2], -row[3], row[0]))
    return pd.DataFrame(rows, columns=["annotator", "signed in", "labels", "skipped"])


def resolve_role_policy(path: str | None = None, section=None) -> RolePolicy:
    """The operator's role policy: the roles file at ``path`` (TOML or JSON), else the
    ``section`` mapping (the secrets file's ``[roles]``), else every signed-in person a viewer."""
    if path:
        return load_role_policy(path)
    if section:
        return parse_role_policy(dict(section), "[roles] in the secrets file")
    return RolePolicy()


def session_identity(claims, policy: RolePolicy, auth=None) -> Identity:
    """The Identity of a signed-in session from its ID-token ``claims`` (``st.user``), checked
    against the provider configured in ``auth`` (the secrets file's ``[auth]``): its issuer, its
    token's expiry, a verified e-mail address (see :mod:`audit_core.live.roles`)."""
    claims = dict(claims)
    return signed_in(claims, policy, configured_issuer(auth, str(claims.get("provider") or "default")))


def sign_in_problem(auth) -> str | None:
    """Why a sign-in through the provider of ``auth`` (the secrets file's ``[auth]``) cannot start
    now, in one sentence that says how to retry: a missing setting, else a provider that does not
    answer (:mod:`audit_core.live.sign_in`); None when it can."""
    problem = settings_problem(auth)
    if problem is None and auth:
        problem = provider_problem(str(provider_settings(auth)["server_metadata_url"]))
    return problem


def _labels_table(labels: tuple[LabelRecord, ...]) -> pd.DataFrame:
    return pd.DataFrame([{"step": r.step, "case": r.case_id, "score": r.score, "annotator": r.annotator,
                          "signed in": r.verified, "time (UTC)": r.ts, "why chosen": r.phase,
                          LOG_E_MODEL: _log10(r.log_e_model) if r.counted else math.nan,
                          LOG_E_AUDITOR: _log10(r.log_e_auditor) if r.counted else math.nan} for r in labels],
                        columns=["step", "case", "score", "annotator", "signed in", "time (UTC)", "why chosen",
                                 LOG_E_MODEL, LOG_E_AUDITOR])


def _trajectory(audit: LiveAudit, labels: tuple[LabelRecord, ...], status: LiveStatus) -> dict | None:
    # Altair is loaded here, for the page's chart: the CLI's label/status/next calls draw none.
    from audit_core.views.charts import chart_spec, trajectory_chart

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


# The chart is the slow part of a view (about 0.1 s of Altair), and a page reruns for every widget
# touched; an audit's chart changes only with its labels (the last one's time tells an undone and
# relabelled case apart), not with a proposal.
_trajectories: OrderedDict[tuple, dict | None] = OrderedDict()


def _trajectory_once(audit: LiveAudit, labels, status: LiveStatus) -> dict | None:
    last = labels[-1] if labels else None
    key = (audit.audit_id, audit.created, audit.pool_spec, len(labels), last and (last.case_id, last.ts, last.score))
    return open_audits.remembered(_trajectories, key, lambda: _trajectory(audit, labels, status))


def _case_table(audit: LiveAudit, row: int) -> pd.DataFrame:
    frame = audit.data.frame
    hidden = (set(audit.data.features) | set(audit.roles.get("hidden") or ())
              | {audit.roles.get("score"), audit.roles.get("truth")})
    shown = [c for c in frame.columns if c not in hidden and not str(c).startswith("_live")]
    return pd.DataFrame({"column": shown, "value": [str(frame[c].iloc[row]) for c in shown]})


def live_audit_view(audit_id: int, annotator: Identity | str | None = None, claim: bool = False,
                    db=None) -> LiveAuditView:
    """The audit's state; with ``claim`` the annotator's next case is claimed first (only when
    their role may label: a viewer gets the view without a case)."""
    with open_audit(audit_id, db) as audit:
        return _view(audit, annotator, claim)


def _view(audit: LiveAudit, annotator: Identity | str | None, claim: bool) -> LiveAuditView:
    if isinstance(annotator, Identity) and not may(annotator, "claim"):
        claim = False
    current = audit.next(annotator) if claim and annotator else (audit.pending(annotator) if annotator else ())
    status = audit.status()
    labels, skips = audit.labels(), audit.skips()
    table = _labels_table(labels)
    agreement = build_live_agreement(audit, annotator) if audit.overlap.active else None
    if agreement is not None and annotator is not None:
        still_open = table["case"].isin({p.case_id for p in audit.further_cases(annotator)})
        table.loc[still_open, ["score", LOG_E_MODEL, LOG_E_AUDITOR]] = math.nan
    skipped = pd.DataFrame([{"case": k.case_id, "reason": k.reason, "annotator": k.annotator, "signed in": k.verified,
                             "time (UTC)": k.ts, "why chosen": k.phase} for k in skips],
                           columns=["case", "reason", "annotator", "signed in", "time (UTC)", "why chosen"])
    by_annotator = annotator_counts(labels, skips)
    spec = _trajectory_once(audit, labels, status)
    verdict = status_sentence(status)
    settings = audit.to_dict()
    summary = [f"Dual test: {verdict}.", f"{status.n} counted labels, {status.n_heldout} held out."]
    if skips:
        summary.append(skip_note(len(skips)))
    if len(by_annotator):
        summary.append(_who_line(by_annotator))
    extra_tables, extra_charts = (), ()
    if agreement is not None:
        summary += list(agreement.section.summary)
        extra_tables, extra_charts = agreement.section.tables, agreement.section.charts
    section = ReportSection(
        key=f"live_audit_{audit.audit_id}", title=f"Live audit {audit.audit_id} of {audit.pool_spec}",
        source=f"workspace audit {audit.audit_id} (strategy {audit.strategy}, seed {audit.seed})",
        parameters={**audit.test_params.to_dict(), "strategy": audit.strategy, "model process": audit.process,
                    "auditor process": AUDITOR_FOR[audit.process]},
        summary=tuple(summary),
        tables=(ReportTable("Labels in the order received", table),
                ReportTable("Who labelled how many cases", by_annotator),
                *((ReportTable("Cases skipped without a label", skipped),) if skips else ()), *extra_tables),
        charts=((ReportChart("E-process trajectories", spec),) if spec else ()) + extra_charts,
        numbers={"audit": settings, "status": status.to_dict(),
                 **({"agreement": agreement.to_dict()} if agreement is not None else {})})
    return LiveAuditView(audit=settings, status=status, current=tuple(current),
                         case_tables=tuple(_case_table(audit, p.row) for p in current),
                         reasons=tuple(PHASE_REASONS.get(p.phase, p.phase) for p in current), labels=table,
                         skips=skipped, by_annotator=by_annotator,
                         undoable=audit.last_resolved(), trajectory=spec, section=section, verdict=verdict,
                         agreement=agreement)


def _who_line(by_annotator: pd.DataFrame) -> str:
    """One sentence: how many people labelled or skipped, and how many of them had signed in."""
    people = by_annotator["annotator"].nunique()
    verified = by_annotator.loc[by_annotator["signed in"], "annotator"].nunique()
    how = ("every one signed in" if verified == people else "none signed in (names self-declared)" if not verified
           else f"{verified} signed in, the other names self-declared")
    return f"{plural(people, 'person', 'people')} labelled or skipped cases: {how}."


__all__ = ["DEFAULT_ANNOTATOR", "DEFAULT_ROLE", "ROLES", "ROLES_FILE_ENV", "Identity", "PermissionDenied", "RolePolicy",
           "SignInExpired", "allows", "annotator_counts", "configured_issuer", "declared", "expired", "may", "os_user",
           "audit_trail", "audit_trail_bytes", "adjudicate_case", "live_agreement", "Adjudicated", "LiveAgreement", "provider_problem", "reachable_by_others", "resolve_role_policy", "session_identity",
           "settings_problem", "sign_in_problem", "utc_time", "LABEL_CHOICES", "OVERLAP_LABEL_CHOICES", "LIVE_POOLS", "LIVE_STRATEGIES", "MODEL_PROCESSES", "SKIP_REASONS", "LiveAction",
           "LiveAuditView", "claim_cases", "export_live_csv", "export_live_file", "live_audit_list",
           "live_audit_status", "live_audit_view", "record_label", "replay_handoff", "ReplayHandoff", "skip_case", "skip_note", "start_live_audit",
           "undo_last_label"]
