"""τ from an identifying support (paper 000, Theorem 1): measure τ on fewer cells than it names.

On a support O that identifies τ on a class H, no two policies of different τ answer every cell of
O alike. So a unit (model × cluster) whose answers on O are those of some policy of H has one τ,
whichever policy of its observation-equivalence class it is: τ(unit) = τ(h) for every h in H with
h|O = unit|O. The estimate over units is the share of identified units with τ = 1,

    τ̂ = #{identified units with τ = 1} / #{identified units},

with a Wilson interval on those counts and a percentile cluster bootstrap (clusters resampled, as
for every estimate of :func:`audit_core.measure.measure`). It rests on one assumption, stated with
every result (:data:`ASSUMPTION`): *the model's behaviour on these units is one of the class's
policies*. A unit whose answers on O are no policy's is *outside the class*: counted, listed and
never given a τ; the share outside the class is reported beside τ̂ (k outside / n complete units).
A unit missing a cell of O is *incomplete* and left out (noted).

Policies of a class are written for the class's oracle (the frozen class: the reference cluster
TRUE → UNKNOWN → TRUE). A cluster with another oracle is matched *by role*: with a mapping axis,
the letter a unit gives in a cell is read as a label through the cell's mapping, the label is
renamed by the permutation of labels that takes the cluster's oracle per world to the class's
(base ↔ base label, target ↔ target label, the third label ↔ the third label), and written back
through the same mapping. So a cell is right or wrong for the unit exactly as for the policy
it matches. Without a mapping axis a cluster must have the class's oracle on the support.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from audit_core.errors import InputError
from audit_core.identify import estimand_values, identify, parse_cell_id
from audit_core.identify.equivalence import row_classes
from audit_core.identify.policies import LABELS, PolicyClass, letter
from audit_core.measure.estimates import (
    MODEL_CLUSTER,
    Estimate,
    _estimates,
    _model_blocks,
    _requests,
    bootstrap_intervals,
)
from audit_core.measure.log import ResponseLog, mapping_axis

ASSUMPTION = "the model's behaviour on these units is one of the class's policies"
IDENTIFIED, OUTSIDE, INCOMPLETE = "identified", "outside the class", "incomplete"
# name -> (level, label) of the two estimates, in table order.
IDENTIFIED_ESTIMATES: dict[str, tuple[str, str]] = {
    "tau_identified": (MODEL_CLUSTER, "τ through identification (identified units)"),
    "outside_class": (MODEL_CLUSTER, "outside the class (share of complete units)"),
}
MAX_LISTED_UNITS = 50  # units outside the class listed by name in the text outputs


@dataclass(frozen=True)
class IdentifiedUnit:
    """One model-cluster unit: ``status`` (identified, outside the class, incomplete), the policies
    of the class its answers on the support match, and its τ (None unless identified)."""

    model: str
    cluster: str
    status: str
    policies: tuple[str, ...]
    tau: int | None

    def __repr__(self) -> str:
        return f"IdentifiedUnit({self.model!r}, {self.cluster!r}, {self.status}, τ={self.tau})"

    def to_dict(self) -> dict[str, Any]:
        return {"model": self.model, "cluster": self.cluster, "status": self.status,
                "policies": list(self.policies), "tau": self.tau}


@dataclass(frozen=True)
class IdentifiedModel:
    """τ through identification and the share outside the class, for one model (or all models)."""

    model: str
    n_units: int
    n_identified: int
    n_outside: int
    n_incomplete: int
    tau: Estimate
    outside: Estimate

    def __repr__(self) -> str:
        return f"IdentifiedModel({self.model!r}, {self.tau!r}, outside {self.n_outside}/{self.n_units})"

    def to_dict(self) -> dict[str, Any]:
        return {"model": self.model, "n_units": self.n_units, "n_identified": self.n_identified,
                "n_outside": self.n_outside, "n_incomplete": self.n_incomplete,
                "tau": self.tau.to_dict(), "outside": self.outside.to_dict()}


@dataclass(frozen=True)
class IdentifiedTau:
    """Result of :func:`identified_tau` (module docstring): per model, pooled, per unit.

    ``cells`` is the support used, ``n_cells_full`` the cells of the full support;
    ``model_calls`` = units × support cells answered, ``model_calls_full`` = units × full cells.
    """

    source: str
    estimand: str
    class_source: str
    cells: tuple[str, ...]
    n_cells_full: int
    models: tuple[IdentifiedModel, ...]
    pooled: IdentifiedModel
    units: tuple[IdentifiedUnit, ...] = field(repr=False)
    bootstrap: int = 0
    seed: int = 0
    confidence: float = 0.95
    statement: str = ""
    assumption: str = ASSUMPTION
    notes: tuple[str, ...] = ()

    def __repr__(self) -> str:
        return (f"IdentifiedTau({self.estimand} on {len(self.cells)} of {self.n_cells_full} cells, "
                f"{self.pooled.tau!r}, outside {self.pooled.n_outside}/{self.pooled.n_units})")

    @property
    def model_calls(self) -> int:
        return self.pooled.n_units * len(self.cells)

    @property
    def model_calls_full(self) -> int:
        return self.pooled.n_units * self.n_cells_full

    @property
    def outside_units(self) -> tuple[IdentifiedUnit, ...]:
        return tuple(u for u in self.units if u.status == OUTSIDE)

    def model(self, name: str) -> IdentifiedModel:
        for m in self.models + (self.pooled,):
            if m.model == name:
                return m
        raise KeyError(name)

    def to_dict(self) -> dict[str, Any]:
        return {"source": self.source, "estimand": self.estimand, "class": self.class_source,
                "cells": list(self.cells), "cells_per_cluster": len(self.cells),
                "cells_per_cluster_full": self.n_cells_full, "model_calls": self.model_calls,
                "model_calls_full": self.model_calls_full,
                "model_calls_saved": self.model_calls_full - self.model_calls,
                "statement": self.statement, "assumption": self.assumption,
                "bootstrap": {"replicates": self.bootstrap, "seed": self.seed, "unit": "cluster"},
                "confidence": self.confidence,
                "models": [m.to_dict() for m in self.models], "pooled": self.pooled.to_dict(),
                "outside_units": [f"{u.model}/{u.cluster}" for u in self.outside_units],
                "units": [u.to_dict() for u in self.units], "notes": list(self.notes)}


def _world_positions(pc: PolicyClass, cells) -> list[tuple[int, dict[str, str]]]:
    """Per support cell: (position of its world in the first axis, its parsed axis values)."""
    world_axis = next(iter(pc.axes))
    worlds = pc.axes[world_axis]
    out = []
    for c in cells:
        parts = parse_cell_id(c, pc.axes)
        out.append((worlds.index(parts[world_axis]), parts))
    return out


def _reference_labels(pc: PolicyClass) -> tuple[str, ...]:
    """The class's oracle label per world (read from the oracle letter through a cell's mapping)."""
    if pc.oracle is None:
        raise InputError(f"{pc.source}: matching units by role needs the class's oracle (correct response per cell)")
    worlds = pc.axes[next(iter(pc.axes))]
    labels: list[str | None] = [None] * len(worlds)
    for (w, parts), answer in zip(_world_positions(pc, pc.cells), pc.oracle, strict=True):
        mapping = parts["mapping"]
        label = LABELS[mapping.index(answer)] if answer in mapping else None
        if label is None or labels[w] not in (None, label):
            raise InputError(f"{pc.source}: the oracle is not one label per world under the mapping axis")
        labels[w] = label
    return tuple(labels)


def _renaming(reference: tuple[str, ...], cluster: tuple[str, ...], name: str) -> dict[str, str]:
    """The permutation of labels taking the cluster's label per world to the class's (by role)."""
    back: dict[str, str] = {}
    for ref, got in zip(reference, cluster, strict=True):
        clash = back.get(got, ref) != ref or any(v == ref and k != got for k, v in back.items())
        if clash:
            raise InputError(
                f"cluster {name!r} has oracle {'→'.join(cluster)}, which does not follow the class's pattern "
                f"{'→'.join(reference)} (same label where the class has the same label, different where it "
                "differs), so its units cannot be matched against the class's policies by role")
        back[got] = ref
    rest_from = [x for x in LABELS if x not in back]
    rest_to = [x for x in LABELS if x not in back.values()]
    back.update(zip(rest_from, rest_to, strict=True))
    return back


def _reference_codes(log: ResponseLog, pc: PolicyClass, cells, log_cols) -> tuple[np.ndarray, int]:
    """units x support cells codes of each unit's answers read in the class's frame (module
    docstring) as codes of ``pc.codebook``; -1 = not observed, ``len(pc.codebook)`` = an answer
    no policy of the class gives in any cell."""
    code_of = {s: i for i, s in enumerate(pc.codebook)}
    foreign = len(pc.codebook)
    n_units = log.n_units
    out = np.full((n_units, len(cells)), -1, dtype=np.int64)
    if not n_units:
        return out, foreign
    sub = log.codes[:, log_cols]
    if mapping_axis(pc) is None:
        oracle = np.array([pc.oracle[pc.cell_index[c]] if pc.oracle else None for c in cells], dtype=object)
        texts = np.array(log.codebook, dtype=object)
        for k, name in enumerate(log.clusters):
            right = texts[log.expected[k, log_cols]]
            if pc.oracle is None or not np.array_equal(right, oracle):
                raise InputError(f"cluster {name!r}: its correct responses on the support are not the class's oracle; "
                                 "without a mapping axis units are matched only on clusters with the class's oracle")
        table = np.array([code_of.get(s, foreign) for s in log.codebook], dtype=np.int64)
        observed = sub >= 0
        out[observed] = table[sub[observed]]
        return out, foreign
    reference = _reference_labels(pc)
    positions = _world_positions(pc, cells)
    rows, group = np.unique(np.array(log.oracle_labels, dtype=object).astype(str), axis=0, return_inverse=True)
    group = np.asarray(group).reshape(-1)
    unit_group = group[log.unit_clusters]
    for g, row in enumerate(rows):
        first = log.clusters[int(np.flatnonzero(group == g)[0])]
        back = _renaming(reference, tuple(str(x) for x in row), first)
        units = np.flatnonzero(unit_group == g)
        for j, (_, parts) in enumerate(positions):
            mapping = parts["mapping"]
            table = np.array([code_of.get(letter(mapping, back[LABELS[mapping.index(s)]]) if len(s) == 1 and s in mapping
                                          else s, foreign) for s in log.codebook], dtype=np.int64)
            column = sub[units, j]
            seen = column >= 0
            out[units[seen], j] = table[column[seen]]
    return out, foreign


def covered_cells(log: ResponseLog) -> tuple[str, ...]:
    """Cells of the layout observed in at least one model-cluster unit: the support the log covers."""
    seen = log.observed.any(axis=0)
    return tuple(c for c, ok in zip(log.cells, seen, strict=True) if ok)


def not_identified_message(ident, estimand: str) -> str:
    """One sentence: the support does not identify τ, with a colliding pair and what separates it."""
    a, b = ident.collisions[0]
    where = ident.separating_cells.get((a, b), ())
    hint = f"; a cell that separates them: {where[0]}" if where else ""
    return (f"{estimand} is not identified on these {len(ident.cells)} cell(s): policies {a!r} and {b!r} answer every "
            f"one of them alike but differ in {estimand} ({ident.n_collisions} such pair(s)){hint}")


def identified_tau(log: ResponseLog, cells=None, estimand: str = "tau_full", bootstrap: int = 2000, seed: int = 0,
                   confidence: float = 0.95) -> IdentifiedTau:
    """τ of every unit through identification on ``cells`` (default: the cells the log covers), and its
    estimate over units (module docstring). The class is the log's layout (its policies and oracle).
    InputError when the support does not identify ``estimand`` on the class."""
    if isinstance(bootstrap, bool) or not isinstance(bootstrap, (int, np.integer)) or bootstrap < 0:
        raise InputError(f"bootstrap replicates: need an integer >= 0, got {bootstrap!r}")
    if not 0.0 < confidence < 1.0:
        raise InputError(f"confidence: must lie strictly between 0 and 1, got {confidence}")
    pc = log.layout
    cells = covered_cells(log) if cells is None else tuple(cells)
    if not cells:
        raise InputError(f"{log.source}: no cell is observed, so nothing identifies {estimand}")
    ident = identify(pc, estimand=estimand, cells=cells)
    cells = ident.cells  # canonical order, unknown ids refused
    if not ident.identified:
        raise InputError(not_identified_message(ident, estimand))
    tau = estimand_values(pc, estimand)
    pc_cols = pc.columns(cells)
    codes, foreign = _reference_codes(log, pc, cells, pc_cols)  # log and class share the cell order
    complete = (codes >= 0).all(axis=1)
    policy_rows = pc.responses[:, pc_cols].astype(np.int64)
    labels, n_classes = row_classes(np.vstack([policy_rows, codes[complete]]))
    policy_labels, unit_labels = labels[:len(pc.names)], labels[len(pc.names):]
    members: dict[int, list[int]] = {}
    for p, lab in enumerate(policy_labels):
        members.setdefault(int(lab), []).append(p)
    n_units = log.n_units
    status = np.full(n_units, INCOMPLETE, dtype=object)
    unit_tau = np.full(n_units, -1, dtype=np.int64)
    matched: list[tuple[str, ...]] = [()] * n_units
    for u, lab in zip(np.flatnonzero(complete), unit_labels, strict=True):
        group = members.get(int(lab))
        if group is None:
            status[u] = OUTSIDE
            continue
        values = {int(tau[p]) for p in group}
        # Theorem 1: on an identifying support every policy of one equivalence class has one τ.
        assert len(values) == 1, f"policies {[pc.names[p] for p in group]} differ in τ on an identifying support"
        status[u], unit_tau[u] = IDENTIFIED, values.pop()
        matched[u] = tuple(pc.names[p] for p in group)
    identified = status == IDENTIFIED
    counts = {"tau_identified": ((unit_tau == 1).astype(np.int64), identified.astype(np.int64)),
              "outside_class": ((status == OUTSIDE).astype(np.int64), complete.astype(np.int64))}
    blocks = _model_blocks(log)
    names = list(IDENTIFIED_ESTIMATES)
    requests = _requests([(k, units) for _, units in blocks for k in names], counts, log.unit_clusters,
                         len(log.clusters))
    low, high = bootstrap_intervals(requests.successes, requests.n, int(bootstrap), seed, confidence)
    estimates = iter(_estimates(requests.names, np.asarray(requests.successes.sum(axis=0)).ravel(),
                                np.asarray(requests.n.sum(axis=0)).ravel(), low, high, confidence,
                                labels=IDENTIFIED_ESTIMATES))
    summaries = []
    for model, units in blocks:
        t, o = next(estimates), next(estimates)
        summaries.append(IdentifiedModel(model, int(units.size), int(identified[units].sum()),
                                         int((status[units] == OUTSIDE).sum()), int((~complete[units]).sum()), t, o))
    units_out = tuple(IdentifiedUnit(log.models[int(log.unit_models[u])], log.clusters[int(log.unit_clusters[u])],
                                     str(status[u]), matched[u], None if unit_tau[u] < 0 else int(unit_tau[u]))
                      for u in range(n_units))
    notes = []
    n_incomplete = int((~complete).sum())
    if n_incomplete:
        notes.append(f"{n_incomplete} unit(s) miss a cell of the support and are left out")
    n_outside = int((status == OUTSIDE).sum())
    if n_outside:
        shown = ", ".join(f"{u.model}/{u.cluster}" for u in units_out if u.status == OUTSIDE)
        notes.append(f"{n_outside} unit(s) answer the support as no policy of the class does (outside the class, "
                     f"never given a τ): {shown if n_outside <= MAX_LISTED_UNITS else shown[:2000] + ' ...'}")
    statement = (f"{estimand} is identified on {len(cells)} of {len(pc.cells)} cells ({', '.join(cells)}): "
                 f"every unit's answers there pick out one observation-equivalence class of the {pc.source} "
                 f"({ident.n_classes} classes, no two policies of different {estimand} alike), and every policy "
                 f"in that class has the same {estimand} (paper 000, Theorem 1).")
    return IdentifiedTau(source=log.source, estimand=estimand, class_source=pc.source, cells=cells,
                         n_cells_full=len(pc.cells), models=tuple(summaries[:len(log.models)]), pooled=summaries[-1],
                         units=units_out, bootstrap=int(bootstrap), seed=int(seed), confidence=float(confidence),
                         statement=statement, notes=tuple(notes))


__all__ = ["ASSUMPTION", "covered_cells", "identified_tau", "IdentifiedModel", "IdentifiedTau",
           "IdentifiedUnit", "not_identified_message"]
