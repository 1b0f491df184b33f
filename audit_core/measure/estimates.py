"""Estimand-separated results from a response log (paper 000, "Key empirical results" 1 and 2).

Two kinds of unit, as in the paper:

* a *model-cluster unit* (model, cluster) answers the 36 cells of its cluster. On it the identify
  engine's estimands are evaluated literally: each unit is a policy row of a policy class whose
  oracle is its cluster's oracle, and :func:`audit_core.identify.estimand_values` gives
  static correctness (canonical base cell), local response (base, target, sham on the canonical
  cells) and τ_full (all cells). An estimand counts for a unit only when all of its cells are
  observed; τ_full therefore only for complete units.
* a *paired unit* (model, cluster, context) is one base/target/sham triple that shares every other
  axis value (mapping x readout: 12 per cluster). Base accuracy = base cell correct; target-follow
  and sham-stay are conditional on base-correct; local response = base-correct and target-follow
  and sham-stay (given base-correct, and over all paired units). Only triples with all three cells
  observed count. The paper's 576 units are 2 models x 24 clusters x 12 contexts.
* per oracle transition (the cluster's labels base→target→sham) the paired estimates are repeated,
  since the paper finds selective response depends on the direction (result 5).

Composition (mutually exclusive) per paired unit, decided in this order: reportability failure
(a non-answer in any of the three cells), base-knowledge failure (base wrong); then, base-correct:
full success (local response), target inertia (the target answer is the base answer, and wrong),
other (target moved to a wrong answer, or sham not stable).

Intervals: Wilson (:func:`audit_core.sequential.wilson_interval`) on the pooled counts, and a
percentile cluster bootstrap that resamples clusters with replacement (one seeded weight matrix
shared by all estimands and models, so differences between estimands are synchronised).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import sparse

from audit_core.errors import InputError
from audit_core.identify import build_policy_class, estimand_values, parse_cell_id
from audit_core.identify.cells import cell_id
from audit_core.identify.estimands import estimand_cells
from audit_core.measure.log import ResponseLog
from audit_core.sequential.intervals import wilson_interval

PAIRED = "paired unit"
MODEL_CLUSTER = "model-cluster unit"
CELL = "cell"

# name -> (level, label); the order of the tables and charts.
ESTIMATES: dict[str, tuple[str, str]] = {
    "base_accuracy": (PAIRED, "base accuracy (static correctness)"),
    "target_follow": (PAIRED, "target-follow | base-correct"),
    "sham_stay": (PAIRED, "sham-stay | base-correct"),
    "local_given_base": (PAIRED, "local response | base-correct"),
    "local_paired": (PAIRED, "local paired response"),
    "sham_stable": (PAIRED, "sham stability (all paired units)"),
    "static_correctness": (MODEL_CLUSTER, "static correctness (canonical base cell)"),
    "local_response": (MODEL_CLUSTER, "local response (canonical cells)"),
    "tau_full": (MODEL_CLUSTER, "full-support response τ_full (complete units)"),
    "validity": (CELL, "readout validity (all readouts)"),
}
# Reported per oracle transition (paper 000, result 5: selective response depends on the direction).
TRANSITION_ESTIMATES = ("base_accuracy", "target_follow", "sham_stay", "local_given_base", "local_paired")
# Estimands of the identify engine evaluated per model-cluster unit.
ENGINE_ESTIMANDS = ("static_correctness", "local_response", "tau_full")
COMPOSITION = ("reportability failure", "base-knowledge failure", "target inertia", "other", "full success")
ALL_MODELS = "all models"
BOOTSTRAP_CHUNK = 1000  # replicates per block of weights: bounds memory at chunk x clusters floats
WEIGHT_BUDGET = 4_000_000  # floats of one block of weights (32 MB); fewer replicates per block with many clusters
COLUMN_BLOCK = 2048  # rates bootstrapped together: bounds the replicates x rates array at bootstrap x this
# A response no model can give: marks unobserved cells for the engine (never equals the oracle).
UNOBSERVED = "\x00unobserved"


@dataclass(frozen=True)
class Estimate:
    """One rate: successes / n with a Wilson and a cluster-bootstrap interval (None when n = 0)."""

    name: str
    label: str
    level: str
    successes: int
    n: int
    rate: float | None
    wilson_low: float | None
    wilson_high: float | None
    boot_low: float | None
    boot_high: float | None

    def __repr__(self) -> str:
        rate = "n/a" if self.rate is None else f"{self.rate:.3f}"
        return f"Estimate({self.name}: {self.successes}/{self.n} = {rate})"

    def to_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def _find_estimate(estimates: tuple[Estimate, ...], name: str) -> Estimate:
    for e in estimates:
        if e.name == name:
            return e
    raise KeyError(name)


@dataclass(frozen=True)
class ModelMeasure:
    """Pooled results of one model (or of all models): estimates and composition counts."""

    model: str
    n_clusters: int
    n_units: int
    n_complete_units: int
    n_paired: int
    n_complete_paired: int
    estimates: tuple[Estimate, ...]
    composition: tuple[tuple[str, int], ...]

    def __repr__(self) -> str:
        return f"ModelMeasure({self.model!r}, {self.n_units} units, {self.n_complete_paired} paired units)"

    def estimate(self, name: str) -> Estimate:
        return _find_estimate(self.estimates, name)

    def to_dict(self) -> dict[str, Any]:
        return {"model": self.model, "n_clusters": self.n_clusters, "n_units": self.n_units,
                "n_complete_units": self.n_complete_units, "n_paired": self.n_paired,
                "n_complete_paired": self.n_complete_paired,
                "estimates": [e.to_dict() for e in self.estimates],
                "composition": {c: n for c, n in self.composition}}


@dataclass(frozen=True)
class UnitMeasure:
    """One model-cluster unit: engine estimands (None = not all their cells observed), paired counts."""

    model: str
    cluster: str
    oracle: str
    cells_observed: int
    complete: bool
    static_correctness: int | None
    local_response: int | None
    tau_full: int | None
    n_paired: int
    base_correct: int
    target_follow: int
    sham_stay: int
    local: int
    composition: tuple[tuple[str, int], ...]

    def __repr__(self) -> str:
        return f"UnitMeasure({self.model!r}, {self.cluster!r}, local {self.local}/{self.n_paired})"

    def to_dict(self) -> dict[str, Any]:
        out = {k: getattr(self, k) for k in self.__dataclass_fields__ if k != "composition"}
        out["composition"] = {c: n for c, n in self.composition}
        return out


@dataclass(frozen=True)
class TransitionMeasure:
    """Estimates of one model (or all models) on the clusters of one oracle transition.

    ``transition`` is the cluster's oracle labels per world joined by "→" (base→target→sham).
    """

    model: str
    transition: str
    n_clusters: int
    estimates: tuple[Estimate, ...]

    def __repr__(self) -> str:
        return f"TransitionMeasure({self.model!r}, {self.transition!r}, {self.n_clusters} clusters)"

    def estimate(self, name: str) -> Estimate:
        return _find_estimate(self.estimates, name)

    def to_dict(self) -> dict[str, Any]:
        return {"model": self.model, "transition": self.transition, "n_clusters": self.n_clusters,
                "estimates": [e.to_dict() for e in self.estimates]}


@dataclass(frozen=True)
class Measurement:
    """Estimand-separated results of a response log: per model, pooled, and per unit."""

    source: str
    models: tuple[ModelMeasure, ...]
    pooled: ModelMeasure
    units: tuple[UnitMeasure, ...]
    transitions: tuple[TransitionMeasure, ...]
    n_cells: int
    n_contexts: int
    bootstrap: int
    seed: int
    confidence: float
    notes: tuple[str, ...] = field(default=())

    def __repr__(self) -> str:
        return (f"Measurement({len(self.models)} models, {len(self.units)} units, "
                f"bootstrap={self.bootstrap}, source={self.source!r})")

    def model(self, name: str) -> ModelMeasure:
        for m in self.models + (self.pooled,):
            if m.model == name:
                return m
        raise KeyError(name)

    def to_dict(self) -> dict[str, Any]:
        return {"source": self.source, "n_cells": self.n_cells, "n_contexts": self.n_contexts,
                "bootstrap": {"replicates": self.bootstrap, "seed": self.seed, "unit": "cluster"},
                "confidence": self.confidence,
                "models": [m.to_dict() for m in self.models], "pooled": self.pooled.to_dict(),
                "transitions": [t.to_dict() for t in self.transitions],
                "units": [u.to_dict() for u in self.units], "notes": list(self.notes)}


# ------------------------------------------------------------------------------ unit estimands

def engine_estimands(log: ResponseLog) -> dict[str, np.ndarray]:
    """Per model-cluster unit: the identify engine's estimands, -1 where a needed cell is missing.

    Units whose clusters share an oracle form one policy class (their distinct response rows are
    its policies, unobserved cells answered with a sentinel) and :func:`estimand_values` decides.
    """
    layout = log.layout
    out = {e: np.full(log.n_units, -1, dtype=np.int8) for e in ENGINE_ESTIMANDS}
    text = np.array(list(log.codebook) + [UNOBSERVED], dtype=object)
    _, oracle_group = np.unique(log.expected, axis=0, return_inverse=True)
    oracle_group = np.asarray(oracle_group).reshape(-1)
    unit_cluster = log.unit_cluster()
    for group in np.unique(oracle_group):
        cluster = int(np.flatnonzero(oracle_group == group)[0])
        units = np.flatnonzero(oracle_group[unit_cluster] == group)
        rows, inverse = np.unique(log.codes[units], axis=0, return_inverse=True)
        inverse = np.asarray(inverse).reshape(-1)
        policies = {f"u{i}": dict(zip(layout.cells, text[row], strict=True)) for i, row in enumerate(rows)}
        oracle = dict(zip(layout.cells, text[log.expected[cluster]], strict=True))
        pc = build_policy_class(layout.axes, layout.base, layout.components, policies, oracle=oracle,
                                source=f"{log.source} (units with oracle of cluster {log.clusters[cluster]!r})")
        for estimand in ENGINE_ESTIMANDS:
            needed = pc.columns(estimand_cells(pc, estimand))
            value = estimand_values(pc, estimand)[inverse]
            measurable = log.observed[np.ix_(units, needed)].all(axis=1)
            out[estimand][units] = np.where(measurable, value, -1)
    return out


# ------------------------------------------------------------------------------ paired units

@dataclass(frozen=True)
class PairedUnits:
    """Boolean arrays (n_units x n_contexts) over base/target/sham triples sharing a context."""

    complete: np.ndarray
    base_correct: np.ndarray
    target_follow: np.ndarray
    sham_stay: np.ndarray
    sham_correct: np.ndarray
    category: np.ndarray  # index into COMPOSITION, -1 when the triple is incomplete
    canonical: int

    def __repr__(self) -> str:
        return f"PairedUnits({self.complete.shape[0]} units x {self.complete.shape[1]} contexts, " \
               f"{int(self.complete.sum())} complete)"


def paired_units(log: ResponseLog) -> PairedUnits:
    """Base/target/sham triples per context (all non-world axes), see the module docstring."""
    layout = log.layout
    axes = list(layout.axes)
    world_axis = axes[0]
    worlds = layout.axes[world_axis]
    base_world = layout.base[world_axis][0]
    for needed in ("target", "sham"):
        if needed not in worlds:
            raise InputError(f"{log.source}: the first axis {world_axis!r} needs a {needed!r} world "
                             f"for target-follow and sham-stay (values: {', '.join(worlds)})")
    contexts = list(itertools.product(*(layout.axes[a] for a in axes[1:])))
    canonical = contexts.index(tuple(layout.base[a][0] for a in axes[1:]))
    index = layout.cell_index

    def cols(world: str) -> np.ndarray:
        return np.array([index[cell_id((world,) + ctx)] for ctx in contexts], dtype=np.intp)

    b, t, s = cols(base_world), cols("target"), cols("sham")
    obs, ok, bad = log.observed, log.correct, log.non_answer
    complete = obs[:, b] & obs[:, t] & obs[:, s]
    base_correct = complete & ok[:, b]
    target_follow = base_correct & ok[:, t]
    sham_stay = base_correct & ok[:, s]
    local = target_follow & ok[:, s]
    reportability = complete & (bad[:, b] | bad[:, t] | bad[:, s])
    inertia = base_correct & ~ok[:, t] & (log.codes[:, t] == log.codes[:, b])
    category = np.full(complete.shape, -1, dtype=np.int8)
    # Assigned from the last category to the first so that earlier categories win.
    category[complete] = COMPOSITION.index("other")
    category[inertia] = COMPOSITION.index("target inertia")
    category[local] = COMPOSITION.index("full success")
    category[complete & ~ok[:, b]] = COMPOSITION.index("base-knowledge failure")
    category[reportability] = COMPOSITION.index("reportability failure")
    return PairedUnits(complete=complete, base_correct=base_correct, target_follow=target_follow,
                       sham_stay=sham_stay, sham_correct=complete & ok[:, s], category=category,
                       canonical=canonical)


# ------------------------------------------------------------------------------ counting

def _unit_counts(log: ResponseLog, pairs: PairedUnits, engine: dict[str, np.ndarray]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per unit (successes, n) of every estimate in ESTIMATES."""
    local = pairs.target_follow & pairs.sham_stay
    counts = {
        "base_accuracy": (pairs.base_correct.sum(1), pairs.complete.sum(1)),
        "target_follow": (pairs.target_follow.sum(1), pairs.base_correct.sum(1)),
        "sham_stay": (pairs.sham_stay.sum(1), pairs.base_correct.sum(1)),
        "local_given_base": (local.sum(1), pairs.base_correct.sum(1)),
        "local_paired": (local.sum(1), pairs.complete.sum(1)),
        "sham_stable": (pairs.sham_correct.sum(1), pairs.complete.sum(1)),
    }
    for e in ENGINE_ESTIMANDS:
        counts[e] = ((engine[e] == 1).astype(np.int64), (engine[e] >= 0).astype(np.int64))
    valid = log.observed & ~log.non_answer
    counts["validity"] = (valid.sum(1), log.observed.sum(1))
    if "readout" in log.layout.axes:
        readout_of_cell = np.array([parse_cell_id(c, log.layout.axes)["readout"] for c in log.cells])
        for value in log.layout.axes["readout"]:
            mask = readout_of_cell == value
            counts[f"validity:{value}"] = (valid[:, mask].sum(1), log.observed[:, mask].sum(1))
    return {k: (np.asarray(s, dtype=np.int64), np.asarray(n, dtype=np.int64)) for k, (s, n) in counts.items()}


