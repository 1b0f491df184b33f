"""Issue 28 item 3: the planned-n hedged likelihood ratio (``confidence_sequence(..., planned_n=N)``
on 0/1 scores). Exact validity by dynamic programming over the success count, the computed ends
against the definition evaluated on a grid (every outcome up to n = 40), and the fast paths
against each other. The width comparison with the published alternatives is bench/bench_confseq.py."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from audit_core.errors import InputError
from audit_core.sequential import confidence_sequence
from audit_core.sequential.confseq import HEDGED_MIXTURE, PLANNED, hedged_mixture_counts, planned_alternative


def all_intervals(horizon, alpha, planned_n=None):
    """The per-step interval at every (S, t), t <= horizon, as hedged_mixture_counts computes it."""
    t = np.repeat(np.arange(1, horizon + 1), np.arange(2, horizon + 2))
    s = np.concatenate([np.arange(k + 1) for k in range(1, horizon + 1)])
    low, high = hedged_mixture_counts(s, t - s, alpha, planned_n=planned_n)
    offsets = np.r_[0, np.cumsum(np.arange(2, horizon + 2))]
    return [(low[offsets[k]:offsets[k + 1]], high[offsets[k]:offsets[k + 1]]) for k in range(horizon)]


def exact_miss_rate(p, intervals):
    """P(exists t <= horizon: p outside the interval at (S_t, t)) for Bernoulli(p) scores, exactly
    (up to float rounding): alive[s] = P(S_t = s and no miss yet). The running intersection misses
    exactly when some per-step interval misses, so this is the sequence's miss rate."""
    horizon = len(intervals)
    alive = np.zeros(horizon + 1)
    alive[0] = 1.0
    missed = 0.0
    for t in range(1, horizon + 1):
        alive[1:t + 1] = alive[1:t + 1] * (1 - p) + alive[0:t] * p
        alive[0] *= 1 - p
        low, high = intervals[t - 1]
        out = (low > p) | (high < p)
        missed += alive[:t + 1][out].sum()
        alive[:t + 1][out] = 0.0
    return missed


PS = np.r_[0.005, 0.01, 0.02, 0.05, np.arange(0.1, 0.91, 0.05), 0.95, 0.98, 0.99, 0.995]


@pytest.mark.parametrize("alpha", [0.05, 0.1])
@pytest.mark.parametrize("planned_n", [None, 10, 50, 200])
def test_exact_miss_rate_is_at_most_alpha(alpha, planned_n):
    """Every computed interval up to t = 150, every p of a grid of 25: the exact probability that
    the sequence ever excludes p is <= alpha (the bench runs the same to t = 5,000)."""
    intervals = all_intervals(150, alpha, planned_n)
    rates = np.array([exact_miss_rate(p, intervals) for p in PS])
    assert rates.max() <= alpha, (planned_n, alpha, PS[rates.argmax()], rates.max())
    assert rates.max() > alpha / 10          # not vacuous: the check sees misses


def test_exact_miss_rate_matches_monte_carlo():
    """The dynamic programme against seeded runs of confidence_sequence (planned_n = 20, p = 0.3, t <= 40)."""
    intervals = all_intervals(40, 0.1, 20)
    exact = exact_miss_rate(0.3, intervals)
    rng = np.random.default_rng(3)
    runs = 1_500
    misses = sum(bool(np.any((cs.lower > 0.3) | (cs.upper < 0.3)))
                 for cs in (confidence_sequence((rng.random(40) < 0.3).astype(float), 0.1, planned_n=20)
                            for _ in range(runs)))
    assert abs(misses / runs - exact) <= 4 * math.sqrt(exact * (1 - exact) / runs), (misses / runs, exact)


def log_e_definition(m, s, f, planned_n, alpha):
    """log M_t(m) = log((L^+ + L^-) / 2), L^+ the likelihood ratio of theta^+(m) against m and L^-
    of theta^-(m) = 1 - theta^+(1 - m), written out with theta^+ found by bisection on the KL."""
    from scipy.special import xlogy

    def theta_up(m):
        r = math.log(2 / alpha) / planned_n
        lo, hi = m.copy(), np.ones_like(m)
        for _ in range(80):
            mid = (lo + hi) / 2
            big = xlogy(mid, mid / m) + xlogy(1 - mid, (1 - mid) / (1 - m)) >= r
            hi, lo = np.where(big, mid, hi), np.where(big, lo, mid)
        return np.where(-np.log(m) > r, hi, 1.0)

    up, down = theta_up(m), 1 - theta_up(1 - m)
    with np.errstate(divide="ignore", invalid="ignore"):
        lr_up = xlogy(s, up / m) + xlogy(f, (1 - up) / (1 - m))
        lr_down = xlogy(s, down / m) + xlogy(f, (1 - down) / (1 - m))
    return np.logaddexp(lr_up, lr_down) - math.log(2)


