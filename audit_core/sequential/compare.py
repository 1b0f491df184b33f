"""Compare two labelled runs (two models, two prompt versions) on the cases they share.

Cases are matched by id. On the common cases the paired difference d_i = y_B,i - y_A,i is
summarised overall and per subgroup (the subgroup columns of run A, else of run B), with:

* **Newcombe's hybrid score interval for paired proportions** (Newcombe 1998, Stat. Med. 17,
  method 10) when every score is 0/1. From the Wilson intervals (l_A, u_A), (l_B, u_B) of the two
  accuracies and the phi correlation of the 2x2 table (a = both right, b = A only, c = B only,
  d = both wrong; phi = (ad - bc) / sqrt((a+b)(c+d)(a+c)(b+d)), 0 when a margin is empty):
  theta = p_B - p_A, L = theta - sqrt((p_B - l_B)^2 - 2 phi (p_B - l_B)(u_A - p_A) + (u_A - p_A)^2),
  U = theta + sqrt((u_B - p_B)^2 - 2 phi (u_B - p_B)(p_A - l_A) + (p_A - l_A)^2).
  It stays inside [-1, 1], handles zero cells and keeps near-nominal coverage for small n and
  accuracies near 1, where the Wald interval of the differences does not. It is approximate:
  exact enumeration of every 2x2 table (bench/newcombe_coverage.py) gives a coverage of
  0.937-0.945 at its minimum over n = 30-100 when both discordant cells are possible, down to
  0.893 (n = 40) when one of them is impossible (lopsided disagreement), median 0.955-0.965.
* the **paired Student t interval** of the mean difference when some score is fractional (an
  agreement score in [0, 1]); Newcombe's construction needs 0/1 outcomes.

Regressions are common cases with y_B < y_A, improvements those with y_B > y_A, listed case by
case. Each run is also replayed alone (all its cases, in its own order) through the dual test, so
the two audit decisions sit side by side. Cases present in one run only are counted and listed.

Anytime-valid comparison (docs/confidence_sequence.md, Comparing runs)
-----------------------------------------------------------------------
The paired differences d_i = y_B,i - y_A,i lie in [-1, 1]; x_i = (d_i + 1) / 2 lies in [0, 1] and
has mean (Delta + 1) / 2, Delta = E[d] the mean paired difference. A confidence sequence of
:mod:`audit_core.sequential.confseq` on x, mapped back by 2x - 1, is a (1 - alpha) confidence
sequence [L_t, U_t] for Delta: P(exists t: Delta not in [L_t, U_t]) <= alpha for any stopping rule,
including stopping on the sequence itself (:func:`difference_sequence`). The construction is fixed
by the number of runs, before any data: **two runs** use the hedged betting sequence
(Waudby-Smith & Ramdas 2024, hedged capital; O(n x grid)), **three or more** PrPl-EB (their
Theorem 2; O(n) and vectorised over the pairs). The betting sequence's last ends are refined to 1/64 of its grid
step against the definition (:func:`_refined_betting_ends`). bench/bench_compare.py: on paired 0/1
scores betting is 2.4x narrower than PrPl-EB at n = 20, 1.5x at n = 100, 1.1x at n = 500, 1.04x at
1,000-2,000 and 1.02x wider at 5,000-10,000; on graded differences of small variance 1.2-2.6x
narrower at every n. For 0/1 scores x takes the three values 0, 1/2, 1, so the 0/1
constructions do not apply. With a pre-registered margin delta >= 0 each step gives one decision
(:func:`margin_decision`), the first that holds in this order:

* **B better**: L_t > delta (claims Delta > delta);
* **A better**: U_t < -delta (claims Delta < -delta);
* **equivalent within the margin**: -delta < L_t and U_t < delta (claims |Delta| < delta);
* **non-inferior**: L_t > -delta (claims Delta > -delta);
* **continue** while fewer than the budget's cases are in, **inconclusive at the budget** after.

Each claim is false only on the event that Delta left the sequence, so every decision, at every
step and at any data-dependent stop, is wrong with probability <= alpha (all of them together).
L_t never decreases and U_t never increases (running intersection), so a condition once met stays
met and ``decided_at`` is the first step of the decision shown.

Per subgroup, each subgroup's differences in arrival order get the sequence at alpha (its own
claim) and at alpha/G (G subgroups; Bonferroni, as Replay does: all G hold at once with probability
>= 1 - alpha); the subgroup's decision is taken on the family-wise sequence.

At the fixed n of the run, beside it: Newcombe's interval (module start) and the **exact McNemar
test** for 0/1 scores: under H0 "P(A only right) = P(B only right)", the c improvements among the
b + c discordant pairs are Binomial(b + c, 1/2); the two-sided p-value is scipy's exact binomial
test. Both hold only at a sample size fixed in advance.

**Many runs** (:func:`compare_many`): K runs on the same matched cases; each of the P = K(K-1)/2
pairs (i, j) gets the sequence above for mu_j - mu_i at level alpha/P. A confidence sequence is
the set of Delta whose e-process stays below 1/level, so this is e-Bonferroni over the P pairwise
e-processes: with probability >= 1 - alpha all P sequences hold at once, at every step, under any
dependence between the pairs (union bound; e-BH controls the false discovery rate of rejections
instead, which does not make simultaneous intervals, so it cannot back tie groups or ranks). From
the final bounds:

* runs i and j are **separated** at delta when L_ij > delta or U_ij < -delta; the **tie groups**
  are the connected components of the graph "not separated" (runs statistically indistinguishable
  at delta, directly or through a chain). Two runs in different groups are separated, so every
  claim "r beats s by more than delta" between groups holds at once with probability >= 1 - alpha;
* the **rank interval** of run i (1 = best) is [1 + #{j : L_ij > 0}, K - #{j : U_ij < 0}]: on the
  same event it holds the rank of mu_i among the true means, for every run at once.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy.stats import binomtest
from scipy.stats import t as student_t

from audit_core.errors import InputError
from audit_core.presets import (
    A_BETTER,
    B_BETTER,
    CONTINUE,
    EQUIVALENT,
    INCONCLUSIVE_AT_BUDGET,
    NON_INFERIOR,
)
from audit_core.sequential.confseq import (
    BETTING,
    LAMBDA_MAX,
    PRPL_EB,
    ConfidenceSequence,
    betting_excluded,
    confidence_sequence,
)
from audit_core.sequential.intervals import wilson_interval
from audit_core.sequential.params import AuditParams
from audit_core.sequential.replay import replay

NEWCOMBE = "Newcombe hybrid score (paired, 0/1 scores)"
PAIRED_T = "paired Student t (fractional scores)"


def newcombe_paired_interval(y_a: np.ndarray, y_b: np.ndarray, confidence: float = 0.95) -> tuple[float, float]:
    """Newcombe (1998) method 10 interval of p_B - p_A from paired 0/1 outcomes (module doc)."""
    counts = [float(np.sum((y_a == first) & (y_b == second))) for first, second in ((1, 1), (1, 0), (0, 1), (0, 0))]
    low, high = newcombe_interval_from_counts(*(np.array([count]) for count in counts), confidence=confidence)
    return float(low[0]), float(high[0])


def newcombe_interval_from_counts(a: np.ndarray, b: np.ndarray, c: np.ndarray, d: np.ndarray,
                                  confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Newcombe's method 10 for many 2x2 tables at once: a = both right, b = A only, c = B only,
    d = both wrong (arrays of equal shape, each table n = a + b + c + d > 0); returns (low, high)."""
    a, b, c, d = (np.asarray(cells, dtype=float) for cells in (a, b, c, d))
    n = a + b + c + d
    p_a, p_b = (a + b) / n, (a + c) / n
    l_a, u_a = wilson_interval(a + b, n, confidence)
    l_b, u_b = wilson_interval(a + c, n, confidence)
    denominator = (a + b) * (c + d) * (a + c) * (b + d)
    # Newcombe's correlation estimate with his correction for ad > bc (ad − bc shrunk by n/2):
    # without it, runs with no discordant pair (b = c = 0) get phi = 1 and a zero-width interval.
    cross = a * d - b * c
    cross = np.where(cross > 0, np.maximum(cross - n / 2, 0.0), cross)
    phi = np.where(denominator > 0, cross / np.sqrt(np.where(denominator > 0, denominator, 1.0)), 0.0)
    theta = p_b - p_a
    low = theta - np.sqrt(np.maximum(0.0, (p_b - l_b) ** 2 - 2 * phi * (p_b - l_b) * (u_a - p_a) + (u_a - p_a) ** 2))
    high = theta + np.sqrt(np.maximum(0.0, (u_b - p_b) ** 2 - 2 * phi * (u_b - p_b) * (p_a - l_a) + (p_a - l_a) ** 2))
    return np.maximum(-1.0, low), np.minimum(1.0, high)


