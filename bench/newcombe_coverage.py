"""Exact coverage of Newcombe's paired interval (method 10) by enumeration, no Monte Carlo.

For n pairs the 2x2 table (a = both right, b = A only, c = B only, d = both wrong) is multinomial
with cell probabilities (p11, p10, p01, p00). Every table with a + b + c + d = n is enumerated
(C(n + 3, 3) tables: 176,851 at n = 100), its 95% interval computed by the library's own
``newcombe_interval_from_counts`` (the formula of ``newcombe_paired_interval``, for many tables),
and the coverage of theta = p_B - p_A = p01 - p10 summed exactly over the multinomial pmf, on a
grid of cell probabilities: discordant cells p10, p01 in {0, .01, .02, .05, .1, .15, .2, .3}
(lopsided disagreement = one small, one large) and concordant p11 from .05 to .95 by .1 (p00 the
rest, >= 0). Prints, per n, the minimum and maximum coverage over the grid and where the minimum
is attained. Last line: one JSON object. Used by docs/e-processes.md and tests/sequential/test_compare.py.
"""

from __future__ import annotations

import itertools
import json
import sys
from pathlib import Path

import numpy as np
from scipy.special import gammaln

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from audit_core.sequential.compare import newcombe_interval_from_counts

DISCORDANT = (0.0, 0.01, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3)
CONCORDANT = tuple(round(0.05 + 0.1 * k, 2) for k in range(10))


def tables(n: int) -> np.ndarray:
    """Every (a, b, c, d) with a + b + c + d = n, one row each."""
    rows = [(a, b, c, n - a - b - c) for a in range(n + 1) for b in range(n + 1 - a) for c in range(n + 1 - a - b)]
    return np.array(rows, dtype=float)


def grid() -> np.ndarray:
    points = [(p11, p10, p01, 1.0 - p11 - p10 - p01) for p10, p01 in itertools.product(DISCORDANT, DISCORDANT)
              for p11 in CONCORDANT if p11 + p10 + p01 <= 1.0 + 1e-12]
    return np.clip(np.array(points), 0.0, 1.0)


def exact_coverage(n: int, probabilities: np.ndarray) -> np.ndarray:
    """Coverage of theta = p01 - p10 at each row (p11, p10, p01, p00) of ``probabilities``."""
    cells = tables(n)
    low, high = newcombe_interval_from_counts(*cells.T)
    log_coefficient = gammaln(n + 1) - gammaln(cells + 1).sum(axis=1)
    coverage = np.empty(len(probabilities))
    with np.errstate(divide="ignore", invalid="ignore"):
        log_p = np.log(probabilities)
    for k, (p, lp) in enumerate(zip(probabilities, log_p, strict=True)):
        # 0 * log 0 = 0: a zero-probability cell contributes nothing when its count is 0
        with np.errstate(invalid="ignore"):
            terms = np.where(cells > 0, cells * lp, 0.0).sum(axis=1)
        pmf = np.exp(log_coefficient + terms)
        theta = p[2] - p[1]
        coverage[k] = pmf[(low <= theta + 1e-12) & (theta - 1e-12 <= high)].sum()
    return coverage


def main(sizes=(30, 40, 60, 100)) -> None:
    points = grid()
    summary = {}
    for n in sizes:
        everything = exact_coverage(n, points)
        summary[n] = {}
        # with both discordant cells possible, and with one of them impossible (p10 or p01 = 0)
        for label, keep in (("both discordant cells > 0", (points[:, 1] > 0) & (points[:, 2] > 0)),
                            ("all settings", np.ones(len(points), dtype=bool))):
            coverage, where = everything[keep], points[keep]
            k = int(np.argmin(coverage))
            summary[n][label] = {"settings": int(keep.sum()), "min": float(coverage.min()), "max": float(coverage.max()),
                                 "median": float(np.median(coverage)),
                                 "argmin_p11_p10_p01_p00": [round(float(v), 3) for v in where[k]]}
            print(f"n={n:>3}, {label}: exact coverage over {keep.sum()} settings: min {coverage.min():.4f} at "
                  f"(p11, p10, p01, p00) = {tuple(round(float(v), 3) for v in where[k])}, "
                  f"median {np.median(coverage):.4f}, max {coverage.max():.4f}")
    print(json.dumps(summary))


if __name__ == "__main__":
    main(tuple(int(a) for a in sys.argv[1:]) or (30, 40, 60, 100))