def cluster_bootstrap_weights(n_clusters: int, bootstrap: int, seed: int,
                              chunk: int = BOOTSTRAP_CHUNK) -> Iterator[np.ndarray]:
    """Blocks of (at most ``chunk``) x n_clusters multiplicities of clusters drawn with replacement.

    One seeded stream: the concatenated blocks are the same whatever ``chunk`` is, so memory stays
    bounded without changing results; with many clusters a block holds fewer replicates, so it
    never exceeds :data:`WEIGHT_BUDGET` floats.
    """
    rng = np.random.default_rng(seed)
    chunk = max(1, min(chunk, WEIGHT_BUDGET // max(n_clusters, 1)))
    done = 0
    while done < bootstrap:
        rows = min(chunk, bootstrap - done)
        draws = rng.integers(0, n_clusters, size=(rows, n_clusters))
        offsets = (draws + n_clusters * np.arange(rows)[:, None]).ravel()
        yield np.bincount(offsets, minlength=rows * n_clusters).reshape(rows, n_clusters).astype(np.float64)
        done += rows


def bootstrap_intervals(successes, n, bootstrap: int, seed: int, confidence: float,
                        chunk: int = BOOTSTRAP_CHUNK, column_block: int = COLUMN_BLOCK) -> tuple[np.ndarray, np.ndarray]:
    """Percentile cluster-bootstrap interval of Σ_k w_k s_k / Σ_k w_k n_k for every column.

    ``successes``, ``n``: (n_clusters x n_rates) per-cluster totals, dense or scipy sparse; every
    column sees the same resampled clusters (the weight stream is replayed per block of
    ``column_block`` columns, so memory is bootstrap x column_block, not bootstrap x n_rates). Replicates
    whose resampled n is 0 are left out; a column without any usable replicate (or bootstrap = 0)
    gets NaN.
    """
    successes = sparse.csc_matrix(successes, dtype=np.float64)
    n = sparse.csc_matrix(n, dtype=np.float64)
    n_clusters, n_cols = successes.shape
    low, high = np.full(n_cols, np.nan), np.full(n_cols, np.nan)
    if not bootstrap:
        return low, high
    tail = (1.0 - confidence) / 2.0
    for start in range(0, n_cols, column_block):
        stop = min(start + column_block, n_cols)
        top_of, bottom_of = successes[:, start:stop], n[:, start:stop]
        rates = np.empty((bootstrap, stop - start))
        row = 0
        for weights in cluster_bootstrap_weights(n_clusters, bootstrap, seed, chunk):
            top, bottom = (top_of.T @ weights.T).T, (bottom_of.T @ weights.T).T
            with np.errstate(invalid="ignore", divide="ignore"):
                rates[row:row + len(weights)] = np.where(bottom > 0, top / bottom, np.nan)
            row += len(weights)
        usable = ~np.isnan(rates).all(axis=0)
        if usable.any():
            cols = np.arange(start, stop)[usable]
            low[cols], high[cols] = nan_quantiles(rates[:, usable], [tail, 1.0 - tail])
    return low, high


def _label(name: str) -> tuple[str, str]:
    if name in ESTIMATES:
        return ESTIMATES[name]
    return CELL, f"readout validity ({name.split(':', 1)[1]})"


def _estimates(names: list[str], total_s: np.ndarray, total_n: np.ndarray, low: np.ndarray, high: np.ndarray,
               confidence: float, labels: dict[str, tuple[str, str]] | None = None) -> tuple[Estimate, ...]:
    """Estimates from pooled successes and n per request and their bootstrap bounds (one
    vectorised Wilson call for all of them); ``labels`` gives (level, label) of names outside
    :data:`ESTIMATES` (the identified τ, :mod:`audit_core.measure.identified`)."""
    successes, n = np.rint(total_s).astype(np.int64), np.rint(total_n).astype(np.int64)
    w_lows, w_highs = wilson_interval(successes, n, confidence) if n.size else (n, n)
    out = []
    for i, name in enumerate(names):
        level, label = labels[name] if labels and name in labels else _label(name)
        s_i, n_i = int(successes[i]), int(n[i])
        if n_i:
            w_low, w_high, rate = float(w_lows[i]), float(w_highs[i]), s_i / n_i
            b_low, b_high = (None, None) if np.isnan(low[i]) else (float(low[i]), float(high[i]))
        else:
            w_low = w_high = b_low = b_high = rate = None
        out.append(Estimate(name, label, level, s_i, n_i, rate, w_low, w_high, b_low, b_high))
    return tuple(out)


def nan_quantiles(values: np.ndarray, probabilities) -> np.ndarray:
    """Per column, ``np.nanquantile(values, probabilities, axis=0)`` (linear interpolation) in one
    sort instead of numpy's per-column loop; all-NaN columns give NaN."""
    ordered = np.sort(values, axis=0)  # NaN sorts last
    count = (~np.isnan(values)).sum(axis=0)
    out = np.full((len(probabilities), values.shape[1]), np.nan)
    ok = count > 0
    cols = np.flatnonzero(ok)
    for row, p in enumerate(probabilities):
        pos = (count[ok] - 1) * p
        below = np.floor(pos).astype(np.int64)
        above = np.minimum(below + 1, count[ok] - 1)
        lo, hi = ordered[below, cols], ordered[above, cols]
        out[row, cols] = lo + (pos - below) * (hi - lo)
    return out


@dataclass(frozen=True)
class _Requests:
    """Rates to estimate, one column each: per-cluster (successes, n) as sparse clusters x rates
    matrices, so models x clusters never appears densely (3,000 models on their own clusters)."""

    names: list[str]
    successes: sparse.csc_matrix
    n: sparse.csc_matrix


def _requests(columns: list[tuple[str, np.ndarray]], counts: dict, unit_cluster: np.ndarray,
              n_clusters: int) -> _Requests:
    """``columns``: (estimate name, units it sums over). Entries follow the units, not clusters."""
    rows = np.concatenate([unit_cluster[u] for _, u in columns]) if columns else np.zeros(0, np.int64)
    cols = np.concatenate([np.full(u.size, j) for j, (_, u) in enumerate(columns)]) if columns else rows
    shape = (n_clusters, len(columns))

    def matrix(which: int) -> sparse.csc_matrix:
        data = np.concatenate([counts[k][which][u] for k, u in columns]) if columns else rows
        return sparse.csc_matrix((data.astype(np.float64), (rows, cols)), shape=shape)  # sums duplicates

    return _Requests([k for k, _ in columns], matrix(0), matrix(1))


def _model_blocks(log: ResponseLog) -> list[tuple[str, np.ndarray]]:
    """(model, its units) per model (units are sorted by model), then all models pooled."""
    bounds = np.searchsorted(log.unit_models, np.arange(len(log.models) + 1))
    blocks = [(m, np.arange(bounds[i], bounds[i + 1])) for i, m in enumerate(log.models)]
    return blocks + [(ALL_MODELS, np.arange(log.n_units))]


def _transition_columns(log: ResponseLog, blocks) -> tuple[list, list[tuple[str, str, int]]]:
    """Columns of the per-transition estimates and (model, transition, clusters of it) of each
    reported block: a model is reported for a transition only where it has units on it; the
    pooled block only with several models."""
    labels = np.array(["→".join(row) for row in log.oracle_labels], dtype=object)
    transition_blocks = blocks if len(log.models) > 1 else blocks[:1]
    unit_label = labels[log.unit_clusters] if log.n_units else labels[:0]
    columns, reported = [], []
    for label in sorted(set(labels.tolist())):
        in_group = unit_label == label
        n_in = int((labels == label).sum())
        for model, units_of in transition_blocks:
            units = units_of[in_group[units_of]]
            if units.size:
                columns += [(k, units) for k in TRANSITION_ESTIMATES]
                reported.append((model, label, n_in))
    return columns, reported


def _unit_measures(log: ResponseLog, engine, pairs: PairedUnits, categories, cell_complete) -> tuple:
    local = pairs.target_follow & pairs.sham_stay
    units = []
    for u in range(log.n_units):
        k = int(log.unit_clusters[u])
        units.append(UnitMeasure(
            model=log.models[int(log.unit_models[u])], cluster=log.clusters[k],
            oracle="→".join(log.oracle_labels[k]), cells_observed=int(log.observed[u].sum()),
            complete=bool(cell_complete[u]),
            **{e: (None if engine[e][u] < 0 else int(engine[e][u])) for e in ENGINE_ESTIMANDS},
            n_paired=int(pairs.complete[u].sum()), base_correct=int(pairs.base_correct[u].sum()),
            target_follow=int(pairs.target_follow[u].sum()), sham_stay=int(pairs.sham_stay[u].sum()),
            local=int(local[u].sum()),
            composition=tuple((c, int(v)) for c, v in zip(COMPOSITION, categories[u], strict=True))))
    return tuple(units)


def _measure_notes(log: ResponseLog, pairs: PairedUnits, cell_complete: np.ndarray) -> tuple[str, ...]:
    notes = list(log.notes)
    incomplete_pairs = int(pairs.complete.size - pairs.complete.sum())
    if incomplete_pairs:
        notes.append(f"{incomplete_pairs} paired unit(s) miss a base, target or sham cell and are left out "
                     "of the paired estimates")
    n_incomplete = int(log.n_units - cell_complete.sum())
    if n_incomplete:
        notes.append(f"τ_full is measured on {int(cell_complete.sum())} of {log.n_units} model-cluster units "
                     f"(the other {n_incomplete} do not have all {len(log.cells)} cells)")
    return tuple(notes)


def measure(log: ResponseLog, bootstrap: int = 2000, seed: int = 0, confidence: float = 0.95) -> Measurement:
    """Estimand-separated results per model and pooled over models (module docstring).

    Every rate is a column of per-cluster (successes, n) totals; clusters are the bootstrap's
    resampling unit. Memory follows units x cells and the number of rates, never models x clusters.
    """
    if isinstance(bootstrap, bool) or not isinstance(bootstrap, (int, np.integer)) or bootstrap < 0:
        raise InputError(f"bootstrap replicates: need an integer >= 0, got {bootstrap!r}")
    if not 0.0 < confidence < 1.0:
        raise InputError(f"confidence: must lie strictly between 0 and 1, got {confidence}")
    n_models, n_clusters = len(log.models), len(log.clusters)
    engine = engine_estimands(log)
    pairs = paired_units(log)
    counts = _unit_counts(log, pairs, engine)
    cell_complete = log.observed.all(axis=1)
    categories = np.stack([(pairs.category == i).sum(1) for i in range(len(COMPOSITION))], axis=1)

    names = tuple(ESTIMATES) + tuple(sorted(k for k in counts if k not in ESTIMATES))
    blocks = _model_blocks(log)
    transition_columns, reported = _transition_columns(log, blocks)
    columns = [(k, units_of) for _, units_of in blocks for k in names] + transition_columns
    requests = _requests(columns, counts, log.unit_clusters, n_clusters)
    low, high = bootstrap_intervals(requests.successes, requests.n, int(bootstrap), seed, confidence)
    estimates = iter(_estimates(requests.names, np.asarray(requests.successes.sum(axis=0)).ravel(),
                                np.asarray(requests.n.sum(axis=0)).ravel(), low, high, confidence))

    def take(count: int) -> tuple[Estimate, ...]:
        return tuple(next(estimates) for _ in range(count))

    summaries = []
    for model, units_of in blocks:
        summaries.append(ModelMeasure(
            model=model, n_clusters=n_clusters if model == ALL_MODELS else int(np.unique(log.unit_clusters[units_of]).size),
            n_units=int(units_of.size), n_complete_units=int(cell_complete[units_of].sum()),
            n_paired=int(units_of.size * pairs.complete.shape[1]),
            n_complete_paired=int(pairs.complete[units_of].sum()),
            estimates=take(len(names)),
            composition=tuple((c, int(v)) for c, v in zip(COMPOSITION, categories[units_of].sum(0), strict=True))))
    transitions = tuple(TransitionMeasure(model, label, n_in, take(len(TRANSITION_ESTIMATES)))
                        for model, label, n_in in reported)
    return Measurement(source=log.source, models=tuple(summaries[:n_models]), pooled=summaries[-1],
                       units=_unit_measures(log, engine, pairs, categories, cell_complete),
                       transitions=transitions,
                       n_cells=len(log.cells), n_contexts=int(pairs.complete.shape[1]), bootstrap=int(bootstrap),
                       seed=int(seed), confidence=float(confidence), notes=_measure_notes(log, pairs, cell_complete))
