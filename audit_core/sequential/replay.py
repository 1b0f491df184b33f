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
  anytime-valid interval at its share α_g of the audit's level α lies below q, with the shares
  fixed before any data (issue 28 item 1), so P(any family-wise flag false) <= sum_g α_g <= α for
  any sampling and stopping rule (union bound over confidence sequences each valid at α_g):

  - **declared family** (``family`` given: the pool's subgroups, named before labelling): α_g = α/K
    for each of the K declared subgroups, whether or not the run reached them (Bonferroni);
  - **spending by first appearance** (no declared family, e.g. a CSV where a subgroup may be
    absent): the j-th subgroup to appear in the run gets α_j = α 2^-(2b+1), b = floor(log2 j)
    (α/2, then α/8 each for the 2nd and 3rd, α/32 each for the 4th to 7th, ...; the 2^b subgroups
    of block b share α/2^(b+1), so sum_j α_j = α). Valid however the subgroups come: the j-th
    subgroup's identity is fixed when it first appears, so the mixture martingale of "the j-th
    subgroup to appear" at its true mean is a nonnegative martingale of the whole run, and
    Ville's inequality bounds its miss at α_j.

  Dividing α by the number K of subgroups *seen* is not valid: an adaptive auditor chooses K. A
  pool of 28 subgroups all at accuracy q = 0.85, visited one by one with up to 1,000 labels each
  and stopped at the first flag, gets a false flag with probability 0.060 at α = 0.05 with that
  rule (exact, tests/sequential/test_family_probe.py).

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
from audit_core.sequential.confseq import BINARY, confidence_sequence, score_type_of
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
STAT_COLUMNS = ("n", "correct", "accuracy", "ci_low", "ci_high", "cs_low", "cs_high", "fw_low", "fw_high", "fw_alpha")
FAMILY_WISE = "family-wise"
PER_SUBGROUP = "per-subgroup"
# How the family-wise level α is shared between subgroups (module doc).
DECLARED = "declared family"
SPENDING = "spending by first appearance"
FAMILY_RULES = (DECLARED, SPENDING)


def spending_share(j: int) -> float:
    """Share of α of the j-th subgroup to appear (1-based): 2^-(2b+1), b = floor(log2 j); the
    shares sum to 1 over j = 1, 2, ... (module doc)."""
    if j < 1:
        raise InputError(f"subgroup rank: expected a whole number >= 1, got {j!r}")
    return 2.0 ** -(2 * (int(j).bit_length() - 1) + 1)


def family_levels(labels_in_order, alpha: float, family=None) -> dict:
    """Each subgroup's family-wise level α_g (module doc). ``labels_in_order``: the subgroups in
    order of first appearance; ``family``: the declared subgroups (every label must be one of
    them), or None for spending by first appearance."""
    labels = list(labels_in_order)
    if family is None:
        return {label: alpha * spending_share(j) for j, label in enumerate(labels, start=1)}
    declared = set(family)
    if not declared:
        raise InputError("family: the declared subgroups are empty; name every subgroup of the pool")
    missing = [label for label in labels if label not in declared]
    if missing:
        shown = " / ".join(map(str, missing[0]))
        raise InputError(f"family: subgroup {shown!r} is in the run but not among the {len(declared)} declared "
                         "subgroups; declare every subgroup of the pool before labelling")
    return {label: alpha / len(declared) for label in labels}


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
    confidence sequence at level ``fw_alpha``, this subgroup's share of the audit's α (α/K over a
    declared family of K, or its share by order of first appearance; module doc), so every
    subgroup's family-wise interval holds at once with probability >= 1 - α (equal to cs for
    one set at level α). ``below(q)`` flags on the per-subgroup bound, ``below_family(q)`` on the
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
    fw_alpha: float = 0.05

    def below(self, q: float) -> bool:
        """Is this subgroup's own anytime-valid interval below q (a level-α claim about it alone)?"""
        return self.cs_high < q

    def below_family(self, q: float) -> bool:
        """Is its family-wise (α/K) anytime-valid interval below q (holds for all K at once)?"""
        return self.fw_high < q

    def to_dict(self) -> dict:
        return {"n": self.n, "correct": self.correct, "accuracy": self.accuracy, "ci_low": self.ci_low,
                "ci_high": self.ci_high, "cs_low": self.cs_low, "cs_high": self.cs_high,
                "fw_low": self.fw_low, "fw_high": self.fw_high, "fw_alpha": self.fw_alpha}

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
    intervals; ``family_level``: the family-wise level α; ``family_rule``: how α is shared
    between subgroups (:data:`DECLARED`: α/K over ``family_size`` declared subgroups;
    :data:`SPENDING`: by order of first appearance; module doc); ``planned_n``: the planned
    number of cases the overall interval is tuned to (None: untuned).
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
    family_rule: str = SPENDING
    declared_size: int | None = None
    planned_n: int | None = None

    @property
    def decision(self) -> str:
        return self.dual.decision

    @property
    def family_size(self) -> int:
        """K: the declared subgroups (:data:`DECLARED`), else the subgroups seen, among which α
        was spent by order of first appearance."""
        return self.declared_size if self.family_rule == DECLARED and self.declared_size else len(self.subgroup_table)

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
                          "planned_n": self.planned_n,
                          "fw": self._family_text()},
            "flags": {"family_wise": ["/".join(map(str, p.label)) for p in self.flagged(FAMILY_WISE)],
                      "per_subgroup": ["/".join(map(str, p.label)) for p in self.flagged(PER_SUBGROUP)],
                      "family_level": self.family_level, "K": self.family_size, "rule": self.family_rule},
            "params": self.params.to_dict(),
        }

    def _family_text(self) -> str:
        held = f"all hold at once with probability >= {1 - self.family_level:g}"
        if self.family_rule == DECLARED:
            return (f"the same confidence sequence at level alpha/K = {self.family_level:g}/{self.family_size} "
                    f"for each of the K declared subgroups (Bonferroni: {held})")
        return (f"the same confidence sequence at the subgroup's share of alpha = {self.family_level:g} by order "
                "of first appearance (the j-th subgroup at alpha 2^-(2 floor(log2 j) + 1), shares summing to "
                f"alpha; the family was not declared, so K is not fixed before the data: {held})")

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
               family_alpha: float | None = None, score_type: str | None = None,
               planned_n: int | None = None) -> Proportion:
    """:class:`Proportion` of scores given in arrival order (Wilson, the confidence sequence at
    1 - confidence, and at ``family_alpha`` (the subgroup's share α_g) for the family-wise bounds;
    None: the same). ``score_type``: the run's score type (None: these scores'). ``planned_n``: the
    number of scores planned before the data, to which the 0/1 confidence sequence is tuned
    (:func:`~audit_core.sequential.confseq.confidence_sequence`; graded scores ignore it)."""
    y = np.asarray(scores, dtype=float)
    correct = float(y.sum())
    low, high = wilson_interval(correct, len(y), confidence)
    # round: 1 - 0.95 is 0.050000000000000044 in binary; the level meant is 0.05
    alpha = round(1.0 - confidence, 12)
    tuned = planned_n if planned_n is not None and _binary(y, score_type) else None
    cs_low, cs_high = confidence_sequence(y, alpha, score_type=score_type, planned_n=tuned).final
    fw_low, fw_high = ((cs_low, cs_high) if family_alpha is None or family_alpha == alpha
                       else confidence_sequence(y, family_alpha, score_type=score_type, planned_n=tuned).final)
    return Proportion(label=tuple(label), n=len(y), correct=correct, accuracy=correct / len(y) if len(y) else 0.0,
                      ci_low=low, ci_high=high, cs_low=cs_low, cs_high=cs_high, fw_low=fw_low, fw_high=fw_high,
                      fw_alpha=alpha if family_alpha is None else float(family_alpha))


