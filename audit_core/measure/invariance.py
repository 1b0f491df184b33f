"""Mapping and readout invariance, balanced transitions and oracle-transition asymmetry
(paper 000, key empirical results 3-5), over a :class:`ResponseLog`.

A response is *decoded* under its cell's mapping: the letter ``x`` of mapping ``m`` (letters of
TRUE, FALSE, UNKNOWN in that order) is the label ``LABELS[m.index(x)]``; a non-answer or anything
that is not one of the mapping's letters is *invalid* (no label).

* **Semantic equivariance**: a *mapping group* is (model, cluster, world, readout), i.e. every
  cell that differs only in the mapping. It is equivariant when its cells under all mappings are
  valid and decode to the same label. Rate over the groups whose cells are all observed
  (paper: 18/288 = 0.0625) and, *after validity filtering*, over the groups whose cells are all
  valid (paper: 0.1023 = 18/176).
* **Fixed-label attachment**: a group whose valid responses are one and the same letter under every
  mapping (so the label moves with the mapping); over the observed groups (paper: 0.0590 = 17/288).
* **Validity per readout**: valid cells / observed cells of that readout (paper: generated
  394/864 = 0.4560, scoring 859/864 = 0.9942).
* **Readout agreement per world**: a *readout pair* is (model, cluster, world, mapping); among the
  pairs whose cells under every readout are valid, the share that decode to the same label
  (paper: base 132/132, target 125/125, sham 137/137).
* **Balanced transitions**: a cluster's direction is (base oracle, target oracle). Per direction,
  selective response = local paired response (base-correct, target-follow and sham-stay, as in
  :func:`audit_core.measure.estimates.paired_units`) and base accuracy, each over the complete
  paired units of its clusters; the equal-weighted means over the directions present are compared,
  Δ = base accuracy − selective response. Since a selective unit is base-correct, Δ >= 0 on every
  replicate; P(Δ > 0) says how often it is strictly positive (paper: 0.324 [0.304, 0.345] vs 0.620
  [0.600, 0.642], P(Δ > 0) = 1.0).
* **Oracle-transition asymmetry**: selective response pooled over the complete paired units of the
  clusters whose base oracle is TRUE, FALSE, UNKNOWN; difference TRUE − FALSE, its interval and
  P(difference > 0), and the ratio (paper: 0.095 after TRUE vs 0.022 after FALSE).

Intervals: Wilson on pooled counts, and the percentile cluster bootstrap of
:mod:`audit_core.measure.estimates` (:func:`cluster_bootstrap_weights`, :func:`bootstrap_intervals`):
one seeded stream of resampled clusters shared by every rate, equal-weighted mean and difference
of a call, so they are synchronised. A replicate that leaves a direction (or a base label) without
clusters is left out of that mean's interval, and the count of usable replicates is reported.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from audit_core.errors import InputError
from audit_core.identify import parse_cell_id
from audit_core.identify.policies import LABELS
from audit_core.measure.estimates import (
    ALL_MODELS,
    Estimate,
    bootstrap_intervals,
    cluster_bootstrap_weights,
    paired_units,
)
from audit_core.measure.log import ResponseLog, mapping_axis
from audit_core.sequential.intervals import wilson_interval

GROUP = "mapping group"
PAIR = "readout pair"
CELL = "cell"
PAIRED = "paired unit"
ARROW = "→"


@dataclass(frozen=True)
class Contrast:
    """A statistic that is not a plain k/n rate (an equal-weighted mean, a difference or a ratio):
    its point ``value`` and percentile cluster-bootstrap interval; None when not defined."""

    name: str
    label: str
    value: float | None
    boot_low: float | None
    boot_high: float | None

    def __repr__(self) -> str:
        value = "n/a" if self.value is None else f"{self.value:.3f}"
        return f"Contrast({self.name}: {value})"

    def to_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


@dataclass(frozen=True)
class BalancedTransitions:
    """Per-direction selective response and base accuracy (``Estimate`` tuples in ``directions``
    order) and their equal-weighted means, Δ = mean base accuracy − mean selective response,
    P(Δ > 0) over the ``n_replicates`` usable bootstrap replicates."""

    directions: tuple[str, ...]
    selective: tuple[Estimate, ...]
    base_accuracy: tuple[Estimate, ...]
    selective_mean: Contrast
    base_accuracy_mean: Contrast
    delta: Contrast
    p_delta_positive: float | None
    n_replicates: int

    def __repr__(self) -> str:
        return (f"BalancedTransitions({len(self.directions)} directions, selective {self.selective_mean.value}, "
                f"base accuracy {self.base_accuracy_mean.value})")

    def to_dict(self) -> dict[str, Any]:
        return {"directions": list(self.directions), "selective": [e.to_dict() for e in self.selective],
                "base_accuracy": [e.to_dict() for e in self.base_accuracy],
                "selective_mean": self.selective_mean.to_dict(),
                "base_accuracy_mean": self.base_accuracy_mean.to_dict(), "delta": self.delta.to_dict(),
                "p_delta_positive": self.p_delta_positive, "n_replicates": self.n_replicates}


@dataclass(frozen=True)
class TransitionAsymmetry:
    """Selective response per base oracle label (``by_base``, names ``selective_after:<label>``),
    the difference after TRUE − after FALSE with P(difference > 0), and their ratio."""

    by_base: tuple[Estimate, ...]
    difference: Contrast
    p_difference_positive: float | None
    ratio: float | None

    def __repr__(self) -> str:
        return f"TransitionAsymmetry({', '.join(repr(e) for e in self.by_base)})"

    def estimate(self, label: str) -> Estimate:
        for e in self.by_base:
            if e.name == f"selective_after:{label}":
                return e
        raise KeyError(label)

    def to_dict(self) -> dict[str, Any]:
        return {"by_base": [e.to_dict() for e in self.by_base], "difference": self.difference.to_dict(),
                "p_difference_positive": self.p_difference_positive, "ratio": self.ratio}


@dataclass(frozen=True)
class ModelInvariance:
    """Results of one model (or ``all models``): the k/n ``estimates`` (equivariance,
    equivariance_valid, fixed_label, ``validity:<readout>``, ``readout_agreement:<world>``), the
    balanced transitions and the asymmetry (None when the layout has no target and sham worlds)."""

    model: str
    estimates: tuple[Estimate, ...]
    balanced: BalancedTransitions | None
    asymmetry: TransitionAsymmetry | None

    def __repr__(self) -> str:
        return f"ModelInvariance({self.model!r}, {len(self.estimates)} estimates)"

    def estimate(self, name: str) -> Estimate:
        for e in self.estimates:
            if e.name == name:
                return e
        raise KeyError(name)

    def to_dict(self) -> dict[str, Any]:
        return {"model": self.model, "estimates": [e.to_dict() for e in self.estimates],
                "balanced_transitions": None if self.balanced is None else self.balanced.to_dict(),
                "asymmetry": None if self.asymmetry is None else self.asymmetry.to_dict()}


@dataclass(frozen=True)
class Invariance:
    """Results of :func:`measure_invariance` per model and pooled (module docstring)."""

    source: str
    models: tuple[ModelInvariance, ...]
    pooled: ModelInvariance
    bootstrap: int
    seed: int
    confidence: float
    notes: tuple[str, ...] = field(default=())

    def __repr__(self) -> str:
        return f"Invariance({len(self.models)} models, bootstrap={self.bootstrap}, source={self.source!r})"

    def model(self, name: str) -> ModelInvariance:
        for m in self.models + (self.pooled,):
            if m.model == name:
                return m
        raise KeyError(name)

    def to_dict(self) -> dict[str, Any]:
        return {"source": self.source, "bootstrap": {"replicates": self.bootstrap, "seed": self.seed, "unit": "cluster"},
                "confidence": self.confidence, "models": [m.to_dict() for m in self.models],
                "pooled": self.pooled.to_dict(), "notes": list(self.notes)}


LABELS_OF = {
    "equivariance": (GROUP, "semantic equivariance (all mappings, observed groups)"),
    "equivariance_valid": (GROUP, "semantic equivariance (groups valid under all mappings)"),
    "fixed_label": (GROUP, "fixed-label attachment (same letter under all mappings)"),
}


# ------------------------------------------------------------------------------ per-unit counts

def decoded_labels(log: ResponseLog) -> np.ndarray:
    """Per unit and cell, the index in LABELS of the decoded answer; -1 = invalid or unobserved."""
    axis = mapping_axis(log.layout)
    if axis is None:
        raise InputError(f"{log.source}: mapping invariance needs a 'mapping' axis whose values give the "
                         f"letters of {', '.join(LABELS)} (the frozen layout's mappings)")
    mappings = log.layout.axes[axis]
    cell_mapping = np.array([mappings.index(parse_cell_id(c, log.layout.axes)[axis]) for c in log.cells])
    # table[m, code] = label index of response ``code`` under mapping m (last column: unobserved).
    table = np.full((len(mappings), len(log.codebook) + 1), -1, dtype=np.int8)
    for code, text in enumerate(log.codebook):
        for m, letters in enumerate(mappings):
            if len(text) == 1 and text in letters:
                table[m, code] = letters.index(text)
    return table[cell_mapping[None, :], log.codes]


def axis_groups(log: ResponseLog, varied: str) -> tuple[np.ndarray, list[dict[str, str]]]:
    """Cells grouped by every axis but ``varied``: (n_groups x n_values) cell columns and, per
    group, its other axis values. The full support is a product of the axes, so groups are full."""
    axes = log.layout.axes
    index = log.layout.cell_index
    others = [a for a in axes if a != varied]
    keys: dict[tuple, list[int]] = {}
    for cell in log.cells:
        parts = parse_cell_id(cell, axes)
        keys.setdefault(tuple(parts[a] for a in others), []).append(index[cell])
    groups = np.array(list(keys.values()), dtype=np.intp)
    return groups, [dict(zip(others, key, strict=True)) for key in keys]


def _same(values: np.ndarray) -> np.ndarray:
    """Along the last axis: every value equals the first."""
    return (values == values[..., :1]).all(axis=-1)


def invariance_counts(log: ResponseLog) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per unit (successes, n) of every k/n estimate of the module docstring."""
    labels = decoded_labels(log)
    valid = labels >= 0
    axis = mapping_axis(log.layout)
    groups, _ = axis_groups(log, axis)
    g_observed = log.observed[:, groups].all(-1)
    g_valid = valid[:, groups].all(-1)
    equivariant = g_valid & _same(labels[:, groups])
    fixed = g_valid & _same(log.codes[:, groups])
    counts = {"equivariance": (equivariant.sum(1), g_observed.sum(1)),
              "equivariance_valid": (equivariant.sum(1), g_valid.sum(1)),
              "fixed_label": (fixed.sum(1), g_observed.sum(1))}
    if "readout" in log.layout.axes:
        readout_of = np.array([parse_cell_id(c, log.layout.axes)["readout"] for c in log.cells])
        for value in log.layout.axes["readout"]:
            mask = readout_of == value
            counts[f"validity:{value}"] = (valid[:, mask].sum(1), log.observed[:, mask].sum(1))
        if len(log.layout.axes["readout"]) > 1:
            pairs, keys = axis_groups(log, "readout")
            world_axis = next(iter(log.layout.axes))
            both = valid[:, pairs].all(-1)
            agree = both & _same(labels[:, pairs])
            pair_world = np.array([k[world_axis] for k in keys])
            for world in log.worlds:
                mask = pair_world == world
                counts[f"readout_agreement:{world}"] = (agree[:, mask].sum(1), both[:, mask].sum(1))
    return {k: (np.asarray(s, dtype=np.int64), np.asarray(n, dtype=np.int64)) for k, (s, n) in counts.items()}


