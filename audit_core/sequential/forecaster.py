"""Exponentially weighted averaging forecaster (EWAF) of the alternative for the LR-UI processes.

Paper 001 section 3.2.1 and B.3 (Cesa-Bianchi and Lugosi 2006). Over a grid q_1..q_B on one side
of q, start with equal weights and after each score multiply

    u_b <- u_b * (p(Y; q_b) / p(Y; q))^eta,

so log u_b(k) = eta * sum_{i<k} log LR_b(Y_i). The forecast used at step k is the weighted mean
gamma_{k-1} = sum_b u_b(k) q_b / sum_b u_b(k), clipped to its side of q. It uses Y_1..Y_{k-1}
only (strictly predictable), which is what keeps the product of p(Y_k; gamma_{k-1})/p(Y_k; q) an
e-process under any adaptive sampling.
"""

from __future__ import annotations

import math

import numpy as np

from audit_core.sequential.checks import (
    check_eta,
    check_grid,
    check_q,
    check_score,
    check_score_sequence,
    check_side,
    clip_bounds,
)
from audit_core.sequential.likelihood import log_lr_coefficients

# Steps per block of the vectorised forecasts (see ewaf_forecasts).
_BLOCK = 8192


class EWAForecaster:
    """Streaming EWAF: ``predict()`` before a score arrives, ``observe(y)`` after it.

    ``grid``: points on ``side`` of q inside the clip interval (``[CLIP, q)`` below, ``(q, 1-CLIP]``
    above); ``q`` in (CLIP, 1 - CLIP); ``eta`` > 0. Bad arguments and scores raise InputError.
    """

    __slots__ = ("grid", "q", "side", "eta", "_bounds", "_coefficients", "_log_weights", "_prediction", "_steps")

    def __init__(self, grid, q: float, side: str, eta: float) -> None:
        self.q, self.side, self.eta = check_q(q), check_side(side), check_eta(eta)
        self.grid = check_grid(grid, self.q, side)
        self._bounds = clip_bounds(self.q, side)
        self._coefficients = [log_lr_coefficients(g, self.q, side) for g in self.grid]
        # the log-weight steps after a score of 0 and of 1 (the same numbers as the general formula)
        self._steps = ([self.eta * (0.0 * a + 1.0 * c) for a, c in self._coefficients],
                       [self.eta * (1.0 * a + 0.0 * c) for a, c in self._coefficients])
        self._log_weights = [0.0] * len(self.grid)
        self._prediction = self._weighted_mean()

    def _weighted_mean(self) -> float:
        # One loop, running sums in grid order (the order sum() adds them in): a few times faster
        # than building the weight lists, the same numbers.
        log_weights = self._log_weights
        top = max(log_weights)
        exp = math.exp
        numerator = denominator = 0.0
        for lw, g in zip(log_weights, self.grid, strict=True):
            w = exp(lw - top)
            numerator += w * g
            denominator += w
        mean = numerator / denominator
        low, high = self._bounds
        return low if mean < low else (high if mean > high else mean)

    def predict(self) -> float:
        """gamma_{k-1}: the alternative for the next score."""
        return self._prediction

    def observe(self, y: float) -> None:
        """Multiply each grid weight by its likelihood ratio on y (a number in [0, 1]), raised to eta."""
        self.observe_checked(check_score(y))

    def observe_checked(self, y: float) -> None:
        """:meth:`observe` for a score already checked by the caller (the streaming processes)."""
        if y == 1.0:    # eta * (1 a + 0 c) is eta * a exactly (likewise for 0): precomputed
            self._log_weights = [lw + step for lw, step in zip(self._log_weights, self._steps[1], strict=True)]
        elif y == 0.0:
            self._log_weights = [lw + step for lw, step in zip(self._log_weights, self._steps[0], strict=True)]
        else:
            eta = self.eta
            self._log_weights = [lw + eta * (y * a + (1.0 - y) * c)
                                 for lw, (a, c) in zip(self._log_weights, self._coefficients, strict=False)]
        self._prediction = self._weighted_mean()

    @property
    def weights(self) -> np.ndarray:
        """Current normalised grid weights."""
        lw = np.asarray(self._log_weights)
        w = np.exp(lw - lw.max())
        return w / w.sum()


def ewaf_forecasts(scores, grid, q: float, side: str, eta: float) -> np.ndarray:
    """gamma_{k-1} for every step k = 1..n (along the last axis), same shape as ``scores``.

    Vectorised through cumulative sums: with S = sum_{i<k} Y_i, the log weight of grid point b is
    eta * (S * log(q_b/q) + (k-1-S) * log((1-q_b)/(1-q))). O(n * B) time and O(n * B) memory for
    n scores and B grid points: the B log-weight arrays of the scores' shape are held at once.
    ``scores``: numbers in [0, 1] with at least one axis (NaN, out-of-range values, strings and
    scalars raise InputError); the other arguments as for :class:`EWAForecaster`.
    """
    y = check_score_sequence(scores)
    q, side, eta = check_q(q), check_side(side), check_eta(eta)
    grid = check_grid(grid, q, side)
    successes = np.cumsum(y, axis=-1) - y  # exclusive: sum of the scores before step k
    failures = np.arange(y.shape[-1], dtype=float) - successes
    coefficients = [log_lr_coefficients(g, q, side) for g in grid]
    out = np.empty(y.shape)
    flat_s, flat_f, flat_out = successes.reshape(-1), failures.reshape(-1), out.reshape(-1)
    # Block by block: a block's B log-weight arrays stay in cache (whole-length temporaries cost
    # a page fault per 4 KB, most of the time on a busy machine); the result is the same.
    for start in range(0, flat_out.size, _BLOCK):
        s, f = flat_s[start:start + _BLOCK], flat_f[start:start + _BLOCK]
        log_w = [eta * (s * a + f * c) for a, c in coefficients]
        top = log_w[0].copy()
        for lw in log_w[1:]:
            np.maximum(top, lw, out=top)
        numerator = np.zeros(len(s))
        denominator = np.zeros(len(s))
        for g, lw in zip(grid, log_w, strict=False):
            w = np.exp(np.subtract(lw, top, out=lw), out=lw)
            numerator += w * g
            denominator += w
        flat_out[start:start + _BLOCK] = numerator / denominator
    low, high = clip_bounds(q, side)
    return np.clip(out, low, high, out=out)
