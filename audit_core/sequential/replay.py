"""Replay of a recorded annotation run: every e-process, stopping times, dual decision, subgroups.

The scores are taken in the order given (the loader sorts by the file's ``order`` column). The
recorded run is the budget: the dual decision is the first crossing anywhere in it, and a run that
never crosses is "inconclusive". The subgroup table counts cases per combination of the subgroup
columns with their mean score (for fractional scores ``correct`` is the sum of scores), the
fixed-n Wilson interval and the anytime-valid confidence sequence over the subgroup's scores in
arrival order; a subgroup is flagged below q on an anytime-valid bound, because the run's cases
were chosen adaptively and it stopped when the test said so, where Wilson has no guarantee.

Two flags, two claims (issue 19 item 9; docs/confidence_sequence.md):

* **per-subgroup** (``below``): the subgroup's own (1 - α) interval lies below q. Each flag is a
  level-α test of that one subgroup; with K subgroups the chance that *some* flag is false grows
  towards K α.
* **family-wise** (``below_family``, the default for the run-level statement): the subgroup's
  anytime-valid interval at level α/K lies below q (Bonferroni over the K subgroups, α the
  audit's level). P(any family-wise flag false) <= sum_k α/K = α, for any sampling and stopping
  rule (union bound over K confidence sequences each valid at α/K).

Neither is the dual test: that compares the model's and the auditor's e-processes over the whole
sequence (paper 001); a run can be "inconclusive" there while a family-wise flag holds, or the
reverse, and both statements are valid at level α.
Every trajectory and bound after step t depends on the first t scores only, so a run replayed
again with rows appended gives the same values on the common prefix.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from audit_core.errors import InputError
from audit_core.sequential.checks import check_scores
from audit_core.sequential.confseq import confidence_sequence
from audit_core.sequential.dual import (
    AUDIT_PASSED,
    FAILURE_FOUND,
    INCONCLUSIVE,
    check_roles,
    dual_decision,
    first_crossing,
)
from audit_core.sequential.intervals import wilson_interval
from audit_core.sequential.params import AuditParams
from audit_core.sequential.processes import (
    DEFAULT_AUDITOR_PROCESS,
    DEFAULT_MODEL_PROCESS,
    MODEL_PROCESSES,
    PROCESS_NAMES,
    check_params,
    log_evalues,
)

ALL_CASES = "(all)"
STAT_COLUMNS = ("n", "correct", "accuracy", "ci_low", "ci_high", "cs_low", "cs_high", "fw_low", "fw_high")
FAMILY_WISE = "family-wise"
PER_SUBGROUP = "per-subgroup"


@dataclass(frozen=True)
class DualDecision:
    """The dual test's outcome over the run: ``decision`` (failure mode found / audit passed /
    inconclusive), ``stop`` (1-based case of the first crossing, None without one), the two
    processes compared and the ``log_threshold`` = -log(alpha) they had to reach."""

    decision: str
    stop: int | None
    model_process: str
    auditor_process: str
    log_threshold: float

    def to_dict(self) -> dict:
        return {"decision": self.decision, "stop": self.stop, "model_process": self.model_process,
                "auditor_process": self.auditor_process, "log_threshold": self.log_threshold}

    def __repr__(self) -> str:
        return f"DualDecision({self.decision!r}, stop={self.stop}, {self.model_process} vs {self.auditor_process})"


@dataclass(frozen=True)
class Proportion:
    """Mean score of a set of cases (the whole run or one subgroup) with two intervals.

    ``label``: the subgroup's values (``("(all)",)`` overall); ``n`` cases, ``correct`` = sum of
    scores, ``accuracy`` = correct / n; ``ci_low``/``ci_high``: the Wilson interval, valid only
    at a sample size fixed in advance; ``cs_low``/``cs_high``: the anytime-valid confidence
    sequence (:func:`audit_core.sequential.confseq.confidence_sequence`) over the cases' scores in
    arrival order, valid whenever the run stopped, provided every score in the set has the same
    conditional mean: within a subgroup (cases of one subgroup are alike) that holds however the
    auditor chose between subgroups; for the whole run it holds only when cases arrived in random
    order, not when an adaptive auditor steered toward weak subgroups (the overall interval then
    covers a weighted mean of the subgroups it visited). ``fw_low``/``fw_high``: the same
    confidence sequence at level α/K (K subgroups, α the audit's level): Bonferroni, so every
    subgroup's family-wise interval holds at once with probability >= 1 - α (equal to cs for
    one set). ``below(q)`` flags on the per-subgroup bound, ``below_family(q)`` on the
    family-wise one.
    """

    label: tuple
    n: int
    correct: float
    accuracy: float
    ci_low: float
    ci_high: float
    cs_low: float
    cs_high: float
    fw_low: float
    fw_high: float

    def below(self, q: float) -> bool:
        """Is this subgroup's own anytime-valid interval below q (a level-α claim about it alone)?"""
        return self.cs_high < q

    def below_family(self, q: float) -> bool:
        """Is its family-wise (α/K) anytime-valid interval below q (holds for all K at once)?"""
        return self.fw_high < q

    def to_dict(self) -> dict:
        return {"n": self.n, "correct": self.correct, "accuracy": self.accuracy, "ci_low": self.ci_low,
                "ci_high": self.ci_high, "cs_low": self.cs_low, "cs_high": self.cs_high,
                "fw_low": self.fw_low, "fw_high": self.fw_high}

    def __repr__(self) -> str:
        return (f"Proportion({' / '.join(map(str, self.label))}: {self.accuracy:.3f}, n={self.n}, "
                f"anytime [{self.cs_low:.3f}, {self.cs_high:.3f}])")