def _binary(y: np.ndarray, score_type: str | None) -> bool:
    """0/1 scores as the confidence sequence reads them: the declared type, else these scores'."""
    return score_type == BINARY if score_type is not None else score_type_of(y) == BINARY


def _no_subgroups(subgroups) -> bool:
    """No subgroup columns: the run is one subgroup (see :func:`_subgroup_frame`)."""
    if isinstance(subgroups, pd.DataFrame):
        return subgroups.shape[1] == 0
    return subgroups is None or (isinstance(subgroups, dict) and not subgroups)


def _labels(subgroups) -> list | None:
    """The declared family as a list of label tuples (one value per subgroup column), or None."""
    if subgroups is None:
        return None
    out = []
    for label in subgroups:
        out.append(tuple(str(v) for v in label) if isinstance(label, (tuple, list)) else (str(label),))
    return out


def subgroup_table(scores: np.ndarray, subgroups=None, confidence: float = 0.95,
                   family_level: float | None = None, family=None, planned_n: int | None = None) -> pd.DataFrame:
    """One row per subgroup (combination of columns, sorted): n, correct, accuracy, the Wilson
    interval ci_low/ci_high, the anytime-valid cs_low/cs_high over the subgroup's scores in
    arrival order, and fw_low/fw_high, the same at the subgroup's share ``fw_alpha`` of
    ``family_level`` (None: 1 - confidence): α/K over the ``family`` of K declared subgroups
    (labels, or tuples of labels for several columns), or, with ``family`` None, by order of first
    appearance (module doc). Without subgroups the run is one declared subgroup. Every subgroup's
    construction follows the whole column's score type (:func:`~audit_core.sequential.confseq.score_type_of`),
    not its own few scores. ``planned_n``: the planned number of cases of every subgroup, to which
    its 0/1 intervals are tuned (None: untuned)."""
    y = check_scores(scores)
    score_type = score_type_of(y)
    frame = _subgroup_frame(subgroups, len(y))
    columns = list(frame.columns)
    positions = frame.groupby(columns, sort=True, dropna=False).indices  # label -> ascending row positions
    level = round(1.0 - confidence, 12) if family_level is None else float(family_level)
    keyed = {(label if isinstance(label, tuple) else (label,)): where for label, where in positions.items()}
    first_seen = sorted(keyed, key=lambda label: keyed[label][0])
    declared = [(ALL_CASES,)] if _no_subgroups(subgroups) else _labels(family)
    levels = family_levels(first_seen, level, declared)
    rows = []
    # A subgroup's numbers depend only on its scores in arrival order and its level: subgroups with
    # the same sequence and level (many small subgroups of 0/1 scores share a handful) are computed
    # once. 6,000 subgroups of two cases: 12,000 confidence sequences -> a few dozen (the spending
    # shares take one value per block of 2^b subgroups).
    by_sequence: dict[tuple, dict] = {}
    for label, where in keyed.items():
        here = y[where]
        key = (here.tobytes(), levels[label])
        if key not in by_sequence:
            by_sequence[key] = proportion(here, label, confidence, levels[label], score_type, planned_n).to_dict()
        rows.append({**dict(zip(columns, label, strict=True)), **by_sequence[key]})
    table = pd.DataFrame(rows, columns=columns + list(STAT_COLUMNS))
    return table.sort_values(columns, kind="stable").reset_index(drop=True)


