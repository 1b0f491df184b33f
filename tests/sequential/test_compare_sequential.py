"""Anytime-valid comparison of runs: the paired confidence sequence, margin decisions, McNemar,
many runs (e-Bonferroni, tie groups, ranks). Fast paths against definitions; validity by seeded
Monte Carlo under adaptive stopping, each bound alpha + 3 standard errors of the replicate count,
with the observed rate and its Wilson interval in the message.

Power (binomial, R replicates, bound alpha + 3 SE): R = 400 fails a true error rate of 2 alpha =
0.10 with probability 0.86; R = 300 with probability 0.75. The negative controls (the fixed-n
Newcombe interval peeked at every case, the sequence without the e-Bonferroni correction) show
that the same checks do fail a procedure that is not valid.
"""

import math

import numpy as np
import pytest
from scipy.stats import binom

from audit_core.errors import InputError
from audit_core.presets import (
    A_BETTER,
    B_BETTER,
    CONTINUE,
    EQUIVALENT,
    INCONCLUSIVE_AT_BUDGET,
    NON_INFERIOR,
)
from audit_core.sequential import wilson_interval
from audit_core.sequential.compare import (
    compare_by_task,
    compare_many,
    decision_codes,
    difference_sequence,
    margin_decision,
    mcnemar_exact,
    newcombe_interval_from_counts,
    paired_sequence,
    pairwise_bounds,
    rank_intervals,
    tie_groups,
)
from audit_core.sequential.confseq import BETTING, PRPL_EB, betting_excluded, confidence_sequence

ALPHA = 0.05


def _bound(reps: int, alpha: float = ALPHA) -> float:
    return alpha + 3 * math.sqrt(alpha * (1 - alpha) / reps)


def _message(errors: int, reps: int) -> str:
    low, high = wilson_interval(np.array([errors]), np.array([reps]), 0.95)
    return f"error rate {errors / reps:.3f} (Wilson 95% [{float(low[0]):.3f}, {float(high[0]):.3f}]) over {reps} runs"


def _paired_binary(rng, n, p_a, delta, share=0.6):
    """0/1 pairs with P(A right) = p_a, P(B right) = p_a + delta exactly, positively correlated:
    with probability ``share`` both use the same uniform."""
    u = rng.random(n)
    same = rng.random(n) < share
    v = np.where(same, u, rng.random(n))
    return (u < p_a).astype(float), (v < p_a + delta).astype(float)


# ------------------------------------------------------------------ definitions and fast paths

@pytest.mark.parametrize("method", [BETTING, PRPL_EB])
def test_difference_sequence_is_the_confseq_of_the_mapped_differences(method):
    rng = np.random.default_rng(1)
    y_a, y_b = rng.random(300), (rng.random(300) < 0.6).astype(float)
    cs = difference_sequence(y_a, y_b, 0.1, method)
    ref = confidence_sequence((y_b - y_a + 1) / 2, 0.1, method=method)
    # betting: the last step's ends are refined below the grid step (tested below), the rest as confseq's
    assert np.allclose(cs.lower[:-1], 2 * ref.lower[:-1] - 1) and np.allclose(cs.upper[:-1], 2 * ref.upper[:-1] - 1)
    assert 2 * ref.lower[-1] - 1 <= cs.lower[-1] <= cs.upper[-1] <= 2 * ref.upper[-1] - 1
    assert cs.method == method and (cs.lower >= -1).all() and (cs.upper <= 1).all()
    assert paired_sequence(y_a, y_b).method == BETTING     # two runs: hedged betting