def paired_t_interval(diff: np.ndarray, confidence: float = 0.95) -> tuple[float, float]:
    """mean(d) -/+ t_{n-1} sd(d)/sqrt(n); (-1, 1) with fewer than two pairs."""
    n = diff.size
    if n < 2:
        return -1.0, 1.0
    half = float(student_t.ppf(0.5 + confidence / 2, n - 1) * diff.std(ddof=1) / math.sqrt(n))
    mean = float(diff.mean())
    return max(-1.0, mean - half), min(1.0, mean + half)


@dataclass(frozen=True, repr=False)
class PairedDifference:
    """Paired comparison of one set of common cases: ``n``; ``mean_a`` / ``mean_b``;
    ``difference`` = mean_b - mean_a with its interval ``ci_low`` - ``ci_high`` and the
    ``interval`` method used; ``regressions`` (y_B < y_A) and ``improvements`` (y_B > y_A)."""

    n: int
    mean_a: float
    mean_b: float
    difference: float
    ci_low: float
    ci_high: float
    interval: str
    regressions: int
    improvements: int

    def to_dict(self) -> dict:
        return {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in self.__dict__.items()}

    def __repr__(self) -> str:
        return f"PairedDifference(n={self.n}, diff={self.difference:+.3f} [{self.ci_low:+.3f}, {self.ci_high:+.3f}])"


def paired_difference(y_a, y_b, confidence: float = 0.95) -> PairedDifference:
    """B - A on paired scores: Newcombe's interval for 0/1 scores, else the paired t interval."""
    y_a, y_b = np.asarray(y_a, float), np.asarray(y_b, float)
    n = y_a.size
    if n == 0:
        return PairedDifference(0, math.nan, math.nan, math.nan, math.nan, math.nan, "", 0, 0)
    binary = bool(np.isin(y_a, (0.0, 1.0)).all() and np.isin(y_b, (0.0, 1.0)).all())
    low, high = newcombe_paired_interval(y_a, y_b, confidence) if binary else paired_t_interval(y_b - y_a, confidence)
    return PairedDifference(int(n), float(y_a.mean()), float(y_b.mean()), float(y_b.mean() - y_a.mean()),
                            float(low), float(high), NEWCOMBE if binary else PAIRED_T,
                            int(np.sum(y_b < y_a)), int(np.sum(y_b > y_a)))