@dataclass(frozen=True, eq=False)
class Replay:
    """Result of :func:`replay`; ``to_dict()`` is the CLI JSON (docs: replay).

    ``log_e``: process name -> log E_1..log E_n; ``stops``: name -> 1-based first crossing or None;
    ``decisions``: name -> that process's decision alone; ``dual``: the :class:`DualDecision` of
    the chosen pair; ``overall`` and ``subgroups``: :class:`Proportion` of the run and of each
    subgroup (sorted by label); ``subgroup_table``: the same subgroups as a table (subgroup
    columns then ``STAT_COLUMNS``); ``confidence``: level of the Wilson and per-subgroup
    intervals; ``family_level``: the family-wise level α (each fw interval at α/K).
    """

    n: int
    params: AuditParams
    log_e: dict
    stops: dict
    decisions: dict
    dual: DualDecision
    overall: Proportion
    subgroup_table: pd.DataFrame
    subgroup_columns: tuple = field(default=())
    confidence: float = 0.95
    family_level: float = 0.05

    @property
    def decision(self) -> str:
        return self.dual.decision

    @property
    def family_size(self) -> int:
        """K, the number of subgroups the family-wise flags are corrected for."""
        return len(self.subgroup_table)

    def flagged(self, kind: str = FAMILY_WISE) -> tuple[Proportion, ...]:
        """The subgroups flagged below q: family-wise (default; α/K each, FWER <= α) or
        per-subgroup (each at 1 - confidence on its own)."""
        q = self.params.q
        test = Proportion.below_family if kind == FAMILY_WISE else Proportion.below
        return tuple(p for p in self.subgroups if test(p, q))

    @property
    def subgroups(self) -> tuple[Proportion, ...]:
        columns = [c for c in self.subgroup_table.columns if c not in STAT_COLUMNS]
        return tuple(Proportion(label=tuple(row[c] for c in columns), n=int(row["n"]),
                                **{k: float(row[k]) for k in STAT_COLUMNS[1:]})
                     for row in self.subgroup_table.to_dict(orient="records"))

    def to_dict(self, arrays: bool = False) -> dict:
        """The CLI JSON as plain values; ``arrays``: each process's per-step ``log_e`` as the float
        array it is (the same numbers, for a holder that writes JSON later: a list of Python floats
        costs ~32 bytes per step and process, 125 MB built and dropped for 655,000 steps)."""
        processes = {
            name: {
                "log_e": (np.asarray(self.log_e[name], dtype=float) if arrays
                          else [float(v) for v in self.log_e[name]]),
                "stop": self.stops[name],
                "decision": self.decisions[name],
                "final_log_e": float(self.log_e[name][-1]),
            }
            for name in PROCESS_NAMES if name in self.log_e
        }
        table = self.subgroup_table.copy()
        table["n"] = table["n"].astype(int)
        return {
            "n": self.n,
            "processes": processes,
            "decision": self.dual.to_dict(),
            "overall": self.overall.to_dict(),
            "subgroup_columns": list(self.subgroup_columns),
            "subgroups": table.to_dict(orient="records"),
            "intervals": {"confidence": self.confidence, "ci": "Wilson, valid at a fixed n only",
                          "cs": "anytime-valid confidence sequence (hedged beta mixture for 0/1 scores: Robbins' mixtures "
                                "(Howard et al. 2021) of Waudby-Smith & Ramdas's hedged one-sided bets; predictable plug-in empirical Bernstein for graded scores, Waudby-Smith & Ramdas "
                                "2024), each subgroup's scores in arrival order",
                          "fw": f"the same confidence sequence at level alpha/K = {self.family_level:g}/"
                                f"{self.family_size} (Bonferroni over the K subgroups: all hold at once "
                                f"with probability >= {1 - self.family_level:g})"},
            "flags": {"family_wise": ["/".join(map(str, p.label)) for p in self.flagged(FAMILY_WISE)],
                      "per_subgroup": ["/".join(map(str, p.label)) for p in self.flagged(PER_SUBGROUP)],
                      "family_level": self.family_level, "K": self.family_size},
            "params": self.params.to_dict(),
        }

    def __repr__(self) -> str:
        return (f"Replay(n={self.n}, decision={self.decision!r}, stop={self.dual.stop}, "
                f"subgroups={len(self.subgroup_table)})")


