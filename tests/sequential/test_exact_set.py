"""Issue 28 item 4: the hedged beta mixture's computed interval against its own definition,
C_t = {m : (M_t^+(m) + M_t^-(m)) / 2 < 1/alpha} (audit_core/sequential/confseq.py, module doc),
evaluated here independently: M^+ by scipy's incomplete beta, M^- as its mirror image, the set's
ends by a grid of m and Brent's method between the grid points where membership changes. The
computed interval must contain the set (never narrower) and be at most 2 % wider, for every
outcome up to n = 40 and for sampled outcomes up to n = 100,000."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import brentq
from scipy.special import betainc, betaln, xlogy

from audit_core.sequential import confidence_sequence
from audit_core.sequential.confseq import hedged_mixture_counts


def log_side(m, s, f, k):
    """log M^+(m) for the side theta > m, u = (theta - m)/(1 - m) ~ Beta(1, k)."""
    with np.errstate(all="ignore"):
        return (np.log(k) + betaln(1 + s, f + k) + np.log(betainc(f + k, 1 + s, 1 - m))
                - xlogy(s, m) - (f + k) * np.log1p(-m))


def log_m(m, s, f):
    """log of the hedged capital (M^+ + M^-)/2, k^+ = ceil(3 (1 - m)), k^- = ceil(3 m)."""
    m = np.asarray(m, dtype=float)
    k_up = np.ceil(3 * (1 - m) - 1e-12).clip(1, 3)
    k_down = np.ceil(3 * m - 1e-12).clip(1, 3)
    return np.logaddexp(log_side(m, s, f, k_up), log_side(1 - m, f, s, k_down)) - math.log(2)


def exact_lower(s, f, alpha, grid=4001):
    """inf C_t: the first grid point inside, then Brent's method back to the boundary."""
    level = math.log(1 / alpha)
    m = np.linspace(0, 1, grid)[1:-1]
    inside = np.flatnonzero(log_m(m, s, f) < level)
    i = int(inside[0])
    left = 1e-12 if i == 0 else m[i - 1]
    if log_m(left, s, f) < level:
        return 0.0
    return brentq(lambda x: float(log_m(x, s, f)) - level, left, m[i], xtol=1e-13)


def check(successes, failures, alpha, grid=4001):
    low, high = hedged_mixture_counts(successes, failures, alpha)
    worst = 0.0
    for s, f, lo, hi in zip(successes, failures, low, high, strict=True):
        ref_low, ref_high = exact_lower(s, f, alpha, grid), 1 - exact_lower(f, s, alpha, grid)
        assert lo <= ref_low + 1e-9 and hi >= ref_high - 1e-9, (s, f, lo, ref_low, hi, ref_high)
        worst = max(worst, (hi - lo) / (ref_high - ref_low))
    return worst


@pytest.mark.parametrize("alpha", [0.05, 0.1])
def test_every_outcome_up_to_40_is_within_2_percent_of_the_exact_set_and_never_narrower(alpha):
    t = np.repeat(np.arange(1, 41), np.arange(2, 42))
    s = np.concatenate([np.arange(n + 1) for n in range(1, 41)])
    assert check(s, t - s, alpha) <= 1.02


@pytest.mark.parametrize("alpha", [0.05, 0.1])
def test_sampled_outcomes_up_to_100000_are_within_2_percent(alpha):
    rng = np.random.default_rng(28)
    t = np.concatenate([rng.integers(41, 2_000, 30), rng.integers(2_000, 100_001, 20), [100_000] * 4])
    p = np.concatenate([rng.random(50), [0.0, 1.0, 1e-5, 1 - 1e-5]])
    s = np.round(p * t)
    assert check(s, t - s, alpha, grid=40_001) <= 1.02


def test_fourteen_straight_ones_at_alpha_01():
    # the case: the lower end was 0.660 against an exact 0.731
    low = confidence_sequence(np.ones(14), 0.1).lower[-1]
    assert low == pytest.approx(exact_lower(14, 0, 0.1), abs=2e-3) and low <= exact_lower(14, 0, 0.1) + 1e-9
    assert low > 0.72
