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
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.stats import t as student_t

from audit_core.errors import InputError
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
    ``decisions``: the two :class:`RunDecision`; ``confidence``; ``notes``.
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
                "decisions": [d.to_dict() for d in self.decisions], "notes": list(self.notes)}

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
                 model_process: str = "SR-LR-UI", auditor_process: str = "AUD-LR-UI") -> RunComparison:
    """Paired comparison of two :class:`~audit_core.data.loader.AuditData` runs (module doc)."""
    ids_a, ids_b = _ids(run_a, "A"), _ids(run_b, "B")
    in_a, in_b = set(ids_a), set(ids_b)
    common = [i for i in ids_a if i in in_b]  # A's order
    if not common:
        raise InputError(f"runs {names[0]} and {names[1]}: no case id in common")
    pos_a = pd.Series(np.arange(ids_a.size), index=ids_a)[common].to_numpy()
    pos_b = pd.Series(np.arange(ids_b.size), index=ids_b)[common].to_numpy()
    y_a, y_b = run_a.scores[pos_a], run_b.scores[pos_b]
    notes = []
    source, columns = (run_a, run_a.subgroups) if run_a.subgroups else (run_b, run_b.subgroups)
    positions = pos_a if source is run_a else pos_b
    if columns:
        labels = source.frame[list(columns)].astype(str).to_numpy()[positions]
        label = np.array([" / ".join(row) for row in labels], dtype=object)
        notes.append(f"subgroups from run {names[0] if source is run_a else names[1]}: {', '.join(columns)}")
    else:
        label = np.full(len(common), "(all)", dtype=object)
    rows = []
    for value in sorted(set(label)):
        mask = label == value
        rows.append({"subgroup": value, **paired_difference(y_a[mask], y_b[mask], confidence).to_dict()})
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
                         confidence=confidence, notes=tuple(notes))