# ------------------------------------------------------------------ anytime-valid paired difference

MULTIPLICITY = "e-Bonferroni"
# The construction of two runs' sequence (the narrowest at n <= 2,000, module doc) and of many
# runs' (vectorised over the pairs: 1,225 pairs x 10,000 cases in about a second).
PAIRED_METHOD = BETTING
MANY_METHOD = PRPL_EB
# The order in which margin_decision tries the claims (module doc); index = decision code.
_CLAIMS = (B_BETTER, A_BETTER, EQUIVALENT, NON_INFERIOR)


def check_margin(margin) -> float:
    if isinstance(margin, bool) or not isinstance(margin, (int, float, np.floating)) or not 0.0 <= margin < 1.0:
        raise InputError(f"margin: must be a number in [0, 1), got {margin!r}")
    return float(margin)


def check_budget(budget) -> int | None:
    if budget is None:
        return None
    if isinstance(budget, bool) or not isinstance(budget, (int, np.integer)) or budget < 1:
        raise InputError(f"budget: must be a whole number of cases >= 1, got {budget!r}")
    return int(budget)


def difference_sequence(y_a, y_b, alpha: float = 0.05, method: str = PAIRED_METHOD) -> ConfidenceSequence:
    """(1 - alpha) confidence sequence for the mean paired difference B - A (module doc): the
    confseq construction ``method`` (hedged betting for two runs, PrPl-EB for many) on
    x = (d + 1) / 2, bounds mapped back by 2x - 1 (so they lie in [-1, 1])."""
    d = np.asarray(y_b, dtype=float) - np.asarray(y_a, dtype=float)
    x = (d + 1.0) / 2.0
    cs = confidence_sequence(x, alpha, method=method)
    lower, upper = cs.lower, cs.upper
    if method == BETTING and cs.n and cs.empty_from is None:
        lower, upper = lower.copy(), upper.copy()
        lower[-1], upper[-1] = _refined_betting_ends(x, alpha, lower[-1], upper[-1])
    return ConfidenceSequence(lower=2.0 * lower - 1.0, upper=2.0 * upper - 1.0, alpha=cs.alpha,
                              method=cs.method, empty_from=cs.empty_from)


# The betting sequence's grid (confseq's default) and how finely its final ends are refined.
_BETTING_STEP = 1.0 / 1000
_REFINE_POINTS = 64


def _refined_betting_ends(x: np.ndarray, alpha: float, low: float, high: float) -> tuple[float, float]:
    """The final ends of the hedged betting sequence to 1/64 of its grid step.

    On its grid the running intersection's lower end ``low`` is a point excluded at some step and
    the exact end lies in (low, low + step] (each per-step end is widened by one grid step;
    confseq); the final set is an interval, so the refined end is the last of 64 points of that
    range that was excluded at some step (:func:`~audit_core.sequential.confseq.betting_excluded`,
    the definition), and likewise for the upper end. Never inside the exact set (conservative);
    only the last step is refined, so an earlier step's bounds stay those of the grid."""
    fine = np.arange(1, _REFINE_POINTS + 1) * (_BETTING_STEP / _REFINE_POINTS)
    points = [p for p in low + fine if 0.0 < p < 1.0]
    if points:
        excluded = betting_excluded(x, alpha, np.array(points))
        inside = np.flatnonzero(~excluded)
        if inside.size and inside[0] > 0:
            low = float(points[inside[0] - 1])
    points = [p for p in high - fine if 0.0 < p < 1.0]
    if points:
        excluded = betting_excluded(x, alpha, np.array(points))
        inside = np.flatnonzero(~excluded)
        if inside.size and inside[0] > 0:
            high = float(points[inside[0] - 1])
    return max(low, 0.0), min(high, 1.0)


def decision_codes(lower: np.ndarray, upper: np.ndarray, margin: float) -> np.ndarray:
    """Per step, the index in (B better, A better, equivalent, non-inferior) of the first claim
    that holds (module doc), -1 when none does. Works on arrays of any shape."""
    lower, upper = np.asarray(lower, dtype=float), np.asarray(upper, dtype=float)
    codes = np.full(lower.shape, -1, dtype=np.int8)
    # assigned from the weakest claim up, so the strongest that holds is kept
    codes[lower > -margin] = 3
    codes[(lower > -margin) & (upper < margin)] = 2
    codes[upper < -margin] = 1
    codes[lower > margin] = 0
    return codes


def margin_decision(lower: float, upper: float, margin: float, n: int, budget: int | None = None) -> str:
    """The decision of bounds [lower, upper] on B - A after n cases (module doc)."""
    code = int(decision_codes(np.array([lower]), np.array([upper]), margin)[0])
    if code >= 0:
        return _CLAIMS[code]
    return INCONCLUSIVE_AT_BUDGET if budget is not None and n >= budget else CONTINUE


