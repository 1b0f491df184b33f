"""Anytime-valid confidence sequences for the mean of scores in [0, 1], one per score type.

:func:`confidence_sequence` picks the construction by the scores (``method="auto"``):

* **0/1 scores: the hedged beta mixture** (``"hedged beta mixture"``). Robbins' method of mixtures
  (Howard, Ramdas, McAuliffe and Sekhon, "Time-uniform, nonparametric, nonasymptotic confidence
  sequences", Ann. Statist. 49(2), 2021, conjugate mixtures) applied, for each candidate mean m,
  to the two one-sided capital processes of Waudby-Smith and Ramdas, "Estimating means of bounded
  random variables by betting", JRSS-B 86(1), 2024, hedged with weight 1/2 each (their hedged
  capital, theta = 1/2), where each side mixes its bets over a prior instead of a plug-in bet:

      M_t(m)   = (M_t^+(m) + M_t^-(m)) / 2,    C_t = { m : M_t(m) < 1/alpha }
      M_t^+(m) = E_{theta ~ pi_m^+} [ (theta/m)^S_t ((1 - theta)/(1 - m))^F_t ]

  with S_t successes and F_t = t - S_t failures. (theta/m)^x ((1-theta)/(1-m))^(1-x) = 1 + lambda (x - m)
  with lambda = (theta - m)/(m (1 - m)): a mixture over the betting fraction lambda in [0, 1/m].
  The prior pi_m^+ lives on theta > m: u = (theta - m)/(1 - m) ~ Beta(1, k) with concentration
  k = ceil(3 (1 - m)) (3 on [0, 1/3), 2 on [1/3, 2/3), 1 on [2/3, 1]); pi_m^- is its mirror image
  on theta < m (k = ceil(3 m)). A prior may depend on m (it is fixed before any data), so M_t(m) is
  a nonnegative martingale with M_0 = 1 when the scores are Bernoulli(m) given the past, and Ville's
  inequality gives P(exists t: m not in C_t) <= alpha, two-sided. Why this prior: the beta-binomial
  mixture below is the same construction with weights 1 - m and m on the two sides and k = 1, so
  near accuracy 0 or 1 it puts little prior mass where the data are (the side facing the near
  boundary gets density 1/2/(1 - m) here, 1 there); the larger k in the middle concentrates each
  side nearer m, where the CS's ends lie for n >= 100. The rule k = ceil(3 (1 - m)) was fixed from
  simulated widths (bench/bench_confseq.py), not from any run's data.
  Computation: M^+(m) = k B(1 + S, F + k) (1 - I_m(1 + S, F + k)) / (m^S (1 - m)^(F + k)) (I the
  regularised incomplete beta) is decreasing in m below S/(t + k). The lower end drops M^- (>= 0) and
  bounds I_m(1 + S, F + k) = P(Bin(t + k, m) >= S + 1) <= exp(-radius) (Chernoff; radius = max over m
  of S log m + (F + k) log(1 - m) minus c, below the root), so it solves S log m + (F + k) log(1 - m)
  = c = log k + log B(1 + S, F + k) + log(1 - e^-radius) - log(2/alpha) by the Newton iteration of the
  beta-binomial mixture (conservative), in the first region of m from the left that can hold part
  of the set (each region with its own k; the end is at least the region's start). The upper end is
  the mirror image. At few cases (t <= 200) and near the edges (at most 10 successes or failures),
  where the Chernoff step is loose (26 % wider at alpha = 0.1 after 14 straight 0s), each end is
  then moved by Newton's method on the exact log M^+ (scipy's incomplete beta): for fixed k it is
  decreasing and convex in m, so Newton from the conservative side stays on it (``_exact_lower``).
  Every approximation widens the interval; tests compare with the definition evaluated exactly
  (M^+ and M^- by scipy's incomplete beta): never narrower, at most 0.35 % wider for every outcome
  up to n = 40 and sampled outcomes to n = 100,000 at alpha = 0.05 and 0.1
  (tests/sequential/test_exact_set.py). 0/1 scores only (the Chernoff step needs integer
  counts). Width: within 1.02x of the narrowest construction in METHODS at accuracies 0.01-0.995 and
  n = 100-10,000; against the published alternatives of bench/bench_confseq.py (Robbins, hedged
  betting with c = 3/4, a normal mixture tuned to n) up to 1.31x at n = 10 and 1.1x-1.3x at
  n = 10,000 in the middle (docs/confidence_sequence.md; ``planned_n`` is the tuned remedy); up to 1.3x narrower than
  the beta-binomial mixture near 0 and 1, about 1.05x narrower at n >= 1,000 in the middle.
* **0/1 scores with a declared budget: the planned-n hedged likelihood ratio** (``PLANNED``, used
  by ``"auto"`` when ``planned_n`` = N is given before any data; issue 28 item 3). For each m the
  hedged capital of Waudby-Smith and Ramdas (2024, theta = 1/2) with each side a single bettor
  whose alternative is fixed by N (Robbins' method of mixtures with a point-mass mixing
  distribution, Howard et al. 2021, tuned to N as their normal mixture is):

      M_t(m) = (L_t^+(m) + L_t^-(m)) / 2,   L_t^+-(m) = (theta^+-/m)^S_t ((1 - theta^+-)/(1 - m))^F_t
      N KL(theta^+(m) || m) = log(2/alpha), theta^+ in (m, 1]  (1 if -N log m <= log(2/alpha));
      theta^-(m) = 1 - theta^+(1 - m),      C_t = { m : M_t(m) < 1/alpha }.

  theta^+- depend on m, N and alpha only, so M_t(m) is a nonnegative martingale with M_0 = 1 under
  Bernoulli(m) and Ville's inequality gives P(exists t: m not in C_t) <= alpha at every t, before,
  at and after N. At t = N the set is about the fixed-n Chernoff-KL interval at alpha/2 per side
  (the boundary passes through S/N = theta^+-(m)); it narrows until N and stops narrowing after it
  (past N the width stays about that at N: declare the budget, not less). Computation: each end
  drops the other side (M >= L^+/2: conservative) and bisects log L^+(m) = log(2/alpha) on [0, S/t]
  (44 halvings; the end kept is still excluded); theta^+ by Newton's method from Pinsker's bound
  (``planned_alternative``). O(n) with about 500 vector operations per step (10^4 scores ~0.7 s).
  Width: 0.60x-0.98x the narrowest of Robbins' Beta(1, 1) mixture, Waudby-Smith & Ramdas's hedged
  betting (c = 3/4) and Howard et al.'s normal mixture tuned to N, at planned_n = n for n = 10 to
  10,000 (bench/bench_confseq.py); exact miss rate <= 0.048 (alpha = 0.05), <= 0.097 (alpha = 0.1)
  over t <= 5,000 (dynamic programming, same bench; tests/sequential/test_planned_n.py to t = 150).
* **beta-binomial mixture** (``method="beta-binomial mixture"``; the 0/1 default before): Robbins'
  conjugate mixture (Howard et al. 2021: the conjugate beta-binomial mixture boundary). With
  S_t = sum_{i<=t} X_i, F_t = t - S_t and a Beta(a, b) mixing distribution (a = b = 1 here),

      M_t(p) = B(a + S_t, b + F_t) / B(a, b) / (p^S_t (1 - p)^F_t)
      C_t    = { p : M_t(p) < 1/alpha } = { p : S_t log p + F_t log(1 - p) > log B(a+S_t, b+F_t) - log B(a, b) - log(1/alpha) }.

  M_t(p) is the Bayes factor of the Beta mixture against p, a nonnegative martingale with
  M_0 = 1 when the scores are Bernoulli(p) given the past, so Ville's inequality gives
  P(exists t: p not in C_t) <= alpha with no split between the sides. (It stays a supermartingale
  for scores in [0, 1] of conditional mean p, because (theta/p)^x ((1-theta)/(1-p))^(1-x) is
  convex in x: Bernoulli is the extreme case.) C_t is an interval around S_t / t (the left side is
  concave in p); its ends are found by Newton's method on the Bernoulli KL divergence in the
  logit, which is convex, so every Newton iterate after the first lies outside the root: a
  stopped iteration only widens the interval (conservative); the threshold is also lowered by
  1e-9 to absorb rounding. About 1.2x-1.4x narrower than PrPl-EB at n = 100 to 10,000.
* **graded scores: the predictable plug-in empirical-Bernstein sequence (PrPl-EB)** of
  Waudby-Smith and Ramdas, "Estimating means of bounded random variables by betting", JRSS-B
  86(1), 2024, Theorem 2 (arXiv:2010.09686, section 3.2):

      mu_hat_t    = (1/2 + sum_{i<=t} X_i) / (t + 1)                       (mu_hat_0 = 1/2)
      sigma2_t    = (1/4 + sum_{i<=t} (X_i - mu_hat_i)^2) / (t + 1)        (sigma2_0 = 1/4)
      lambda_t    = min( sqrt(2 log(2/alpha) / (sigma2_{t-1} t log(1 + t))), 1/2 )
      v_t         = 4 (X_t - mu_hat_{t-1})^2
      psi_E(l)    = (-log(1 - l) - l) / 4
      C_t         = sum lambda_i X_i / sum lambda_i
                    +- (log(2/alpha) + sum v_i psi_E(lambda_i)) / sum lambda_i

  lambda_t and v_t's centre use only X_1..X_{t-1} (predictable), so each side is a nonnegative
  supermartingale bound (Ville at alpha/2 per side). It adapts to the variance, which the mixture
  above does not (a graded score of small variance gets a narrow PrPl-EB interval).
* ``method="hedged betting"``: the hedged-capital betting sequence of the same paper (its hedged
  capital process, with the PrPl bets lambda_t above truncated at c/m resp. c/(1-m), c = 1/2,
  theta = 1/2): K_t^+(m) = prod (1 + lambda_i^+(m)(X_i - m)), K_t^-(m) = prod (1 - lambda_i^-(m)(X_i - m)),
  C_t = {m : max(K_t^+(m), K_t^-(m)) / 2 < 1/alpha}, evaluated on a grid of m (each K^+ factor is
  nonincreasing in m, so the set is an interval; each end is widened to the next grid point
  out). O(n x grid), so it is offered for comparison (bench/bench_confseq.py), not chosen
  automatically: on Beta(2, 5) scores it is up to 1.6x narrower than PrPl-EB at n = 100, but on
  nearly-0/1 scores it is wider at n >= 1,000 (1.03x-1.08x), and a construction cannot be
  switched per n or per run shape without spending alpha twice.

The returned bounds are the running intersection max_{s<=t} low_s, min_{s<=t} high_s, clipped to
[0, 1], which keeps the guarantee (the event "mu in every C_s" is the same). The intersection can
become empty only on the miscoverage event (probability <= alpha): from the first step where it is
empty (``empty_from``) both bounds stay at the point where they met (the bound of the last
non-empty interval that the new interval crossed), so ``lower`` never decreases, ``upper`` never
increases, and an empty run still shows where its evidence pointed. The construction is chosen
from the whole run (0/1 only: hedged mixture), so the bounds after step t depend on X_1..X_t only while
the run keeps its score type; appending scores never changes earlier bounds.

The guarantee holds for any stopping rule and any adaptive choice of which stream to observe, as
long as each observed score's conditional mean is the stream's mean: the workbench applies it per
subgroup (each subgroup's scores in arrival order), where that holds, and overall, where it holds
only for cases drawn in random order (an adaptive auditor that moves between subgroups changes the
conditional mean; the overall bounds then cover a weighted mean of the visited subgroups, not the
pool's accuracy). A fixed-n Wilson interval holds only at a sample size fixed in advance.

Cost: O(n) time and memory for the mixtures and PrPl-EB (cumulative sums and a few Newton steps).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import betainc, betaln, xlogy

from audit_core.errors import InputError

# The paper's truncation of the bet; 1/2 or 3/4 are its recommendations (section 3.2).
LAMBDA_MAX = 0.5
# Beta(a, b) mixing distribution of the 0/1 construction: uniform, as in Robbins' mixture.
PRIOR_A = PRIOR_B = 1.0

HEDGED_MIXTURE = "hedged beta mixture"
BETA_BINOMIAL = "beta-binomial mixture"
PRPL_EB = "PrPl-EB"
BETTING = "hedged betting"
AUTO = "auto"
# The score column's type, declared before any data (issue 28 item 5): "auto" then needs no look at
# the scores. BINARY: every score is 0 or 1 (a match scorer, a correct/incorrect label); GRADED:
# any score in [0, 1] (partial credit).
BINARY, GRADED = "binary", "graded"
SCORE_TYPES = (BINARY, GRADED)
METHODS = (HEDGED_MIXTURE, BETA_BINOMIAL, PRPL_EB, BETTING)
# Only with a declared planned_n (0/1 scores): tuned to it before any data (module doc).
PLANNED = "planned-n hedged likelihood ratio"
# The hedged mixture's prior on the side theta > m: u = (theta - m) / (1 - m) ~ Beta(1, k) with
# k = ceil(3 (1 - m)), i.e. k = 3 on [0, 1/3), 2 on [1/3, 2/3), 1 on [2/3, 1] (module doc); mirrored
# for the side theta < m. Rows: (start of the region of m, k).
_HEDGED_REGIONS = ((0.0, 3), (1.0 / 3.0, 2), (2.0 / 3.0, 1))

# Newton steps of the mixture's bounds: 2 everywhere (conservative error <= 1e-5), 6 more on the
# first blocks (t < 20,000 or so), where few successes make the start far from the root.
_NEWTON_STEPS, _EARLY_STEPS, _EARLY = 2, 6, 20_000
# Lowering the mixture threshold by this much absorbs rounding of the logs (conservative).
_LOG_SLACK = 1e-9


@dataclass(frozen=True, eq=False)
class ConfidenceSequence:
    """Bounds after every step of :func:`confidence_sequence`.

    ``lower[t-1]``, ``upper[t-1]``: the (1 - alpha) anytime-valid interval after t scores (running
    intersection, so ``lower`` never decreases and ``upper`` never increases). ``n``: steps,
    ``alpha``: level, ``method``: the construction used. ``empty_from``: the first step (1-based)
    at which the running intersection was empty (a miss; the bounds then stay where they met),
    None when it never was. ``final`` is the interval after the last step ((0, 1) for no scores).
    """

    lower: np.ndarray
    upper: np.ndarray
    alpha: float
    method: str = PRPL_EB
    empty_from: int | None = None

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
        return {"alpha": self.alpha, "n": self.n, "method": self.method, "empty_from": self.empty_from,
                "lower": [float(v) for v in self.lower], "upper": [float(v) for v in self.upper]}

    def __repr__(self) -> str:
        low, high = self.final
        return (f"ConfidenceSequence({self.method}, n={self.n}, alpha={self.alpha:g}, "
                f"final=[{low:.4f}, {high:.4f}])")


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


def _intersect(raw_low: np.ndarray, raw_high: np.ndarray) -> tuple[np.ndarray, np.ndarray, int | None]:
    """Running intersection of per-step intervals (each raw_low <= raw_high), clipped to [0, 1].

    From the first empty step k both bounds are frozen at the point where they met: the previous
    upper bound when the new lower bound crossed it, else the previous lower bound (module doc).
    Works in place: the raw arrays (scratch) become the bounds."""
    lower = np.maximum.accumulate(np.clip(raw_low, 0.0, 1.0, out=raw_low), out=raw_low)
    upper = np.minimum.accumulate(np.clip(raw_high, 0.0, 1.0, out=raw_high), out=raw_high)
    empty = np.flatnonzero(lower > upper)
    if empty.size == 0:
        return lower, upper, None
    k = int(empty[0])  # >= 1: a single interval is never empty
    # lower[k] > upper[k - 1] means the new lower bound crossed the previous upper bound
    point = upper[k - 1] if lower[k] > upper[k - 1] else lower[k - 1]
    lower[k:] = point
    upper[k:] = point
    return lower, upper, k + 1


# Work on blocks of this many steps: the temporaries of a block stay in cache and are reused,
# where whole-length temporaries cost a page fault per 4 KB (most of the time on a busy machine).
_BLOCK = 8192


def _cumsum_from(start: float, values: np.ndarray) -> np.ndarray:
    """start + cumulative sum, added in the same order as one cumsum over the whole run (so a
    block's sums equal the whole run's bit for bit, and prefixes keep their bounds)."""
    out = np.empty(len(values) + 1)
    out[0] = start
    out[1:] = values
    return np.cumsum(out, out=out)[1:]


def _prpl_eb(x: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Per-step PrPl-EB intervals (module doc, Waudby-Smith & Ramdas Theorem 2), block by block."""
    n = len(x)
    low, high = np.empty(n), np.empty(n)
    log_term = math.log(2.0 / alpha)
    sum_x = sum_sq = lam_sum = lam_x = v_psi = 0.0
    mu_last, sigma2_last = 0.5, 0.25                                 # mu_hat_0, sigma2_0
    for start in range(0, n, _BLOCK):
        xs = x[start:start + _BLOCK]
        t = np.arange(start + 1, start + len(xs) + 1, dtype=float)
        cum_x = _cumsum_from(sum_x, xs)
        mu_hat = (0.5 + cum_x) / (t + 1.0)                          # mu_hat_t
        cum_sq = _cumsum_from(sum_sq, (xs - mu_hat) ** 2)
        sigma2 = (0.25 + cum_sq) / (t + 1.0)                        # sigma2_t
        mu_prev = np.concatenate(([mu_last], mu_hat[:-1]))          # mu_hat_{t-1}
        sigma2_prev = np.concatenate(([sigma2_last], sigma2[:-1]))  # sigma2_{t-1}
        lam = np.minimum(np.sqrt(2.0 * log_term / (sigma2_prev * t * np.log1p(t))), LAMBDA_MAX)
        v = 4.0 * (xs - mu_prev) ** 2
        psi = (-np.log1p(-lam) - lam) / 4.0
        cum_lam = _cumsum_from(lam_sum, lam)
        cum_lam_x = _cumsum_from(lam_x, lam * xs)
        cum_v_psi = _cumsum_from(v_psi, v * psi)
        centre = cum_lam_x / cum_lam
        half = (log_term + cum_v_psi) / cum_lam
        low[start:start + len(xs)] = centre - half
        high[start:start + len(xs)] = centre + half
        sum_x, sum_sq, lam_sum, lam_x, v_psi = cum_x[-1], cum_sq[-1], cum_lam[-1], cum_lam_x[-1], cum_v_psi[-1]
        mu_last, sigma2_last = mu_hat[-1], sigma2[-1]
    return low, high