# ------------------------------------------------------------------------------ estimates

def _label(name: str) -> tuple[str, str]:
    if name in LABELS_OF:
        return LABELS_OF[name]
    kind, value = name.split(":", 1)
    if kind == "validity":
        return CELL, f"readout validity ({value})"
    if kind == "readout_agreement":
        return PAIR, f"readout agreement, both valid ({value})"
    return PAIRED, f"{kind.replace('_', ' ')} ({value})"


def _estimates(names: list[str], successes: np.ndarray, n: np.ndarray, bootstrap: int, seed: int,
               confidence: float) -> tuple[Estimate, ...]:
    """k/n estimates from per-cluster (n_clusters x n_rates) totals, one bootstrap for all."""
    low, high = bootstrap_intervals(successes, n, bootstrap, seed, confidence)
    out = []
    for j, name in enumerate(names):
        level, label = _label(name)
        k, total = int(successes[:, j].sum()), int(n[:, j].sum())
        if total:
            w_low, w_high = wilson_interval(k, total, confidence)
            b_low, b_high = (None, None) if np.isnan(low[j]) else (float(low[j]), float(high[j]))
            out.append(Estimate(name, label, level, k, total, k / total, float(w_low), float(w_high), b_low, b_high))
        else:
            out.append(Estimate(name, label, level, 0, 0, None, None, None, None, None))
    return tuple(out)


