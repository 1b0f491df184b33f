"""Changepoint weights w_j of the Shiryaev-Roberts processes, E_t = sum_{j<=t} w_j E_{j:t}.

The SR processes are e-processes when sum_j w_j <= 1 (paper 001 section 3.2.1). Two schemes:
``uniform`` puts 1/m on each of the first m changepoints (w_j = 0 for j > m: a failure mode the
auditor finds within its budget m is what the audit is powered for), ``harmonic`` puts
1/(j(j+1)) on every j (sum 1 - 1/(t+1) < 1, no horizon).
"""

from __future__ import annotations

import math

import numpy as np

from audit_core.errors import InputError

# Summing m copies of 1/m can exceed 1 by a few ulps; anything beyond this is a real violation.
_SUM_TOLERANCE = 1e-12


def changepoint_log_weight(j: int, scheme: str, m: int) -> float:
    """log w_j for the 1-based changepoint j (-inf where w_j = 0)."""
    if scheme == "uniform":
        return -math.log(m) if j <= m else -math.inf
    if scheme == "harmonic":
        return -math.log(j) - math.log(j + 1)
    raise InputError(f"weights: expected uniform or harmonic, got {scheme!r}")


def changepoint_log_weights(n: int, scheme: str, m: int) -> np.ndarray:
    """log w_1..log w_n, with the contract sum w_j <= 1 checked."""
    j = np.arange(1, n + 1, dtype=float)
    if scheme == "uniform":
        log_w = np.where(j <= m, -math.log(m), -np.inf)
    elif scheme == "harmonic":
        log_w = -np.log(j) - np.log1p(j)
    else:
        raise InputError(f"weights: expected uniform or harmonic, got {scheme!r}")
    check_weight_sum(log_w)
    return log_w


def check_weight_sum(log_w: np.ndarray) -> None:
    """Raise if the changepoint weights sum to more than 1 (the SR process would not be valid)."""
    if len(log_w) == 0:
        return
    total = float(np.logaddexp.reduce(log_w))
    if total > _SUM_TOLERANCE:
        raise InputError(f"changepoint weights sum to {math.exp(total):.6g} > 1; the SR e-process needs sum w_j <= 1")
