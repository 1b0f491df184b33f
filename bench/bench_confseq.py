"""Confidence sequences: widths of every construction side by side, and time over 10^6 scores.

- Time: ``confidence_sequence`` over 10^6 Bernoulli(0.7) scores (median of 5), with its automatic
  choice (the hedged beta mixture), the beta-binomial mixture (the 0/1 default before) and PrPl-EB
  as baselines in the same run; plus Wilson's interval at every prefix (vectorised). Target: < 0.2 s.
- Width at n = 100, 1,000, 10,000 (mean final width over seeded runs, alpha = 0.05; runs where
  some construction's running intersection emptied, a miss, are left out of every column and
  counted) for each construction in ``confseq.METHODS`` and Wilson's fixed-n interval, on
  Bernoulli scores of accuracy 0.01 to 0.995 and graded Beta(2, 5) scores; ratio of each to the
  narrowest anytime-valid one, and the largest ratio of the automatic choice over the 0/1 rows.
Times are CPU seconds of the process (wall printed too); prints the load average (shared machine). Last line: one JSON object.
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

from audit_core.sequential import confidence_sequence, wilson_interval
from audit_core.sequential.confseq import BETA_BINOMIAL, HEDGED_MIXTURE, METHODS, PRPL_EB

RUNS = {100: 100, 1_000: 100, 10_000: 12}
ACCURACIES = (0.01, 0.05, 0.2, 0.5, 0.7, 0.9, 0.95, 0.99, 0.995)


def bernoulli(p: float):
    return lambda rng, n: (rng.random(n) < p).astype(float)


CASES = {f"bernoulli({p})": bernoulli(p) for p in ACCURACIES}
CASES["graded beta(2,5)"] = lambda rng, n: rng.beta(2.0, 5.0, n)


def median_time(function, repeats: int = 5) -> float:
    """Median CPU seconds of this process (on a shared, loaded machine the wall time mostly
    measures the wait for a core; the wall time is printed next to it)."""
    times, walls = [], []
    for _ in range(repeats):
        start, wall = time.process_time(), time.perf_counter()
        function()
        times.append(time.process_time() - start)
        walls.append(time.perf_counter() - wall)
    print(f"  (wall {statistics.median(walls):.3f} s, CPU {statistics.median(times):.3f} s)")
    return statistics.median(times)


def main() -> None:
    print(f"load average: {os.getloadavg()}")
    rng = np.random.default_rng(0)
    x = (rng.random(1_000_000) < 0.7).astype(float)
    steps = np.arange(1, len(x) + 1)
    times = {}
    for _ in range(2):   # interleaved rounds; the faster round of each is kept
        for name, method in (("auto", "auto"), (BETA_BINOMIAL, BETA_BINOMIAL), (PRPL_EB, PRPL_EB)):
            seconds = median_time(lambda method=method: confidence_sequence(x, 0.05, method))
            times[name] = min(times.get(name, seconds), seconds)
    wilson_time = median_time(lambda: wilson_interval(np.cumsum(x), steps))
    auto_time = times["auto"]
    print(f"10^6 0/1 scores (CPU): hedged mixture (auto) {auto_time:.3f} s, beta-binomial mixture "
          f"{times[BETA_BINOMIAL]:.3f} s (ratio {auto_time / times[BETA_BINOMIAL]:.2f}), PrPl-EB {times[PRPL_EB]:.3f} s, "
          f"Wilson at every prefix {wilson_time:.3f} s; target < 0.2 s: {'met' if auto_time < 0.2 else 'NOT met'}")
    widths: dict = {}
    worst = 0.0
    for case, draw in CASES.items():
        for n, runs in RUNS.items():
            row = {m: 0.0 for m in METHODS} | {"Wilson (fixed n)": 0.0}
            kept = 0
            for run in range(runs):
                y = draw(np.random.default_rng([run, n]), n)
                binary = bool(np.all((y == 0) | (y == 1)))
                sequences = {m: confidence_sequence(y, 0.05, m) for m in METHODS if binary or m != HEDGED_MIXTURE}
                if any(cs.empty_from is not None for cs in sequences.values()):
                    continue
                kept += 1
                for m, cs in sequences.items():
                    row[m] += cs.width[-1]
                low, high = wilson_interval(y.sum(), n)
                row["Wilson (fixed n)"] += high - low
            row = {m: (w / kept if m in sequences or m.startswith("Wilson") else float("nan")) for m, w in row.items()}
            best = min(row[m] for m in sequences)
            chosen = confidence_sequence(y, 0.05).method
            if binary:
                worst = max(worst, row[chosen] / best)
            widths.setdefault(case, {})[str(n)] = row | {"chosen": chosen, "chosen/best": row[chosen] / best,
                                                         "runs": kept, "left_out": runs - kept}
            print(f"{case:>17} n={n:>6} ({kept}/{runs} runs): "
                  + ", ".join(f"{m} {w:.4f} ({w / best:.3f}x)" for m, w in row.items() if w == w)
                  + f"; chosen {chosen}: {row[chosen] / best:.3f}x the narrowest")
    print(f"0/1 rows: the automatic choice is at most {worst:.3f}x the narrowest construction (goal <= 1.02)")
    print(json.dumps({"load_average": os.getloadavg(), "seconds_1e6": times | {"wilson": wilson_time},
                      "ratio_time_auto_vs_beta_binomial": auto_time / times[BETA_BINOMIAL],
                      "worst_chosen_over_best_0_1": worst, "width": widths}))


if __name__ == "__main__":
    main()