def _replicate_rates(successes: np.ndarray, n: np.ndarray, bootstrap: int, seed: int) -> np.ndarray:
    """(bootstrap x n_rates) bootstrap rates Σ w s / Σ w n on the shared cluster stream (NaN if n = 0)."""
    out = np.empty((bootstrap, successes.shape[1]))
    row = 0
    for weights in cluster_bootstrap_weights(successes.shape[0], bootstrap, seed):
        top, bottom = weights @ successes, weights @ n
        with np.errstate(invalid="ignore", divide="ignore"):
            out[row:row + len(weights)] = np.where(bottom > 0, top / bottom, np.nan)
        row += len(weights)
    return out


def _contrast(name: str, label: str, value: float | None, replicates: np.ndarray,
              confidence: float) -> Contrast:
    usable = replicates[~np.isnan(replicates)]
    if value is None or usable.size == 0:
        return Contrast(name, label, value, None, None)
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(usable, [tail, 1.0 - tail])
    return Contrast(name, label, value, float(low), float(high))


def _share_positive(replicates: np.ndarray) -> float | None:
    usable = replicates[~np.isnan(replicates)]
    return float((usable > 0).mean()) if usable.size else None


# ------------------------------------------------------------------------------ transitions

def _cluster_sums(per_unit: np.ndarray, units: np.ndarray, unit_clusters: np.ndarray, n_clusters: int) -> np.ndarray:
    """Per-cluster totals of a per-unit count over ``units`` (unit u is on cluster
    ``unit_clusters[u]``; units are only the (model, cluster) pairs with rows)."""
    return np.bincount(unit_clusters[units], weights=per_unit[units].astype(np.float64), minlength=n_clusters)


