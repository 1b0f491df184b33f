"""Minimum-cost identifying supports: weighted minimum hitting set with OR-Tools CP-SAT.

A support identifies τ iff it contains a cell of every distinguishing set D(h, h') of a
cross-estimand pair (paper 000, protocol synthesis). Recipe (DESIGN.md section 2), for CP-SAT 9.x:

1. Reduce the instance safely: pairs with an empty D are reported as unseparable and never sent
   to the solver; excluded cells are deleted from every set; duplicate sets and supersets of
   another set are dropped; a set with a single cell forces that cell (mandatory); identical cell
   columns are merged into one variable (only the cheapest cells of a column are kept: a costlier
   copy can never be in an optimum) and expanded back after solving.
2. Phase 1: minimise the cost; the optimum is proven only when the status is OPTIMAL.
3. Phase 2: clear the objective, add ``cost == optimum`` and enumerate all solutions with one
   worker (several workers repeat solutions and need not prove completeness); deduplicate, sort.
   ``complete`` is True only when phase 2 ends OPTIMAL (the search space was exhausted).

Costs must be positive (a zero-cost cell would make every superset with it a tied optimum). A cost
given for an axis value multiplies the cost of every cell with that value (default 1 per cell, so
``{"scoring": 3}`` makes scoring cells three times as expensive); a cost keyed by cell id sets that
cell's cost outright. Output is deterministic: cells in canonical order, supports sorted by size
then by cell order.
"""

from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Mapping, Sequence

import numpy as np
from ortools.sat.python import cp_model

from audit_core.errors import InputError
from audit_core.identify.distinguish import pack_sets, pair_sets
from audit_core.identify.equivalence import row_classes
from audit_core.identify.estimands import estimand_values
from audit_core.identify.policies import PolicyClass

DEFAULT_MAX_SUPPORTS = 100_000


@dataclass(frozen=True)
class Synthesis:
    """Result of :func:`minimum_supports` (``cost`` in the units of the cost dict)."""

    status: str
    cost: float | None
    size: int | None
    n_optimal: int
    supports: list[tuple[str, ...]]
    complete: bool
    unseparable_pairs: list[tuple[str, str]]
    mandatory_cells: tuple[str, ...]
    estimand: str = "tau_full"
    message: str = ""
    in_every_optimum: tuple[str, ...] = ()
    reductions: dict = field(default_factory=dict)
    seconds: float = 0.0

    def __repr__(self) -> str:
        return (
            f"Synthesis({self.status}, cost={self.cost}, size={self.size}, "
            f"n_optimal={self.n_optimal}, complete={self.complete})"
        )

    def to_dict(self) -> dict:
        """CLI JSON shape (DESIGN.md section 6) plus detail fields."""
        return {
            "status": self.status,
            "cost": self.cost,
            "size": self.size,
            "n_optimal": self.n_optimal,
            "supports": [list(s) for s in self.supports],
            "complete": self.complete,
            "unseparable_pairs": [list(p) for p in self.unseparable_pairs],
            "mandatory_cells": list(self.mandatory_cells),
            "in_every_optimum": list(self.in_every_optimum),
            "estimand": self.estimand,
            "message": self.message,
            "reductions": dict(self.reductions),
            "seconds": round(self.seconds, 4),
        }


def cell_costs(pc: PolicyClass, cost: Mapping[str, float] | None = None) -> np.ndarray:
    """Cost of every full-support cell: product of axis-value factors, or set per cell id."""
    costs = np.ones(len(pc.cells), dtype=np.float64)
    if not cost:
        return costs
    index = pc.cell_index
    axis_of: dict[str, list[str]] = {}
    for axis, values in pc.axes.items():
        for v in values:
            axis_of.setdefault(v, []).append(axis)
    factors: dict[tuple[str, str], float] = {}
    explicit: dict[int, float] = {}
    for key, value in cost.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
            raise InputError(f"cost of {key!r} must be a positive number, got {value!r}")
        if key in index:
            explicit[index[key]] = float(value)
        elif key in axis_of:
            if len(axis_of[key]) > 1:
                raise InputError(f"cost key {key!r} is a value of several axes ({', '.join(axis_of[key])}); give cell ids instead")
            factors[(axis_of[key][0], key)] = float(value)
        else:
            raise InputError(f"cost key {key!r} is neither a cell id nor an axis value of {pc.source}")
    axes = list(pc.axes)
    for i, c in enumerate(pc.cells):
        for axis, v in zip(axes, c.split(":")):
            costs[i] *= factors.get((axis, v), 1.0)
    for i, v in explicit.items():
        costs[i] = v
    return costs


def _integer_costs(costs: np.ndarray) -> tuple[list[int], int]:
    """Exact integer costs for CP-SAT: scale by the common denominator (to 1e-6 precision)."""
    fracs = [Fraction(float(c)).limit_denominator(10**6) for c in costs]
    scale = 1
    for f in fracs:
        scale = scale * f.denominator // math.gcd(scale, f.denominator)
    ints = [int(f * scale) for f in fracs]
    if any(v <= 0 for v in ints) or sum(ints) > 2**50:
        raise InputError("costs cannot be represented exactly (use positive numbers with at most 6 decimals)")
    return ints, scale