@dataclass(frozen=True, repr=False)
class PairedSequence:
    """Anytime-valid comparison of B with A on paired cases (module doc).

    Attributes
    ----------
    n : cases used (at most the budget). difference : mean of d = y_B - y_A.
    lower, upper : the (1 - alpha) confidence sequence for Delta = E[d] after the n-th case.
    alpha, margin, budget : as given. method : the construction (hedged betting).
    decision : one of B better, A better, equivalent within the margin, non-inferior, continue,
        inconclusive at the budget. decided_at : the first step at which it held (None for
        continue / inconclusive). first_reached : the first step of each claim that was met.
    sequence : the :class:`ConfidenceSequence` (bounds after every step, on [-1, 1]).
    """

    n: int
    difference: float
    lower: float
    upper: float
    alpha: float
    margin: float
    budget: int | None
    decision: str
    decided_at: int | None
    first_reached: dict
    method: str
    sequence: ConfidenceSequence = None
    differences: np.ndarray = field(default=None, repr=False)

    def to_dict(self) -> dict:
        out = {k: v for k, v in self.__dict__.items() if k not in ("sequence", "differences")}
        out["first_reached"] = dict(self.first_reached)
        return {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in out.items()}

    def __repr__(self) -> str:
        return (f"PairedSequence(n={self.n}, diff={self.difference:+.3f}, CS [{self.lower:+.3f}, {self.upper:+.3f}], "
                f"margin={self.margin:g}: {self.decision!r})")


def paired_sequence(y_a, y_b, alpha: float = 0.05, margin: float = 0.0, budget: int | None = None) -> PairedSequence:
    """Confidence sequence for B - A and the margin decision after the last case (module doc).
    Only the first ``budget`` pairs are used when there are more."""
    margin, budget = check_margin(margin), check_budget(budget)
    y_a, y_b = np.asarray(y_a, dtype=float), np.asarray(y_b, dtype=float)
    if budget is not None:
        y_a, y_b = y_a[:budget], y_b[:budget]
    n = int(y_a.size)
    cs = difference_sequence(y_a, y_b, alpha)
    if n == 0:
        return PairedSequence(0, math.nan, -1.0, 1.0, float(alpha), margin, budget,
                              INCONCLUSIVE_AT_BUDGET if budget == 0 else CONTINUE, None, {}, cs.method, cs, y_b - y_a)
    codes = decision_codes(cs.lower, cs.upper, margin)
    # each claim's condition is monotone in t (bounds nested), so its first step is where it starts holding
    first = {}
    for index, claim in enumerate(_CLAIMS):
        held = _claim_holds(index, cs.lower, cs.upper, margin)
        if held.any():
            first[claim] = int(np.argmax(held)) + 1
    low, high = cs.final
    decision = margin_decision(low, high, margin, n, budget)
    decided_at = int(np.argmax(codes == _CLAIMS.index(decision)) + 1) if decision in _CLAIMS else None
    return PairedSequence(n, float((y_b - y_a).mean()), low, high, float(alpha), margin, budget, decision,
                          decided_at, first, cs.method, cs, y_b - y_a)


def _claim_holds(index: int, lower: np.ndarray, upper: np.ndarray, margin: float) -> np.ndarray:
    if index == 0:
        return lower > margin
    if index == 1:
        return upper < -margin
    if index == 2:
        return (lower > -margin) & (upper < margin)
    return lower > -margin


@dataclass(frozen=True, repr=False)
class McNemarTest:
    """Exact McNemar test of 0/1 paired scores at a fixed n (module doc): ``regressions`` b (A
    right, B wrong), ``improvements`` c, ``pvalue`` two-sided (1 with no discordant pair)."""

    n: int
    regressions: int
    improvements: int
    pvalue: float

    def to_dict(self) -> dict:
        return dict(self.__dict__)

    def __repr__(self) -> str:
        return f"McNemarTest(b={self.regressions}, c={self.improvements}, p={self.pvalue:.4g})"


def mcnemar_exact(y_a, y_b) -> McNemarTest | None:
    """Exact McNemar test; None when a score is not 0/1."""
    y_a, y_b = np.asarray(y_a, dtype=float), np.asarray(y_b, dtype=float)
    if not (np.isin(y_a, (0.0, 1.0)).all() and np.isin(y_b, (0.0, 1.0)).all()):
        return None
    b, c = int(np.sum((y_a == 1) & (y_b == 0))), int(np.sum((y_a == 0) & (y_b == 1)))
    pvalue = 1.0 if b + c == 0 else float(binomtest(c, b + c, 0.5, alternative="two-sided").pvalue)
    return McNemarTest(int(y_a.size), b, c, pvalue)


@dataclass(frozen=True, repr=False)
class RunDecision:
    """One run replayed alone: ``name``, ``n`` cases, the dual ``decision`` and its ``stop`` (None
    when inconclusive), the processes, and their log e-values at the end of the run."""

    name: str
    n: int
    decision: str
    stop: int | None
    model_process: str
    auditor_process: str
    final_log_e_model: float
    final_log_e_auditor: float

    def to_dict(self) -> dict:
        return dict(self.__dict__)

    def __repr__(self) -> str:
        return f"RunDecision({self.name!r}, {self.decision!r}, stop={self.stop})"


