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
from audit_core.sequential.likelihood import clip_alternative, log_lr_coefficients


class EWAForecaster:
    """Streaming EWAF: ``predict()`` before a score arrives, ``observe(y)`` after it.

    ``grid``: points on ``side`` of q inside the clip interval (``[CLIP, q)`` below, ``(q, 1-CLIP]``
    above); ``q`` in (CLIP, 1 - CLIP); ``eta`` > 0. Bad arguments and scores raise InputError.
    """

    __slots__ = ("grid", "q", "side", "eta", "_bounds", "_coefficients", "_log_weights", "_prediction")

    def __init__(self, grid, q: float, side: str, eta: float) -> None:
        self.q, self.side, self.eta = check_q(q), check_side(side), check_eta(eta)
        self.grid = check_grid(grid, self.q, side)
        self._bounds = clip_bounds(self.q, side)
        self._coefficients = [log_lr_coefficients(g, self.q, side) for g in self.grid]
        self._log_weights = [0.0] * len(self.grid)
        self._prediction = self._weighted_mean()

    def _weighted_mean(self) -> float:
        top = max(self._log_weights)
        weights = [math.exp(lw - top) for lw in self._log_weights]
        mean = sum(w * g for w, g in zip(weights, self.grid, strict=True)) / sum(weights)
        low, high = self._bounds
        return min(max(mean, low), high)

    def predict(self) -> float:
        """gamma_{k-1}: the alternative for the next score."""
        return self._prediction

    def observe(self, y: float) -> None:
        """Multiply each grid weight by its likelihood ratio on y (a number in [0, 1]), raised to eta."""
        self.observe_checked(check_score(y))

    def observe_checked(self, y: float) -> None:
        """:meth:`observe` for a score already checked by the caller (the streaming processes)."""
        eta = self.eta
        self._log_weights = [lw + eta * (y * a + (1.0 - y) * c)
                             for lw, (a, c) in zip(self._log_weights, self._coefficients, strict=True)]
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
    seen = np.arange(y.shape[-1], dtype=float)
    failures = seen - successes
    coefficients = [log_lr_coefficients(g, q, side) for g in grid]
    log_w = [eta * (successes * a + failures * c) for a, c in coefficients]
    top = log_w[0].copy()
    for lw in log_w[1:]:
        np.maximum(top, lw, out=top)
    numerator = np.zeros_like(y)
    denominator = np.zeros_like(y)
    for g, lw in zip(grid, log_w, strict=True):
        w = np.exp(lw - top)
        numerator += w * g
        denominator += w
    return clip_alternative(numerator / denominator, q, side)