def _drop_supersets(masks: np.ndarray) -> np.ndarray:
    """Unique sets that contain no other set (rows of a boolean matrix), sorted by size."""
    if masks.shape[0] == 0:
        return masks
    words = pack_sets(masks)
    _, first = np.unique(words.view(np.dtype((np.void, words.dtype.itemsize * words.shape[1]))).ravel(), return_index=True)
    first = np.sort(first)
    sizes = masks[first].sum(axis=1)
    order = first[np.argsort(sizes, kind="stable")]
    kept = np.empty((order.size, words.shape[1]), dtype=np.uint64)
    kept_rows = []
    for r in order:
        w = words[r]
        if kept_rows and np.any(np.all((kept[: len(kept_rows)] & ~w) == 0, axis=1)):
            continue  # an already kept (smaller) set lies inside this one: this one is implied
        kept[len(kept_rows)] = w
        kept_rows.append(r)
    return masks[np.asarray(kept_rows, dtype=np.intp)]


class _Collector(cp_model.CpSolverSolutionCallback):
    def __init__(self, variables: list, limit: int):
        super().__init__()
        self._vars = variables
        self._limit = limit
        self.solutions: set[tuple[int, ...]] = set()
        self.hit_limit = False

    def on_solution_callback(self) -> None:
        self.solutions.add(tuple(i for i, v in enumerate(self._vars) if self.Value(v)))
        if len(self.solutions) >= self._limit:
            self.hit_limit = True
            self.StopSearch()


def _number(x: float) -> float | int:
    return int(round(x)) if abs(x - round(x)) < 1e-9 else round(x, 9)