@dataclass(frozen=True, repr=False)
class RunComparison:
    """Result of :func:`compare_runs`.

    ``names``: (A, B); ``n_common``; ``only_a`` / ``only_b``: ids present in one run only;
    ``overall``: the :class:`PairedDifference` of the common cases (B - A); ``subgroups``: one row
    per subgroup with the same fields; ``subgroup_columns``; ``changes``: every common case whose
    score differs (id, subgroup, score_a, score_b, change = "regression" | "improvement");
    ``decisions``: the two :class:`RunDecision`; ``confidence``; ``notes``; ``sequence``: the
    anytime-valid :class:`PairedSequence` of B - A at alpha = 1 - confidence with the ``margin``
    decision (``budget``: the planned number of cases, None for open-ended); ``mcnemar``: the exact
    :class:`McNemarTest` (0/1 scores, fixed n; None otherwise). The subgroup rows add the sequence
    per subgroup at alpha (``cs_low``, ``cs_high``) and at alpha/G (``fw_low``, ``fw_high``) and the
    family-wise ``decision``.
    """

    names: tuple[str, str]
    n_common: int
    only_a: tuple[str, ...]
    only_b: tuple[str, ...]
    overall: PairedDifference
    subgroups: pd.DataFrame
    subgroup_columns: tuple[str, ...]
    changes: pd.DataFrame
    decisions: tuple[RunDecision, RunDecision]
    confidence: float
    notes: tuple[str, ...] = ()
    sequence: PairedSequence | None = None
    mcnemar: McNemarTest | None = None
    margin: float = 0.0
    budget: int | None = None

    @property
    def regressions(self) -> pd.DataFrame:
        return self.changes[self.changes["change"] == "regression"].reset_index(drop=True)

    @property
    def improvements(self) -> pd.DataFrame:
        return self.changes[self.changes["change"] == "improvement"].reset_index(drop=True)

    def to_dict(self) -> dict:
        clean = lambda v: None if isinstance(v, float) and not math.isfinite(v) else v  # noqa: E731
        return {"names": list(self.names), "n_common": self.n_common, "confidence": self.confidence,
                "only_a": {"count": len(self.only_a), "ids": list(self.only_a)},
                "only_b": {"count": len(self.only_b), "ids": list(self.only_b)},
                "overall": self.overall.to_dict(),
                "subgroup_columns": list(self.subgroup_columns),
                "subgroups": [{k: clean(v) for k, v in r.items()} for r in self.subgroups.to_dict(orient="records")],
                "regressions": self.regressions.to_dict(orient="records"),
                "improvements": self.improvements.to_dict(orient="records"),
                "decisions": [d.to_dict() for d in self.decisions], "notes": list(self.notes),
                "margin": self.margin, "budget": self.budget,
                "sequential": self.sequence.to_dict() if self.sequence is not None else None,
                "mcnemar": self.mcnemar.to_dict() if self.mcnemar is not None else None}

    def __repr__(self) -> str:
        return (f"RunComparison({self.names[0]!r} vs {self.names[1]!r}, common={self.n_common}, "
                f"{self.overall!r})")


def _ids(data, role: str) -> np.ndarray:
    if data.id is None:
        raise InputError(f"run {role} ({data.name}): no case id column; a comparison matches cases by id")
    ids = data.frame[data.id].astype(str).to_numpy()
    duplicated = pd.Series(ids).duplicated()
    if duplicated.any():
        raise InputError(f"run {role} ({data.name}): case id {ids[int(np.argmax(duplicated))]!r} appears more "
                         "than once; ids must be unique to pair cases")
    return ids


def _decision(data, name: str, params: AuditParams, model_process: str, auditor_process: str) -> RunDecision:
    result = replay(data.scores, params, model_process=model_process, auditor_process=auditor_process)
    return RunDecision(name, result.n, result.decision, result.dual.stop, model_process, auditor_process,
                       float(result.log_e[model_process][-1]), float(result.log_e[auditor_process][-1]))


def compare_runs(run_a, run_b, params: AuditParams, names: tuple[str, str] = ("A", "B"), confidence: float = 0.95,
                 model_process: str = "SR-LR-UI", auditor_process: str = "AUD-LR-UI", margin: float = 0.0,
                 budget: int | None = None) -> RunComparison:
    """Paired comparison of two :class:`~audit_core.data.loader.AuditData` runs (module doc).

    Cases are paired in A's order; with a ``budget`` only the first ``budget`` common cases are used
    (every statistic on the same cases)."""
    margin, budget = check_margin(margin), check_budget(budget)
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not 0.0 < confidence < 1.0:
        raise InputError(f"confidence: must lie strictly between 0 and 1, got {confidence!r}")
    ids_a, ids_b = _ids(run_a, "A"), _ids(run_b, "B")
    in_a, in_b = set(ids_a), set(ids_b)
    common = [i for i in ids_a if i in in_b]  # A's order
    if not common:
        raise InputError(f"runs {names[0]} and {names[1]}: no case id in common")
    notes = []
    if budget is not None and len(common) > budget:
        notes.append(f"budget {budget}: the first {budget} of {len(common)} common cases (A's order) are compared")
        common = common[:budget]
    pos_a = pd.Series(np.arange(ids_a.size), index=ids_a)[common].to_numpy()
    pos_b = pd.Series(np.arange(ids_b.size), index=ids_b)[common].to_numpy()
    y_a, y_b = run_a.scores[pos_a], run_b.scores[pos_b]
    source, columns = (run_a, run_a.subgroups) if run_a.subgroups else (run_b, run_b.subgroups)
    positions = pos_a if source is run_a else pos_b
    if columns:
        labels = source.frame[list(columns)].astype(str).to_numpy()[positions]
        label = np.array([" / ".join(row) for row in labels], dtype=object)
        notes.append(f"subgroups from run {names[0] if source is run_a else names[1]}: {', '.join(columns)}")
    else:
        label = np.full(len(common), "(all)", dtype=object)
    rows = []
    alpha = 1.0 - confidence
    values = sorted(set(label))
    spent = budget is not None and len(common) >= budget   # no more cases come: undecided = inconclusive
    for value in values:
        mask = label == value
        sub_budget = int(mask.sum()) if spent else None
        own = paired_sequence(y_a[mask], y_b[mask], alpha, margin, sub_budget)
        family = paired_sequence(y_a[mask], y_b[mask], alpha / len(values), margin, sub_budget)
        test = mcnemar_exact(y_a[mask], y_b[mask])
        rows.append({"subgroup": value, **paired_difference(y_a[mask], y_b[mask], confidence).to_dict(),
                     "cs_low": own.lower, "cs_high": own.upper, "fw_low": family.lower, "fw_high": family.upper,
                     "decision": family.decision, "mcnemar_p": test.pvalue if test is not None else math.nan})
    changed = y_a != y_b
    changes = pd.DataFrame({"id": np.asarray(common, dtype=object)[changed], "subgroup": label[changed],
                            "score_a": y_a[changed], "score_b": y_b[changed],
                            "change": np.where(y_b[changed] < y_a[changed], "regression", "improvement")})
    decisions = (_decision(run_a, names[0], params, model_process, auditor_process),
                 _decision(run_b, names[1], params, model_process, auditor_process))
    return RunComparison(names=tuple(names), n_common=len(common),
                         only_a=tuple(i for i in ids_a if i not in in_b), only_b=tuple(i for i in ids_b if i not in in_a),
                         overall=paired_difference(y_a, y_b, confidence), subgroups=pd.DataFrame(rows),
                         subgroup_columns=tuple(columns), changes=changes, decisions=decisions,
                         confidence=confidence, notes=tuple(notes),
                         sequence=paired_sequence(y_a, y_b, alpha, margin, budget), mcnemar=mcnemar_exact(y_a, y_b),
                         margin=margin, budget=budget)


