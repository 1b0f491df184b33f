"""Confidence sequences for 0/1 scores: widths against fair, published comparators; exact miss
rates by dynamic programming; time over 10^6 scores.

Widths (issue 28 item 3). Mean final width (the running intersection after n scores) over seeded
Bernoulli(p) runs, p in {0.01, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99}, n in {10, 20, 30, 50, 100, 1,000,
10,000}, alpha in {0.05, 0.1}, every construction on the same runs (runs where some construction's
intersection emptied, a miss, are left out of every column and counted). Comparators, written here
from the papers:

  (a) Robbins' Beta(1, 1) mixture (Howard, Ramdas, McAuliffe, Sekhon 2021, conjugate beta-binomial):
      ``confseq``'s ``beta-binomial mixture``.
  (b) Waudby-Smith & Ramdas (2024, JRSS-B 86(1)), hedged capital as published:
      K_t(m) = (1/2) prod (1 + l_i^+(m)(X_i - m)) + (1/2) prod (1 - l_i^-(m)(X_i - m)),
      l_i^+(m) = min(l_i, c/m), l_i^-(m) = min(l_i, c/(1 - m)), c = 3/4, l_i their predictable
      plug-in sqrt(2 log(2/alpha) / (sigma2_{i-1} i log(1 + i))); C_t = {m : K_t(m) < 1/alpha}.
      Evaluated by a grid of 256 means and bisection (30 halvings) at each end of the final set.
  (c) Howard et al. (2021) two-sided normal mixture for 1/2-sub-Gaussian scores, tuned to the
      planned n: |S_t - t m| < sqrt((t/4 + rho) log((t/4 + rho) / (rho alpha^2))), rho minimising
      the boundary at t = n (numerically).

Columns: the untuned default (``hedged beta mixture``), the planned-n hedged likelihood ratio
tuned to planned_n = n (``confseq.PLANNED``), and (a)-(c); ratios of the two ours to the
narrowest of (a)-(c) measured in the same run.

Exact miss rates: P(some t <= 5,000 with p outside the interval), by dynamic programming over the
success count (both constructions are functions of (S_t, t), so the count is a sufficient state),
at every p of a grid of 100 points plus the table's p, alpha = 0.05 and 0.1. The exclusion rule at
m = p is the one-sided definition each end solves (M^+(p) >= 2/alpha for the lower end, M^-(p) for
the upper; the computed ends are never inside these sets), so the rate is that of the computed
intervals or an upper bound on it.

``python bench/bench_confseq.py [--quick] [--no-time] [--no-dp]``. Last line: one JSON object.
"""

from __future__ import annotations

import json
import math
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np
from scipy.optimize import minimize_scalar

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from audit_core.sequential import confidence_sequence, wilson_interval  # noqa: E402
from audit_core.sequential.confseq import (  # noqa: E402
    BETA_BINOMIAL,
    HEDGED_MIXTURE,
    PLANNED,
    PRPL_EB,
    _log_m_plus,
    betting_bets,
    planned_alternative,
)

NS = (10, 20, 30, 50, 100, 1_000, 10_000)
PS = (0.01, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99)
ALPHAS = (0.05, 0.1)
RUNS = {10: 200, 20: 200, 30: 200, 50: 200, 100: 100, 1_000: 30, 10_000: 6}
OURS = ("default (hedged beta mixture)", "planned n = n")
COMPARATORS = ("(a) Robbins Beta(1,1)", "(b) WSR hedged c=3/4", "(c) normal mixture tuned to n")