def minimum_supports(
    pc: PolicyClass,
    estimand: str = "tau_full",
    cost: Mapping[str, float] | None = None,
    must_include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    enumerate_all: bool = True,
    time_limit: float = 10.0,
    max_supports: int = DEFAULT_MAX_SUPPORTS,
    workers: int = 1,
) -> Synthesis:
    """Minimum-cost supports that identify ``estimand`` (see the module docstring for the recipe).

    ``time_limit`` applies to each solver phase. ``workers`` is phase 1's CP-SAT worker count
    (1 keeps the single returned support reproducible when ``enumerate_all`` is False).
    """
    started = time.perf_counter()
    tau = estimand_values(pc, estimand)
    n_cells = len(pc.cells)
    costs = cell_costs(pc, cost)
    must_include = tuple(dict.fromkeys(must_include))
    exclude = tuple(dict.fromkeys(exclude))
    inc_cols, exc_cols = pc.columns(must_include), pc.columns(exclude)
    both = set(must_include) & set(exclude)
    if both:
        raise InputError(f"cell {sorted(both)[0]!r} is both required and excluded")

    sets = pair_sets(pc, tau)
    m1, m0 = len(sets.ones), len(sets.zeros)
    masks = sets.differ.reshape(m1 * m0, n_cells)

    def pairs_of(rows: np.ndarray) -> list[tuple[str, str]]:
        out = []
        for r in rows:
            i, j = divmod(int(r), m0)
            out.extend((pc.names[a], pc.names[b]) for a in sets.ones[i] for b in sets.zeros[j])
        return sorted(out, key=lambda p: (pc.policy_index[p[0]], pc.policy_index[p[1]]))

    empty = ~masks.any(axis=1)
    unseparable = pairs_of(np.flatnonzero(empty))
    reductions = {"pairs": int(tau.sum()) * int((1 - tau).sum()), "unique_row_pairs": m1 * m0,
                  "unseparable": len(unseparable)}
    allowed = np.ones(n_cells, dtype=bool)
    allowed[exc_cols] = False
    live = masks[~empty] & allowed[None, :]
    live_rows = np.flatnonzero(~empty)

    def result(status: str, supports: list[tuple[str, ...]], complete: bool, message: str,
               mandatory: tuple[str, ...] = ()) -> Synthesis:
        costs_of = [_number(float(costs[pc.columns(s)].sum())) for s in supports]
        note = message
        if unseparable:
            note += (f" {len(unseparable)} pair(s) differ on no cell and cannot be separated by any support; "
                     "they were not sent to the solver.")
        common = ()
        if complete and supports:
            common = tuple(c for c in supports[0] if all(c in s for s in supports[1:]))
        return Synthesis(
            status=status, cost=costs_of[0] if costs_of else None, size=len(supports[0]) if supports else None,
            n_optimal=len(supports), supports=supports, complete=complete, unseparable_pairs=unseparable,
            mandatory_cells=mandatory, estimand=estimand, message=note.strip(), in_every_optimum=common,
            reductions=reductions, seconds=time.perf_counter() - started,
        )

    blocked = ~live.any(axis=1)
    if blocked.any():
        pairs = pairs_of(live_rows[blocked])
        return result("INFEASIBLE", [], False,
                      f"excluding {', '.join(exclude)} leaves {len(pairs)} pair(s) with no distinguishing cell, "
                      f"first {pairs[0][0]} vs {pairs[0][1]}.")

    # Forced cells: required by the user, or alone in a distinguishing set (then in every support).
    forced = np.zeros(n_cells, dtype=bool)
    forced[inc_cols] = True
    mandatory = np.zeros(n_cells, dtype=bool)
    while True:
        live = live[~(live & forced[None, :]).any(axis=1)]
        single = live.sum(axis=1) == 1
        if not single.any():
            break
        new = live[single].any(axis=0)
        mandatory |= new
        forced |= new
    live = _drop_supersets(live)
    reductions["constraints"] = int(live.shape[0])
    mandatory_cells = tuple(pc.cells[i] for i in np.flatnonzero(mandatory))
    forced_idx = np.flatnonzero(forced)

    def support_from(groups: Sequence[Sequence[int]]) -> tuple[str, ...]:
        cols = sorted(set(forced_idx.tolist()) | {c for g in groups for c in g})
        return tuple(pc.cells[c] for c in cols)

    if live.shape[0] == 0:
        return result("OPTIMAL", [support_from([])], True,
                      "every separable pair is already separated by the required and mandatory cells.",
                      mandatory_cells)

    # Merge identical columns; keep only the cheapest cells of each column.
    used = np.flatnonzero(live.any(axis=0))
    col_labels, n_groups = row_classes(live[:, used].T.astype(np.uint8))
    groups: list[list[int]] = [[] for _ in range(n_groups)]
    for c, g in zip(used, col_labels):
        groups[g].append(int(c))
    group_cost = [min(costs[g]) for g in groups]
    groups = [[c for c in g if costs[c] == gc] for g, gc in zip(groups, group_cost)]
    group_sets = np.zeros((live.shape[0], n_groups), dtype=bool)
    group_sets[:, col_labels] = live[:, used]
    reductions.update({"cells": int(used.size), "variables": n_groups})
    int_costs, scale = _integer_costs(np.asarray(group_cost))

    model = cp_model.CpModel()
    x = [model.NewBoolVar(f"g{g}") for g in range(n_groups)]
    for row in group_sets:
        model.AddBoolOr([x[g] for g in np.flatnonzero(row)])
    objective = sum(c * v for c, v in zip(int_costs, x))
    model.Minimize(objective)
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = float(time_limit)
    solver.parameters.num_workers = max(1, int(workers))
    solver.parameters.random_seed = 0
    # Hitting sets need the LP relaxation's bound to prove optimality; level 2 adds it in full.
    solver.parameters.linearization_level = 2
    status = solver.Solve(model)
    name = solver.StatusName(status)
    if name not in ("OPTIMAL", "FEASIBLE"):
        why = "the instance has no identifying support" if name == "INFEASIBLE" else "no support found within the time limit"
        return result(name, [], False, why + ".", mandatory_cells)
    best = [g for g in range(n_groups) if solver.Value(x[g])]
    one = support_from([[groups[g][0]] for g in best])
    if name != "OPTIMAL":
        return result("FEASIBLE", [one], False,
                      f"time limit {time_limit:g}s reached before optimality was proven; the support identifies τ "
                      "but may not be minimum.", mandatory_cells)
    if not enumerate_all:
        return result("OPTIMAL", [one], False, "one optimal support (enumeration not requested).", mandatory_cells)

    optimum = int(round(solver.ObjectiveValue()))
    model.ClearObjective()
    model.Add(objective == optimum)
    enum = cp_model.CpSolver()
    enum.parameters.enumerate_all_solutions = True
    enum.parameters.num_workers = 1
    enum.parameters.random_seed = 0
    enum.parameters.max_time_in_seconds = float(time_limit)
    enum.parameters.linearization_level = 2
    collector = _Collector(x, max_supports)
    status2 = enum.Solve(model, collector)
    # The phase-1 optimum is always listed, even if enumeration stops before finding it again.
    supports: set[tuple[str, ...]] = {one}
    truncated = collector.hit_limit
    for sol in sorted(collector.solutions):
        for choice in itertools.product(*(groups[g] for g in sol)):
            supports.add(support_from([[c] for c in choice]))
            if len(supports) >= max_supports:
                truncated = True
                break
        if len(supports) >= max_supports:
            break
    order = pc.cell_index
    ordered = sorted(supports, key=lambda s: (len(s), [order[c] for c in s]))
    complete = enum.StatusName(status2) == "OPTIMAL" and not truncated
    if complete:
        msg = f"all {len(ordered)} optimal supports (enumeration proved complete)."
    elif truncated:
        msg = f"the first {len(ordered)} optimal supports (stopped at max_supports={max_supports}); the list may be incomplete."
    else:
        msg = (f"{len(ordered)} optimal supports found; enumeration ended {enum.StatusName(status2)} "
               "(time limit), so the list may be incomplete.")
    return result("OPTIMAL", ordered, complete, msg, mandatory_cells)
