"""The one place that turns a direction and an alternative into a log likelihood ratio.

p(Y; g) = g^Y (1-g)^(1-Y) for a score Y in [0, 1] (paper 001 section 3.2), so

    log p(Y; g) / p(Y; q) = Y * log(g/q) + (1 - Y) * log((1-g)/(1-q)).

The alternative g is clipped to its side of q first: ``"below"`` (the model's null, mean >= q, is
tested against g in [CLIP, q]) or ``"above"`` (the auditor's null, mean < q, against g in
[q, 1-CLIP]). Clipping to q itself gives the factor 1 (no bet), the limit of the open interval.

Why this is an e-value also for fractional scores: the factor is convex in Y, so for a score with
mean mu its expectation is at most (1-mu)(1-g)/(1-q) + mu*g/q, which is <= 1 whenever mu >= q and
g <= q (or mu <= q and g >= q): the Bernoulli case is the worst case.
"""

from __future__ import annotations

import math

import numpy as np

from audit_core.errors import InputError

# Below the model's side and above the auditor's side the alternative never reaches 0 or 1, so a
# single score can never send log E to -inf.
CLIP = 1e-6

SIDES = ("below", "above")


def clip_alternative(alternative, q: float, side: str):
    """Clip an alternative probability (scalar or array) to its side of q."""
    if side == "below":
        low, high = CLIP, q
    elif side == "above":
        low, high = q, 1.0 - CLIP
    else:
        raise InputError(f"side: expected one of {', '.join(SIDES)}, got {side!r}")
    if isinstance(alternative, (float, int)):
        return min(max(float(alternative), low), high)
    return np.clip(np.asarray(alternative, dtype=float), low, high)


def log_lr_coefficients(alternative, q: float, side: str):
    """(log(g/q), log((1-g)/(1-q))) for the clipped alternative g; log LR = Y*a + (1-Y)*c."""
    g = clip_alternative(alternative, q, side)
    if isinstance(g, float):
        return math.log(g / q), math.log((1.0 - g) / (1.0 - q))
    return np.log(g / q), np.log((1.0 - g) / (1.0 - q))


def log_likelihood_ratio(y, alternative, q: float, side: str):
    """log p(y; g)/p(y; q) with g = ``alternative`` clipped to ``side`` of q (scalars or arrays)."""
    a, c = log_lr_coefficients(alternative, q, side)
    return y * a + (1.0 - y) * c


def check_scores(scores) -> np.ndarray:
    """Scores as a float array; every value must be a finite number in [0, 1]."""
    y = np.asarray(scores, dtype=float)
    bad = ~((y >= 0.0) & (y <= 1.0))  # also catches NaN
    if bad.any():
        flat = np.flatnonzero(bad.ravel())[0]
        raise InputError(
            f"scores: value {y.ravel()[flat]!r} at position {flat + 1} is outside [0, 1] "
            f"({int(bad.sum())} such value(s)); scores must be numbers in [0, 1]"
        )
    return y


def check_score(y) -> float:
    """One score as a float in [0, 1]."""
    try:
        value = float(y)
    except (TypeError, ValueError):
        raise InputError(f"score: expected a number in [0, 1], got {y!r}") from None
    if not 0.0 <= value <= 1.0:
        raise InputError(f"score: expected a number in [0, 1], got {y!r}")
    return value
