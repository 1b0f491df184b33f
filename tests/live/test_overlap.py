"""Double labelling in live audits (issue 34): who gets which case, label choice, adjudication."""

import tempfile

import numpy as np
import pytest

from audit_core.auditing import AUDITOR_FOR
from audit_core.data.loader import load_audit_csv
from audit_core.errors import InputError
from audit_core.live import LiveAudit, export_csv, store
from audit_core.live.overlap import OverlapPlan, is_overlapped, overlap_draw
from audit_core.sequential import AuditParams, replay
from tests.live.helpers import workspace

GPQA = AuditParams.gpqa(n_init=2, budget=40)
ANNOTATORS = ("ann", "bob", "cat")


def _noisy(audit: LiveAudit, case_id: str, who: str) -> float:
    """The truth, flipped for bob on cases whose hash says so (a fixed, label-blind disagreement)."""
    y = audit.truth(case_id)
    return 1.0 - y if who == "bob" and overlap_draw(7, case_id) < 0.6 else y


def _run(audit: LiveAudit, rounds: int = 400) -> dict:
    """Round-robin over three annotators; returns annotator -> case ids they labelled."""
    seen = {a: [] for a in ANNOTATORS}
    for _ in range(rounds):
        progressed = False
        for who in ANNOTATORS:
            for p in audit.next(who):
                assert p.case_id not in seen[who], f"{who} was given {p.case_id} twice"
                audit.label(p.case_id, _noisy(audit, p.case_id, who), who)
                seen[who].append(p.case_id)
                progressed = True
        if not progressed:
            break
    return seen


def test_the_plan_is_checked_and_overlap_is_decided_by_the_case_id_alone():
    with pytest.raises(InputError, match="overlap"):
        OverlapPlan(1.5)
    with pytest.raises(InputError, match="labellers"):
        OverlapPlan(0.5, 1)
    with pytest.raises(InputError, match="label choice"):
        OverlapPlan(0.5, 2, "majority")
    plan = OverlapPlan(0.5)
    ids = [f"c{i}" for i in range(4000)]
    share = np.mean([is_overlapped(plan, 3, c) for c in ids])
    assert abs(share - 0.5) < 0.03                                 # 4000 draws: sd 0.008
    assert [is_overlapped(plan, 3, c) for c in ids] == [is_overlapped(plan, 3, c) for c in ids]
    assert not any(is_overlapped(OverlapPlan(0.0), 3, c) for c in ids)


@pytest.mark.parametrize("choice", ["first", "adjudicated"])
def test_three_annotators_never_get_a_case_twice_and_overlapped_cases_get_two_labels(db, tmp_path, choice):
    conn = workspace(db)
    audit = LiveAudit.create(conn, "gpqa:large", "adaptive", "LR", seed=2, params=GPQA, truth="correct",
                             overlap=OverlapPlan(0.5, 2, choice))
    assert LiveAudit(conn, audit.audit_id).overlap == OverlapPlan(0.5, 2, choice)
    seen = _run(audit)
    labels = audit.overlap_labels()
    by_case: dict = {}
    for row in labels:
        by_case.setdefault(row["case_id"], []).append(row["annotator"])
    assert by_case and all(len(set(v)) == len(v) for v in by_case.values())      # distinct labellers
    assert all(len(v) <= 2 for v in by_case.values())
    labelled = set().union(*map(set, seen.values()))
    overlapped = {c for c in labelled if is_overlapped(audit.overlap, audit.seed, c)}
    assert overlapped and overlapped == set(by_case)
    assert all(sum(c in s for s in seen.values()) == (2 if c in overlapped else 1) for c in labelled)
    disagreements = audit.disagreements()
    if choice == "adjudicated":
        # a disagreement waits (and holds back every later case) until adjudicated
        assert disagreements and audit.waiting()
        assert audit.waiting()[0] == disagreements[0]["case_id"] or audit.waiting()[0] in \
            {d["case_id"] for d in disagreements}
    for d in disagreements:
        with pytest.raises(InputError, match="role"):
            audit.adjudicate(d["case_id"], 1, "check", _viewer())
        audit.adjudicate(d["case_id"], audit.truth(d["case_id"]), "read the item again", "owner")
    with pytest.raises(InputError, match="already adjudicated|do not disagree|not an overlapped"):
        audit.adjudicate(disagreements[0]["case_id"], 1, "again", "owner") if disagreements else \
            audit.adjudicate("nope", 1, "again", "owner")
    before = len(audit.labels())
    _run(audit)
    for d in audit.disagreements():   # new ones, after the adjudicated cases let the audit go on
        audit.adjudicate(d["case_id"], audit.truth(d["case_id"]), "read the item again", "owner")
    assert audit.disagreements() == () and audit.waiting() == ()
    assert len(audit.labels()) > before or audit.status().stopped
    assert len(audit.adjudications()) >= len(disagreements)
    # the export replays to the live decision
    out = export_csv(audit, tmp_path / "export.csv")
    status = audit.status()
    data = load_audit_csv(out.path)
    again = replay(data.scores, audit.test_params, model_process="LR", auditor_process=AUDITOR_FOR["LR"])
    np.testing.assert_allclose(again.log_e["LR"], [r.log_e_model for r in audit.labels()], atol=1e-12)
    assert (again.decision, again.dual.stop) == (status.decision, status.stop)
    if choice == "adjudicated":   # the e-processes saw the adjudicated labels
        settled = {a["case_id"]: a["score"] for a in audit.adjudications()}
        assert all(r.score == settled[r.case_id] for r in audit.labels() if r.case_id in settled)
    # the reopened audit (a full replay of the log) is the same
    reopened = LiveAudit(conn, audit.audit_id)
    assert reopened.status() == status and reopened.overlap_labels() == audit.overlap_labels()


