"""Many audits at once: e-BH (false discovery rate) and e-Bonferroni (family-wise error).

Inputs are K e-values e_1..e_K, given as log e-values (the engine's e-processes are all in logs).
An e-process evaluated at a stopping time is an e-value (E[E_tau] <= 1 under its null), so the
value of an audit's e-process at the dual test's stop, or at the end of the run when it never
stopped, can be combined here (:func:`audit_e_value`).

* **e-Bonferroni** rejects H_i when e_i >= K/alpha. By Markov's inequality and the union bound,
  P(any true null rejected) <= sum over nulls of alpha/K * E[e_i] <= alpha K_0/K: FWER <= alpha under
  any dependence between the e-values.
* **e-BH** (Wang & Ramdas 2022, "False discovery rate control with e-values", JRSS-B, section 2):
  with e_[1] >= ... >= e_[K] the sorted e-values, k* = max{k : k e_[k] / K >= 1/alpha} (0 when no k
  qualifies); reject the k* hypotheses with the largest e-values, i.e. every e_i >= K/(alpha k*).
  FDR <= alpha K_0/K <= alpha under arbitrary dependence (their Theorem 2), with no correction.

The computation is in logs (a log e-value of several hundred is common): log e_[k] + log k - log K >=
log(1/alpha). Ties are kept together: the threshold rule rejects every e-value equal to e_[k*].
Both procedures compare with one rule, :func:`_reaches`: log e >= log threshold - 1e-12, i.e. e at
least its threshold up to a relative 1e-12, so an e-value equal to the threshold in exact arithmetic
is rejected (both definitions use >=) even when the logs round it an ulp below.
An infinite e-value (log e = +inf, e.g. a process that saw a score impossible under its null) is
accepted and always rejected by both; -inf (e = 0) never is. ``to_dict`` writes both infinities as
null (``rejected`` tells them apart).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from audit_core.errors import InputError

# Relative tolerance of the threshold comparison, the same for both procedures (module doc).
LOG_TOLERANCE = 1e-12

E_BH = "e-BH"
E_BONFERRONI = "e-Bonferroni"
METHODS = (E_BH, E_BONFERRONI)
GUARANTEES = {E_BH: "FDR <= level under arbitrary dependence (Wang & Ramdas 2022, Thm 2)",
              E_BONFERRONI: "FWER <= level under arbitrary dependence (Markov + union bound)"}


@dataclass(frozen=True, repr=False)
class MultipleTestResult:
    """Result of :func:`e_bh` or :func:`e_bonferroni`.

    ``method``: ``"e-BH"`` or ``"e-Bonferroni"``; ``names``: one per hypothesis, in input order;
    ``log_e``: their log e-values; ``rejected``: whether each is rejected; ``level``: the FDR or
    FWER level; ``log_threshold``: log of the e-value a hypothesis needed (K/level for
    e-Bonferroni, K/(level k*) for e-BH; +inf when e-BH rejects nothing); ``guarantee``: the claim.
    """

    method: str
    names: tuple[str, ...]
    log_e: tuple[float, ...]
    rejected: tuple[bool, ...]
    level: float
    log_threshold: float
    guarantee: str

    @property
    def n_rejected(self) -> int:
        return int(sum(self.rejected))

    @property
    def threshold(self) -> float:
        """The e-value threshold itself (may be +inf)."""
        return math.exp(self.log_threshold) if self.log_threshold < 700 else math.inf

    @property
    def rejected_names(self) -> tuple[str, ...]:
        return tuple(n for n, r in zip(self.names, self.rejected, strict=False) if r)

    def to_dict(self) -> dict:
        finite = lambda v: None if not math.isfinite(v) else float(v)  # noqa: E731
        return {"method": self.method, "level": self.level, "guarantee": self.guarantee,
                "n_hypotheses": len(self.names), "n_rejected": self.n_rejected,
                "log_threshold": finite(self.log_threshold), "threshold": finite(self.threshold),
                "hypotheses": [{"name": n, "log_e": finite(e), "rejected": r}
                               for n, e, r in zip(self.names, self.log_e, self.rejected, strict=False)]}

    def __repr__(self) -> str:
        return (f"MultipleTestResult({self.method}, level={self.level}, "
                f"rejected {self.n_rejected} of {len(self.names)})")


def _check(log_e, level: float, names) -> tuple[np.ndarray, tuple[str, ...]]:
    values = np.asarray(log_e, dtype=float)
    if values.ndim != 1 or values.size == 0:
        raise InputError("e-values: need a non-empty list of log e-values")
    if np.isnan(values).any():
        bad = int(np.flatnonzero(np.isnan(values))[0])
        raise InputError(f"e-values: log e-value {bad + 1} is {values[bad]}; expected a number, -inf or +inf")
    if isinstance(level, bool) or not isinstance(level, (int, float)) or not 0.0 < float(level) < 1.0:
        raise InputError(f"level: must lie strictly between 0 and 1, got {level!r}")
    labels = tuple(str(n) for n in names) if names is not None else tuple(str(i + 1) for i in range(values.size))
    if len(labels) != values.size:
        raise InputError(f"names: {len(labels)} name(s) for {values.size} e-value(s)")
    return values, labels


def _reaches(log_e, log_threshold: float):
    """The one comparison of both procedures: e >= threshold up to a relative LOG_TOLERANCE."""
    return log_e >= log_threshold - LOG_TOLERANCE


def e_bonferroni(log_e: Sequence[float], level: float = 0.05, names: Sequence[str] | None = None) -> MultipleTestResult:
    """Reject H_i when e_i >= K/level (FWER <= level; see the module doc)."""
    values, labels = _check(log_e, level, names)
    log_threshold = math.log(values.size / float(level))
    return MultipleTestResult(E_BONFERRONI, labels, tuple(values.tolist()), tuple(bool(v) for v in _reaches(values, log_threshold)),
                              float(level), log_threshold, GUARANTEES[E_BONFERRONI])


def e_bh(log_e: Sequence[float], level: float = 0.05, names: Sequence[str] | None = None) -> MultipleTestResult:
    """e-BH of Wang & Ramdas (2022): reject the k* largest e-values (FDR <= level; module doc)."""
    values, labels = _check(log_e, level, names)
    k_total = values.size
    ordered = np.sort(values)[::-1]
    ranks = np.arange(1, k_total + 1)
    # log e_[k] >= log(K / (level k)), by the same comparison as e-Bonferroni's
    passing = np.flatnonzero(_reaches(ordered, np.log(k_total / (float(level) * ranks))))
    if passing.size == 0:
        rejected = tuple(False for _ in labels)
        return MultipleTestResult(E_BH, labels, tuple(values.tolist()), rejected, float(level), math.inf,
                                  GUARANTEES[E_BH])
    k_star = int(passing.max()) + 1
    log_threshold = math.log(k_total / (float(level) * k_star))
    rejected = tuple(bool(v) for v in _reaches(values, log_threshold))
    return MultipleTestResult(E_BH, labels, tuple(values.tolist()), rejected, float(level), log_threshold,
                              GUARANTEES[E_BH])


def combine(log_e: Sequence[float], level: float = 0.05, names: Sequence[str] | None = None,
            methods: Sequence[str] = METHODS) -> dict[str, MultipleTestResult]:
    """Every requested method over the same e-values, keyed by method name."""
    unknown = [m for m in methods if m not in METHODS]
    if unknown:
        raise InputError(f"method: expected one of {', '.join(METHODS)}, got {unknown[0]!r}")
    run = {E_BH: e_bh, E_BONFERRONI: e_bonferroni}
    return {m: run[m](log_e, level, names) for m in methods}


SIDES = ("model", "auditor")
TIMES = ("end", "stop")


def audit_e_value(replay_result: Any, side: str = "model", at: str = "end") -> float:
    """Log e-value of one replayed audit for combination.

    ``side``: "model" (its null is "no failure mode"; rejecting it means a failure found) or
    "auditor" (rejecting means the audit passed). ``at``: "end" (default), the process after the
    run's last case, a fixed time; or "stop", at the dual test's stop (the end when it never
    stopped), a stopping time. Both are valid e-values; picking the larger afterwards is not. An
    audit stopped at its crossing carries e only just above 1/alpha, and e-BH over K audits needs
    k e_[k] / K >= 1/alpha, so "end" keeps the evidence gathered after the stop.
    ``replay_result``: a :class:`~audit_core.sequential.Replay` or its ``to_dict()`` (``replay --json``).
    """
    if side not in SIDES:
        raise InputError(f"side: expected one of {', '.join(SIDES)}, got {side!r}")
    if at not in TIMES:
        raise InputError(f"time: expected one of {', '.join(TIMES)}, got {at!r}")
    payload = replay_result.to_dict() if hasattr(replay_result, "to_dict") else replay_result
    if not isinstance(payload, Mapping) or "decision" not in payload or "processes" not in payload:
        raise InputError("replay result: expected the JSON of `replay --json` (keys 'decision' and 'processes')")
    # Every field is checked before use: a hand-edited document is refused with one message.
    decision, processes = payload["decision"], payload["processes"]
    if not isinstance(decision, Mapping) or not isinstance(processes, Mapping):
        raise InputError("replay result: 'decision' and 'processes' must be JSON objects")
    name = decision.get(f"{side}_process")
    process = processes.get(name) if isinstance(name, str) else None
    trajectory = process.get("log_e") if isinstance(process, Mapping) else None
    if not isinstance(trajectory, list) or not trajectory:
        raise InputError(f"replay result: no trajectory for the {side} process"
                         + (f" {name!r}" if isinstance(name, str) else ""))
    stop = (decision.get("stop") or len(trajectory)) if at == "stop" else len(trajectory)
    if not isinstance(stop, int) or isinstance(stop, bool) or not 1 <= stop <= len(trajectory):
        raise InputError(f"replay result: the stop is not a step of the {len(trajectory)}-step trajectory")
    value = trajectory[stop - 1]
    if value is None:
        return -math.inf
    if not isinstance(value, (int, float)) or isinstance(value, bool) or math.isnan(value):
        raise InputError(f"replay result: step {stop} of the {side} process's trajectory is not a number")
    return float(value)
