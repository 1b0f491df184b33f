"""Skipping a proposed case with a reason: the rule, its undo, its replay, and what it does to validity.

The rule (audit_core.live.session): a skipped case leaves the pool, the strategy learns nothing
from it, and nothing enters the dual test or the budget. The Monte Carlo below shows both halves
of the documented caveat: skips that do not depend on the label keep the level, and skips that do
(an annotator who skips the cases the model got right) break it.
"""

import math

import numpy as np
import pytest

from audit_core.auditing import AUDITOR_FOR, AuditorConfig, make_sampler
from audit_core.auditing.pool import build_pool
from audit_core.data.loader import load_audit_csv
from audit_core.errors import InputError
from audit_core.live import LiveAudit, check_reason, export_csv, store
from audit_core.sequential import AuditParams, DualTest, replay, wilson_interval
from audit_core.sequential.dual import FAILURE_FOUND
from tests.live.helpers import workspace

GPQA = AuditParams.gpqa(n_init=2)


def _skip_every_third(audit: LiveAudit, annotator: str = "ann") -> list[str]:
    """Label from the truth, skipping every third proposal; returns the skipped case ids."""
    skipped, i = [], 0
    while (proposals := audit.next(annotator)):
        for p in proposals:
            i += 1
            if i % 3 == 0:
                audit.skip(p.case_id, f"unreadable item {i}", annotator)
                skipped.append(p.case_id)
            else:
                audit.label(p.case_id, audit.truth(p.case_id), annotator)
    return skipped


def test_a_skip_leaves_the_test_and_the_budget_alone_and_can_be_undone(db, tmp_path):
    audit = LiveAudit.create(workspace(db), "gpqa:large", "adaptive", "LR", seed=2, params=GPQA, truth="correct")
    (first,) = audit.next("ann")
    audit.label(first.case_id, 1, "ann")
    before = audit.status()
    (case,) = audit.next("ann")
    record = audit.skip(case.case_id, "  the   item is unreadable ", "ann")
    after = audit.status()
    assert record.reason == "the item is unreadable" and record.phase == case.phase
    assert (after.n, after.log_e_model, after.log_e_auditor) == (before.n, before.log_e_model, before.log_e_auditor)
    assert after.n_skipped == 1 and after.pending == () and after.can_undo
    with pytest.raises(InputError, match="already skipped by ann"):
        audit.label(case.case_id, 1, "ann")
    with pytest.raises(InputError, match="already skipped"):
        audit.skip(case.case_id, "again", "ann")
    undone = audit.undo("ann")
    assert undone.case_id == case.case_id and audit.status().pending == (case.case_id,)
    assert audit.status().n_skipped == 0
    audit.label(case.case_id, 0, "ann")                  # pending again: it can now be labelled
    assert audit.status().n == 2


def test_a_reason_is_required_and_bounded():
    with pytest.raises(InputError, match="say why"):
        check_reason("   ")
    with pytest.raises(InputError, match="at most 500"):
        check_reason("x" * 501)
    assert check_reason("a\nb\tc") == "a b c"


def test_a_skipped_case_is_never_proposed_again_and_the_log_replays_to_the_same_state(db, tmp_path):
    conn = workspace(db)
    audit = LiveAudit.create(conn, "gpqa:large", "adaptive", "SR-LR-UI", seed=6, params=GPQA, truth="correct")
    skipped = _skip_every_third(audit)
    labelled = [r.case_id for r in audit.labels()]
    assert skipped and not set(skipped) & set(labelled)
    reopened = LiveAudit(conn, audit.audit_id)           # state rebuilt from the events alone
    assert [r.case_id for r in reopened.labels()] == labelled
    assert [s.case_id for s in reopened.skips()] == skipped
    assert reopened.status().to_dict() == audit.status().to_dict()
    assert reopened.status().n_skipped == len(skipped)


def test_live_with_skips_equals_the_strategy_loop_that_skips_the_same_cases(db, tmp_path):
    # The strategy's side of the rule, without the database: select, then skip() or observe().
    audit = LiveAudit.create(workspace(db), "gpqa:large", "adaptive", "LR-UI", seed=9, params=GPQA,
                             truth="correct")
    skipped = set(_skip_every_third(audit))
    sampler = make_sampler("adaptive", audit.pool, GPQA, 9, AuditorConfig(), "LR-UI")
    test = DualTest(sampler.test_params, model_process="LR-UI", auditor_process=AUDITOR_FOR["LR-UI"])
    order = []
    while not test.stopped and test.t < GPQA.budget and (proposal := sampler.select()) is not None:
        case = str(audit.pool.case_ids[proposal.index])
        order.append(case)
        if case in skipped:
            sampler.skip(proposal.index)
            continue
        y = float(audit.pool.labels[proposal.index])
        sampler.observe(proposal.index, y)
        test.update(y, proposal.alternative)
    live_order = [e.case_id for e in store.read_events(audit.conn, audit.audit_id) if e.kind == "proposed"]
    assert order == live_order
    assert (test.decision, test.stop, test.t) == (audit.status().decision, audit.status().stop, audit.status().n)