def _newton_logit(q, q_hat, p_hat, a_hat, radius):
    """One Newton step on g(q) = A(q) - A(q_hat) - p_hat (q - q_hat) - radius, A(q) = log(1 + e^q):
    the Bernoulli KL divergence KL(p_hat || sigmoid(q)) minus the radius, convex in q."""
    # An infinite radius (alpha near the smallest float) makes q infinite and the step NaN: the
    # caller turns a non-finite end into the trivial bound, so the warnings are silenced here.
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        e = np.exp(-np.abs(q))
        softplus = np.maximum(q, 0.0) + np.log1p(e)
        sigmoid = np.where(q >= 0.0, 1.0, e) / (1.0 + e)
        return q - (softplus - a_hat - p_hat * (q - q_hat) - radius) / (sigmoid - p_hat)


def _mixture_upper(s: np.ndarray, f: np.ndarray, c: np.ndarray, steps: int) -> np.ndarray:
    """The largest p with s log p + f log(1 - p) >= c, for every step (c <= the maximum, at s/t).

    In the logit q the condition is t KL(s/t || p) <= s log(s/t) + f log(f/t) - c =: t r; Newton's
    method on that convex function of q ends outside the root (conservative, module doc). The
    start is the quadratic approximation q_hat + sqrt(2 r / (p_hat (1 - p_hat))). s = 0 has the
    closed form 1 - exp(c/f); f = 0 gives 1."""
    interior = (s > 0) & (f > 0)
    s1, f1 = np.where(interior, s, 1.0), np.where(interior, f, 1.0)
    log_s, log_f, log_t = np.log(s1), np.log(f1), np.log(s1 + f1)
    p_hat = s1 / (s1 + f1)
    q_hat = log_s - log_f
    a_hat = log_t - log_f                                      # A(q_hat) = log(t / f)
    radius = np.maximum((s1 * (log_s - log_t) + f1 * (log_f - log_t) - c) / (s1 + f1), 0.0)
    q = q_hat + np.sqrt(2.0 * radius / (p_hat * (1.0 - p_hat)))
    if steps <= _NEWTON_STEPS:
        for _ in range(steps):
            q = _newton_logit(q, q_hat, p_hat, a_hat, radius)
    else:
        # More steps on the first blocks, each end frozen once its own step is below 1e-12 (so its
        # value depends on its own inputs only: a prefix of a run gets the same bounds), and the
        # loop ends when every end is frozen.
        frozen = np.zeros(q.shape, dtype=bool)
        for _ in range(steps):
            new = _newton_logit(q, q_hat, p_hat, a_hat, radius)
            done = np.abs(new - q) <= 1e-12 * (1.0 + np.abs(q))
            q = np.where(frozen, q, new)
            frozen |= done
            if frozen.all():
                break
    with np.errstate(over="ignore", invalid="ignore"):
        p = 1.0 / (1.0 + np.exp(-q))
        none_yet = -np.expm1(c / np.where(f > 0, f, 1.0))
    # A radius so large (alpha near the smallest float) that Newton's steps overflow leaves NaN:
    # the end is then 1, the trivial bound, which is always valid (and what the exact end rounds to).
    p = np.where(np.isfinite(p), p, 1.0)
    return np.where(interior, p, np.where(f == 0, 1.0, none_yet))