def _subgroup_frame(subgroups, n: int) -> pd.DataFrame:
    if subgroups is None:
        return pd.DataFrame({"subgroup": np.full(n, ALL_CASES)})
    if isinstance(subgroups, pd.DataFrame):
        frame = subgroups.reset_index(drop=True)
    elif isinstance(subgroups, pd.Series):
        frame = subgroups.reset_index(drop=True).to_frame(name=subgroups.name or "subgroup")
    elif isinstance(subgroups, dict):
        frame = pd.DataFrame({str(k): np.asarray(v) for k, v in subgroups.items()})
    else:
        frame = pd.DataFrame({"subgroup": np.asarray(subgroups)})
    if frame.shape[1] == 0:
        return pd.DataFrame({"subgroup": np.full(n, ALL_CASES)})
    if len(frame) != n:
        raise InputError(f"subgroups: {len(frame)} row(s) for {n} score(s); they must align one to one")
    return frame.astype(str)


def proportion(scores: np.ndarray, label: tuple = (ALL_CASES,), confidence: float = 0.95,
               family_alpha: float | None = None) -> Proportion:
    """:class:`Proportion` of scores given in arrival order (Wilson, the confidence sequence at
    1 - confidence, and at ``family_alpha`` (α/K) for the family-wise bounds; None: the same)."""
    y = np.asarray(scores, dtype=float)
    correct = float(y.sum())
    low, high = wilson_interval(correct, len(y), confidence)
    # round: 1 - 0.95 is 0.050000000000000044 in binary; the level meant is 0.05
    alpha = round(1.0 - confidence, 12)
    cs_low, cs_high = confidence_sequence(y, alpha).final
    fw_low, fw_high = ((cs_low, cs_high) if family_alpha is None or family_alpha == alpha
                       else confidence_sequence(y, family_alpha).final)
    return Proportion(label=tuple(label), n=len(y), correct=correct, accuracy=correct / len(y) if len(y) else 0.0,
                      ci_low=low, ci_high=high, cs_low=cs_low, cs_high=cs_high, fw_low=fw_low, fw_high=fw_high)