@pytest.mark.parametrize("n,kind", [(30, "0/1"), (700, "0/1"), (400, "graded")])
def test_refined_betting_ends_hold_the_exact_final_set_and_are_close_to_it(n, kind):
    """The two-run sequence's last bounds against the definition on a fine grid of candidate means
    (every point never excluded lies inside; each end within 1/32 of a grid step of the set)."""
    rng = np.random.default_rng(n)
    y_a, y_b = _paired_binary(rng, n, 0.7, 0.05) if kind == "0/1" else (rng.random(n), rng.random(n) * 0.5 + 0.3)
    x = (y_b - y_a + 1) / 2
    low, high = ((v + 1) / 2 for v in difference_sequence(y_a, y_b, 0.05).final)
    coarse = confidence_sequence(x, 0.05, method=BETTING)
    assert coarse.final[0] <= low and high <= coarse.final[1]
    grid = np.linspace(max(coarse.final[0] - 0.001, 1e-9), min(coarse.final[1] + 0.001, 1 - 1e-9), 8001)
    inside = grid[~betting_excluded(x, 0.05, grid)]
    assert low <= inside.min() and inside.max() <= high
    assert inside.min() - low <= 0.001 / 32 and high - inside.max() <= 0.001 / 32


@pytest.mark.parametrize("n", [1, 2, 37, 600])
def test_pairwise_bounds_equal_each_pairs_own_sequence(n):
    rng = np.random.default_rng(n)
    scores = np.vstack([(rng.random(n) < 0.7).astype(float), rng.random(n), (rng.random(n) < 0.4).astype(float),
                        np.round(rng.random(n), 1)])
    lower, upper = pairwise_bounds(scores, 0.05 / 6)
    for i in range(4):
        for j in range(4):
            if i != j:
                low, high = difference_sequence(scores[i], scores[j], 0.05 / 6, PRPL_EB).final
                assert lower[i, j] == pytest.approx(low, abs=1e-12) and upper[i, j] == pytest.approx(high, abs=1e-12)
    assert np.allclose(lower, -upper.T) and np.all(np.diag(lower) == 0)


def test_pairwise_bounds_of_an_emptied_intersection_are_the_frozen_meeting_point():
    # B − A is −1 for 300 cases, then +1: the early upper bound and the late lower bound cross
    y_a = np.r_[np.ones(300), np.zeros(300)]
    y_b = 1 - y_a
    cs = difference_sequence(y_a, y_b, 0.05, PRPL_EB)
    assert cs.empty_from is not None
    lower, upper = pairwise_bounds(np.vstack([y_a, y_b]), 0.05)
    assert (lower[0, 1], upper[0, 1]) == pytest.approx(cs.final, abs=1e-12) and lower[0, 1] == upper[0, 1]


def test_decisions_by_hand():
    # (lower, upper, margin) -> decision, in the order of the claims
    cases = [((0.03, 0.2, 0.02), B_BETTER), ((-0.3, -0.05, 0.02), A_BETTER), ((-0.01, 0.015, 0.02), EQUIVALENT),
             ((-0.01, 0.3, 0.02), NON_INFERIOR), ((-0.1, 0.1, 0.02), CONTINUE), ((0.02, 0.5, 0.02), NON_INFERIOR),
             ((0.001, 0.5, 0.0), B_BETTER), ((-0.5, 0.5, 0.0), CONTINUE)]
    for (low, high, margin), expected in cases:
        assert margin_decision(low, high, margin, n=10) == expected, (low, high, margin)
    assert margin_decision(-0.1, 0.1, 0.02, n=10, budget=10) == INCONCLUSIVE_AT_BUDGET
    assert margin_decision(-0.1, 0.1, 0.02, n=9, budget=10) == CONTINUE
    codes = decision_codes(np.array([[0.03, -0.3]]), np.array([[0.2, -0.05]]), 0.02)
    assert codes.tolist() == [[0, 1]]