def _beta_binomial(x: np.ndarray, alpha: float, binary: bool) -> tuple[np.ndarray, np.ndarray]:
    """Per-step beta-binomial mixture intervals (module doc, Howard et al. 2021), block by block.

    log B(a + S_t, b + F_t) - log B(a, b): for 0/1 scores a product of one factor per step
    ((a + S_{t-1}) / (a + b + t - 1) after a 1, (b + F_{t-1}) / (a + b + t - 1) after a 0), so one
    log and a cumulative sum, several times faster than the log-beta function (used for fractional
    scores). The lower end for (S, F) is 1 - the upper end for (F, S) (a = b)."""
    n = len(x)
    low, high = np.empty(n), np.empty(n)
    log_level = math.log(1.0 / alpha) + _LOG_SLACK
    sum_x = log_ratio = 0.0
    for start in range(0, n, _BLOCK):
        xs = x[start:start + _BLOCK]
        t = np.arange(start + 1, start + len(xs) + 1, dtype=float)
        s = _cumsum_from(sum_x, xs)
        f = t - s
        if binary:
            factor = np.where(xs > 0.5, PRIOR_A + s - 1.0, PRIOR_B + f - 1.0) / (PRIOR_A + PRIOR_B + t - 1.0)
            ratio = _cumsum_from(log_ratio, np.log(factor))
            log_ratio = ratio[-1]
        else:
            ratio = betaln(PRIOR_A + s, PRIOR_B + f) - betaln(PRIOR_A, PRIOR_B)
        c = ratio - log_level
        steps = _NEWTON_STEPS + (_EARLY_STEPS if start < _EARLY else 0)
        # both ends in one call (half the numpy calls, which dominate for short runs)
        ends = _mixture_upper(np.concatenate((s, f)), np.concatenate((f, s)), np.concatenate((c, c)), steps)
        high[start:start + len(xs)] = ends[:len(xs)]
        low[start:start + len(xs)] = 1.0 - ends[len(xs):]
        sum_x = s[-1]
    return low, high


