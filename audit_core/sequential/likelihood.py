"""The one place that turns a direction and an alternative into a log likelihood ratio.

p(Y; g) = g^Y (1-g)^(1-Y) for a score Y in [0, 1] (paper 001 section 3.2), so

    log p(Y; g) / p(Y; q) = Y * log(g/q) + (1 - Y) * log((1-g)/(1-q)).

The alternative g is clipped to its side of q first: ``"below"`` (the model's null, mean >= q, is
tested against g in [CLIP, q]) or ``"above"`` (the auditor's null, mean < q, against g in
[q, 1-CLIP]). Clipping to q itself gives the factor 1 (no bet), the limit of the open interval.
Every function here requires CLIP < q < 1 - CLIP (InputError otherwise): for q outside that range
one interval would be empty and the clipped bet would cross q, which is not an e-value.

Why this is an e-value also for fractional scores: the factor is convex in Y, so for a score with
mean mu its expectation is at most (1-mu)(1-g)/(1-q) + mu*g/q, which is <= 1 whenever mu >= q and
g <= q (or mu <= q and g >= q): the Bernoulli case is the worst case.
"""

from __future__ import annotations

import math

import numpy as np

from audit_core.errors import InputError
from audit_core.sequential.checks import (
    CLIP,
    SIDES,
    as_numbers,
    check_q,
    check_score,
    check_scores,
    check_side,
    clip_bounds,
    is_number,
)

__all__ = ["CLIP", "SIDES", "check_score", "check_scores", "clip_alternative", "clipped_coefficients",
           "log_lr_coefficients", "log_likelihood_ratio"]


def clip_alternative(alternative, q: float, side: str):
    """Clip an alternative probability (a number or an array of numbers) to its side of q.

    ``q`` must lie in (CLIP, 1 - CLIP), so the interval is never empty and a clipped value never
    crosses q. NaN is refused (the vectorised processes replace NaN by the forecast first).
    """
    low, high = clip_bounds(check_q(q), check_side(side))
    if is_number(alternative):
        value = float(alternative)
        if math.isnan(value):
            raise InputError("alternative: NaN is not a probability")
        return min(max(value, low), high)
    values = as_numbers(alternative, "alternative")
    if np.isnan(values).any():
        raise InputError("alternative: NaN is not a probability")
    return np.clip(values, low, high)


def log_lr_coefficients(alternative, q: float, side: str):
    """(log(g/q), log((1-g)/(1-q))) for the clipped alternative g; log LR = Y*a + (1-Y)*c."""
    g = clip_alternative(alternative, q, side)
    if isinstance(g, float):
        return clipped_coefficients(g, q)
    return np.log(g / q), np.log((1.0 - g) / (1.0 - q))


def clipped_coefficients(g: float, q: float) -> tuple[float, float]:
    """:func:`log_lr_coefficients` for a float g already clipped to its side of a checked q.

    The streaming processes' per-step path: their arguments were checked once, at construction
    and in ``update``, so nothing is checked again here.
    """
    return math.log(g / q), math.log((1.0 - g) / (1.0 - q))


def log_likelihood_ratio(y, alternative, q: float, side: str):
    """log p(y; g)/p(y; q) with g = ``alternative`` clipped to ``side`` of q.

    ``y``: a score or an array of scores, each a number in [0, 1] (NaN and out-of-range values
    raise InputError); ``alternative``: a number or an array broadcastable against ``y``. A
    scalar ``y`` with a scalar alternative gives a float.
    """
    score = check_score(y) if is_number(y) else check_scores(y)
    if not is_number(alternative) and not is_number(y):
        g = clip_alternative(alternative, q, side)
        if g.shape == score.shape:
            return _blocked_log_lr(score, g, q)
    a, c = log_lr_coefficients(alternative, q, side)
    try:
        return score * a + (1.0 - score) * c
    except ValueError:
        raise InputError(f"alternative: shape {np.shape(a)} does not broadcast against the scores' "
                         f"shape {np.shape(score)}") from None


# Elements per block of _blocked_log_lr: its temporaries stay in cache (whole-length temporaries
# cost a page fault per 4 KB, most of the time for 10^6 scores on a busy machine).
_BLOCK = 8192


def _blocked_log_lr(score: np.ndarray, g: np.ndarray, q: float) -> np.ndarray:
    """score * log(g/q) + (1 - score) * log((1-g)/(1-q)) element by element, block by block
    (the same operations as the whole-array expression, so the same values)."""
    out = np.empty(score.shape)
    flat_y, flat_g, flat_out = score.reshape(-1), g.reshape(-1), out.reshape(-1)
    for start in range(0, flat_out.size, _BLOCK):
        ys, gs = flat_y[start:start + _BLOCK], flat_g[start:start + _BLOCK]
        flat_out[start:start + _BLOCK] = ys * np.log(gs / q) + (1.0 - ys) * np.log((1.0 - gs) / (1.0 - q))
    return out