# ------------------------------------------------------------------------------------ many runs

def _prpl_eb_final(x: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Final running-intersection PrPl-EB bounds of every row of ``x`` (rows x n, values in
    [0, 1]): the formulas of :func:`audit_core.sequential.confseq._prpl_eb` along axis 1 (tested
    equal to :func:`confidence_sequence` row by row), in place to keep the temporaries few. The
    clip to [0, 1] commutes with the running max / min, so it is applied to the final values.
    Rows whose intersection went empty are recomputed by :func:`confidence_sequence` itself (its
    frozen meeting point)."""
    rows, n = x.shape
    log_term = math.log(2.0 / alpha)
    t = np.arange(1, n + 1, dtype=float)
    mu = np.cumsum(x, axis=1)                                     # S_t
    mu += 0.5
    mu /= t + 1.0                                                 # mu_hat_t
    work = np.subtract(x, mu)
    np.square(work, out=work)
    sigma2 = np.cumsum(work, axis=1, out=work)
    sigma2 += 0.25
    sigma2 /= t + 1.0                                             # sigma2_t
    lam = np.empty_like(sigma2)                                   # sigma2_{t-1} * t * log(1 + t)
    lam[:, 0] = 0.25
    lam[:, 1:] = sigma2[:, :-1]
    lam *= t
    lam *= np.log1p(t)
    np.divide(2.0 * log_term, lam, out=lam)
    np.sqrt(lam, out=lam)
    np.minimum(lam, LAMBDA_MAX, out=lam)                          # lambda_t
    mu[:, 1:] = mu[:, :-1]
    mu[:, 0] = 0.5                                                # mu_hat_{t-1}
    np.subtract(x, mu, out=mu)
    np.square(mu, out=mu)                                         # (X_t - mu_hat_{t-1})^2
    v_psi = np.negative(lam, out=sigma2)
    np.log1p(v_psi, out=v_psi)
    np.negative(v_psi, out=v_psi)
    v_psi -= lam
    v_psi *= mu                                                   # v_t psi_E(lambda_t) = 4 (.)^2 (.)/4
    half = np.cumsum(v_psi, axis=1, out=v_psi)
    half += log_term
    np.multiply(lam, x, out=mu)
    centre = np.cumsum(mu, axis=1, out=mu)
    cum_lam = np.cumsum(lam, axis=1, out=lam)
    centre /= cum_lam
    half /= cum_lam
    low = np.subtract(centre, half, out=cum_lam).max(axis=1)
    high = np.add(centre, half, out=centre).min(axis=1)
    low, high = np.clip(low, 0.0, 1.0), np.clip(high, 0.0, 1.0)
    for row in np.flatnonzero(low > high):
        low[row], high[row] = confidence_sequence(x[row], alpha, method=PRPL_EB).final
    return low, high


# Cells (pairs x cases) computed at once by pairwise_bounds: about 1 MB per temporary.
_CHUNK_CELLS = 131_072


def pairwise_bounds(scores: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    """K x K matrices (lower, upper): the level-``level`` confidence sequence for mu_j - mu_i of
    runs i and j (rows of ``scores``, K x n, matched cases in the same order) after the last case;
    diagonal 0. lower[j, i] = -upper[i, j] (the same sequence seen from the other run)."""
    k = scores.shape[0]
    lower, upper = np.zeros((k, k)), np.zeros((k, k))
    # rows of a few pairs at a time, so that the temporaries stay in the cache
    pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]
    chunk = max(1, _CHUNK_CELLS // max(scores.shape[1], 1))
    for start in range(0, len(pairs), chunk):
        first, second = np.array(pairs[start:start + chunk]).T
        x = scores[second] - scores[first]
        x += 1.0
        x *= 0.5
        low, high = _prpl_eb_final(x, level)
        lower[first, second], upper[first, second] = 2.0 * low - 1.0, 2.0 * high - 1.0
        lower[second, first], upper[second, first] = 1.0 - 2.0 * high, 1.0 - 2.0 * low
    return lower, upper


def tie_groups(lower: np.ndarray, upper: np.ndarray, means: np.ndarray, margin: float) -> tuple[tuple[int, ...], ...]:
    """Connected components of "not separated at margin" (module doc), best first (by the best
    mean in the group; within a group by mean, ties by input order)."""
    from scipy.sparse.csgraph import connected_components
    separated = (lower > margin) | (upper < -margin)
    count, labels = connected_components(~separated, directed=False)
    order = np.lexsort((np.arange(len(means)), -np.asarray(means)))
    groups, seen = [], {}
    for run in order:
        label = int(labels[run])
        if label not in seen:
            seen[label] = len(groups)
            groups.append([])
        groups[seen[label]].append(int(run))
    return tuple(tuple(g) for g in groups)


def rank_intervals(lower: np.ndarray, upper: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rank interval of every run (1 = best; module doc): [1 + #{j: L_ij > 0}, K - #{j: U_ij < 0}]."""
    k = lower.shape[0]
    return 1 + (lower > 0).sum(axis=1), k - (upper < 0).sum(axis=1)


@dataclass(frozen=True, repr=False)
class ManyRunComparison:
    """All pairwise comparisons of K runs on the same matched cases (module doc).

    Attributes
    ----------
    names : the runs, in input order. n : matched cases used. means : each run's mean score.
    alpha, margin : as given. multiplicity : "e-Bonferroni" (every pairwise sequence at level
    alpha / family_size, family_size = K(K-1)/2: all hold at once with probability >= 1 - alpha).
    lower, upper : K x K bounds on mu_j - mu_i (row i, column j) after the last case.
    groups : tie groups as tuples of run indices, best first. rank_low, rank_high : rank
    intervals (1 = best). pairs : one row per pair i < j (a = run i, b = run j, difference b - a,
    lower, upper, decision with the margin). method : the construction (hedged betting for two
    runs, PrPl-EB for three or more).
    """

    names: tuple[str, ...]
    n: int
    means: tuple[float, ...]
    alpha: float
    margin: float
    multiplicity: str
    family_size: int
    lower: np.ndarray = field(repr=False)
    upper: np.ndarray = field(repr=False)
    groups: tuple[tuple[int, ...], ...]
    rank_low: tuple[int, ...]
    rank_high: tuple[int, ...]
    pairs: pd.DataFrame = field(repr=False)
    method: str = MANY_METHOD

    @property
    def level(self) -> float:
        """The level of each pairwise sequence (alpha / family_size)."""
        return self.alpha / max(self.family_size, 1)

    @property
    def group_of(self) -> tuple[int, ...]:
        """Each run's tie group (1 = best group)."""
        out = [0] * len(self.names)
        for g, members in enumerate(self.groups, start=1):
            for run in members:
                out[run] = g
        return tuple(out)

    def tie_table(self) -> pd.DataFrame:
        """One row per run, best group first: group, run, mean, rank interval, the runs it is
        not separated from."""
        rows = []
        for g, members in enumerate(self.groups, start=1):
            for run in members:
                ties = [self.names[j] for j in range(len(self.names)) if j != run
                        and not (self.lower[run, j] > self.margin or self.upper[run, j] < -self.margin)]
                rows.append({"group": g, "run": self.names[run], "mean": self.means[run],
                             "rank_low": int(self.rank_low[run]), "rank_high": int(self.rank_high[run]),
                             "indistinguishable_from": ", ".join(ties)})
        return pd.DataFrame(rows, columns=["group", "run", "mean", "rank_low", "rank_high", "indistinguishable_from"])

    def to_dict(self) -> dict:
        return {"names": list(self.names), "n": self.n, "means": [float(m) for m in self.means],
                "alpha": self.alpha, "margin": self.margin, "multiplicity": self.multiplicity,
                "family_size": self.family_size, "level_per_pair": self.level, "method": self.method,
                "groups": [[self.names[r] for r in g] for g in self.groups],
                "ranks": [{"run": name, "rank_low": int(lo), "rank_high": int(hi)}
                          for name, lo, hi in zip(self.names, self.rank_low, self.rank_high, strict=True)],
                "pairs": self.pairs.to_dict(orient="records")}

    def __repr__(self) -> str:
        return (f"ManyRunComparison(K={len(self.names)}, n={self.n}, margin={self.margin:g}, "
                f"groups={[[self.names[r] for r in g] for g in self.groups]})")


def compare_many(scores, names: tuple[str, ...] | None = None, alpha: float = 0.05, margin: float = 0.0,
                 budget: int | None = None) -> ManyRunComparison:
    """Every pair of K runs (rows of ``scores``, K x n, the same cases in the same order) with
    e-Bonferroni over the K(K-1)/2 pairs, tie groups at ``margin`` and rank intervals (module doc)."""
    margin, budget = check_margin(margin), check_budget(budget)
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float, np.floating)) or not 0.0 < alpha < 1.0:
        raise InputError(f"alpha: must be a number strictly between 0 and 1, got {alpha!r}")
    y = np.asarray(scores, dtype=float)
    if y.ndim != 2 or y.shape[0] < 2:
        raise InputError(f"runs: need at least two runs to compare, got {y.shape[0] if y.ndim == 2 else 0}")
    if y.shape[1] == 0:
        raise InputError("runs: no case is in every run")
    if not ((y >= 0.0) & (y <= 1.0)).all():
        raise InputError("scores: every score must be a number in [0, 1]")
    if budget is not None:
        y = y[:, :budget]
    k, n = y.shape
    names = tuple(names) if names is not None else tuple(f"run {i + 1}" for i in range(k))
    if len(names) != k:
        raise InputError(f"names: {len(names)} name(s) for {k} run(s)")
    family = k * (k - 1) // 2
    if k == 2:   # one pair: the two-run sequence itself, so both views give one answer
        method = PAIRED_METHOD
        low, high = difference_sequence(y[0], y[1], alpha, method).final
        lower, upper = np.array([[0.0, low], [-high, 0.0]]), np.array([[0.0, high], [-low, 0.0]])
    else:
        method = MANY_METHOD
        lower, upper = pairwise_bounds(y, alpha / family)
    means = y.mean(axis=1)
    groups = tie_groups(lower, upper, means, margin)
    rank_low, rank_high = rank_intervals(lower, upper)
    rows = [{"a": names[i], "b": names[j], "difference": float(means[j] - means[i]),
             "lower": float(lower[i, j]), "upper": float(upper[i, j]),
             "decision": margin_decision(lower[i, j], upper[i, j], margin, n, budget)}
            for i in range(k) for j in range(i + 1, k)]
    return ManyRunComparison(names, n, tuple(float(m) for m in means), float(alpha), margin, MULTIPLICITY, family,
                             lower, upper, groups, tuple(int(r) for r in rank_low), tuple(int(r) for r in rank_high),
                             pd.DataFrame(rows, columns=["a", "b", "difference", "lower", "upper", "decision"]), method)