class _Logs(dict):
    """log(v + k) of one block's arrays, computed on first use and shared by both ends."""

    def __init__(self, **arrays):
        super().__init__()
        self.arrays = arrays

    def __missing__(self, key):
        name, k = key
        with np.errstate(divide="ignore"):
            value = self[key] = np.log(self.arrays[name] + k)
        return value


def _hedged_lower(s: str, f: str, log_b: np.ndarray, level: float, logs: _Logs):
    """Per-step Newton inputs of the hedged mixture's lower end (module doc): the end is the
    smallest m with S log m + (F + k) log(1 - m) >= c in the first region of m, from the left,
    that can hold part of the set, k being the upper side's prior concentration there. ``s``, ``f``:
    the names of S_t and F_t in ``logs`` (swapped for the upper end); ``log_b`` = log B(1 + S, 1 + F).
    Returns (F + k, c, region start)."""
    s_, f_, t = logs.arrays[s], logs.arrays[f], logs.arrays["t"]
    s_log_s = s_ * np.where(s_ > 0, logs[s, 0], 0.0)
    f_sel, c_sel, start_sel = None, None, None
    open_ = np.ones(s_.shape, dtype=bool)          # steps whose region is not chosen yet
    regions = (*_HEDGED_REGIONS, (1.0, 0))
    for (start, k), (stop, _) in zip(regions[:-1], regions[1:], strict=True):
        # log B(1 + S, F + k) = log B(1 + S, 1 + F) + sum_{j=2..k} log((F + j - 1) / (t + j))
        c = log_b + (math.log(k) - level)
        for j in range(2, k + 1):
            c = c + (logs[f, j - 1] - logs["t", j])
        if stop < 1.0:
            rising = s_ >= stop * (t + k)
            value = s_ * math.log(stop) + (f_ + k) * math.log1p(-stop)
            # Shortcut (same result): the tail term below is >= floor_k for every step that is rising
            # at stop (S >= 1, F + k >= 1: Ash's bound C(n, S) >= e^(n H(S/n)) / sqrt(8 S (F+k) / n)
            # gives radius >= level - log k - log(8) / 2). When every open step is rising and below
            # c + floor_k there, the region holds none of them and its tail need not be computed.
            floor_radius = level - math.log(k) - 0.5 * math.log(8.0)
            if floor_radius > 0:
                low_c = c + math.log1p(-math.exp(-floor_radius))
                if not (open_ & ~(rising & (value < low_c - 1e-9 * (1.0 + np.abs(low_c))))).any():
                    continue
        # radius = max of S log m + (F + k) log(1 - m) (at m = S / (t + k)) minus c; the prior's
        # tail below m: log(1 - P(Beta(1 + S, F + k) <= m)) >= log(1 - e^-radius) at every m left
        # of the root (Chernoff's binomial bound; module doc). -inf for radius <= 0; e^-50 is below
        # rounding (and an underflowing exp is slow).
        radius = s_log_s + (f_ + k) * logs[f, k] - (t + k) * logs["t", k] - c
        np.clip(radius, 0.0, 50.0, out=radius)
        with np.errstate(divide="ignore"):
            c += np.log1p(-np.exp(-radius))
        if stop >= 1.0:
            here = open_
        else:
            # [start, stop) holds part of the set unless the concave S log m + (F + k) log(1 - m)
            # is still rising at stop and below c there (margin: rounding)
            here = open_ & ~(rising & (value < c - 1e-9 * (1.0 + np.abs(c))))
        if f_sel is None:
            f_sel, c_sel, start_sel = f_ + k, c, np.full(s_.shape, start)
        else:
            f_sel = np.where(here, f_ + k, f_sel)
            c_sel = np.where(here, c, c_sel)
            start_sel = np.where(here, start, start_sel)
        open_ = open_ & ~here
        if not open_.any():
            break
    return f_sel, c_sel, start_sel