def _world_labels(log: ResponseLog) -> tuple[list[str], list[str]]:
    """Per cluster, its base and its target oracle label."""
    worlds = list(log.worlds)
    base_world = log.layout.base[next(iter(log.layout.axes))][0]
    b, t = worlds.index(base_world), worlds.index("target")
    return [row[b] for row in log.oracle_labels], [row[t] for row in log.oracle_labels]


def balanced_transitions(local: np.ndarray, base: np.ndarray, complete: np.ndarray, direction: list[str],
                         bootstrap: int, seed: int, confidence: float) -> BalancedTransitions:
    """Equal-weighted selective response vs base accuracy over the directions (module docstring).

    ``local``, ``base``, ``complete``: per-cluster counts of selective, base-correct and complete
    paired units; ``direction``: per cluster its "base→target" name.
    """
    names = sorted(set(direction), key=lambda d: [LABELS.index(x) for x in d.split(ARROW)])
    member = np.array([[dk == d for d in names] for dk in direction], dtype=np.float64)
    n = complete[:, None] * member
    tops = np.hstack([local[:, None] * member, base[:, None] * member])
    bottoms = np.hstack([n, n])
    estimates = _estimates([f"selective:{d}" for d in names] + [f"base_accuracy:{d}" for d in names],
                           tops, bottoms, bootstrap, seed, confidence)
    selective, accuracy = estimates[:len(names)], estimates[len(names):]
    present = [j for j, e in enumerate(selective) if e.n > 0]
    replicates = _replicate_rates(tops, bottoms, bootstrap, seed)
    if present:
        sel_value = float(np.mean([selective[j].rate for j in present]))
        acc_value = float(np.mean([accuracy[j].rate for j in present]))
        sel_reps = replicates[:, present].mean(axis=1)  # NaN when a direction drew no cluster
        acc_reps = replicates[:, [len(names) + j for j in present]].mean(axis=1)
    else:
        sel_value = acc_value = None
        sel_reps = acc_reps = np.full(bootstrap, np.nan)
    delta_reps = acc_reps - sel_reps
    delta = None if sel_value is None else acc_value - sel_value
    return BalancedTransitions(
        directions=tuple(names), selective=selective, base_accuracy=accuracy,
        selective_mean=_contrast("selective_mean", "equal-weighted selective response", sel_value, sel_reps, confidence),
        base_accuracy_mean=_contrast("base_accuracy_mean", "equal-weighted base accuracy", acc_value, acc_reps,
                                     confidence),
        delta=_contrast("delta", "base accuracy − selective response", delta, delta_reps, confidence),
        p_delta_positive=_share_positive(delta_reps), n_replicates=int((~np.isnan(delta_reps)).sum()))