@dataclass(frozen=True, repr=False)
class MatchedRuns:
    """K runs on the cases they all share: ``ids`` (the first run's order), ``scores`` (K x n),
    ``unmatched``: per run, the ids it has that some other run lacks."""

    names: tuple[str, ...]
    ids: tuple[str, ...]
    scores: np.ndarray
    unmatched: dict

    def to_dict(self) -> dict:
        return {name: {"count": len(ids), "ids": list(ids)} for name, ids in self.unmatched.items()}


def match_runs(runs, names: Sequence[str]) -> MatchedRuns:
    """Match K :class:`~audit_core.data.loader.AuditData` runs by case id (module doc)."""
    ids = [_ids(run, name) for run, name in zip(runs, names, strict=True)]
    common = set(ids[0]).intersection(*map(set, ids[1:]))
    order = [i for i in ids[0] if i in common]
    if not order:
        raise InputError(f"runs {', '.join(names)}: no case id is in every run")
    scores = np.vstack([pd.Series(run.scores, index=run_ids)[order].to_numpy(dtype=float)
                        for run, run_ids in zip(runs, ids, strict=True)])
    unmatched = {name: tuple(i for i in run_ids if i not in common) for name, run_ids in zip(names, ids, strict=True)}
    return MatchedRuns(tuple(names), tuple(order), scores, unmatched)