# Steps with t <= _EXACT_UP_TO, or at most _EXACT_NEAR_EDGE successes or failures, get their ends
# moved onto the definition's (_exact_lower): there the Chernoff bound on the prior's tail is loose
# (26 % wider at alpha = 0.1 after 14 straight 0s; 3.8 % for 0 of 100,000). Elsewhere it is within
# 0.3 % (tests/sequential/test_exact_set.py), and the exact tail costs a betainc per Newton step.
_EXACT_UP_TO, _EXACT_NEAR_EDGE, _EXACT_STEPS = 200, 10, 8


def _log_m_plus(m, s, f, k: int):
    """log M^+(m) of the side theta > m with prior concentration k (module doc), exactly:
    log k + log B(1 + S, F + k) + log(1 - I_m(1 + S, F + k)) - S log m - (F + k) log(1 - m), and its
    derivative in m. 1 - I_m(a, b) = I_(1-m)(b, a) (no cancellation)."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        tail = betainc(f + k, 1.0 + s, 1.0 - m)
        log_density = xlogy(s, m) + (f + k - 1.0) * np.log1p(-m) - betaln(1.0 + s, f + k)
        value = math.log(k) + betaln(1.0 + s, f + k) + np.log(tail) - xlogy(s, m) - (f + k) * np.log1p(-m)
        slope = -np.exp(log_density) / tail - s / m + (f + k) / (1.0 - m)
    return value, slope, tail


def _exact_lower(low: np.ndarray, s: np.ndarray, f: np.ndarray, level: float) -> np.ndarray:
    """The lower end moved from the conservative ``low`` towards the smallest m with
    M^+(m) < e^level (the definition with M^- dropped, which only widens).

    For fixed k, log M^+(m) is decreasing (each bet's factor (theta/m)^x ((1 - theta)/(1 - m))^(1-x)
    with theta = m + (1 - m) u falls in m) and convex (each is log-convex in m, and a mixture of
    log-convex functions is log-convex). Newton's method on a convex decreasing function, started
    left of the root, stays left of it: every iterate is a valid (wider) end. A step that leaves the
    region of m [start, stop) of the current k shows the region holds no point of the set (the
    root of its k lies beyond), and the next iterate starts at stop. Where the tail underflows
    (no finite value) the end stays where it is."""
    m = low.copy()
    stops = np.array([b for b, _ in _HEDGED_REGIONS[1:]] + [1.0])
    # Each end iterates until its own step is below 1e-13 and is then frozen, so its value depends
    # on its own counts only (a prefix of a run keeps its bounds bit for bit).
    active = np.arange(m.size)
    for _ in range(_EXACT_STEPS):
        here_m, here_s, here_f = m[active], s[active], f[active]
        region = np.minimum((here_m * 3.0).astype(int), 2)    # 0: [0, 1/3), 1: [1/3, 2/3), 2: [2/3, 1]
        new = here_m.copy()
        move = np.zeros(here_m.shape, dtype=bool)
        for r in range(3):
            sel = region == r
            if not sel.any():
                continue
            value, slope, tail = _log_m_plus(here_m[sel], here_s[sel], here_f[sel], 3 - r)
            ok = np.isfinite(value) & np.isfinite(slope) & (tail > 0) & (value >= level) & (slope < 0)
            with np.errstate(all="ignore"):  # a level near the largest float (alpha subnormal)
                step = here_m[sel] - (value - level) / np.where(ok, slope, -1.0)
            new[sel] = np.where(ok & np.isfinite(step), step, here_m[sel])
            move[sel] = ok & np.isfinite(step)
        stop = stops[region]
        # past the region's end: the region holds no point of the set; go on from its end
        new = np.where((new >= stop) & (region < 2), stop, np.minimum(new, np.nextafter(stop, 0.0)))
        new = np.where(move, np.maximum(new, here_m), here_m)
        m[active] = new
        active = active[move & (np.abs(new - here_m) > 1e-13)]
        if active.size == 0:
            break
    return m


def _hedged_ends(s: np.ndarray, f: np.ndarray, t: np.ndarray, log_b: np.ndarray, alpha: float,
                 steps: int) -> tuple[np.ndarray, np.ndarray]:
    """The hedged beta mixture's interval (module doc) for S = ``s`` successes and F = ``f``
    failures in t = ``t`` cases, ``log_b`` = log B(1 + S, 1 + F), elementwise."""
    level = math.log(2.0 / alpha) + _LOG_SLACK
    logs = _Logs(s=s, f=f, t=t)
    f_low, c_low, start_low = _hedged_lower("s", "f", log_b, level, logs)
    f_high, c_high, start_high = _hedged_lower("f", "s", log_b, level, logs)
    # smallest m with S log m + (F + k) log(1 - m) >= c is 1 - the largest p with
    # (F + k) log p + S log(1 - p) >= c: both ends in one Newton call
    ends = 1.0 - _mixture_upper(np.concatenate((f_low, f_high)), np.concatenate((s, f)),
                                np.concatenate((c_low, c_high)), steps)
    m = len(s)
    low, high = np.maximum(ends[:m], start_low), 1.0 - np.maximum(ends[m:], start_high)
    early = (t <= _EXACT_UP_TO) | (np.minimum(s, f) <= _EXACT_NEAR_EDGE)
    if early.any():
        # both ends in one call: the upper end is 1 - the lower end with S and F swapped
        se, fe = s[early], f[early]
        moved = _exact_lower(np.concatenate((low[early], 1.0 - high[early])), np.concatenate((se, fe)),
                             np.concatenate((fe, se)), level)
        low[early], high[early] = moved[:len(se)], 1.0 - moved[len(se):]
    return low, high


# --- The planned-n hedged likelihood ratio (0/1 scores, tuned to a declared budget) ----------------
# Newton steps of the alternative theta(m) (10: converged to rounding) and bisection steps of each
# end (44: below 1e-13).
_THETA_STEPS, _END_STEPS = 10, 44


def _kl(a, m):
    """Bernoulli Kullback-Leibler divergence KL(a || m), 0 log 0 = 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return xlogy(a, a / m) + xlogy(1.0 - a, (1.0 - a) / (1.0 - m))