def _viewer():
    from audit_core.live.roles import Identity
    return Identity("vic", "viewer", True, "signed-in")


def test_a_further_label_is_refused_twice_and_past_the_count(db):
    audit = LiveAudit.create(workspace(db), "gpqa:large", "adaptive", "LR", seed=2, params=GPQA,
                             truth="correct", overlap=OverlapPlan(1.0, 2))
    (p,) = audit.next("ann")
    audit.label(p.case_id, 1, "ann")
    with pytest.raises(InputError, match="already labelled it"):
        audit.label(p.case_id, 0, "ann")
    (q,) = audit.next("bob")
    assert q.case_id == p.case_id                 # offered to a second labeller, without ann's label
    audit.label(q.case_id, 0, "bob")
    with pytest.raises(InputError, match="already has its 2 labels"):
        audit.label(p.case_id, 1, "cat")
    with pytest.raises(InputError, match="nothing to undo"):   # a case was offered after the label
        audit.undo("owner")
    kinds = [e.kind for e in store.read_events(audit.conn, audit.audit_id)]
    assert kinds == ["proposed", "labelled", "offered", "overlap_labelled"]


# --------------------------------------------------------------------------------- validity

def _false_rejection_rate(choice: str, runs: int, seed: int) -> float:
    """Rate of "failure mode found" through the live session when every label, first, further or
    adjudicated, is right with probability exactly q, independently (the model's null at its
    boundary), with 50 % of cases double-labelled and disagreements adjudicated at once."""
    from audit_core.live import connect
    from audit_core.sequential.dual import FAILURE_FOUND

    params = AuditParams.gpqa(n_init=2, budget=30)
    rng = np.random.default_rng(seed)
    found = 0
    for run in range(runs):
        with tempfile.TemporaryDirectory() as d:
            conn = connect(f"{d}/w.sqlite")
            audit = LiveAudit.create(conn, "gpqa:large", "adaptive", "LR", seed=run, params=params,
                                     overlap=OverlapPlan(0.5, 2, choice))
            for _ in range(200):
                progressed = False
                for who in ANNOTATORS:
                    for p in audit.next(who):
                        audit.label(p.case_id, float(rng.random() < params.q), who)
                        progressed = True
                for d_ in audit.disagreements():
                    audit.adjudicate(d_["case_id"], float(rng.random() < params.q), "settled", "owner")
                    progressed = True
                if not progressed or audit.status().stopped:
                    break
            found += audit.status().decision == FAILURE_FOUND
            conn.close()
    return found / runs


@pytest.mark.parametrize("choice", ["first", "adjudicated"])
def test_either_label_choice_keeps_the_level(choice):
    """Seeded, 60 live audits per label choice at the null's boundary: at most 6 false rejections,
    which a true rate of alpha = 0.05 passes with probability 0.92; the power against the named
    alternative 2 alpha = 0.10 is only 0.39 at this size (binomial tails, asserted), so this test
    catches a gross loss of validity (e.g. 3 alpha: 0.79), not a small one."""
    from scipy.stats import binom

    from audit_core.sequential import wilson_interval
    alpha, runs, limit = AuditParams.gpqa().alpha, 60, 6
    assert binom.cdf(limit, runs, alpha) > 0.9 and binom.sf(limit, runs, 3 * alpha) > 0.75
    rate = _false_rejection_rate(choice, runs, seed=21)
    low, high = wilson_interval(rate * runs, runs)
    assert round(rate * runs) <= limit, f"{choice}: rate {rate:.3f} (95% Wilson {low:.3f}-{high:.3f}), alpha {alpha}"


def test_the_last_label_a_case_needs_is_offered_to_one_person_at_a_time(db):
    """A further label is claimed like a proposal (an ``offered`` event): two people asking at once
    are never both offered the one label a case still needs, and a claim survives a reopening."""
    conn = workspace(db)
    audit = LiveAudit.create(conn, "gpqa:large", "adaptive", "LR", seed=2, params=GPQA, truth="correct",
                             overlap=OverlapPlan(1.0, 2))
    (p,) = audit.next("ann")
    audit.label(p.case_id, 1, "ann")
    (bob,) = audit.next("bob")
    (cat,) = audit.next("cat")
    assert bob.case_id == p.case_id and cat.case_id != p.case_id       # cat gets a new case
    assert audit.further_cases("cat") == () and [c.case_id for c in audit.further_cases("bob")] == [p.case_id]
    with pytest.raises(InputError, match="its last label is claimed by bob"):
        audit.label(p.case_id, 0, "dan")
    reopened = LiveAudit(conn, audit.audit_id)
    assert [c.case_id for c in reopened.next("bob")] == [p.case_id]    # still bob's
    reopened.label(p.case_id, 0, "bob")
    assert [r["annotator"] for r in reopened.overlap_labels()] == ["ann", "bob"]
    assert audit.further_cases("bob") == ()