def replay(scores, params: AuditParams, subgroups=None, model_process: str = DEFAULT_MODEL_PROCESS,
           auditor_process: str = DEFAULT_AUDITOR_PROCESS, confidence: float = 0.95, family=None,
           planned_n: int | None = None) -> Replay:
    """All six processes over the recorded scores, their first crossings, the dual decision of
    ``model_process`` vs ``auditor_process``, the overall and per-subgroup proportions.

    ``family``: the subgroups declared before the data (e.g. every subgroup of the pool), for the
    family-wise flags at α/K each; None: α is spent by order of first appearance (module doc).
    ``planned_n``: the number of cases the audit planned, declared before the data: the overall
    anytime-valid interval of 0/1 scores is tuned to it (narrower up to it, valid at every n), and
    so is the one subgroup of a run without subgroups; subgroups, whose planned sizes are not
    declared, keep the untuned interval."""
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
    # The family-wise flags are at the audit's own level α, shared between subgroups before the data.
    alone = _no_subgroups(subgroups)
    table = subgroup_table(y, subgroups, confidence, family_level=params.alpha, family=family,
                           planned_n=planned_n if alone else None)
    declared = alone or family is not None
    columns = tuple(c for c in table.columns if c not in STAT_COLUMNS)
    return Replay(n=len(y), params=params, log_e=trajectories, stops=stops, decisions=decisions, dual=dual,
                  overall=proportion(y, confidence=confidence, family_alpha=params.alpha, planned_n=planned_n),
                  subgroup_table=table,
                  subgroup_columns=columns if subgroups is not None else (), confidence=confidence,
                  family_level=float(params.alpha), family_rule=DECLARED if declared else SPENDING,
                  declared_size=(1 if alone else len(set(_labels(family)))) if declared else None,
                  planned_n=planned_n)