def transition_asymmetry(local: np.ndarray, complete: np.ndarray, base_label: list[str], bootstrap: int,
                         seed: int, confidence: float) -> TransitionAsymmetry:
    """Selective response per base oracle label; after TRUE − after FALSE (module docstring)."""
    present = [label for label in LABELS if label in base_label]
    member = np.array([[b == label for label in present] for b in base_label], dtype=np.float64)
    tops, bottoms = local[:, None] * member, complete[:, None] * member
    by_base = _estimates([f"selective_after:{label}" for label in present], tops, bottoms, bootstrap, seed, confidence)
    rate = {label: e.rate for label, e in zip(present, by_base, strict=True)}
    if rate.get("TRUE") is None or rate.get("FALSE") is None:
        difference = Contrast("difference", "selective after TRUE − after FALSE", None, None, None)
        return TransitionAsymmetry(by_base, difference, None, None)
    reps = _replicate_rates(tops, bottoms, bootstrap, seed)
    diff_reps = reps[:, present.index("TRUE")] - reps[:, present.index("FALSE")]
    value = rate["TRUE"] - rate["FALSE"]
    return TransitionAsymmetry(
        by_base, _contrast("difference", "selective after TRUE − after FALSE", value, diff_reps, confidence),
        _share_positive(diff_reps), rate["TRUE"] / rate["FALSE"] if rate["FALSE"] > 0 else None)


MAX_MODELS_PER_MODEL = 100


def measure_invariance(log: ResponseLog, bootstrap: int = 2000, seed: int = 0,
                       confidence: float = 0.95) -> Invariance:
    """Paper 000 results 3-5 per model and pooled over models (module docstring)."""
    if isinstance(bootstrap, bool) or not isinstance(bootstrap, (int, np.integer)) or bootstrap < 0:
        raise InputError(f"bootstrap replicates: need an integer >= 0, got {bootstrap!r}")
    if not 0.0 < confidence < 1.0:
        raise InputError(f"confidence: must lie strictly between 0 and 1, got {confidence}")
    bootstrap, n_clusters = int(bootstrap), len(log.clusters)
    counts = invariance_counts(log)
    names = list(counts)
    transitions = {"target", "sham"} <= set(log.worlds)
    if transitions:
        pairs = paired_units(log)
        unit_local = (pairs.target_follow & pairs.sham_stay).sum(1)
        unit_base, unit_complete = pairs.base_correct.sum(1), pairs.complete.sum(1)
        base_label, target_label = _world_labels(log)
        direction = [f"{b}{ARROW}{t}" for b, t in zip(base_label, target_label, strict=True)]
    # Per-model results cost O(models x clusters): above the cap only the pooled row is computed
    # (every model still has its own row in measure()'s estimates).
    per_model = len(log.models) <= MAX_MODELS_PER_MODEL
    bounds = np.searchsorted(log.unit_models, np.arange(len(log.models) + 1))  # units sorted by model
    blocks = [(m, np.arange(bounds[i], bounds[i + 1])) for i, m in enumerate(log.models)] if per_model else []
    blocks.append((ALL_MODELS, np.arange(log.n_units)))
    results = []
    for model, units in blocks:
        tops = np.column_stack([_cluster_sums(counts[k][0], units, log.unit_clusters, n_clusters) for k in names])
        bottoms = np.column_stack([_cluster_sums(counts[k][1], units, log.unit_clusters, n_clusters) for k in names])
        balanced = asymmetry = None
        if transitions:
            local = _cluster_sums(unit_local, units, log.unit_clusters, n_clusters)
            complete = _cluster_sums(unit_complete, units, log.unit_clusters, n_clusters)
            balanced = balanced_transitions(local, _cluster_sums(unit_base, units, log.unit_clusters, n_clusters), complete,
                                            direction, bootstrap, seed, confidence)
            asymmetry = transition_asymmetry(local, complete, base_label, bootstrap, seed, confidence)
        results.append(ModelInvariance(model, _estimates(names, tops, bottoms, bootstrap, seed, confidence),
                                       balanced, asymmetry))
    notes = []
    if not per_model:
        notes.append(f"{len(log.models)} models: the invariance results are pooled over models (per-model rows "
                     f"are computed up to {MAX_MODELS_PER_MODEL} models)")
    pooled = results[-1]
    unobserved = int(log.n_units * len(axis_groups(log, mapping_axis(log.layout))[0])
                     - pooled.estimate("equivariance").n)
    if unobserved:
        notes.append(f"{unobserved} mapping group(s) miss a cell and are left out of equivariance and "
                     "fixed-label attachment")
    if not transitions:
        notes.append("the layout has no target and sham worlds: no balanced transitions or asymmetry")
    models = tuple(results[:-1]) if per_model else (pooled,)
    return Invariance(log.source, models, pooled, bootstrap, int(seed), float(confidence), tuple(notes))
