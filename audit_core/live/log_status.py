"""Where a live audit stands, read from its stored rows and event log alone (issue 24).

:meth:`LiveAudit.status <audit_core.live.session.LiveAudit.status>` rebuilds the pool from its
stored table (pandas), builds the strategy (its accuracy model) and replays every event through
it. The status needs none of that: with the audit's parameters, its pool's number of cases
(``audits.cases``, schema 5) and the effective event log,

* the dual test is the one fed the counted labels in the order received: a live audit's proposals
  carry no alternative (scenario ``pool`` without ``prediction_alternative``), so its e-values
  depend on the scores alone, and only the oracle moves its test's parameters (it is not read here);
* a label is counted unless its case was one of the pre-learned strategy's held-out cases, which
  are the first ``min(n_heldout, cases - 1)`` proposals;
* pending cases, skips and what an undo may cancel follow from the kinds of the events;
* no case is left once every case was proposed (pre-learned: the held-out cases and the counted
  proposals cover the pool, and every held-out case is resolved).

:func:`status_from_log` gives the same :class:`~audit_core.live.records.LiveStatus` as the replay
(tests/live/test_log_status.py checks labels, skips, undos, batches and every strategy read here)
and loads numpy and the e-processes only. It does not check that each recorded proposal is the one
the strategy makes (that needs the pool and the model): every ``next``, ``label``, ``skip`` and
``undo`` replays and checks the log, and ``status(verify=True)`` does too. Whenever the rows are
not what the workbench writes (an unknown strategy, parameters that do not validate, a label of a
case not pending, a checksum mismatch, an audit created before schema 5 and never opened since),
it returns None and the caller replays, which reports the problem as before.
"""

from __future__ import annotations

from audit_core.auditing.config import AuditorConfig
from audit_core.errors import InputError
from audit_core.live import store
from audit_core.live.overlap import OverlapPlan
from audit_core.live.records import LiveStatus
from audit_core.presets import AUDITOR_FOR
from audit_core.sequential.dual import DualTest
from audit_core.sequential.params import AuditParams

# The strategies whose test parameters are the audit's own (the oracle's depend on the pool's truth).
LOG_STATUS_STRATEGIES = ("stratified", "pre-learned", "informed", "adaptive")


def status_from_log(conn, audit_id: int) -> tuple[dict, LiveStatus] | None:
    """``(settings, status)`` of audit ``audit_id`` from its rows alone, as ``LiveAudit.to_dict()``
    and ``LiveAudit.status()`` give them; None when only a replay can tell (see the module doc).
    An unknown audit id raises InputError, as opening it does."""
    row = store.audit_row(conn, audit_id)
    strategy, process, cases = row["strategy"], row["process"], row["cases"]
    if cases is None or strategy not in LOG_STATUS_STRATEGIES or process not in AUDITOR_FOR:
        return None
    try:
        params = AuditParams(**row["params"])
        config = AuditorConfig(**row["config"])
    except (TypeError, ValueError):          # InputError is a ValueError
        return None
    if config.scenario != "pool" or config.prediction_alternative or store.sha256(row["content"]) != row["sha256"]:
        return None
    heldout = min(config.n_heldout, cases - 1) if strategy == "pre-learned" else 0
    test = DualTest(params, model_process=process, auditor_process=AUDITOR_FOR[process])
    pending: dict[str, bool] = {}        # case id -> counted, in proposal order
    proposed: set[str] = set()
    n_proposed = learned = n_heldout = n_skipped = 0
    can_undo = False
    try:
        for event in store.effective_events(store.read_events(conn, audit_id)):
            if event.kind == "proposed":
                if event.case_id in proposed or (n_proposed >= heldout and learned < heldout):
                    return None          # a case twice, or a counted case before the model was fit
                proposed.add(event.case_id)
                pending[event.case_id] = n_proposed >= heldout
                n_proposed += 1
                can_undo = False
                continue
            if event.case_id not in pending:
                return None
            if event.kind == "labelled":
                score = event.score
                if isinstance(score, bool) or not isinstance(score, (int, float)) or not 0.0 <= score <= 1.0:
                    return None
            counted = pending.pop(event.case_id)
            if not counted:
                learned += 1
            if event.kind == "skipped":
                n_skipped += 1
            elif counted:
                test.update(float(event.score))
            else:
                n_heldout += 1
            can_undo = True
    except InputError:                   # e.g. a label after the test stopped: the replay says so
        return None
    left = cases - heldout - max(0, n_proposed - heldout)
    status = LiveStatus(
        audit_id=int(row["id"]), strategy=strategy, process=process, auditor_process=AUDITOR_FOR[process],
        n=test.t, n_heldout=n_heldout, n_skipped=n_skipped, budget=params.budget,
        log_e_model=float(test.log_e_model), log_e_auditor=float(test.log_e_auditor),
        log_threshold=float(test.params.log_threshold), decision=test.decision, stop=test.stop,
        stopped=test.stopped, exhausted=left <= 0 and learned >= heldout, pending=tuple(pending),
        can_undo=can_undo)
    settings = {"audit_id": int(row["id"]), "pool": row["pool_spec"], "strategy": strategy, "process": process,
                "auditor_process": AUDITOR_FOR[process], "seed": int(row["seed"]), "created": row["created"],
                "params": params.to_dict(), "test_params": params.to_dict(),
                "roles": {k: v for k, v in row["roles"].items() if k != "resolved"},
                "overlap": OverlapPlan().to_dict()}   # an overlapped audit's params are no AuditParams: replayed
    return settings, status