@pytest.mark.parametrize("alpha", [0.05, 0.1])
@pytest.mark.parametrize("planned_n", [10, 40, 1_000])
def test_computed_interval_contains_the_definition_set_and_is_close(alpha, planned_n):
    """Every outcome up to n = 40: the definition C_t = {m : M_t(m) < 1/alpha} on a grid of 4,000
    means lies inside the computed interval (never narrower), and the computed interval is at
    most 2 % (of its width) wider than the grid set, plus a grid step."""
    grid = (np.arange(4_000) + 0.5) / 4_000
    worst = 0.0
    for t in range(1, 41):
        s = np.arange(t + 1, dtype=float)
        low, high = hedged_mixture_counts(s, t - s, alpha, planned_n=planned_n)
        inside = log_e_definition(grid[None, :], s[:, None], (t - s)[:, None], planned_n, alpha) < math.log(1 / alpha)
        for k in range(t + 1):
            points = grid[inside[k]]
            assert points.size and low[k] <= points[0] and points[-1] <= high[k], (t, k, low[k], high[k])
            extra = (points[0] - low[k]) + (high[k] - points[-1]) - 2 / 4_000
            worst = max(worst, extra / (high[k] - low[k]))
    assert worst <= 0.02, worst


def test_alternative_solves_the_kl_equation():
    m = np.linspace(1e-4, 1 - 1e-4, 20_001)
    for planned_n, alpha in ((10, 0.05), (100, 0.1), (10_000, 0.05)):
        theta = planned_alternative(m, planned_n, alpha)
        r = math.log(2 / alpha) / planned_n
        ok = theta < 1
        kl = theta[ok] * np.log(theta[ok] / m[ok]) + (1 - theta[ok]) * np.log((1 - theta[ok]) / (1 - m[ok]))
        assert np.all(theta[ok] > m[ok]) and np.allclose(kl, r, rtol=1e-9, atol=0)
        assert np.all(-np.log(m[~ok]) <= r)          # theta = 1 only where it cannot reach r


def test_counts_path_equals_the_sequence_and_auto_picks_it():
    rng = np.random.default_rng(9)
    for n, p, alpha, planned in ((1, 1.0, 0.05, 10), (60, 0.5, 0.1, 60), (700, 0.97, 0.05, 100), (3_000, 0.2, 0.01, 5_000)):
        x = (rng.random(n) < p).astype(float)
        cs = confidence_sequence(x, alpha, planned_n=planned)
        assert cs.method == PLANNED
        s = np.cumsum(x)
        low, high = hedged_mixture_counts(s, np.arange(1, n + 1) - s, alpha, planned_n=planned)
        assert np.array_equal(np.maximum.accumulate(low), cs.lower) and np.array_equal(np.minimum.accumulate(high), cs.upper)
        assert np.all(np.diff(cs.lower) >= 0) and np.all(np.diff(cs.upper) <= 0)
        # a prefix keeps its bounds
        head = confidence_sequence(x[:n // 2 + 1], alpha, planned_n=planned)
        assert np.array_equal(head.lower, cs.lower[:n // 2 + 1])
    assert confidence_sequence([1, 0, 1], 0.05).method == HEDGED_MIXTURE      # no planned_n: unchanged
    assert confidence_sequence([1, 0.5], 0.05, planned_n=10).method != PLANNED  # graded: PrPl-EB
    for bad in (0, -3, 2.5, True, "10"):
        with pytest.raises(InputError, match="planned_n"):
            confidence_sequence([1, 0], 0.05, planned_n=bad)
    with pytest.raises(InputError, match="planned_n"):
        confidence_sequence([1, 0], 0.05, method=PLANNED)
    with pytest.raises(InputError):
        confidence_sequence([1, 0.5], 0.05, method=PLANNED, planned_n=10)


def test_narrower_than_robbins_and_the_tuned_normal_mixture_at_small_n():
    """At the planned n = 10, 30, 100 (100 seeded runs, alpha = 0.05) the mean final width is below
    Robbins' Beta(1, 1) mixture's and the untuned default's (the full comparison with Waudby-Smith and
    Ramdas's hedged betting and Howard et al.'s normal mixture is bench/bench_confseq.py)."""
    for n in (10, 30, 100):
        for p in (0.01, 0.5, 0.9):
            widths = np.zeros(3)
            for run in range(100):
                x = (np.random.default_rng([run, n]).random(n) < p).astype(float)
                widths += [confidence_sequence(x, 0.05, planned_n=n).width[-1], confidence_sequence(x, 0.05).width[-1],
                           confidence_sequence(x, 0.05, "beta-binomial mixture").width[-1]]
            assert widths[0] < widths[1:].min(), (n, p, widths / 100)


def test_replay_tunes_the_overall_interval_and_the_one_group_of_a_run_without_subgroups_only():
    from audit_core.sequential import replay
    from audit_core.sequential.params import audit_params

    rng = np.random.default_rng(7)
    y = (rng.random(80) < 0.8).astype(float)
    groups = pd.DataFrame({"subject": np.where(np.arange(80) % 2 == 0, "a", "b")})
    params = audit_params("gpqa")
    tuned, untuned = replay(y, params, groups, planned_n=80), replay(y, params, groups)
    expected = confidence_sequence(y, 0.05, planned_n=80).final
    assert (tuned.overall.cs_low, tuned.overall.cs_high) == expected
    assert untuned.overall.cs_high - untuned.overall.cs_low > expected[1] - expected[0]
    pd.testing.assert_frame_equal(tuned.subgroup_table, untuned.subgroup_table)  # subgroups: untuned
    assert tuned.to_dict()["intervals"]["planned_n"] == 80 and untuned.to_dict()["intervals"]["planned_n"] is None
    alone = replay(y, params, None, planned_n=80)
    row = alone.subgroup_table.iloc[0]
    assert (row.cs_low, row.cs_high) == expected  # the run's one group is the run: tuned as the overall
    graded = np.clip(y - 0.25 * rng.random(80), 0, 1)
    assert replay(graded, params, planned_n=80).overall == replay(graded, params).overall  # graded: never tuned