def planned_alternative(m, planned_n: int, alpha: float) -> np.ndarray:
    """theta^+(m) of the planned-n construction (:func:`hedged_mixture_counts`): the theta in (m, 1]
    with planned_n KL(theta || m) = log(2/alpha), or 1 when even theta = 1 falls short
    (-planned_n log m <= log(2/alpha)). Newton's method in theta (10 steps) from Pinsker's bound
    m + sqrt(r / 2) >= theta (r = log(2/alpha) / planned_n): KL(. || m) is convex and increasing on
    [m, 1], so every iterate stays at or right of the root. Either way a fixed function of m,
    planned_n and alpha, set before any data. theta^-(m) = 1 - theta^+(1 - m)."""
    m = np.asarray(m, dtype=float)
    radius = math.log(2.0 / alpha) / planned_n
    theta = np.minimum(m + math.sqrt(radius / 2.0), 1.0 - 1e-15)
    with np.errstate(divide="ignore", invalid="ignore"):
        logit_m = np.log(m) - np.log1p(-m)
        for _ in range(_THETA_STEPS):
            slope = np.log(theta) - np.log1p(-theta) - logit_m
            step = (_kl(theta, m) - radius) / slope
            theta = np.where(np.isfinite(step) & (step > 0), theta - step, theta)
        reach = -np.log(m) > radius
    return np.where(reach, theta, 1.0)