def test_export_then_replay_with_skips_gives_the_live_trajectories(db, tmp_path):
    audit = LiveAudit.create(workspace(db), "gpqa:medium", "adaptive", "SR-LR", seed=3, params=GPQA,
                             truth="correct")
    skipped = _skip_every_third(audit)
    export_csv(audit, tmp_path / "run.csv")
    data = load_audit_csv(tmp_path / "run.csv")
    assert not set(skipped) & set(data.frame[data.id])     # a skipped case has no row
    result = replay(data.scores, audit.test_params, subgroups=data.subgroup_frame, model_process="SR-LR",
                    auditor_process=AUDITOR_FOR["SR-LR"])
    np.testing.assert_allclose(result.log_e["SR-LR"], [r.log_e_model for r in audit.labels()], atol=1e-12)
    assert (result.decision, result.dual.stop) == (audit.status().decision, audit.status().stop)


def test_a_skipped_heldout_case_does_not_hold_the_prelearned_audit_back(db, tmp_path):
    params = AuditParams.gpqa(n_init=2)
    audit = LiveAudit.create(workspace(db), "gpqa:medium", "pre-learned", "LR", seed=1, params=params,
                             truth="correct")
    heldout = 0
    while (proposals := audit.next("ann")) and proposals[0].phase == "heldout":
        for p in proposals:
            heldout += 1
            if heldout == 1:
                audit.skip(p.case_id, "cannot judge", "ann")
            else:
                audit.label(p.case_id, audit.truth(p.case_id), "ann")
    assert heldout == AuditorConfig().n_heldout
    assert proposals and proposals[0].phase == "subset"    # the model was fitted without the skipped case


# --------------------------------------------------------------------------------- validity

def _failure_rate(skip_rule, runs: int, seed: int) -> float:
    """Rate of "failure mode found" when every case is right with probability exactly q (the
    model's null holds at its boundary) and the annotator skips by ``skip_rule(y, rng)``."""
    params = AuditParams.gpqa(n_init=5, budget=100)
    rng = np.random.default_rng(seed)
    n, found = 400, 0
    features = rng.normal(size=(n, 3))
    for run in range(runs):
        truth = np.full(n, params.q)
        pool = build_pool("null", np.zeros(n), features, rng.integers(0, 3, size=(n, 1)), truth=truth)
        labels = (rng.random(n) < truth).astype(float)
        sampler = make_sampler("adaptive", pool, params, seed * 1000 + run, AuditorConfig(), "LR")
        test = DualTest(sampler.test_params, model_process="LR", auditor_process=AUDITOR_FOR["LR"])
        while not test.stopped and test.t < params.budget and (proposal := sampler.select()) is not None:
            y = float(labels[proposal.index])
            if skip_rule(y, rng):
                sampler.skip(proposal.index)
                continue
            sampler.observe(proposal.index, y)
            test.update(y, proposal.alternative)
        found += test.decision == FAILURE_FOUND
    return found / runs


def _check(rate: float, runs: int, alpha: float) -> str:
    low, high = wilson_interval(rate * runs, runs)
    return f"rate {rate:.4f} (95% Wilson {low:.4f}-{high:.4f}, {runs} runs), alpha {alpha}"


def test_skips_that_ignore_the_label_keep_the_level_and_skips_that_read_it_do_not():
    """Seeded, 200 audits with blind skips: at most 15 false rejections, which a true rate of
    alpha = 0.05 passes with probability 0.956 and the named alternative 2 alpha = 0.10 fails with
    probability 0.857 (binomial tails, asserted). Label-reading skips must be caught (below)."""
    from scipy.stats import binom
    alpha, runs, limit = AuditParams.gpqa().alpha, 200, 15
    assert binom.cdf(limit, runs, alpha) > 0.95 and binom.sf(limit, runs, 2 * alpha) > 0.85
    bound = alpha + 3.0 * math.sqrt(alpha * (1 - alpha) / runs)
    blind = _failure_rate(lambda y, rng: rng.random() < 0.3, runs, seed=11)
    assert round(blind * runs) <= limit, _check(blind, runs, alpha)
    # An annotator who skips half the cases the model got right: the labelled cases are worse than
    # q (0.85 becomes 0.74), so "failure mode found" is reached far more often than alpha.
    biased = _failure_rate(lambda y, rng: y == 1.0 and rng.random() < 0.5, 100, seed=12)
    low, _ = wilson_interval(biased * 100, 100)
    assert low > bound, _check(biased, 100, alpha)
