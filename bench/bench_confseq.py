"""Confidence sequences: widths of every construction side by side, and time over 10^6 scores.

- Time: ``confidence_sequence`` over 10^6 Bernoulli(0.7) scores (median of 5), with its automatic
  choice (the beta-binomial mixture) and with PrPl-EB, the construction used before, as the
  baseline in the same run; plus Wilson's interval at every prefix (vectorised). Target: < 0.2 s.
- Width at n = 100, 1,000, 10,000 (mean final width over seeded runs, alpha = 0.05) for each
  construction in ``confseq.METHODS`` and Wilson's fixed-n interval, on Bernoulli(0.7),
  Bernoulli(0.95) and graded Beta(2, 5) scores; ratio of each to the narrowest anytime-valid one.
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
from audit_core.sequential.confseq import METHODS, PRPL_EB

RUNS = {100: 100, 1_000: 100, 10_000: 12}
CASES = {"bernoulli(0.7)": lambda rng, n: (rng.random(n) < 0.7).astype(float),
         "bernoulli(0.95)": lambda rng, n: (rng.random(n) < 0.95).astype(float),
         "graded beta(2,5)": lambda rng, n: rng.beta(2.0, 5.0, n)}


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
    auto_time = median_time(lambda: confidence_sequence(x, 0.05))
    prpl_time = median_time(lambda: confidence_sequence(x, 0.05, PRPL_EB))
    wilson_time = median_time(lambda: wilson_interval(np.cumsum(x), steps))
    print(f"10^6 0/1 scores (CPU): mixture {auto_time:.3f} s, PrPl-EB {prpl_time:.3f} s (ratio {auto_time / prpl_time:.2f}), "
          f"Wilson at every prefix {wilson_time:.3f} s; target < 0.2 s: {'met' if auto_time < 0.2 else 'NOT met'}")
    widths: dict = {}
    for case, draw in CASES.items():
        for n, runs in RUNS.items():
            row = {m: 0.0 for m in METHODS} | {"Wilson (fixed n)": 0.0}
            for run in range(runs):
                y = draw(np.random.default_rng([run, n]), n)
                for m in METHODS:
                    row[m] += confidence_sequence(y, 0.05, m).width[-1] / runs
                low, high = wilson_interval(y.sum(), n)
                row["Wilson (fixed n)"] += (high - low) / runs
            best = min(row[m] for m in METHODS)
            chosen = confidence_sequence(draw(np.random.default_rng(0), 2), 0.05).method
            widths.setdefault(case, {})[str(n)] = row | {"chosen": chosen, "chosen/best": row[chosen] / best}
            print(f"{case:>17} n={n:>6}: " + ", ".join(f"{m} {w:.4f} ({w / best:.2f}x)" for m, w in row.items())
                  + f"; chosen {chosen}: {row[chosen] / best:.3f}x the narrowest")
    print(json.dumps({"load_average": os.getloadavg(), "seconds_1e6": {"auto": auto_time, "PrPl-EB": prpl_time,
                      "wilson": wilson_time}, "ratio_time_auto_vs_prpl": auto_time / prpl_time, "width": widths}))


if __name__ == "__main__":
    main()
