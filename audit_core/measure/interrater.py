"""Agreement between labellers (issue 34): percent agreement, Cohen's κ, Krippendorff's α.

Labels come in long format, one row per label: ``cases[i]`` was given ``scores[i]`` by
``annotators[i]`` (each annotator labels a case at most once). Only *pairable* cases enter the
statistics: cases with at least two labels.

* **Percent agreement**: the share of pairable cases on which every label is the same.
* **Cohen's κ** (exactly two annotators): ``κ = (p_o − p_e) / (1 − p_e)`` over the cases both
  labelled, ``p_o`` the share of those cases with equal labels and ``p_e = Σ_k p_A(k) p_B(k)``
  the agreement expected from each annotator's own label frequencies (unweighted: graded scores
  are categories).
* **Krippendorff's α** (any number of annotators, missing labels allowed): ``α = 1 − D_o / D_e``
  with, over the ``n`` pairable labels, ``m_u`` labels of case ``u``,
  ``D_o = (1/n) Σ_u Σ_{i≠j in u} δ(x_i, x_j) / (m_u − 1)`` (observed disagreement) and
  ``D_e = Σ_{i≠j} δ(x_i, x_j) / (n (n − 1))`` over all pairs of pairable labels (expected).
  ``δ`` is 0/1 inequality (``nominal``: 0/1 and pass/fail labels) or ``(x_i − x_j)²``
  (``interval``: graded scores). Point value and bootstrap use the formula through per-case sums
  (``Σ_{i≠j}(x_i − x_j)² = 2 (m Σx² − (Σx)²)`` and ``Σ_{i≠j}[x_i ≠ x_j] = m² − Σ_c m_c²``), so
  that thousands of resamples cost one matrix product; the tests check it against the
  `krippendorff` package (Castro's ``krippendorff.alpha``) and against a hand computation.

Intervals: percentile bootstrap over cases (``bootstrap`` resamples of the pairable cases, each
case weighted by a Poisson(1) count, seeded), within each subgroup for the subgroup's numbers.

Per annotator: agreement with the rest (the share of pairs this annotator forms with another
label on a shared case that agree) and bias (this annotator's mean label minus the others' mean
label on the same shared cases: for 0/1 labels, the difference in the rate of 1s).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from audit_core.errors import InputError

LEVELS = ("nominal", "interval")
_EQUAL = 1e-9   # two scores closer than this are the same label


@dataclass(frozen=True)
class AgreementStatistic:
    """One statistic with its bootstrap interval: ``name``, ``estimate`` (NaN when undefined, e.g.
    α when every label is the same), ``low`` / ``high`` (percentile interval at ``confidence``)."""

    name: str
    estimate: float
    low: float
    high: float
    confidence: float

    def to_dict(self) -> dict:
        return {"estimate": _num(self.estimate), "low": _num(self.low), "high": _num(self.high),
                "confidence": self.confidence}

    def __repr__(self) -> str:
        return f"{self.name}={self.estimate:.3f} [{self.low:.3f}, {self.high:.3f}]"


@dataclass(frozen=True)
class GroupAgreement:
    """The three statistics over one set of cases (``subgroup``: ``"(all)"`` for the audit)."""

    subgroup: str
    n_cases: int            # pairable cases (two labels or more)
    n_labels: int           # labels on those cases
    percent_agreement: AgreementStatistic
    cohen_kappa: AgreementStatistic | None   # None unless exactly two annotators
    krippendorff_alpha: AgreementStatistic

    def to_dict(self) -> dict:
        return {"subgroup": self.subgroup, "n_cases": self.n_cases, "n_labels": self.n_labels,
                "percent_agreement": self.percent_agreement.to_dict(),
                "cohen_kappa": None if self.cohen_kappa is None else self.cohen_kappa.to_dict(),
                "krippendorff_alpha": self.krippendorff_alpha.to_dict()}

    def __repr__(self) -> str:
        kappa = "" if self.cohen_kappa is None else f", {self.cohen_kappa!r}"
        return (f"GroupAgreement({self.subgroup!r}, n={self.n_cases}, {self.percent_agreement!r}{kappa}, "
                f"{self.krippendorff_alpha!r})")


@dataclass(frozen=True)
class AnnotatorAgreement:
    """One annotator against the rest on shared cases: ``shared`` cases, ``agreement`` (share of
    agreeing pairs with the others' labels), ``mean`` (own mean label), ``others_mean`` and
    ``bias`` = mean − others_mean."""

    annotator: str
    shared: int
    agreement: float
    mean: float
    others_mean: float
    bias: float

    def to_dict(self) -> dict:
        return {"annotator": self.annotator, "shared": self.shared, "agreement": _num(self.agreement),
                "mean": _num(self.mean), "others_mean": _num(self.others_mean), "bias": _num(self.bias)}


@dataclass(frozen=True)
class Disagreement:
    """A pairable case whose labels differ: ``labels`` as (annotator, score) in the order given."""

    case_id: str
    subgroup: str
    labels: tuple

    def to_dict(self) -> dict:
        return {"case_id": self.case_id, "subgroup": self.subgroup,
                "labels": [{"annotator": a, "score": s} for a, s in self.labels]}


@dataclass(frozen=True)
class Agreement:
    """Agreement of an audit's labels: ``overall`` and ``by_subgroup`` (:class:`GroupAgreement`),
    ``annotators`` (:class:`AnnotatorAgreement`), ``disagreements``, the ``level`` of α,
    ``n_annotators``, ``bootstrap``, ``seed``."""

    overall: GroupAgreement
    by_subgroup: tuple
    annotators: tuple
    disagreements: tuple
    level: str
    n_annotators: int
    bootstrap: int
    seed: int

    @property
    def percent_agreement(self) -> AgreementStatistic:
        return self.overall.percent_agreement

    @property
    def cohen_kappa(self) -> AgreementStatistic | None:
        return self.overall.cohen_kappa

    @property
    def krippendorff_alpha(self) -> AgreementStatistic:
        return self.overall.krippendorff_alpha

    def to_dict(self) -> dict:
        overall = self.overall.to_dict()
        return {**{k: overall[k] for k in ("percent_agreement", "cohen_kappa", "krippendorff_alpha")},
                "n_cases": self.overall.n_cases, "n_labels": self.overall.n_labels,
                "n_annotators": self.n_annotators, "level": self.level, "bootstrap": self.bootstrap, "seed": self.seed,
                "subgroups": [g.to_dict() for g in self.by_subgroup],
                "annotators": [a.to_dict() for a in self.annotators],
                "disagreements": [d.to_dict() for d in self.disagreements]}

    def __repr__(self) -> str:
        kappa = "" if self.cohen_kappa is None else f", {self.cohen_kappa!r}"
        return (f"Agreement(n={self.overall.n_cases} cases, {self.n_annotators} annotators, {self.level}, "
                f"{self.percent_agreement!r}{kappa}, {self.krippendorff_alpha!r})")


def _num(x: float) -> float | None:
    return None if x is None or not math.isfinite(x) else float(x)


# -- the statistics on a matrix ------------------------------------------------------------------

def reliability_matrix(cases, annotators, scores) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(case ids, annotator names, matrix): ``matrix[a, u]`` the score annotator ``a`` gave case
    ``u``, NaN where none (the `krippendorff` package's ``reliability_data`` layout)."""
    return _reliability(cases, annotators, scores)[:3]


def _reliability(cases, annotators, scores):
    import pandas as pd  # factorize: a hash of the ids, several times faster than sorting strings

    u, case_ids = pd.factorize(pd.Series(np.asarray(cases)).astype(str), sort=True)
    a, names = pd.factorize(pd.Series(np.asarray(annotators)).astype(str), sort=True)
    case_ids, names = np.asarray(case_ids), np.asarray(names)
    scores = np.asarray(scores, dtype=float)
    if not (len(u) == len(a) == len(scores)):
        raise InputError(f"labels: cases, annotators and scores differ in length "
                         f"({len(u)}, {len(a)}, {len(scores)})")
    if len(scores) and not np.isfinite(scores).all():
        raise InputError("labels: every score must be a finite number")
    matrix = np.full((len(names), len(case_ids)), np.nan)
    flat = a.astype(np.int64) * len(case_ids) + u
    twice = np.bincount(flat, minlength=len(names) * len(case_ids)) > 1 if len(flat) else np.zeros(0, bool)
    if twice.any():
        dup = np.flatnonzero(twice)[0]
        raise InputError(f"labels: annotator {names[dup // len(case_ids)]!r} labelled case "
                         f"{case_ids[dup % len(case_ids)]!r} more than once")
    matrix[a, u] = scores
    return case_ids, names, matrix, u


def level_for(scores) -> str:
    """``nominal`` when every score is 0 or 1 (pass/fail), else ``interval`` (graded)."""
    scores = np.asarray(scores, dtype=float)
    return "nominal" if np.isin(scores, (0.0, 1.0)).all() else "interval"


def _case_stats(matrix: np.ndarray, level: str) -> dict:
    """Per pairable case, the sums every statistic is built from (columns of ``matrix`` with >= 2 labels)."""
    have = ~np.isnan(matrix)
    m = have.sum(axis=0)
    keep = m >= 2
    x, have, m = matrix[:, keep], have[:, keep], m[keep].astype(float)
    xz = np.where(have, x, 0.0)
    values = np.unique(x[have])
    # counts[c, u]: labels of value c on case u (values are the distinct scores)
    counts = np.stack([((np.abs(x - v) < _EQUAL) & have).sum(axis=0) for v in values]) if len(values) else \
        np.zeros((0, x.shape[1]))
    s1, s2 = xz.sum(axis=0), (xz ** 2).sum(axis=0)
    if level == "interval":
        within = 2.0 * (m * s2 - s1 ** 2)           # Σ_{i≠j} (x_i − x_j)²
    else:
        within = m ** 2 - (counts ** 2).sum(axis=0)   # Σ_{i≠j} [x_i ≠ x_j]
    agree = (counts.max(axis=0) == m) if len(values) else np.zeros(0, bool)
    return {"keep": keep, "m": m, "s1": s1, "s2": s2, "counts": counts.astype(float), "values": values,
            "d_o": within / (m - 1.0), "agree": agree.astype(float)}


def _alpha_from_sums(w: np.ndarray, st: dict, level: str) -> np.ndarray:
    """α for each row of case weights ``w`` (B × cases; a row of ones is the sample itself)."""
    n = w @ st["m"]
    with np.errstate(invalid="ignore", divide="ignore"):
        d_o = (w @ st["d_o"]) / n
        if level == "interval":
            sx, sxx = w @ st["s1"], w @ st["s2"]
            d_e = 2.0 * (n * sxx - sx ** 2) / (n * (n - 1.0))
        else:
            totals = w @ st["counts"].T                   # B × values
            d_e = (n ** 2 - (totals ** 2).sum(axis=1)) / (n * (n - 1.0))
        return np.where(d_e > 1e-12, 1.0 - d_o / d_e, np.nan)


def _kappa_from_sums(w: np.ndarray, both: dict) -> np.ndarray:
    """Cohen's κ for each row of case weights over the cases both annotators labelled."""
    total = w.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        p_o = (w @ both["equal"]) / total
        p_e = ((w @ both["a"].T) * (w @ both["b"].T)).sum(axis=1) / total ** 2
        return np.where(p_e < 1.0 - 1e-12, (p_o - p_e) / (1.0 - p_e), np.nan)


def percent_agreement(matrix: np.ndarray) -> float:
    """Share of pairable cases (columns with >= 2 labels) on which every label is the same."""
    st = _case_stats(np.asarray(matrix, float), "nominal")
    return float(st["agree"].mean()) if len(st["agree"]) else math.nan


def cohen_kappa(a, b) -> float:
    """Cohen's κ of two annotators' labels ``a`` and ``b`` (NaN where one gave none; see module doc)."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    both = _kappa_inputs(np.vstack([a, b]))
    if both is None:
        return math.nan
    return float(_kappa_from_sums(np.ones((1, both["a"].shape[1])), both)[0])


def _kappa_inputs(matrix: np.ndarray) -> dict | None:
    pair = ~np.isnan(matrix).any(axis=0)
    if matrix.shape[0] != 2 or not pair.any():
        return None
    a, b = matrix[0, pair], matrix[1, pair]
    values = np.unique(np.concatenate([a, b]))
    ia = np.stack([np.abs(a - v) < _EQUAL for v in values]).astype(float)
    ib = np.stack([np.abs(b - v) < _EQUAL for v in values]).astype(float)
    return {"a": ia, "b": ib, "equal": (np.abs(a - b) < _EQUAL).astype(float), "pair": pair}


def krippendorff_alpha(matrix: np.ndarray, level: str = "nominal") -> float:
    """Krippendorff's α of a reliability matrix (annotators × cases, NaN = no label), by the
    per-case sums of the module doc; NaN when fewer than two pairable labels or no variation.
    Equal to the `krippendorff` package's ``alpha`` (tests/measure/test_agreement.py), which takes
    about 6 times longer per call and has no bootstrap (bench/bench_agreement.py)."""
    matrix = np.asarray(matrix, float)
    if level not in LEVELS:
        raise InputError(f"level: expected one of {', '.join(LEVELS)}, got {level!r}")
    st = _case_stats(matrix, level)
    if st["m"].sum() < 2 or len(st["values"]) < 2:
        return math.nan
    return float(_alpha_from_sums(np.ones((1, len(st["m"]))), st, level)[0])


# Poisson(1) by inverse CDF over 16-bit uniforms: a table lookup, several times faster than
# Generator.poisson for millions of weights; each count's probability is within 2^-16 of Poisson's.
_POISSON_TABLE = np.searchsorted(
    np.cumsum([math.exp(-1.0) / math.factorial(k) for k in range(12)]),
    (np.arange(2 ** 16) + 0.5) / 2 ** 16).astype(np.float64)


def _bootstrap_weights(n_cases: int, bootstrap: int, rng: np.random.Generator) -> np.ndarray:
    """bootstrap × n_cases resample weights: how often each case is drawn, Poisson(1) (the Poisson
    bootstrap: the multinomial counts of n draws with replacement, made independent; every
    statistic here is a ratio of weighted sums, so the rows need not sum to n)."""
    if n_cases == 0 or bootstrap == 0:
        return np.zeros((0, n_cases))
    return _POISSON_TABLE[rng.integers(0, 2 ** 16, size=(bootstrap, n_cases), dtype=np.uint16)]


def _interval(name: str, estimate: float, replicates: np.ndarray, confidence: float) -> AgreementStatistic:
    reps = replicates[np.isfinite(replicates)]
    if not math.isfinite(estimate) or len(reps) == 0:
        return AgreementStatistic(name, estimate, math.nan, math.nan, confidence)
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(reps, [tail, 1.0 - tail])
    return AgreementStatistic(name, float(estimate), float(low), float(high), confidence)


def _group(label: str, matrix: np.ndarray, level: str, bootstrap: int, confidence: float,
           rng: np.random.Generator) -> GroupAgreement:
    st = _case_stats(matrix, level)
    n_cases = int(st["keep"].sum())
    w = _bootstrap_weights(n_cases, bootstrap, rng)
    ones = np.ones((1, n_cases))
    with np.errstate(invalid="ignore", divide="ignore"):
        pa = float(st["agree"].mean()) if n_cases else math.nan
        pa_reps = (w @ st["agree"]) / w.sum(axis=1) if n_cases else np.zeros(0)
        alpha = krippendorff_alpha(matrix, level)
        alpha_reps = _alpha_from_sums(w, st, level) if n_cases else np.zeros(0)
    kappa = None
    if matrix.shape[0] == 2:
        both = _kappa_inputs(matrix)
        if both is None:
            kappa = AgreementStatistic("cohen_kappa", math.nan, math.nan, math.nan, confidence)
        else:
            # κ's cases are those both labelled: with two annotators, exactly the pairable ones
            kappa = _interval("cohen_kappa", float(_kappa_from_sums(ones, both)[0]), _kappa_from_sums(w, both),
                              confidence)
    return GroupAgreement(label, n_cases, int(st["m"].sum()), _interval("percent_agreement", pa, pa_reps, confidence),
                          kappa, _interval("krippendorff_alpha", alpha, alpha_reps, confidence))


def annotator_agreement(names, matrix: np.ndarray) -> tuple[AnnotatorAgreement, ...]:
    """Each annotator against the others on the cases they share (see the module doc)."""
    have = ~np.isnan(matrix)
    xz = np.where(have, matrix, 0.0)
    rows = []
    for i, name in enumerate(names):
        others_have = np.delete(have, i, axis=0)
        shared = have[i] & others_have.any(axis=0)
        if not shared.any():
            rows.append(AnnotatorAgreement(str(name), 0, math.nan, math.nan, math.nan, math.nan))
            continue
        own = matrix[i, shared]
        others = np.delete(matrix, i, axis=0)[:, shared]
        ok = ~np.isnan(others)
        pairs = ok.sum()
        agree = ((np.abs(others - own) < _EQUAL) & ok).sum()
        others_mean = float(np.delete(xz, i, axis=0)[:, shared].sum() / pairs)
        mean = float(own.mean())
        rows.append(AnnotatorAgreement(str(name), int(shared.sum()), float(agree / pairs), mean, others_mean,
                                       mean - others_mean))
    return tuple(rows)


def check_bootstrap(bootstrap, confidence) -> None:
    """``bootstrap`` a whole number >= 0 and ``confidence`` strictly between 0 and 1 (else InputError)."""
    if isinstance(bootstrap, bool) or not isinstance(bootstrap, (int, np.integer)) or bootstrap < 0:
        raise InputError(f"bootstrap: expected a whole number >= 0, got {bootstrap!r}")
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not 0.0 < float(confidence) < 1.0:
        raise InputError(f"confidence: expected a number between 0 and 1, got {confidence!r}")


def agreement(cases, annotators, scores, subgroups=None, level: str | None = None, bootstrap: int = 1000,
              confidence: float = 0.95, seed: int = 0) -> Agreement:
    """Agreement of labels in long format (one row per label; see the module doc).

    ``subgroups``: each label's case's subgroup (same for every label of a case), for the per-subgroup
    numbers; ``level``: α's level (default :func:`level_for` the scores); ``bootstrap`` resamples of
    cases for each interval, drawn from ``seed``; ``confidence`` of the percentile intervals.
    """
    check_bootstrap(bootstrap, confidence)
    case_ids, names, matrix, case_of = _reliability(cases, annotators, scores)
    scores = np.asarray(scores, float)
    level = level or level_for(scores)
    if level not in LEVELS:
        raise InputError(f"level: expected one of {', '.join(LEVELS)}, got {level!r}")
    group_of = np.full(len(case_ids), "(all)", dtype=object)
    if subgroups is not None:
        subgroups = np.asarray(subgroups).astype(str)
        if len(subgroups) != len(scores):
            raise InputError("labels: subgroups differ in length from the labels")
        group_of[case_of] = subgroups
    rng = np.random.default_rng(seed)
    overall = _group("(all)", matrix, level, bootstrap, confidence, rng)
    by_subgroup = ()
    if subgroups is not None:
        by_subgroup = tuple(_group(str(g), matrix[:, group_of == g], level, bootstrap, confidence, rng)
                            for g in sorted(set(group_of)))
    have = ~np.isnan(matrix)
    with np.errstate(invalid="ignore"):
        spread = np.nanmax(matrix, axis=0) - np.nanmin(matrix, axis=0) if matrix.size else np.zeros(0)
    differ = np.flatnonzero((have.sum(axis=0) >= 2) & (spread >= _EQUAL))
    ids, groups = case_ids[differ].tolist(), group_of[differ].tolist()
    # every (case, annotator) label of the disagreeing cases at once, case by case in annotator
    # order; then one slice of that list per case (no numpy call, no inner loop per case)
    case_at, who_at = np.nonzero(have[:, differ].T)
    pairs = list(zip(np.asarray([str(n) for n in names], dtype=object)[who_at].tolist(),
                     matrix[:, differ].T[case_at, who_at].tolist(), strict=True))
    ends = np.searchsorted(case_at, np.arange(1, len(differ) + 1)).tolist()
    starts = [0, *ends[:-1]] if ends else []
    disagreements = [Disagreement(str(case), str(group), tuple(pairs[start:end]))
                     for case, group, start, end in zip(ids, groups, starts, ends, strict=True)]
    return Agreement(overall, by_subgroup, annotator_agreement(names, matrix), tuple(disagreements), level,
                     len(names), int(bootstrap), int(seed))
