"""Anytime-valid confidence sequence for the mean of scores in [0, 1].

The predictable plug-in empirical-Bernstein confidence sequence (PrPl-EB) of Waudby-Smith and
Ramdas, "Estimating means of bounded random variables by betting", JRSS-B 86(1), 2023, Theorem 2
(arXiv:2010.09686, section 3.2). For scores X_1, X_2, ... in [0, 1] whose conditional mean given
the past is mu at every step, with alpha the level:

    mu_hat_t    = (1/2 + sum_{i<=t} X_i) / (t + 1)                       (mu_hat_0 = 1/2)
    sigma2_t    = (1/4 + sum_{i<=t} (X_i - mu_hat_i)^2) / (t + 1)        (sigma2_0 = 1/4)
    lambda_t    = min( sqrt(2 log(2/alpha) / (sigma2_{t-1} t log(1 + t))), 1/2 )
    v_t         = 4 (X_t - mu_hat_{t-1})^2
    psi_E(l)    = (-log(1 - l) - l) / 4
    C_t         = sum lambda_i X_i / sum lambda_i
                  +- (log(2/alpha) + sum v_i psi_E(lambda_i)) / sum lambda_i

lambda_t and v_t's centre use only X_1..X_{t-1} (predictable), so each side is a nonnegative
supermartingale bound (Ville's inequality at alpha/2 per side) and P(exists t: mu not in C_t) <=
alpha. The returned bounds are the running intersection max_{s<=t} low_s, min_{s<=t} high_s,
clipped to [0, 1], which keeps the guarantee (the event "mu in every C_s" is the same). The bounds
after step t depend on X_1..X_t only: appending scores never changes earlier bounds.

The guarantee holds for any stopping rule and any adaptive choice of which stream to observe, as
long as each observed score's conditional mean is the stream's mean: the workbench applies it per
subgroup (each subgroup's scores in arrival order), where that holds, and overall, where it holds
only for cases drawn in random order (an adaptive auditor that moves between subgroups changes the
conditional mean; the overall bounds then cover a weighted mean of the visited subgroups, not the
pool's accuracy). A fixed-n Wilson interval holds only at a sample size fixed in advance.

Cost: O(n) time and memory, a handful of cumulative sums.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from audit_core.errors import InputError

# The paper's truncation of the bet; 1/2 or 3/4 are its recommendations (section 3.2).
LAMBDA_MAX = 0.5


@dataclass(frozen=True, eq=False)
class ConfidenceSequence:
    """Bounds after every step of :func:`confidence_sequence`.

    ``lower[t-1]``, ``upper[t-1]``: the (1 - alpha) anytime-valid interval after t scores (running
    intersection, so ``lower`` never decreases and ``upper`` never increases). ``n``: steps,
    ``alpha``: level. ``final`` is the interval after the last step ((0, 1) for no scores).
    """

    lower: np.ndarray
    upper: np.ndarray
    alpha: float

    @property
    def n(self) -> int:
        return len(self.lower)

    @property
    def final(self) -> tuple[float, float]:
        if self.n == 0:
            return 0.0, 1.0
        return float(self.lower[-1]), float(self.upper[-1])

    @property
    def width(self) -> np.ndarray:
        return self.upper - self.lower

    def to_dict(self) -> dict:
        return {"alpha": self.alpha, "n": self.n, "lower": [float(v) for v in self.lower],
                "upper": [float(v) for v in self.upper]}

    def __repr__(self) -> str:
        low, high = self.final
        return f"ConfidenceSequence(n={self.n}, alpha={self.alpha:g}, final=[{low:.4f}, {high:.4f}])"


def _check(scores, alpha: float) -> np.ndarray:
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float, np.floating)) or not 0.0 < alpha < 1.0:
        raise InputError(f"alpha: must be a number strictly between 0 and 1, got {alpha!r}")
    try:
        x = np.asarray(scores, dtype=float)
    except (TypeError, ValueError):
        raise InputError("scores: expected numbers in [0, 1]") from None
    if x.ndim != 1:
        raise InputError(f"scores: expected a 1-D sequence, got shape {x.shape}")
    bad = ~((x >= 0.0) & (x <= 1.0))
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        raise InputError(f"scores: value {x[first]!r} at step {first + 1} is not a number in [0, 1]")
    return x


def confidence_sequence(scores, alpha: float = 0.05) -> ConfidenceSequence:
    """The PrPl-EB confidence sequence (module docstring) after every step of ``scores``."""
    x = _check(scores, alpha)
    n = len(x)
    if n == 0:
        return ConfidenceSequence(lower=np.empty(0), upper=np.empty(0), alpha=float(alpha))
    t = np.arange(1, n + 1, dtype=float)
    log_term = np.log(2.0 / alpha)
    mu_hat = (0.5 + np.cumsum(x)) / (t + 1.0)                       # mu_hat_t, t = 1..n
    sigma2 = (0.25 + np.cumsum((x - mu_hat) ** 2)) / (t + 1.0)      # sigma2_t, t = 1..n
    mu_prev = np.concatenate(([0.5], mu_hat[:-1]))                  # mu_hat_{t-1}
    sigma2_prev = np.concatenate(([0.25], sigma2[:-1]))             # sigma2_{t-1}
    lam = np.minimum(np.sqrt(2.0 * log_term / (sigma2_prev * t * np.log1p(t))), LAMBDA_MAX)
    v = 4.0 * (x - mu_prev) ** 2
    psi = (-np.log1p(-lam) - lam) / 4.0
    lam_sum = np.cumsum(lam)
    centre = np.cumsum(lam * x) / lam_sum
    half = (log_term + np.cumsum(v * psi)) / lam_sum
    lower = np.maximum.accumulate(np.clip(centre - half, 0.0, 1.0))
    upper = np.minimum.accumulate(np.clip(centre + half, 0.0, 1.0))
    # The running intersection can be empty only on the miscoverage event (probability <= alpha);
    # it is then shown as the point where the bounds met rather than as an inverted interval.
    upper = np.maximum(upper, lower)
    return ConfidenceSequence(lower=lower, upper=upper, alpha=float(alpha))