def planned_log_side(m, s, f, planned_n: int, alpha: float) -> np.ndarray:
    """log of the side theta > m of the planned-n construction, log L^+_t(m) =
    S log(theta^+(m)/m) + F log((1 - theta^+(m))/(1 - m)) (-inf where theta^+ = 1 and F > 0)."""
    m = np.asarray(m, dtype=float)
    theta = planned_alternative(m, planned_n, alpha)
    with np.errstate(divide="ignore", invalid="ignore"):
        return xlogy(s, theta / m) + xlogy(f, (1.0 - theta) / (1.0 - m))


def _planned_lower(s: np.ndarray, f: np.ndarray, planned_n: int, alpha: float) -> np.ndarray:
    """The lower end of the planned-n interval, conservatively: the largest m found by bisection on
    [0, S/t] with L^+_t(m) >= 2/alpha (the side theta < m dropped: M >= L^+/2, so the set only
    grows). L^+_t(m) falls as m rises to S/t (tests: every outcome to n = 40 against a grid), and the
    end kept is always a point still excluded (or 0): never inside the set."""
    level = math.log(2.0 / alpha) + _LOG_SLACK
    t = s + f
    low = np.zeros(s.shape)
    high = np.where(t > 0, s / np.where(t > 0, t, 1.0), 0.0)
    live = s > 0
    for _ in range(_END_STEPS):
        mid = 0.5 * (low + high)
        out = planned_log_side(np.where(live, mid, 0.5), s, f, planned_n, alpha) >= level
        low = np.where(live & out, mid, low)
        high = np.where(live & ~out, mid, high)
    return low