# ---------------------------------------------------------------- comparators (from the papers)
def wsr_excluded(x: np.ndarray, alpha: float, m: np.ndarray, c: float = 0.75) -> np.ndarray:
    """(b): was each mean in ``m`` outside C_t at some step? (the hedged capital, theta = 1/2)."""
    bet = betting_bets(x, alpha)[:, None]
    m = np.asarray(m, dtype=float)[None, :]
    with np.errstate(divide="ignore"):
        up = np.cumsum(np.log1p(np.minimum(bet, c / m) * (x[:, None] - m)), axis=0)
        down = np.cumsum(np.log1p(-np.minimum(bet, c / (1.0 - m)) * (x[:, None] - m)), axis=0)
    return ((np.logaddexp(up, down) - math.log(2.0)) >= math.log(1.0 / alpha)).any(axis=0)


def wsr_final(x: np.ndarray, alpha: float, grid: int = 256, halvings: int = 30) -> tuple[float, float] | None:
    """(b)'s final running intersection [low, high] (None if empty on the grid: a miss)."""
    m = (np.arange(grid) + 0.5) / grid
    inside = np.flatnonzero(~wsr_excluded(x, alpha, m))
    if inside.size == 0:
        return None
    ends = []
    for start, toward in ((inside[0], -1), (inside[-1], +1)):
        a = m[start]                                   # inside
        b = m[start + toward] if 0 <= start + toward < grid else (1e-12 if toward < 0 else 1 - 1e-12)
        if not wsr_excluded(x, alpha, np.array([b]))[0]:
            ends.append(0.0 if toward < 0 else 1.0)
            continue
        for _ in range(halvings):
            mid = 0.5 * (a + b)
            if wsr_excluded(x, alpha, np.array([mid]))[0]:
                b = mid
            else:
                a = mid
        ends.append(a)
    return ends[0], ends[1]


def normal_mixture_rho(n: int, alpha: float) -> float:
    v = n / 4.0

    def boundary(log_rho):
        rho = math.exp(log_rho)
        return (v + rho) * math.log((v + rho) / (rho * alpha ** 2))
    return math.exp(minimize_scalar(boundary, bounds=(-30.0, 30.0), method="bounded").x)


def normal_mixture_final(x: np.ndarray, alpha: float, planned: int) -> tuple[float, float] | None:
    rho = normal_mixture_rho(planned, alpha)
    s, t = np.cumsum(x), np.arange(1, len(x) + 1)
    u = np.sqrt((t / 4.0 + rho) * np.log((t / 4.0 + rho) / (rho * alpha ** 2)))
    low, high = float(np.clip((s - u) / t, 0, 1).max()), float(np.clip((s + u) / t, 0, 1).min())
    return (low, high) if low <= high else None


def final_widths(x: np.ndarray, alpha: float) -> dict | None:
    """Final width of every construction on one run; None when some intersection emptied."""
    out = {}
    for name, cs in ((OURS[0], confidence_sequence(x, alpha)), (OURS[1], confidence_sequence(x, alpha, planned_n=len(x))),
                     (COMPARATORS[0], confidence_sequence(x, alpha, BETA_BINOMIAL))):
        if cs.empty_from is not None:
            return None
        out[name] = float(cs.width[-1])
    for name, ends in ((COMPARATORS[1], wsr_final(x, alpha)), (COMPARATORS[2], normal_mixture_final(x, alpha, len(x)))):
        if ends is None:
            return None
        out[name] = ends[1] - ends[0]
    return out


def width_table(runs: dict) -> dict:
    table = {}
    for alpha in ALPHAS:
        for n in NS:
            for p in PS:
                total, kept = dict.fromkeys(OURS + COMPARATORS, 0.0), 0
                for run in range(runs[n]):
                    x = (np.random.default_rng([run, n, round(p * 100)]).random(n) < p).astype(float)
                    w = final_widths(x, alpha)
                    if w is None:
                        continue
                    kept += 1
                    for k, v in w.items():
                        total[k] += v
                mean = {k: v / kept for k, v in total.items()}
                best_name = min(COMPARATORS, key=mean.get)
                row = mean | {"narrowest": best_name, "runs": kept, "left_out": runs[n] - kept,
                              "default/narrowest": mean[OURS[0]] / mean[best_name],
                              "planned/narrowest": mean[OURS[1]] / mean[best_name]}
                table[f"{alpha}|{n}|{p}"] = row
                print(f"alpha={alpha} n={n:>5} p={p:<4} ({kept}/{runs[n]}): "
                      + ", ".join(f"{k} {mean[k]:.4f}" for k in OURS + COMPARATORS)
                      + f"; default/narrowest {row['default/narrowest']:.3f}, planned/narrowest "
                        f"{row['planned/narrowest']:.3f} (narrowest {best_name})", flush=True)
    return table