def test_paired_sequence_decides_once_and_for_all_and_names_its_first_step():
    rng = np.random.default_rng(4)
    y_a, y_b = _paired_binary(rng, 3000, 0.6, 0.15)
    result = paired_sequence(y_a, y_b, 0.05, margin=0.02)
    assert result.decision == B_BETTER and result.decided_at is not None
    codes = decision_codes(result.sequence.lower, result.sequence.upper, 0.02)
    assert (codes[result.decided_at - 1:] == 0).all() and (codes[:result.decided_at - 1] != 0).all()
    assert result.first_reached[NON_INFERIOR] <= result.decided_at
    assert result.to_dict()["decision"] == B_BETTER
    short = paired_sequence(y_a, y_b, 0.05, margin=0.02, budget=20)
    assert short.n == 20 and short.decision in (INCONCLUSIVE_AT_BUDGET, NON_INFERIOR)
    with pytest.raises(InputError, match="margin"):
        paired_sequence(y_a, y_b, margin=-0.1)
    with pytest.raises(InputError, match="budget"):
        paired_sequence(y_a, y_b, budget=0)


def test_mcnemar_exact_equals_the_binomial_definition():
    y_a = np.r_[np.ones(10), np.zeros(2), np.ones(30), np.zeros(8)]
    y_b = np.r_[np.zeros(10), np.ones(2), np.ones(30), np.zeros(8)]
    test = mcnemar_exact(y_a, y_b)
    assert (test.regressions, test.improvements) == (10, 2)
    assert test.pvalue == pytest.approx(2 * (1 + 12 + 66) / 4096)   # 2 P(Bin(12, 1/2) <= 2)
    rng = np.random.default_rng(0)
    for _ in range(20):
        b, c = rng.integers(0, 30, 2)
        a_ = np.r_[np.ones(b), np.zeros(c)]
        p = mcnemar_exact(a_, 1 - a_).pvalue
        k = b + c
        brute = 1.0 if k == 0 else min(1.0, 2 * binom.cdf(min(b, c), k, 0.5))
        assert p == pytest.approx(brute, rel=1e-9)
    assert mcnemar_exact(np.array([0.5]), np.array([1.0])) is None
    assert mcnemar_exact(np.ones(3), np.ones(3)).pvalue == 1.0


def test_ranks_and_tie_groups_by_hand():
    # three runs: 0 clearly best, 1 and 2 not separated
    lower = np.array([[0, -0.3, -0.3], [0.1, 0, -0.05], [0.1, -0.05, 0]])
    upper = -lower.T
    groups = tie_groups(lower, upper, np.array([0.9, 0.6, 0.62]), 0.02)
    assert groups == ((0,), (2, 1))
    low, high = rank_intervals(lower, upper)
    assert low.tolist() == [1, 2, 2] and high.tolist() == [1, 3, 3]


def test_compare_many_of_two_runs_is_the_paired_sequence():
    rng = np.random.default_rng(5)
    y_a, y_b = _paired_binary(rng, 800, 0.6, 0.06)
    many = compare_many(np.vstack([y_a, y_b]), ("A", "B"), 0.05, 0.02)
    pair = paired_sequence(y_a, y_b, 0.05, 0.02)
    row = many.pairs.iloc[0]
    assert many.family_size == 1 and row["lower"] == pytest.approx(pair.lower, abs=1e-12)
    assert row["upper"] == pytest.approx(pair.upper, abs=1e-12) and row["decision"] == pair.decision
    with pytest.raises(InputError, match="two runs"):
        compare_many(np.ones((1, 4)))


# ----------------------------------------------------------------------------------- validity

STRONG = (0, 1, 2)   # codes of B better, A better, equivalent


def _first_decision(codes: np.ndarray, strong_only: bool) -> int:
    """Adaptive stopping on the bounds themselves: the code at the first case with a decision
    (``strong_only``: the first with B better, A better or equivalent, continuing past
    non-inferior, as someone hoping for "B better" would); -1 when the run ends undecided."""
    hit = np.flatnonzero(np.isin(codes, STRONG) if strong_only else codes >= 0)
    return int(codes[hit[0]]) if hit.size else -1