def subgroup_table(scores: np.ndarray, subgroups=None, confidence: float = 0.95,
                   family_level: float | None = None) -> pd.DataFrame:
    """One row per subgroup (combination of columns, sorted): n, correct, accuracy, the Wilson
    interval ci_low/ci_high, the anytime-valid cs_low/cs_high over the subgroup's scores in
    arrival order, and fw_low/fw_high, the same at level ``family_level``/K for the K subgroups
    (Bonferroni; ``family_level`` None: 1 - confidence)."""
    y = check_scores(scores)
    frame = _subgroup_frame(subgroups, len(y))
    columns = list(frame.columns)
    positions = frame.groupby(columns, sort=True, dropna=False).indices  # label -> ascending row positions
    level = round(1.0 - confidence, 12) if family_level is None else float(family_level)
    family_alpha = level / max(len(positions), 1)
    rows = []
    # A subgroup's numbers depend only on its scores in arrival order: subgroups with the same
    # sequence (many small subgroups of 0/1 scores share a handful) are computed once. 6,000
    # subgroups of two cases: 12,000 confidence sequences -> 4.
    by_sequence: dict[bytes, dict] = {}
    for label, where in positions.items():
        label = label if isinstance(label, tuple) else (label,)
        here = y[where]
        key = here.tobytes()
        if key not in by_sequence:
            by_sequence[key] = proportion(here, label, confidence, family_alpha).to_dict()
        rows.append({**dict(zip(columns, label, strict=True)), **by_sequence[key]})
    table = pd.DataFrame(rows, columns=columns + list(STAT_COLUMNS))
    return table.sort_values(columns, kind="stable").reset_index(drop=True)


def replay(scores, params: AuditParams, subgroups=None, model_process: str = DEFAULT_MODEL_PROCESS,
           auditor_process: str = DEFAULT_AUDITOR_PROCESS, confidence: float = 0.95) -> Replay:
    """All six processes over the recorded scores, their first crossings, the dual decision of
    ``model_process`` vs ``auditor_process``, the overall and per-subgroup proportions."""
    check_roles(model_process, auditor_process)
    check_params(params)
    y = check_scores(scores)
    if y.ndim != 1 or len(y) == 0:
        raise InputError("replay: need a non-empty sequence of scores")
    trajectories = log_evalues(y, params)
    threshold = params.log_threshold
    stops = {name: first_crossing(trajectories[name], threshold) for name in PROCESS_NAMES}
    decisions = {
        name: INCONCLUSIVE if stops[name] is None else (FAILURE_FOUND if name in MODEL_PROCESSES else AUDIT_PASSED)
        for name in PROCESS_NAMES
    }
    decision, stop = dual_decision(stops[model_process], stops[auditor_process])
    dual = DualDecision(decision=decision, stop=stop, model_process=model_process, auditor_process=auditor_process,
                        log_threshold=threshold)
    # The family-wise flags are at the audit's own level α (Bonferroni over the K subgroups).
    table = subgroup_table(y, subgroups, confidence, family_level=params.alpha)
    columns = tuple(c for c in table.columns if c not in STAT_COLUMNS)
    return Replay(n=len(y), params=params, log_e=trajectories, stops=stops, decisions=decisions, dual=dual,
                  overall=proportion(y, confidence=confidence, family_alpha=params.alpha), subgroup_table=table,
                  subgroup_columns=columns if subgroups is not None else (), confidence=confidence,
                  family_level=float(params.alpha))