def print_ratio_tables(table: dict) -> None:
    for key, label in (("default/narrowest", "untuned default"), ("planned/narrowest", "planned_n = n")):
        for alpha in ALPHAS:
            print(f"\n{label} / narrowest of (a)-(c), alpha = {alpha}")
            print("| n | " + " | ".join(f"p = {p}" for p in PS) + " |")
            print("|---|" + "---|" * len(PS))
            for n in NS:
                print(f"| {n:,} | " + " | ".join(f"{table[f'{alpha}|{n}|{p}'][key]:.3f}" for p in PS) + " |")
        worst = max(table, key=lambda k: table[k][key])
        print(f"worst {label}: {table[worst][key]:.3f} at alpha|n|p = {worst}")


# ---------------------------------------------------------------- exact miss rates
def _dp_miss(p: float, horizon: int, excluded) -> float:
    """P(exists t <= horizon: p excluded) for Bernoulli(p) scores: ``alive[s]`` is the probability
    of S_t = s with no exclusion so far; ``excluded(t)`` the 0/1 mask over s = 0..t at step t."""
    alive = np.zeros(horizon + 1)
    alive[0] = 1.0
    missed = 0.0
    for t in range(1, horizon + 1):
        alive[1:t + 1] = alive[1:t + 1] * (1 - p) + alive[0:t] * p
        alive[0] *= 1 - p
        out = excluded(t)
        missed += alive[:t + 1][out].sum()
        alive[:t + 1][out] = 0.0
    return missed


def _masks(lower_out, upper_out):
    """Masks from exclusion counts: S >= lower_out[t-1] or S <= upper_out[t-1]."""
    def excluded(t):
        s = np.arange(t + 1)
        return (s >= lower_out[t - 1]) | (s <= upper_out[t - 1])
    return excluded


def planned_thresholds(p: float, horizon: int, planned: int, alpha: float):
    """Exclusion counts of the planned-n construction at m = p: log L^+_t(p) = S a + t b (linear
    in S) >= log(2/alpha) for S >= the lower-out count, and the mirror image for the upper side."""
    level = math.log(2.0 / alpha)
    t = np.arange(1, horizon + 1, dtype=float)
    out = []
    for q in (p, 1.0 - p):                         # q: the mean seen from the side's own successes
        theta = float(planned_alternative(np.array([q]), planned, alpha)[0])
        b = math.log1p(-theta) - math.log1p(-q) if theta < 1 else -math.inf
        a = math.log(theta / q)
        with np.errstate(invalid="ignore"):
            # successes-of-this-side z: z a + (t - z) b >= level  <=>  z >= (level - t b) / (a - b)
            z = np.ceil((level - t * b) / (a - b) - 1e-9) if math.isfinite(b) else np.where(
                t * a >= level, t, np.inf)
        out.append(z)
    lower_out = np.minimum(out[0], t + 1).astype(int)       # S >= this: lower end above p
    upper_out = (t - np.minimum(out[1], t + 1)).astype(int)  # S <= this: upper end below p
    return lower_out, upper_out


