"""Wilson score interval for a proportion: the one interval function of the workbench.

For k successes in n trials and z the normal quantile of (1 + confidence)/2:
    centre = (p + z^2/(2n)) / (1 + z^2/n),  half = z/(1 + z^2/n) * sqrt(p(1-p)/n + z^2/(4n^2)).
Fractional ``successes`` (sums of scores in [0, 1]) are accepted; n = 0 gives (0, 1). Arguments
are numbers (strings refused, as everywhere in :mod:`audit_core.sequential`).
"""

from __future__ import annotations

from statistics import NormalDist

import numpy as np

from audit_core.errors import InputError
from audit_core.sequential.checks import as_numbers, check_real


def wilson_interval(successes, n, confidence: float = 0.95):
    """(low, high) Wilson interval; scalars in, floats out; arrays in, arrays out (broadcast)."""
    confidence = check_real(confidence, "confidence")
    if not 0.0 < confidence < 1.0:
        raise InputError(f"confidence: must lie strictly between 0 and 1, got {confidence}")
    k = as_numbers(successes, "successes")
    total = as_numbers(n, "n")
    try:
        np.broadcast_shapes(k.shape, total.shape)
    except ValueError:
        raise InputError(f"wilson_interval: successes of shape {k.shape} and n of shape {total.shape} do not broadcast") from None
    if np.any(~np.isfinite(k)) or np.any(~np.isfinite(total)) or np.any(total < 0) or np.any(k < 0) or np.any(k > total):
        raise InputError("wilson_interval: need 0 <= successes <= n (finite numbers)")
    # The standard library's quantile (Wichura's AS241, within 1e-15 of scipy's): no scipy.stats import.
    z = NormalDist().inv_cdf(0.5 + confidence / 2.0)
    safe_n = np.where(total > 0, total, 1.0)
    p = np.where(total > 0, k / safe_n, 0.5)
    z2n = z * z / safe_n
    centre = (p + z2n / 2.0) / (1.0 + z2n)
    half = z / (1.0 + z2n) * np.sqrt(p * (1.0 - p) / safe_n + z2n / (4.0 * safe_n))
    # At k = 0 or k = n the bound is exactly 0 or 1; the formula lands an ulp away.
    low = np.where((total > 0) & (k > 0), np.clip(centre - half, 0.0, 1.0), 0.0)
    high = np.where((total > 0) & (k < total), np.clip(centre + half, 0.0, 1.0), 1.0)
    if low.ndim == 0:
        return float(low), float(high)
    return low, high