def _planned_ends(s: np.ndarray, f: np.ndarray, planned_n: int, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    both = _planned_lower(np.concatenate((s, f)), np.concatenate((f, s)), planned_n, alpha)
    return both[:len(s)], 1.0 - both[len(s):]


def _check_planned(planned_n) -> int:
    if isinstance(planned_n, bool) or not isinstance(planned_n, (int, np.integer)) or planned_n < 1:
        raise InputError(f"planned_n: expected a whole number >= 1 (the planned number of scores), got {planned_n!r}")
    return int(planned_n)


def hedged_mixture_counts(successes, failures, alpha: float = 0.05,
                          planned_n: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The hedged beta mixture's (1 - alpha) interval after ``successes`` 1s and ``failures`` 0s
    (arrays of whole numbers, elementwise; not intersected over time): the set C_t of the module
    doc as :func:`confidence_sequence` computes it at one step. For exact enumeration over every
    outcome (tests, bench/bench_confseq.py); a run's bounds are the running intersection of these.
    With ``planned_n``: the planned-n hedged likelihood ratio's interval instead (module doc)."""
    s = np.asarray(successes, dtype=float).ravel()
    f = np.asarray(failures, dtype=float).ravel()
    if s.shape != f.shape or np.any(s < 0) or np.any(f < 0) or np.any(s + f < 1):
        raise InputError("successes, failures: expected two arrays of counts >= 0 of the same length, "
                         "each pair with at least one score")
    _check(np.zeros(1), alpha)
    if planned_n is not None:
        low, high = _planned_ends(s, f, _check_planned(planned_n), float(alpha))
        return np.clip(low, 0.0, 1.0), np.clip(high, 0.0, 1.0)
    low, high = _hedged_ends(s, f, s + f, betaln(1.0 + s, 1.0 + f), float(alpha), _NEWTON_STEPS + _EARLY_STEPS)
    return np.clip(low, 0.0, 1.0), np.clip(high, 0.0, 1.0)


def _hedged_mixture(x: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Per-step hedged beta mixture intervals for 0/1 scores (module doc), block by block."""
    n = len(x)
    low, high = np.empty(n), np.empty(n)
    sum_x = log_ratio = 0.0
    for start in range(0, n, _BLOCK):
        xs = x[start:start + _BLOCK]
        t = np.arange(start + 1, start + len(xs) + 1, dtype=float)
        s = _cumsum_from(sum_x, xs)
        f = t - s
        # log B(1 + S_t, 1 + F_t): one factor per step (as in _beta_binomial, a = b = 1)
        factor = np.where(xs > 0.5, s, f) / (t + 1.0)
        log_b = _cumsum_from(log_ratio, np.log(factor))
        log_ratio, sum_x = log_b[-1], s[-1]
        steps = _NEWTON_STEPS + (_EARLY_STEPS if start < _EARLY else 0)
        m = len(xs)
        low[start:start + m], high[start:start + m] = _hedged_ends(s, f, t, log_b, alpha, steps)
    return low, high


def betting_bets(x: np.ndarray, alpha: float) -> np.ndarray:
    """The hedged betting sequence's predictable bets before truncation (module doc):
    sqrt(2 log(2/alpha) / (sigma2_{t-1} t log(1 + t))), the PrPl rule."""
    n = len(x)
    t = np.arange(1, n + 1, dtype=float)
    mu_hat = (0.5 + np.cumsum(x)) / (t + 1.0)
    sigma2 = (0.25 + np.cumsum((x - mu_hat) ** 2)) / (t + 1.0)
    sigma2_prev = np.concatenate(([0.25], sigma2[:-1]))
    return np.sqrt(2.0 * math.log(2.0 / alpha) / (sigma2_prev * t * np.log1p(t)))


def betting_excluded(x: np.ndarray, alpha: float, m: np.ndarray) -> np.ndarray:
    """For each candidate mean in ``m``: was it outside the hedged betting set C_t at some step
    (max(K_t^+(m), K_t^-(m)) >= 2/alpha; module doc)? The definition, O(n x len(m))."""
    bet = betting_bets(x, alpha)[:, None]
    m = np.asarray(m, dtype=float)[None, :]
    threshold = math.log(2.0 / alpha)
    up = np.cumsum(np.log1p(np.minimum(bet, LAMBDA_MAX / m) * (x[:, None] - m)), axis=0)
    down = np.cumsum(np.log1p(-np.minimum(bet, LAMBDA_MAX / (1.0 - m)) * (x[:, None] - m)), axis=0)
    return ((up >= threshold) | (down >= threshold)).any(axis=0)


def _betting(x: np.ndarray, alpha: float, grid_size: int = 1000) -> tuple[np.ndarray, np.ndarray]:
    """Per-step hedged-capital intervals on a grid of m (module doc, Waudby-Smith & Ramdas, hedged capital)."""
    n = len(x)
    bet = betting_bets(x, alpha)
    step = 1.0 / grid_size
    m = (np.arange(grid_size) + 0.5) * step                      # grid cell centres
    threshold = math.log(2.0 / alpha)                            # max(K+, K-)/2 < 1/alpha
    low, high = np.zeros(n), np.ones(n)
    log_up, log_down = np.zeros(grid_size), np.zeros(grid_size)
    for start in range(0, n, 512):
        stop = min(n, start + 512)
        xs, bs = x[start:stop, None], bet[start:stop, None]
        lam_up = np.minimum(bs, LAMBDA_MAX / m)
        lam_down = np.minimum(bs, LAMBDA_MAX / (1.0 - m))
        up = log_up + np.cumsum(np.log1p(lam_up * (xs - m)), axis=0)
        down = log_down + np.cumsum(np.log1p(-lam_down * (xs - m)), axis=0)
        log_up, log_down = up[-1], down[-1]
        inside = (up < threshold) & (down < threshold)
        any_inside = inside.any(axis=1)
        first = np.argmax(inside, axis=1)
        last = grid_size - 1 - np.argmax(inside[:, ::-1], axis=1)
        # The set is an interval, so its ends lie between the first (last) grid point inside and
        # the grid point before (after) it: widen by a whole grid step. With no grid point inside,
        # the set (if not empty) lies between two grid points we cannot tell: (0, 1) for that step.
        low[start:stop] = np.where(any_inside, m[first] - step, 0.0)
        high[start:stop] = np.where(any_inside, m[last] + step, 1.0)
    return low, high


def score_type_of(scores) -> str:
    """:data:`BINARY` when every score is 0 or 1, else :data:`GRADED`: the type of a whole recorded
    column, read once before a replay's first step (each subgroup then uses the column's type)."""
    x = np.asarray(scores, dtype=float)
    return BINARY if bool(np.all((x == 0.0) | (x == 1.0))) else GRADED


def confidence_sequence(scores, alpha: float = 0.05, method: str = AUTO,
                        planned_n: int | None = None, score_type: str | None = None) -> ConfidenceSequence:
    """Anytime-valid bounds after every step of ``scores`` (module doc).

    ``method``: ``"auto"`` (default: the hedged beta mixture when every score is 0 or 1, PrPl-EB
    otherwise), or one of :data:`METHODS` to force a construction (the hedged mixture needs 0/1 scores).
    ``planned_n``: the number of scores the audit plans (its budget), declared before any data; with
    it, ``"auto"`` on 0/1 scores uses the planned-n hedged likelihood ratio (:data:`PLANNED`, module
    doc), narrower at and before planned_n, still valid at every step after it. Without it
    (default) nothing changes.
    ``score_type``: what ``"auto"`` chooses by, declared before any data (issue 28 item 5):
    ``"binary"`` (the hedged beta mixture; a score other than 0 or 1 is refused) or ``"graded"``
    (PrPl-EB, valid for every score in [0, 1], 0/1 included). None (default): read from all the
    scores given, :func:`score_type_of`; right for a recorded run, whose scores are all there before
    the first step. A stream (scores arriving, an early-stopping rule) declares it: a construction
    switched when the first graded score arrives is not covered by the α bound."""
    x = _check(scores, alpha)
    if score_type is not None and score_type not in SCORE_TYPES:
        raise InputError(f"score_type: expected one of {', '.join(SCORE_TYPES)} or None, got {score_type!r}")
    binary = score_type_of(x) == BINARY
    if score_type == BINARY and not binary:
        bad = x[(x != 0.0) & (x != 1.0)][0]
        raise InputError(f"score_type: declared {BINARY!r} but a score is {bad:g}; declare {GRADED!r} for "
                         "scores with partial credit")
    if score_type == GRADED and method == AUTO:
        method = PRPL_EB
    if planned_n is not None:
        planned_n = _check_planned(planned_n)
    if method == AUTO:
        method = (PLANNED if planned_n is not None else HEDGED_MIXTURE) if binary else PRPL_EB
    if method not in METHODS and method != PLANNED:
        raise InputError(f"method: expected one of {AUTO}, {', '.join(METHODS)}, {PLANNED}; got {method!r}")
    if method == PLANNED and (planned_n is None or not binary):
        raise InputError(f"method: {PLANNED!r} needs planned_n and scores that are all 0 or 1")
    if len(x) == 0:
        return ConfidenceSequence(lower=np.empty(0), upper=np.empty(0), alpha=float(alpha), method=method)
    if method == PLANNED:
        s = np.cumsum(x)
        raw_low, raw_high = _planned_ends(s, np.arange(1, len(x) + 1) - s, planned_n, float(alpha))
    elif method == HEDGED_MIXTURE:
        if not binary:
            raise InputError(f"method: {HEDGED_MIXTURE!r} needs scores that are all 0 or 1; "
                             f"use {BETA_BINOMIAL!r} or {PRPL_EB!r} for graded scores")
        raw_low, raw_high = _hedged_mixture(x, alpha)
    elif method == BETA_BINOMIAL:
        raw_low, raw_high = _beta_binomial(x, alpha, binary)
    elif method == PRPL_EB:
        raw_low, raw_high = _prpl_eb(x, alpha)
    else:
        raw_low, raw_high = _betting(x, alpha)
    lower, upper, empty_from = _intersect(raw_low, raw_high)
    return ConfidenceSequence(lower=lower, upper=upper, alpha=float(alpha), method=method, empty_from=empty_from)