@dataclass(frozen=True, repr=False)
class TaskComparisons:
    """K runs compared within each task and over all tasks pooled.

    Attributes
    ----------
    tasks : the tasks, in the order their first case appears. per_task : one
    :class:`ManyRunComparison` per task, on that task's matched cases, each at level
    ``alpha / len(tasks)`` (Bonferroni over the tasks: every task's claims hold at once with
    probability >= 1 - alpha). pooled : the comparison on every matched case at level ``alpha``,
    each case weighing the same (a task weighs by its number of cases). pooling : that rule in words.
    """

    tasks: tuple[str, ...]
    per_task: tuple[ManyRunComparison, ...]
    pooled: ManyRunComparison
    alpha: float

    @property
    def pooling(self) -> str:
        return (f"pooled: every matched case weighs the same (a task by its number of cases), at level "
                f"{self.alpha:g}; per task: each of the {len(self.tasks)} tasks at level "
                f"{self.alpha:g}/{len(self.tasks)} (Bonferroni over the tasks), so every task's claims hold at once")

    def table(self) -> pd.DataFrame:
        """One row per task and run (the pooled rows last): cases, mean, tie group, rank interval."""
        rows = []
        for task, many in (*zip(self.tasks, self.per_task, strict=True), ("pooled", self.pooled)):
            group_of = many.group_of
            for run, name in enumerate(many.names):
                rows.append({"task": task, "run": name, "n": many.n, "mean": many.means[run],
                             "group": group_of[run], "rank_low": many.rank_low[run], "rank_high": many.rank_high[run]})
        return pd.DataFrame(rows, columns=["task", "run", "n", "mean", "group", "rank_low", "rank_high"])

    def to_dict(self) -> dict:
        return {"pooling": self.pooling, "tasks": list(self.tasks),
                "per_task": {t: m.to_dict() for t, m in zip(self.tasks, self.per_task, strict=True)},
                "pooled": self.pooled.to_dict()}

    def __repr__(self) -> str:
        return f"TaskComparisons(tasks={list(self.tasks)}, K={len(self.pooled.names)}, n={self.pooled.n})"


def compare_by_task(scores, tasks, names: tuple[str, ...] | None = None, alpha: float = 0.05, margin: float = 0.0,
                    budget: int | None = None) -> TaskComparisons:
    """:func:`compare_many` within each task (``tasks``: each matched case's task, in the cases'
    order) at level alpha / T, and over all cases at level alpha. ``budget`` (the planned number of
    paired cases) applies to the pooled comparison; within a task, undecided is "continue"."""
    y = np.asarray(scores, dtype=float)
    labels = np.asarray([str(t) for t in tasks], dtype=object)
    if y.ndim != 2 or len(labels) != y.shape[1]:
        raise InputError(f"tasks: {len(labels)} task label(s) for {y.shape[-1] if y.ndim else 0} matched case(s)")
    order = tuple(dict.fromkeys(labels))
    if len(order) < 2:
        raise InputError(f"tasks: the matched cases span {len(order)} task; per task and pooled needs two or more")
    pooled = compare_many(y, names, alpha, margin, budget)
    per_task = tuple(compare_many(y[:, labels == t], pooled.names, alpha / len(order), margin) for t in order)
    return TaskComparisons(order, per_task, pooled, float(alpha))
