"""Comparing runs: the paired sequence's width against the alternatives, the tie groups' error for
K = 30, and the time of 50 runs x 10,000 matched cases, all pairs and tie groups.

- Width (final width at n = 20 ... 10,000, median over seeded runs, alpha = 0.05) of the paired
  confidence sequences used, on x = (d + 1)/2 (:func:`difference_sequence`): two runs' hedged
  betting CS and many runs' PrPl-EB (the empirical-Bernstein CS), each against the narrower of
  the two (the goal: <= 1.05x), and against the fixed-n interval (Newcombe for 0/1 scores, paired
  t for graded): the price of validity. Paired 0/1 scores: P(A right) 0.7, B = A + 0.05,
  correlated (70% shared uniform); graded: y_A ~ U(0.1, 0.85), y_B = y_A + 0.05 + U(-0.1, 0.1).
- Tie groups and ranks for K = 30 runs (15 pairs of equal runs, steps of the margin), 200 seeded
  runs of n = 300: the rate of any false claim (alpha = 0.05) with its Wilson interval.
- Time: :func:`compare_many` over 50 runs x 10,000 matched 0/1 cases (1,225 pairs, e-Bonferroni,
  tie groups, ranks), best of 3, against the same pairs one at a time through
  :func:`difference_sequence` (the two-run path) in the same run. Goal: < 1 s.
Prints the load average (shared machine). Last line: one JSON object.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from audit_core.sequential import wilson_interval  # noqa: E402
from audit_core.sequential.compare import (  # noqa: E402
    compare_many,
    difference_sequence,
    newcombe_paired_interval,
    paired_t_interval,
    pairwise_bounds,
    rank_intervals,
    tie_groups,
)
from audit_core.sequential.confseq import BETTING, PRPL_EB  # noqa: E402

ALPHA = 0.05
SIZES = (20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000)
RUNS = {n: (40 if n <= 1_000 else 12) for n in SIZES}


def paired(kind: str, rng, n: int) -> tuple[np.ndarray, np.ndarray]:
    if kind == "0/1":
        u = rng.random(n)
        v = np.where(rng.random(n) < 0.7, u, rng.random(n))
        return (u < 0.7).astype(float), (v < 0.75).astype(float)
    y_a = rng.uniform(0.1, 0.85, n)
    return y_a, y_a + 0.05 + rng.uniform(-0.1, 0.1, n)


def widths(kind: str) -> list[dict]:
    rows = []
    for n in SIZES:
        rng = np.random.default_rng(n)
        bet, eb, fixed = [], [], []
        for _ in range(RUNS[n]):
            y_a, y_b = paired(kind, rng, n)
            low, high = difference_sequence(y_a, y_b, ALPHA, BETTING).final
            bet.append(high - low)
            low, high = difference_sequence(y_a, y_b, ALPHA, PRPL_EB).final
            eb.append(high - low)
            f_low, f_high = (newcombe_paired_interval(y_a, y_b, 1 - ALPHA) if kind == "0/1"
                             else paired_t_interval(y_b - y_a, 1 - ALPHA))
            fixed.append(f_high - f_low)
        med = {k: statistics.median(v) for k, v in (("betting", bet), ("eb", eb), ("fixed", fixed))}
        best = min(med["betting"], med["eb"])
        rows.append({"kind": kind, "n": n, **{k: round(v, 4) for k, v in med.items()},
                     "two_runs_vs_best": round(med["betting"] / best, 3), "many_vs_best": round(med["eb"] / best, 3),
                     "two_runs_vs_fixed_n": round(med["betting"] / med["fixed"], 3)})
    return rows


def tie_error(k: int = 30, reps: int = 200, n: int = 300, margin: float = 0.05) -> dict:
    rng = np.random.default_rng(30)
    mu = 0.2 + margin * (np.arange(k) // 2)
    errors = 0
    for _ in range(reps):
        u = rng.random(n)
        scores = (np.where(rng.random((k, n)) < 0.6, u, rng.random((k, n))) < mu[:, None]).astype(float)
        lower, upper = pairwise_bounds(scores, ALPHA / (k * (k - 1) // 2))
        groups = tie_groups(lower, upper, scores.mean(axis=1), margin)
        low, high = rank_intervals(lower, upper)
        group_of = {r: g for g, members in enumerate(groups) for r in members}
        wrong = False
        for i in range(k):
            best, worst = 1 + int(np.sum(mu > mu[i] + 1e-12)), k - int(np.sum(mu < mu[i] - 1e-12))
            wrong |= bool(high[i] < best or low[i] > worst)
            for j in range(k):
                if i != j and group_of[i] != group_of[j]:
                    wrong |= bool(lower[i, j] > margin and not mu[j] - mu[i] > margin)
                    wrong |= bool(upper[i, j] < -margin and not mu[j] - mu[i] < -margin)
        errors += wrong
    w_low, w_high = wilson_interval(np.array([errors]), np.array([reps]), 0.95)
    return {"K": k, "reps": reps, "n": n, "errors": errors, "rate": errors / reps,
            "wilson95": [round(float(w_low[0]), 4), round(float(w_high[0]), 4)]}


def timing() -> dict:
    rng = np.random.default_rng(50)
    scores = (rng.random((50, 10_000)) < rng.uniform(0.5, 0.8, 50)[:, None]).astype(float)
    best = []
    for _ in range(3):
        start = time.perf_counter()
        result = compare_many(scores, alpha=ALPHA, margin=0.02)
        best.append(time.perf_counter() - start)
    start = time.perf_counter()
    for i in range(50):
        for j in range(i + 1, 50):
            difference_sequence(scores[i], scores[j], ALPHA / result.family_size, PRPL_EB).final  # noqa: B018
    one_at_a_time = time.perf_counter() - start
    return {"runs": 50, "cases": 10_000, "pairs": result.family_size, "groups": len(result.groups),
            "seconds": round(min(best), 3), "one_pair_at_a_time_seconds": round(one_at_a_time, 3),
            "speed_up": round(one_at_a_time / min(best), 2)}


def main() -> None:
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    out = {"time": timing()}
    print("time:", out["time"])
    out["widths"] = widths("0/1") + widths("graded")
    print(f"{'kind':<7}{'n':>7}{'betting':>9}{'PrPl-EB':>9}{'fixed n':>9}{'2 runs/best':>12}{'many/best':>10}"
          f"{'2 runs/fixed':>13}")
    for r in out["widths"]:
        print(f"{r['kind']:<7}{r['n']:>7}{r['betting']:>9.4f}{r['eb']:>9.4f}{r['fixed']:>9.4f}"
              f"{r['two_runs_vs_best']:>12.3f}{r['many_vs_best']:>10.3f}{r['two_runs_vs_fixed_n']:>13.3f}")
    out["ties_k30"] = tie_error()
    print("tie groups, K = 30:", out["ties_k30"])
    print(json.dumps(out))


if __name__ == "__main__":
    main()