@pytest.mark.parametrize("kind", ["0/1", "graded"])
def test_decision_error_with_the_margin_at_the_true_difference_under_adaptive_stopping(kind):
    """Delta = delta exactly: "B better" (Delta > delta), "equivalent" (|Delta| < delta) and "A
    better" are all false; the decision at either stopping rule is wrong at most alpha of the
    time, and the sequence covers Delta at every case."""
    rng = np.random.default_rng(32 if kind == "0/1" else 33)
    reps, n, delta = 400, 200, 0.05
    errors = {True: 0, False: 0}
    misses = 0
    for _ in range(reps):
        if kind == "0/1":
            y_a, y_b = _paired_binary(rng, n, 0.7, delta)
        else:
            y_a = rng.uniform(0.1, 0.85, n)
            y_b = y_a + delta + rng.uniform(-0.1, 0.1, n)     # in [0.05, 1]: no clipping, Delta = delta
        cs = paired_sequence(y_a, y_b, ALPHA, delta).sequence
        codes = decision_codes(cs.lower, cs.upper, delta)
        for strong_only in errors:
            errors[strong_only] += _first_decision(codes, strong_only) in STRONG
        misses += bool(((cs.lower > delta) | (cs.upper < delta)).any())
    for count in errors.values():
        assert count / reps <= _bound(reps), _message(count, reps)
    assert misses / reps <= _bound(reps), _message(misses, reps)


def test_negative_control_the_fixed_n_interval_peeked_at_every_case_errs_far_above_alpha():
    """The second stopping rule on Newcombe's fixed-n interval, recomputed after every case: a
    wrong decision in well over 2 alpha of runs (the check above would fail it)."""
    rng = np.random.default_rng(34)
    reps, n, delta = 300, 400, 0.05
    errors = 0
    for _ in range(reps):
        y_a, y_b = _paired_binary(rng, n, 0.7, delta)
        cells = [np.cumsum((y_a == i) & (y_b == j)) for i, j in ((1, 1), (1, 0), (0, 1), (0, 0))]
        low, high = newcombe_interval_from_counts(*cells)
        errors += _first_decision(decision_codes(low[9:], high[9:], delta), True) in STRONG   # from case 10 on
    assert errors / reps > 2 * ALPHA, _message(errors, reps)


def _true_order_ok(groups, rank_low, rank_high, lower, upper, mu, margin):
    """No false claim: runs of different groups differ by more than the margin in the direction of
    their bounds, and every rank interval holds a rank the true means allow."""
    k = len(mu)
    group_of = {r: g for g, members in enumerate(groups) for r in members}
    for i in range(k):
        for j in range(k):
            if i != j and group_of[i] != group_of[j]:
                if lower[i, j] > margin and not mu[j] - mu[i] > margin:
                    return False
                if upper[i, j] < -margin and not mu[j] - mu[i] < -margin:
                    return False
        best = 1 + int(np.sum(mu > mu[i] + 1e-12))
        worst = k - int(np.sum(mu < mu[i] - 1e-12))
        if rank_high[i] < best or rank_low[i] > worst:
            return False
    return True


