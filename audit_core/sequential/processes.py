"""The six e-processes of paper 001 section 3.2, streaming and vectorised, in log space.

Model's null (every subgroup of mass >= eps has mean >= q), alternative below q:

* ``LR``        E_t = prod_{k<=t} p(Y_k; q-delta) / p(Y_k; q)
* ``LR-UI``     E_t = prod_{k<=t} p(Y_k; gamma_{k-1}) / p(Y_k; q), gamma from the EWAF below q
* ``SR-LR``     E_t = sum_{j<=t} w_j prod_{k=j..t} L_k, i.e. log E_t = log L_t + logaddexp(log E_{t-1}, log w_t)
* ``SR-LR-UI``  the same with the UI factors.

Auditor's null (its chosen subgroups have mean < q from step m on), alternative above q:

* ``AUD-LR``    E_t = 1 for t < m, prod_{k=m..t} p(Y_k; q+delta') / p(Y_k; q) from m on
* ``AUD-LR-UI`` the same with gamma_{k-1} from the EWAF above q (which learns from every past score).

Both interfaces build on :mod:`.likelihood` (direction -> log LR) and :mod:`.forecaster`. The
streaming ``update(y, alternative)`` accepts an optional alternative for that step, used by the
UI processes instead of the forecast (clipped to their side of q; a predictable value chosen by
the auditor keeps validity); the fixed-alternative processes ignore it by definition.

Predictability: an alternative used at step k (streamed or in a vectorised ``alternatives``
array) must be chosen before Y_k is seen, from Y_1..Y_{k-1} and outside information only. An
alternative computed from Y_k itself voids the e-process guarantee (tests/sequential/
test_validity.py shows the bound broken by such a "peeking" alternative).

Inputs are numbers only (bools, ints, floats, numpy numbers); strings, numeric ones included,
raise InputError everywhere, as do scalars where a sequence of scores is expected.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from operator import add as _add

import numpy as np

from audit_core.errors import InputError
from audit_core.presets import (  # noqa: F401 (re-exported; the names live with the other presets)
    AUDITOR_PROCESSES,
    DEFAULT_AUDITOR_PROCESS,
    DEFAULT_MODEL_PROCESS,
    MODEL_PROCESSES,
    PROCESS_NAMES,
)
from audit_core.sequential.checks import (
    as_numbers,
    check_alternative,
    check_score,
    check_score_sequence,
    clip_bounds,
)
from audit_core.sequential.forecaster import EWAForecaster, ewaf_forecasts
from audit_core.sequential.likelihood import clipped_coefficients, log_likelihood_ratio, log_lr_coefficients
from audit_core.sequential.params import AuditParams
from audit_core.sequential.weights import changepoint_log_weight, changepoint_log_weights


@dataclass(frozen=True)
class ProcessSpec:
    """What distinguishes the six processes: null side, adaptive alternative, changepoints, start."""

    name: str
    side: str  # "below": model's null; "above": auditor's null
    adaptive: bool  # UI: alternative from the EWAF forecaster
    changepoint: bool  # SR: mixture over changepoints
    starts_at_m: bool  # auditor: E_t = 1 before step m
    description: str


PROCESS_SPECS: dict[str, ProcessSpec] = {
    spec.name: spec
    for spec in (
        ProcessSpec("LR", "below", False, False, False, "model's null, fixed alternative q - delta"),
        ProcessSpec("LR-UI", "below", True, False, False, "model's null, EWAF alternative below q"),
        ProcessSpec("SR-LR", "below", False, True, False, "model's null, fixed alternative, changepoint mixture"),
        ProcessSpec("SR-LR-UI", "below", True, True, False, "model's null, EWAF alternative, changepoint mixture"),
        ProcessSpec("AUD-LR", "above", False, False, True, "auditor's null from step m, fixed alternative q + delta'"),
        ProcessSpec("AUD-LR-UI", "above", True, False, True, "auditor's null from step m, EWAF alternative above q"),
    )
}
# PROCESS_NAMES (audit_core.presets) lists these keys in this order; a test checks they agree.


def process_spec(name: str) -> ProcessSpec:
    try:
        return PROCESS_SPECS[name]
    except (KeyError, TypeError):  # TypeError: an unhashable name such as a list
        raise InputError(f"process: expected one of {', '.join(PROCESS_NAMES)}, got {name!r}") from None


def check_params(params) -> AuditParams:
    """The parameters object itself (InputError for anything else, e.g. a dict)."""
    if not isinstance(params, AuditParams):
        raise InputError(f"params: expected AuditParams, got {type(params).__name__}")
    return params


def _fixed_alternative(spec: ProcessSpec, params: AuditParams) -> float:
    return params.q_mod if spec.side == "below" else params.q_aud


def _grid(spec: ProcessSpec, params: AuditParams) -> tuple:
    return params.grid_mod if spec.side == "below" else params.grid_aud


# ----------------------------------------------------------------------------------------------
# Streaming


def _logaddexp(a: float, b: float) -> float:
    """log(e^a + e^b) for Python floats (numpy's ufunc costs a microsecond per scalar call)."""
    if a == -math.inf:
        return b
    if b == -math.inf:
        return a
    top = a if a > b else b
    return top + math.log1p(math.exp(-abs(a - b)))


class EProcess:
    """One e-process updated a score at a time; O(1) per step (O(grid) for the UI forecast)."""

    __slots__ = ("spec", "params", "t", "log_e", "stop", "last_alternative", "_forecaster", "_start",
                 "_bounds", "_fixed", "_threshold", "_gamma_fixed", "_changepoint", "_uniform", "_m",
                 "_log_w_uniform", "_q")

    def __init__(self, spec: ProcessSpec, params: AuditParams) -> None:
        self.spec, self.params = spec, check_params(params)
        self.t = 0
        # E_0 = 1 for products, E_0 = 0 (an empty changepoint sum) for the SR processes.
        self.log_e = -math.inf if spec.changepoint else 0.0
        self.stop: int | None = None
        self.last_alternative: float | None = None
        self._start = params.m if spec.starts_at_m else 1
        self._forecaster = (EWAForecaster(_grid(spec, params), params.q, spec.side, params.eta)
                            if spec.adaptive else None)
        # Checked once here, so the per-step path computes without re-checking; the per-step
        # constants are attributes (an update is a few microseconds, lookups count).
        self._bounds = clip_bounds(params.q, spec.side)
        self._fixed = log_lr_coefficients(_fixed_alternative(spec, params), params.q, spec.side)
        self._gamma_fixed = _fixed_alternative(spec, params)
        self._threshold = params.log_threshold
        self._changepoint = spec.changepoint
        self._uniform = params.weights == "uniform"
        self._m = params.m
        self._log_w_uniform = changepoint_log_weight(1, "uniform", params.m)
        self._q = params.q

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def crossed(self) -> bool:
        """Has log E reached log(1/alpha) at some step so far (ties count)?"""
        return self.stop is not None

    def next_alternative(self) -> float:
        """The alternative the next step will use (the forecast for UI, else the fixed one)."""
        if self._forecaster is not None:
            return self._forecaster.predict()
        return _fixed_alternative(self.spec, self.params)

    def update(self, y: float, alternative: float | None = None) -> float:
        """Take score y (a number in [0, 1]) and return log E_t.

        ``alternative``: a number chosen before y was seen (predictable), or None / NaN for the
        forecast; the UI processes clip it to their side of q, the others ignore it.
        """
        if type(y) is not float or not 0.0 <= y <= 1.0:
            y = check_score(y)
        if alternative is not None:
            alternative = check_alternative(alternative)
        self.t += 1
        forecaster = self._forecaster
        if forecaster is None:
            gamma = self._gamma_fixed
            a, c = self._fixed
        else:
            gamma = forecaster._prediction
            if alternative is not None:
                low, high = self._bounds
                gamma = min(max(alternative, low), high)
            a, c = clipped_coefficients(gamma, self._q)
            forecaster.observe_checked(y)
        return self._advance(y * a + (1.0 - y) * c, gamma)

    def _advance(self, log_l: float, gamma: float) -> float:
        """Step t's factor log_l (alternative gamma) into log E_t (the step count already moved)."""
        t = self.t
        self.last_alternative = gamma
        if t >= self._start:
            if self._changepoint:
                if self._uniform:
                    log_w = self._log_w_uniform if t <= self._m else -math.inf
                else:
                    log_w = changepoint_log_weight(t, self.params.weights, self._m)
                self.log_e = log_l + _logaddexp(self.log_e, log_w)
            else:
                self.log_e += log_l
            if self.stop is None and self.log_e >= self._threshold:
                self.stop = t
        return self.log_e

    def __repr__(self) -> str:
        return f"EProcess({self.name}, t={self.t}, log_e={self.log_e:.4g}, stop={self.stop})"


def make_process(name: str, params: AuditParams) -> EProcess:
    """A fresh streaming e-process ``name`` (one of PROCESS_NAMES)."""
    return EProcess(process_spec(name), check_params(params))


class EProcessSet:
    """Several streaming e-processes fed the same scores (default all six), one ``update`` for all.

    The same numbers as one :class:`EProcess` per name, with the work they have in common done
    once per step: the score check, one EWAF forecaster per side (LR-UI and SR-LR-UI forecast
    from the same scores, so the same alternative; the members share it) and one log factor per
    (side, adaptive) pair.
    ``processes``: name -> its EProcess (their ``log_e``, ``stop``, ``t`` are kept current).
    """

    __slots__ = ("processes", "_groups", "t")

    def __init__(self, params: AuditParams, names=PROCESS_NAMES) -> None:
        check_params(params)
        if isinstance(names, str):
            names = (names,)
        self.processes = {name: make_process(name, params) for name in names}
        groups: dict[tuple, list] = {}
        for process in self.processes.values():
            groups.setdefault((process.spec.side, process.spec.adaptive), []).append(process)
        for members in groups.values():
            # one forecaster per side, learning once per step: the members share the lead's, so each
            # member's next_alternative() is current (it was stale for all but the lead)
            for process in members[1:]:
                process._forecaster = members[0]._forecaster
        # One row per factor, its constants unpacked once (an update is a few microseconds, and
        # attribute lookups and calls are most of it): the lead's forecaster is the one that learns;
        # each member carries what EProcess._advance reads.
        self._groups = tuple(
            (members[0]._forecaster, members[0]._gamma_fixed, *members[0]._fixed, *members[0]._bounds,
             members[0]._q,
             tuple((p, p._start, p._changepoint, p._uniform, p._m, p._log_w_uniform, p._threshold)
                   for p in members))
            for members in groups.values())
        self.t = 0

    def update(self, y: float, alternative: float | None = None) -> None:
        """Take score y (a number in [0, 1]) for every process; ``alternative`` as for EProcess.

        The same arithmetic, in the same order, as EProcess.update (with EWAForecaster.observe_checked
        and EProcess._advance written out here): the numbers are identical (tests)."""
        if type(y) is not float or not 0.0 <= y <= 1.0:
            y = check_score(y)
        if alternative is not None:
            alternative = check_alternative(alternative)
        self.t += 1
        log, log1p, exp, inf = math.log, math.log1p, math.exp, math.inf
        for forecaster, gamma, a, c, low, high, q, members in self._groups:
            if forecaster is not None:
                gamma = forecaster._prediction
                if alternative is not None:
                    gamma = min(max(alternative, low), high)
                a, c = log(gamma / q), log((1.0 - gamma) / (1.0 - q))      # clipped_coefficients
                # forecaster.observe_checked(y), written out
                if y == 1.0:
                    log_weights = forecaster._log_weights = list(map(_add, forecaster._log_weights, forecaster._steps[1]))
                elif y == 0.0:
                    log_weights = forecaster._log_weights = list(map(_add, forecaster._log_weights, forecaster._steps[0]))
                else:
                    forecaster.observe_checked(y)
                    log_weights = None
                if log_weights is not None:       # EWAForecaster._weighted_mean
                    top = max(log_weights)
                    numerator = denominator = 0.0
                    for lw, g in zip(log_weights, forecaster.grid, strict=True):
                        w = exp(lw - top)
                        numerator += w * g
                        denominator += w
                    mean = numerator / denominator
                    f_low, f_high = forecaster._bounds
                    forecaster._prediction = f_low if mean < f_low else (f_high if mean > f_high else mean)
            log_l = y * a + (1.0 - y) * c
            for process, start, changepoint, uniform, m, log_w_uniform, threshold in members:
                # process._advance(log_l, gamma), written out
                t = process.t = process.t + 1
                process.last_alternative = gamma
                if t >= start:
                    if changepoint:
                        if uniform:
                            log_w = log_w_uniform if t <= m else -inf
                        else:
                            log_w = changepoint_log_weight(t, process.params.weights, m)
                        previous = process.log_e        # _logaddexp(previous, log_w), written out
                        if previous == -inf:
                            total = log_w
                        elif log_w == -inf:
                            total = previous
                        else:
                            top = previous if previous > log_w else log_w
                            total = top + log1p(exp(-abs(previous - log_w)))
                        log_e = process.log_e = log_l + total
                    else:
                        log_e = process.log_e = process.log_e + log_l
                    if process.stop is None and log_e >= threshold:
                        process.stop = t

    def __repr__(self) -> str:
        return f"EProcessSet({', '.join(self.processes)}, t={self.t})"


# ----------------------------------------------------------------------------------------------
# Vectorised (1-D: one stream; 2-D: independent runs along axis 0, steps along the last axis)


def _check_alternatives(alternatives, shape) -> np.ndarray | None:
    if alternatives is None:
        return None
    alt = as_numbers(alternatives, "alternatives")
    if alt.shape != shape:
        raise InputError(f"alternatives: shape {alt.shape} does not match the scores' shape {shape}")
    return alt


def log_factors(name: str, scores, params: AuditParams, alternatives=None) -> np.ndarray:
    """log L_k for every step of process ``name`` (before the start at m and the SR mixture).

    ``scores``: numbers in [0, 1], one stream (1-D) or runs x steps (2-D).
    ``alternatives`` (UI processes only): per-step alternative of the scores' shape, NaN = use the
    forecast. Each value must be predictable: ``alternatives[..., k-1]`` is fixed before the score
    of step k is seen (from earlier scores and outside information only), never from it.
    """
    spec = process_spec(name)
    check_params(params)
    y = check_score_sequence(scores)
    alt = _check_alternatives(alternatives, y.shape)
    if spec.adaptive:
        gamma = ewaf_forecasts(y, _grid(spec, params), params.q, spec.side, params.eta)
        if alt is not None:
            gamma = np.where(np.isnan(alt), gamma, alt)
    else:
        gamma = _fixed_alternative(spec, params)
    return log_likelihood_ratio(y, gamma, params.q, spec.side)


def accumulate(name: str, log_l: np.ndarray, params: AuditParams) -> np.ndarray:
    """log E_t from the log factors: running sum, SR mixture or start at m, along the last axis.

    SR in O(n): with C_t = sum_{k<=t} log L_k, E_t = sum_{j<=t} w_j exp(C_t - C_{j-1}), so
    log E_t = C_t + logcumsumexp_j(log w_j - C_{j-1}) (numpy's logaddexp.accumulate).
    """
    spec = process_spec(name)
    log_l = np.asarray(log_l, dtype=float)
    if spec.starts_at_m:
        # factors before m are 1: the running sum starts at m (0 + x is x, the same sums as
        # zeroing the early factors and summing everything)
        out = np.zeros(log_l.shape)
        out[..., params.m - 1:] = np.cumsum(log_l[..., params.m - 1:], axis=-1)
        return out
    cumulative = np.cumsum(log_l, axis=-1)
    if not spec.changepoint:
        return cumulative
    n = log_l.shape[-1]
    # Uniform weights are 0 (log -inf) after changepoint m, and logaddexp(x, -inf) = x: the
    # accumulation is constant from m on, so it runs over the first m steps only (same values).
    k = min(n, params.m) if params.weights == "uniform" else n
    log_w = changepoint_log_weights(k, params.weights, params.m)
    head = np.logaddexp.accumulate(log_w - (cumulative[..., :k] - log_l[..., :k]), axis=-1)  # C_{j-1}
    cumulative[..., :k] += head
    cumulative[..., k:] += head[..., -1:]
    return cumulative


def process_log_evalues(name: str, scores, params: AuditParams, alternatives=None) -> np.ndarray:
    """log E_1..log E_n of process ``name`` (``alternatives``: predictable, see :func:`log_factors`)."""
    return accumulate(name, log_factors(name, scores, params, alternatives), params)


def lr_log_evalues(scores, params: AuditParams) -> np.ndarray:
    """Model's null, fixed alternative q - delta."""
    return process_log_evalues("LR", scores, params)


def lr_ui_log_evalues(scores, params: AuditParams, alternatives=None) -> np.ndarray:
    """Model's null, EWAF alternative below q (``alternatives``: predictable, see :func:`log_factors`)."""
    return process_log_evalues("LR-UI", scores, params, alternatives)


def sr_lr_log_evalues(scores, params: AuditParams) -> np.ndarray:
    """Model's null, fixed alternative, changepoint mixture."""
    return process_log_evalues("SR-LR", scores, params)


def sr_lr_ui_log_evalues(scores, params: AuditParams, alternatives=None) -> np.ndarray:
    """Model's null, EWAF alternative, changepoint mixture (``alternatives``: predictable, see
    :func:`log_factors`)."""
    return process_log_evalues("SR-LR-UI", scores, params, alternatives)


def aud_lr_log_evalues(scores, params: AuditParams) -> np.ndarray:
    """Auditor's null from step m, fixed alternative q + delta'."""
    return process_log_evalues("AUD-LR", scores, params)


def aud_lr_ui_log_evalues(scores, params: AuditParams, alternatives=None) -> np.ndarray:
    """Auditor's null from step m, EWAF alternative above q (``alternatives``: predictable, see
    :func:`log_factors`)."""
    return process_log_evalues("AUD-LR-UI", scores, params, alternatives)


def log_evalues(scores, params: AuditParams, alternatives=None, names=PROCESS_NAMES) -> dict[str, np.ndarray]:
    """log E_t of several processes (default all six); factors shared between LR and SR-LR.

    ``scores``: numbers in [0, 1] with at least one axis (steps along the last); ``alternatives``:
    predictable per-step alternatives for the UI processes, see :func:`log_factors`; ``names``:
    process names (one name as a string is one process).
    """
    check_params(params)
    y = check_score_sequence(scores)
    if isinstance(names, str):
        names = (names,)
    factors: dict[tuple, np.ndarray] = {}
    out = {}
    for name in names:
        spec = process_spec(name)
        key = (spec.side, spec.adaptive)
        if key not in factors:
            factors[key] = log_factors(name, y, params, alternatives if spec.adaptive else None)
        out[name] = accumulate(name, factors[key], params)
    return out