def default_excluded(p: float, horizon: int, alpha: float):
    """Exclusion masks of the untuned default at m = p, from its one-sided definitions (M^+(p) >=
    2/alpha below S/t, M^-(p) above it; scipy's incomplete beta), precomputed for t <= horizon."""
    level = math.log(2.0 / alpha)
    k_up, k_down = min(3, max(1, math.ceil(3 * (1 - p) - 1e-12))), min(3, max(1, math.ceil(3 * p - 1e-12)))
    masks = []
    for t in range(1, horizon + 1):
        s = np.arange(t + 1, dtype=float)
        up = (_log_m_plus(np.full(t + 1, p), s, t - s, k_up)[0] >= level) & (s / t > p)
        down = (_log_m_plus(np.full(t + 1, 1 - p), t - s, s, k_down)[0] >= level) & (s / t < p)
        masks.append(up | down)
    return lambda t: masks[t - 1]


def exact_miss_rates(horizon: int, plans, default_ps) -> dict:
    grid = sorted(set(np.round(np.linspace(0.005, 0.995, 100), 4)) | set(PS))
    result = {}
    for alpha in ALPHAS:
        for planned in plans:
            rates = {p: _dp_miss(p, horizon, _masks(*planned_thresholds(p, horizon, planned, alpha))) for p in grid}
            worst = max(rates, key=rates.get)
            result[f"planned_n={planned}|alpha={alpha}"] = {"worst": rates[worst], "at_p": worst}
            print(f"exact miss rate, planned n = {planned}, alpha = {alpha}, t <= {horizon:,}: "
                  f"max {rates[worst]:.4f} at p = {worst} (over {len(grid)} p)", flush=True)
        rates = {p: _dp_miss(p, horizon, default_excluded(p, horizon, alpha)) for p in default_ps}
        worst = max(rates, key=rates.get)
        result[f"default|alpha={alpha}"] = {"worst": rates[worst], "at_p": worst, "ps": list(default_ps)}
        print(f"exact miss rate, untuned default, alpha = {alpha}, t <= {horizon:,}: max {rates[worst]:.4f} "
              f"at p = {worst} (p in {default_ps})", flush=True)
    return result


# ---------------------------------------------------------------- time
def median_time(function, repeats: int = 5) -> float:
    times = []
    for _ in range(repeats):
        start = time.process_time()
        function()
        times.append(time.process_time() - start)
    return statistics.median(times)


def timing() -> dict:
    rng = np.random.default_rng(0)
    x = (rng.random(1_000_000) < 0.7).astype(float)
    times = {name: median_time(lambda m=method: confidence_sequence(x, 0.05, m))
             for name, method in (("auto", "auto"), (BETA_BINOMIAL, BETA_BINOMIAL), (PRPL_EB, PRPL_EB))}
    times["wilson"] = median_time(lambda: wilson_interval(np.cumsum(x), np.arange(1, len(x) + 1)))
    y = x[:10_000]
    times["planned_n=10^4, 10^4 scores"] = median_time(lambda: confidence_sequence(y, 0.05, planned_n=10_000), 3)
    print(f"CPU seconds: 10^6 0/1 scores {HEDGED_MIXTURE} (auto) {times['auto']:.3f}, {BETA_BINOMIAL} "
          f"{times[BETA_BINOMIAL]:.3f}, {PRPL_EB} {times[PRPL_EB]:.3f}, Wilson {times['wilson']:.3f}; "
          f"{PLANNED} on 10^4 scores {times['planned_n=10^4, 10^4 scores']:.3f}", flush=True)
    return times


def main() -> None:
    quick = "--quick" in sys.argv
    print(f"load average: {os.getloadavg()}")
    out = {"load_average": os.getloadavg()}
    if "--no-time" not in sys.argv:
        out["seconds"] = timing()
    runs = {n: max(4, r // 10) for n, r in RUNS.items()} if quick else RUNS
    table = width_table(runs)
    print_ratio_tables(table)
    out["width"] = table
    if "--no-dp" not in sys.argv:
        out["exact_miss"] = exact_miss_rates(500 if quick else 5_000, (10, 20, 50, 100, 1_000, 5_000),
                                             (0.01, 0.5) if quick else (0.01, 0.1, 0.5, 0.9))
    out["load_average_end"] = os.getloadavg()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