@pytest.mark.parametrize("k", [3, 10])
def test_tie_groups_and_ranks_hold_simultaneously(k):
    """K runs, some equal, some exactly the margin apart (the hardest case for "separated"), adaptive
    stopping at the first case where the groups split; seeded."""
    rng = np.random.default_rng(100 + k)
    reps, n, margin = 300, 300, 0.05
    mu = 0.55 + margin * (np.arange(k) // 2)                    # pairs of equal runs, steps of the margin
    errors = 0
    for _ in range(reps):
        u = rng.random(n)
        same = rng.random((k, n)) < 0.6
        v = np.where(same, u, rng.random((k, n)))
        scores = (v < mu[:, None]).astype(float)
        # stop at one of a few looks, the first where there is more than one group
        for look in (100, 200, 300):
            # compare_many's own steps, without its tables
            lower, upper = pairwise_bounds(scores[:, :look], ALPHA / (k * (k - 1) // 2))
            groups = tie_groups(lower, upper, scores[:, :look].mean(axis=1), margin)
            if len(groups) > 1:
                break
        rank_low, rank_high = rank_intervals(lower, upper)
        errors += not _true_order_ok(groups, rank_low, rank_high, lower, upper, mu, margin)
    assert errors / reps <= _bound(reps), _message(errors, reps)


def test_negative_control_ties_without_the_multiplicity_correction_err_more_often():
    """Per-pair level alpha instead of alpha / (K(K-1)/2) over 10 equal runs: some pair is
    separated in far more than alpha of the runs."""
    rng = np.random.default_rng(7)
    reps, n, k = 150, 200, 10
    separated = 0
    for _ in range(reps):
        scores = (rng.random((k, n)) < 0.5).astype(float)
        lower, upper = pairwise_bounds(scores, ALPHA)
        separated += bool(((lower > 0) | (upper < 0)).any())
    assert separated / reps > 2 * ALPHA, _message(separated, reps)


def test_per_task_and_pooled_are_compare_many_on_each_slice():
    """The definition: each task's comparison is compare_many on its cases at alpha / T, the
    pooled one compare_many on every case at alpha; tasks in order of first appearance."""
    rng = np.random.default_rng(21)
    scores = (rng.random((3, 500)) < np.array([[0.5], [0.6], [0.75]])).astype(float)
    tasks = rng.choice(["math", "code", "facts"], size=500)
    result = compare_by_task(scores, tasks, ("a", "b", "c"), ALPHA, 0.02, budget=400)
    assert result.tasks == tuple(dict.fromkeys(tasks))
    pooled = compare_many(scores, ("a", "b", "c"), ALPHA, 0.02, 400)
    assert result.pooled.groups == pooled.groups and np.array_equal(result.pooled.lower, pooled.lower)
    for task, many in zip(result.tasks, result.per_task, strict=True):
        own = compare_many(scores[:, tasks == task], ("a", "b", "c"), ALPHA / 3, 0.02)
        assert many.n == int((tasks == task).sum()) and many.alpha == ALPHA / 3
        assert np.array_equal(many.lower, own.lower) and np.array_equal(many.upper, own.upper)
        assert many.groups == own.groups
    table = result.table()
    assert list(table["task"].unique()) == [*result.tasks, "pooled"] and len(table) == 3 * 4
    assert "Bonferroni over the tasks" in result.pooling and "every matched case weighs the same" in result.pooling
    with pytest.raises(InputError, match="two or more"):
        compare_by_task(scores, ["one"] * 500, ("a", "b", "c"))
    with pytest.raises(InputError, match="task label"):
        compare_by_task(scores, ["one"] * 10, ("a", "b", "c"))


def test_per_task_claims_hold_at_once_over_the_tasks():
    """3 runs on 3 tasks whose orders differ (one task ties two runs, one separates them by twice
    the margin, one reverses them); a replicate errs when any task's groups or ranks make a false
    claim. Seeded; bound alpha + 3 SE = 0.088 over 300 replicates (power, binomial: a true rate of
    0.10 fails it with probability 0.75, of 0.12 with probability 0.96)."""
    rng = np.random.default_rng(33)
    reps, n, margin = 300, 200, 0.05
    mu = {"tied": np.array([0.6, 0.6, 0.6]), "apart": np.array([0.5, 0.6, 0.7]),
          "reversed": np.array([0.7, 0.65, 0.5])}
    errors = 0
    for _ in range(reps):
        blocks = []
        for means in mu.values():
            u = rng.random(n)
            v = np.where(rng.random((3, n)) < 0.6, u, rng.random((3, n)))
            blocks.append((v < means[:, None]).astype(float))
        scores = np.hstack(blocks)
        labels = np.repeat(list(mu), n)
        result = compare_by_task(scores, labels, ("a", "b", "c"), ALPHA, margin)
        errors += not all(_true_order_ok(m.groups, m.rank_low, m.rank_high, m.lower, m.upper, mu[t], margin)
                          for t, m in zip(result.tasks, result.per_task, strict=True))
    assert errors / reps <= _bound(reps), _message(errors, reps)
