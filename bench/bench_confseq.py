"""Confidence sequence: time over 10^6 scores and width against Wilson's fixed-n interval.

- Time: ``confidence_sequence`` over 10^6 Bernoulli(0.7) scores (median of 5). Baseline in the same
  run: ``wilson_interval`` at every prefix of the same scores (10^6 fixed-n intervals, also
  vectorised), so the ratio says what the anytime guarantee costs in time. Target: < 1 s.
- Width at n = 100, 1,000, 10,000 (mean over 200 seeded runs, alpha = 0.05): the anytime-valid
  width, Wilson's 95% width and their ratio, the price of validity at every stopping time.
Last line: one JSON object.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from audit_core.sequential import confidence_sequence, wilson_interval


def median_time(function, repeats: int = 5) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    rng = np.random.default_rng(0)
    x = (rng.random(1_000_000) < 0.7).astype(float)
    steps = np.arange(1, len(x) + 1)
    cs_time = median_time(lambda: confidence_sequence(x, 0.05))
    wilson_time = median_time(lambda: wilson_interval(np.cumsum(x), steps))
    print(f"10^6 scores: confidence sequence {cs_time:.3f} s, Wilson at every prefix {wilson_time:.3f} s "
          f"(ratio {cs_time / wilson_time:.2f}); target < 1 s: {'met' if cs_time < 1 else 'NOT met'}")
    widths = {}
    for n in (100, 1_000, 10_000):
        cs_w, wilson_w = [], []
        for run in range(200):
            y = (np.random.default_rng(run).random(n) < 0.7).astype(float)
            cs = confidence_sequence(y, 0.05)
            low, high = wilson_interval(y.sum(), n)
            cs_w.append(cs.width[-1])
            wilson_w.append(high - low)
        widths[n] = (float(np.mean(cs_w)), float(np.mean(wilson_w)))
        print(f"n={n:>6}: anytime-valid width {widths[n][0]:.4f}, Wilson {widths[n][1]:.4f}, "
              f"ratio {widths[n][0] / widths[n][1]:.2f}")
    print(json.dumps({"cs_seconds_1e6": cs_time, "wilson_seconds_1e6": wilson_time,
                      "ratio_time": cs_time / wilson_time,
                      "width": {str(n): {"cs": c, "wilson": w, "ratio": c / w} for n, (c, w) in widths.items()}}))


if __name__ == "__main__":
    main()
