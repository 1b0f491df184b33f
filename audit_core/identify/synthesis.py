"""Minimum-cost identifying supports: weighted minimum hitting set with OR-Tools CP-SAT.

A support identifies τ iff it contains a cell of every distinguishing set D(h, h') of a
cross-estimand pair (paper 000, protocol synthesis). Recipe (docs/identification.md), for CP-SAT 9.x:

1. Reduce the instance safely: pairs with an empty D are reported as unseparable and never sent
   to the solver (then no support identifies τ: the status is ``NOT_IDENTIFIABLE`` and the
   supports returned are only a labelled fallback that separates the separable pairs, see
   :class:`Synthesis`); excluded cells are deleted from every set; duplicate sets and supersets of
   another set are dropped; a set with a single cell forces that cell (mandatory); identical cell
   columns are merged into one variable (only the cheapest cells of a column are kept: a costlier
   copy can never be in an optimum) and expanded back after solving.
   Then, on the variables: a variable whose sets all contain a cheaper variable is dropped (it is
   in no optimum); with ``enumerate_all=False`` an equally cheap dominating variable suffices.
2. Phase 1, at scale (issue 12): a weighted greedy cover is the first incumbent (identifying at
   once); the LP relaxation (HiGHS, cutting planes over the sets) gives a lower bound; then CP-SAT
   runs on a growing subset of the sets, hinted with the incumbent, adding after each solve the
   sets its solution misses (lazy pair constraints). A solve over a subset is a relaxation, so its
   bound is valid for the whole instance. The search stops as soon as the bound (the LP's or
   CP-SAT's, whichever is higher, rounded up on integer costs) meets the incumbent's cost: only
   then is the status OPTIMAL. Otherwise the status is FEASIBLE with the incumbent, its cost, the
   bound and the gap.
3. Phase 2: clear the objective, add ``cost == optimum`` and enumerate all solutions with one
   worker (several workers repeat solutions and need not prove completeness); deduplicate, sort.
   ``complete`` is True only when phase 2 ends OPTIMAL (the search space was exhausted).

Costs must be positive (a zero-cost cell would make every superset with it a tied optimum). A cost
given for an axis value multiplies the cost of every cell with that value (default 1 per cell, so
``{"scoring": 3}`` makes scoring cells three times as expensive); a cost keyed by cell id sets that
cell's cost outright. ``time_limit`` covers the whole call, reductions included. Output is deterministic: cells in canonical order, supports sorted by size
then by cell order.
"""

from __future__ import annotations

import functools
import itertools
import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np

from audit_core.errors import InputError
from audit_core.identify.cells import parse_cell_id
from audit_core.identify.distinguish import PairSets, pack_sets, pair_sets
from audit_core.identify.equivalence import row_classes
from audit_core.identify.estimands import estimand_values
from audit_core.identify.policies import PolicyClass

if TYPE_CHECKING:
    from ortools.sat.python import cp_model

DEFAULT_MAX_SUPPORTS = 100_000


NOT_IDENTIFIABLE = "NOT_IDENTIFIABLE"
# Statuses whose supports identify τ (FEASIBLE: identifying, minimality not proven in time).
IDENTIFYING_STATUSES = ("OPTIMAL", "FEASIBLE")


@dataclass(frozen=True)
class Synthesis:
    """Result of :func:`minimum_supports` (``cost`` in the units of the cost dict).

    ``status``: ``OPTIMAL`` (the listed supports identify τ at proven minimum cost), ``FEASIBLE``
    (an identifying support, minimality not proven within the time limit), ``INFEASIBLE`` (the
    exclusions leave a pair without a distinguishing cell), ``UNKNOWN`` / ``MODEL_INVALID`` (the
    solver gave up), or ``NOT_IDENTIFIABLE``: some pair with different τ differs on no cell of the
    full support, so no support at all identifies τ (paper 000, Theorem 1) and
    ``unseparable_pairs`` names those pairs.

    Fallback design: the solver still runs on the separable pairs. ``solver_status`` is the status
    of that solve (equal to ``status`` unless ``status`` is ``NOT_IDENTIFIABLE``), and
    ``fallback_for_separable_pairs`` is True exactly when ``status`` is ``NOT_IDENTIFIABLE``: then
    ``supports``, ``cost``, ``size``, ``n_optimal``, ``complete`` and ``in_every_optimum`` describe
    the cheapest supports that separate every *separable* pair only; they do NOT identify τ.
    ``identifies`` is True when the listed supports identify τ.

    ``lower_bound``: no support separating the (separable) pairs costs less (the LP relaxation or
    CP-SAT's proven bound, whichever is higher; equal to ``cost`` when OPTIMAL; None without a
    support); ``gap``: ``cost - lower_bound`` in cost units (0 when OPTIMAL).

    ``mandatory_cells``: cells alone in some distinguishing set (in every support);
    ``reductions``: instance sizes before and after the safe reductions; ``seconds``: wall time.
    """

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
    solver_status: str = ""
    fallback_for_separable_pairs: bool = False
    lower_bound: float | None = None
    gap: float | None = None

    @property
    def identifies(self) -> bool:
        """Do the listed supports identify τ (status OPTIMAL or FEASIBLE)?"""
        return self.status in IDENTIFYING_STATUSES

    def __repr__(self) -> str:
        fallback = ", fallback for separable pairs" if self.fallback_for_separable_pairs else ""
        return (
            f"Synthesis({self.status}{fallback}, cost={self.cost}, lower_bound={self.lower_bound}, size={self.size}, "
            f"n_optimal={self.n_optimal}, complete={self.complete})"
        )

    def to_dict(self) -> dict:
        """CLI JSON shape (docs/cli.md) plus detail fields."""
        return {
            "status": self.status,
            "identifies": self.identifies,
            "solver_status": self.solver_status,
            "fallback_for_separable_pairs": self.fallback_for_separable_pairs,
            "cost": self.cost,
            "lower_bound": self.lower_bound,
            "gap": self.gap,
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
    for i, c in enumerate(pc.cells):
        for axis, v in parse_cell_id(c, pc.axes).items():
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


def _unique_sets(masks: np.ndarray) -> np.ndarray:
    """Distinct rows of a boolean matrix, first occurrences in order."""
    if masks.shape[0] == 0:
        return masks
    words = pack_sets(masks)
    _, first = np.unique(words.view(np.dtype((np.void, words.dtype.itemsize * words.shape[1]))).ravel(),
                         return_index=True)
    return masks[np.sort(first)]


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


@functools.cache
def _collector_class() -> type:
    """The solution collector, a CP-SAT callback (built on first use: OR-Tools loads with the first solve)."""
    from ortools.sat.python import cp_model

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

    return _Collector


def _number(x: float) -> float | int:
    return int(round(x)) if abs(x - round(x)) < 1e-9 else round(x, 9)


@dataclass(frozen=True, eq=False)
class _Instance:
    """What every result of one :func:`minimum_supports` call shares."""

    pc: PolicyClass
    estimand: str
    costs: np.ndarray
    unseparable: list[tuple[str, str]]
    reductions: dict
    started: float


def _result(inst: _Instance, status: str, supports: list[tuple[str, ...]], complete: bool, message: str,
            mandatory: tuple[str, ...] = (), lower_bound: float | None = None) -> Synthesis:
    """Build the Synthesis; with unseparable pairs the status becomes NOT_IDENTIFIABLE (fallback)."""
    pc = inst.pc
    costs_of = [_number(float(inst.costs[pc.columns(s)].sum())) for s in supports]
    note = message
    fallback = bool(inst.unseparable)
    if fallback:
        a, b = inst.unseparable[0]
        note = (f"τ is NOT identifiable: {len(inst.unseparable)} pair(s) with different τ differ on no cell "
                f"and cannot be separated by any support (first {a} vs {b}). Fallback, not an identifying "
                f"support: for the separable pairs only (solver status {status}), {message}")
    cost = costs_of[0] if costs_of else None
    if status == "OPTIMAL" and cost is not None:
        lower_bound = cost  # proven: the bound met the incumbent
    bound = None if lower_bound is None or cost is None else _number(min(float(lower_bound), float(cost)))
    gap = None if bound is None else _number(float(cost) - float(bound))
    common = ()
    if complete and supports:
        common = tuple(c for c in supports[0] if all(c in s for s in supports[1:]))
    return Synthesis(
        status=NOT_IDENTIFIABLE if fallback else status, cost=cost, lower_bound=bound, gap=gap,
        size=len(supports[0]) if supports else None, n_optimal=len(supports), supports=supports,
        complete=complete, unseparable_pairs=inst.unseparable, mandatory_cells=mandatory,
        estimand=inst.estimand, message=note.strip(), in_every_optimum=common, reductions=inst.reductions,
        seconds=time.perf_counter() - inst.started, solver_status=status, fallback_for_separable_pairs=fallback,
    )


def _check_constraints(pc: PolicyClass, must_include: Sequence[str], exclude: Sequence[str]):
    """Deduplicated required / excluded cell ids and their columns (InputError on a clash)."""
    must_include = tuple(dict.fromkeys(must_include))
    exclude = tuple(dict.fromkeys(exclude))
    inc_cols, exc_cols = pc.columns(must_include), pc.columns(exclude)
    both = set(must_include) & set(exclude)
    if both:
        raise InputError(f"cell {sorted(both)[0]!r} is both required and excluded")
    return must_include, exclude, inc_cols, exc_cols


def _pairs_of(pc: PolicyClass, sets: PairSets, rows: np.ndarray) -> list[tuple[str, str]]:
    """Policy-name pairs behind rows of the flattened (unique τ=1 row x unique τ=0 row) sets."""
    m0 = len(sets.zeros)
    out = []
    for r in rows:
        i, j = divmod(int(r), m0)
        out.extend((pc.names[a], pc.names[b]) for a in sets.ones[i] for b in sets.zeros[j])
    return sorted(out, key=lambda p: (pc.policy_index[p[0]], pc.policy_index[p[1]]))


def _force_cells(live: np.ndarray, forced: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Drop sets hit by forced cells; a set left with one cell forces it (repeat to a fixpoint).

    Returns the remaining sets, all forced cells and the mandatory ones (forced by a single set).
    """
    forced = forced.copy()
    mandatory = np.zeros_like(forced)
    while True:
        live = live[~(live & forced[None, :]).any(axis=1)]
        single = live.sum(axis=1) == 1
        if not single.any():
            return live, forced, mandatory
        new = live[single].any(axis=0)
        mandatory |= new
        forced |= new


def _merge_columns(live: np.ndarray, costs: np.ndarray) -> tuple[list[list[int]], list[float], np.ndarray, int]:
    """Identical cell columns as one variable each, keeping only the cheapest cells of a column.

    Returns the cells of each group, each group's cost, the (sets x groups) matrix and the number
    of cells that appear in some set.
    """
    used = np.flatnonzero(live.any(axis=0))
    col_labels, n_groups = row_classes(live[:, used].T.astype(np.uint8))
    groups: list[list[int]] = [[] for _ in range(n_groups)]
    for c, g in zip(used, col_labels, strict=True):
        groups[g].append(int(c))
    group_cost = [min(costs[g]) for g in groups]
    groups = [[c for c in g if costs[c] == gc] for g, gc in zip(groups, group_cost, strict=True)]
    group_sets = np.zeros((live.shape[0], n_groups), dtype=bool)
    group_sets[:, col_labels] = live[:, used]
    return groups, group_cost, group_sets, int(used.size)


def _solver(time_limit: float, workers: int) -> cp_model.CpSolver:
    from ortools.sat.python import cp_model

    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = float(time_limit)
    solver.parameters.num_workers = max(1, int(workers))
    solver.parameters.random_seed = 0
    # Hitting sets need the LP relaxation's bound to prove optimality; level 2 adds it in full.
    solver.parameters.linearization_level = 2
    return solver


def _hitting_set_model(group_sets: np.ndarray, int_costs: list[int]):
    """CP-SAT model: one Boolean per group, every set hit, cost objective (not yet minimised)."""
    from ortools.sat.python import cp_model  # loaded with the first solve, not with this module

    model = cp_model.CpModel()
    x = [model.NewBoolVar(f"g{g}") for g in range(group_sets.shape[1])]
    for row in group_sets:
        model.AddBoolOr([x[g] for g in np.flatnonzero(row)])
    objective = sum(c * v for c, v in zip(int_costs, x, strict=True))
    return model, x, objective


def _enumerate_optima(model, x: list, objective, optimum: int, time_limit: float,
                      max_supports: int) -> tuple[object, str]:
    """Phase 2: every group assignment of cost ``optimum`` (one worker; see the module docstring)."""
    model.ClearObjective()
    model.Add(objective == optimum)
    enum = _solver(time_limit, 1)
    enum.parameters.enumerate_all_solutions = True
    collector = _collector_class()(x, max_supports)
    status = enum.Solve(model, collector)
    return collector, enum.StatusName(status)


def _expand(solutions, groups: list[list[int]], support_from, first: tuple[str, ...],
            max_supports: int, order: Mapping[str, int]) -> tuple[list[tuple[str, ...]], bool]:
    """Group solutions back to cell supports (every cheapest cell of a group), sorted; truncated?"""
    # The phase-1 optimum is always listed, even if enumeration stops before finding it again.
    supports: set[tuple[str, ...]] = {first}
    truncated = False
    for sol in sorted(solutions):
        for choice in itertools.product(*(groups[g] for g in sol)):
            supports.add(support_from([[c] for c in choice]))
            if len(supports) >= max_supports:
                truncated = True
                break
        if truncated:
            break
    return sorted(supports, key=lambda s: (len(s), [order[c] for c in s])), truncated


def _enumeration_message(n: int, complete: bool, truncated: bool, status: str, max_supports: int) -> str:
    if complete:
        return f"all {n} optimal supports (enumeration proved complete)."
    if truncated:
        return f"the first {n} optimal supports (stopped at max_supports={max_supports}); the list may be incomplete."
    return f"{n} optimal supports found; enumeration ended {status} (time limit), so the list may be incomplete."


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

    ``time_limit`` bounds the whole call (reductions, bound, search, enumeration). ``workers`` is phase 1's CP-SAT worker count
    (1 keeps the single returned support reproducible when ``enumerate_all`` is False). A class
    with an unseparable pair gives status ``NOT_IDENTIFIABLE`` and the separable-pairs fallback
    described in :class:`Synthesis`.
    """
    started = time.perf_counter()
    if isinstance(time_limit, bool) or not isinstance(time_limit, (int, float)) or not time_limit > 0 \
            or not math.isfinite(time_limit):
        raise InputError(f"time limit: must be a positive number of seconds, got {time_limit!r}")
    deadline = started + float(time_limit)
    tau = estimand_values(pc, estimand)
    costs = cell_costs(pc, cost)
    must_include, exclude, inc_cols, exc_cols = _check_constraints(pc, must_include, exclude)

    sets = pair_sets(pc, tau)
    masks = sets.differ.reshape(len(sets.ones) * len(sets.zeros), len(pc.cells))
    empty = ~masks.any(axis=1)
    unseparable = _pairs_of(pc, sets, np.flatnonzero(empty))
    reductions = {"pairs": int(tau.sum()) * int((1 - tau).sum()), "unique_row_pairs": int(masks.shape[0]),
                  "unseparable": len(unseparable)}
    inst = _Instance(pc, estimand, costs, unseparable, reductions, started)
    allowed = np.ones(len(pc.cells), dtype=bool)
    allowed[exc_cols] = False
    live = masks[~empty] & allowed[None, :]

    blocked = ~live.any(axis=1)
    if blocked.any():
        pairs = _pairs_of(pc, sets, np.flatnonzero(~empty)[blocked])
        return _result(inst, "INFEASIBLE", [], False,
                       f"excluding {', '.join(exclude)} leaves {len(pairs)} pair(s) with no distinguishing cell, "
                       f"first {pairs[0][0]} vs {pairs[0][1]}.")

    # Forced cells: required by the user, or alone in a distinguishing set (then in every support).
    required = np.zeros(len(pc.cells), dtype=bool)
    required[inc_cols] = True
    live, forced, mandatory = _force_cells(live, required)
    live = _unique_sets(live)
    if live.shape[0] <= _SUPERSET_LIMIT:
        live = _drop_supersets(live)
    reductions["constraints"] = int(live.shape[0])
    mandatory_cells = tuple(pc.cells[i] for i in np.flatnonzero(mandatory))
    forced_idx = set(np.flatnonzero(forced).tolist())

    def support_from(groups: Sequence[Sequence[int]]) -> tuple[str, ...]:
        return tuple(pc.cells[c] for c in sorted(forced_idx | {c for g in groups for c in g}))

    if live.shape[0] == 0:
        return _result(inst, "OPTIMAL", [support_from([])], True,
                       "every separable pair is already separated by the required and mandatory cells.",
                       mandatory_cells)

    return _optimise(inst, live, support_from, mandatory_cells, enumerate_all, deadline, max_supports, workers)


def _left(deadline: float) -> float:
    return deadline - time.perf_counter()


def _drop_dominated_columns(group_sets: np.ndarray, group_cost: np.ndarray, ties_too: bool,
                            deadline: float) -> np.ndarray:
    """Mask of the variables kept after dropping dominated ones.

    Variable a is dominated by b when every set containing a also contains b and b costs less
    (then no optimum uses a: swapping a for b is cheaper), or costs the same and ``ties_too`` (a
    single optimum is still kept; used only when all optima need not be listed). Skipped (nothing
    dropped) when the ``sets x variables^2`` count would not fit the remaining time.
    """
    k, g = group_sets.shape
    keep = np.ones(g, dtype=bool)
    if k * g * g > _DOMINANCE_WORK or _left(deadline) < 0.2:
        return keep
    a = group_sets.astype(np.float32)
    outside = a.T @ (1.0 - a)  # outside[i, j]: sets that contain i but not j
    inside = outside < 0.5
    np.fill_diagonal(inside, False)
    cheaper = group_cost[None, :] < group_cost[:, None]
    dominated = inside & cheaper
    if ties_too:
        dominated |= inside & (group_cost[None, :] == group_cost[:, None])
    # Columns are distinct after merging, so `inside` is a strict partial order: the maximal,
    # cheapest columns of every chain stay.
    return keep & ~dominated.any(axis=1)


def _greedy_cover(sets: np.ndarray, cost: np.ndarray) -> list[int]:
    """Weighted greedy set cover (most newly hit sets per unit cost), then redundant picks dropped."""
    uncovered = np.ones(sets.shape[0], dtype=bool)
    chosen: list[int] = []
    while uncovered.any():
        gain = sets[uncovered].sum(axis=0) / cost
        g = int(np.argmax(gain))
        chosen.append(g)
        uncovered &= ~sets[:, g]
    hits = sets[:, chosen].sum(axis=1)
    for g in sorted(chosen, key=lambda v: (-cost[v], v)):
        col = sets[:, g]
        if np.all(hits[col] >= 2):  # every set it hits is hit by another pick
            hits -= col
            chosen.remove(g)
    return sorted(chosen)


def _violated(sets: np.ndarray, cover: np.ndarray, limit: int) -> np.ndarray:
    """Up to ``limit`` rows of ``sets`` with ``cover < 1``, smallest sets first (most binding)."""
    rows = np.flatnonzero(cover < 1 - 1e-7)
    if rows.size > limit:
        rows = rows[np.argsort(sets[rows].sum(axis=1), kind="stable")[:limit]]
    return rows


def _lp_bound(sets: np.ndarray, cost: np.ndarray, rows: np.ndarray, deadline: float) -> tuple[float, np.ndarray, bool]:
    """LP relaxation bound min c·x s.t. x(S) ≥ 1 for every set, 0 ≤ x ≤ 1, by cutting planes (HiGHS).

    The LP over any subset of the sets is a relaxation, so every round's value is a valid bound;
    rounds add the sets the fractional optimum leaves under-covered. Returns the best bound, the
    rows used and whether the bound is the full LP's (no set violated at the end).
    """
    # Imported here, when a search first needs the bound: loading audit_core.identify (identify,
    # lattice, the classes) does not pay for scipy.optimize.
    from scipy.optimize import linprog
    from scipy.sparse import csr_matrix

    best, full = 0.0, False
    dense = sets.astype(np.float32)
    while _left(deadline) > 0.05:
        res = linprog(cost, A_ub=-csr_matrix(sets[rows].astype(np.float64)), b_ub=-np.ones(rows.size),
                      bounds=(0, 1), method="highs", options={"time_limit": max(_left(deadline), 0.01)})
        if res.status != 0:
            break
        best = max(best, float(res.fun))
        new = _violated(sets, dense @ res.x.astype(np.float32), _LAZY_BATCH)
        if new.size == 0:
            full = True
            break
        rows = np.union1d(rows, new)
    return best, rows, full


def _cardinality_bound(sets: np.ndarray, deadline: float, max_k: int = 3) -> int:
    """The fewest variables any hitting set can have, as far as checked: 1 + the largest k <= max_k
    such that no k variables hit every set (exhaustively, k = 1, 2, 3 in turn).

    Every support then has at least that many variables, so it costs at least the sum of that
    many cheapest costs: a bound the LP misses when the sets are large (each variable hits most
    sets, so the LP spreads a little weight everywhere). The rows are bit-packed; k = 3 tries every
    pair with every later variable (C(200, 3) = 1.3M triples in about a second). Stops early,
    keeping what it proved, when ``deadline`` passes.
    """
    n_rows, n_vars = sets.shape
    if n_rows == 0:
        return 0
    packed = np.packbits(sets.T, axis=1, bitorder="little")                 # (variables, bytes)
    pad = (-packed.shape[1]) % 8
    words = np.ascontiguousarray(np.pad(packed, ((0, 0), (0, pad)))).view(np.uint64)  # (variables, words)
    full = np.pad(np.packbits(np.ones(n_rows, dtype=bool), bitorder="little"), (0, pad)).view(np.uint64)
    if (words == full).all(axis=1).any():
        return 1
    proven = 2
    for i in range(n_vars - 1):
        pair = words[i] | words[i + 1:]
        if (pair == full).all(axis=1).any():
            return proven
        if time.perf_counter() > deadline:
            return proven
    if max_k < 3:
        return proven
    for i in range(n_vars - 2):
        for j in range(i + 1, n_vars - 1):
            if ((words[i] | words[j]) | words[j + 1:] == full).all(axis=1).any():
                return 3
        if time.perf_counter() > deadline:
            return 3
    return 4


def _ceil_bound(value: float) -> int:
    """Integer objective ⇒ a real bound rounds up (minus a float tolerance)."""
    return int(math.ceil(value - 1e-6 * max(1.0, abs(value))))


@dataclass
class _Search:
    """State of the lazy CP-SAT search on integer costs (incumbent is feasible for every set)."""

    incumbent: list[int]
    incumbent_cost: int
    bound: int
    proven: bool = False
    rounds: int = 0
    in_model: int = 0


def _lazy_cpsat(sets: np.ndarray, int_costs: list[int], rows: np.ndarray, search: _Search,
                deadline: float, workers: int) -> _Search:
    """Lazy pair constraints: solve on some sets, add the sets the solution misses, repeat.

    The model over a subset of the sets is a relaxation, so its proven bound is a bound of the
    whole instance, and a relaxation optimum that hits every set is optimal. Each solve is hinted
    with the incumbent (greedy first) and stops at the deadline; the search stops early as soon
    as the bound meets the incumbent's cost.
    """
    from ortools.sat.python import cp_model  # loaded with the first solve, not with this module

    model = cp_model.CpModel()
    x = [model.NewBoolVar(f"g{g}") for g in range(sets.shape[1])]
    objective = sum(c * v for c, v in zip(int_costs, x, strict=True))
    model.Minimize(objective)
    added: set[int] = set()

    def add(new_rows) -> None:
        for r in new_rows:
            if int(r) not in added:
                added.add(int(r))
                model.AddBoolOr([x[g] for g in np.flatnonzero(sets[r])])

    add(rows)
    while search.bound < search.incumbent_cost and _left(deadline) > 0.02:
        # Every solution costs at least the bound, so this keeps the model a relaxation and lets
        # CP-SAT stop as soon as it finds a solution at the bound.
        model.Add(objective >= search.bound)
        model.ClearHints()
        chosen = set(search.incumbent)
        for g, v in enumerate(x):
            model.AddHint(v, g in chosen)
        solver = _solver(_left(deadline), workers)
        name = solver.StatusName(solver.Solve(model))
        search.rounds += 1
        if name not in IDENTIFYING_STATUSES:
            break
        search.bound = max(search.bound, _ceil_bound(solver.BestObjectiveBound()))
        sol = [g for g, v in enumerate(x) if solver.Value(v)]
        missed = _violated(sets, sets[:, sol].any(axis=1).astype(np.float32), _LAZY_BATCH)
        if missed.size == 0:
            value = sum(int_costs[g] for g in sol)
            if value < search.incumbent_cost:
                search.incumbent, search.incumbent_cost = sol, value
            if name == "OPTIMAL":
                search.bound = max(search.bound, value)
            break
        add(missed)
    search.in_model = len(added)
    search.proven = search.bound >= search.incumbent_cost
    return search


# Limits of the optional reductions and of one lazy round (sizes, not times).
_DOMINANCE_WORK = 3e8
_SUPERSET_LIMIT = 3000
_LAZY_BATCH = 100
_FIRST_ROWS = 50
_LP_SHARE = 0.3
_CARD_SHARE = 0.25


def _optimise(inst: _Instance, live: np.ndarray, support_from, mandatory_cells: tuple[str, ...],
              enumerate_all: bool, deadline: float, max_supports: int, workers: int) -> Synthesis:
    """Reduce columns, greedy incumbent, LP bound, lazy CP-SAT, then (optionally) enumeration."""
    groups, group_cost, group_sets, n_used = _merge_columns(live, inst.costs)
    keep = _drop_dominated_columns(group_sets, np.asarray(group_cost), not enumerate_all, deadline)
    groups = [g for g, k in zip(groups, keep, strict=True) if k]
    group_cost = [c for c, k in zip(group_cost, keep, strict=True) if k]
    group_sets = group_sets[:, keep]
    int_costs, scale = _integer_costs(np.asarray(group_cost))
    cost_arr = np.asarray(int_costs, dtype=np.float64)

    greedy = _greedy_cover(group_sets, cost_arr)
    first = np.argsort(group_sets.sum(axis=1), kind="stable")[:_FIRST_ROWS]
    # The LP gets a share of the remaining time; the lazy CP-SAT search the rest.
    lp_deadline = time.perf_counter() + _LP_SHARE * max(_left(deadline), 0.0)
    lp, rows, lp_full = _lp_bound(group_sets, cost_arr, np.sort(first), lp_deadline)
    # Every set needs one of its cells: the dearest cheapest-cell of a set bounds any solution.
    by_cost = np.argsort(cost_arr, kind="stable")
    floor = int(cost_arr[by_cost[np.argmax(group_sets[:, by_cost], axis=1)]].max())
    # At least `fewest` variables in any support: at least the sum of that many cheapest costs.
    fewest = _cardinality_bound(group_sets, time.perf_counter() + _CARD_SHARE * max(_left(deadline), 0.0))
    cardinality = int(np.sort(cost_arr)[:fewest].sum())
    search = _Search(greedy, sum(int_costs[g] for g in greedy), max(_ceil_bound(lp), floor, cardinality))
    search = _lazy_cpsat(group_sets, int_costs, rows, search, deadline, workers)
    inst.reductions.update({
        "cells": n_used, "variables": len(groups), "dominated_variables": int((~keep).sum()),
        "greedy_cost": _number(sum(int_costs[g] for g in greedy) / scale), "lp_bound": round(lp / scale, 6),
        "lp_bound_complete": lp_full, "lazy_rounds": search.rounds, "constraints_in_model": search.in_model,
        "fewest_cells_bound": fewest, "cardinality_bound": _number(cardinality / scale),
    })
    one = support_from([[groups[g][0]] for g in search.incumbent])
    bound = search.bound / scale
    if not search.proven:
        cost = search.incumbent_cost / scale
        does = "separates every separable pair" if inst.unseparable else "identifies τ"
        return _result(inst, "FEASIBLE", [one], False,
                       f"time limit reached before optimality was proven: the support {does} at cost {_number(cost)}; "
                       f"no support costs less than {_number(bound)} (gap {_number(cost - bound)}).",
                       mandatory_cells, lower_bound=bound)
    if not enumerate_all:
        return _result(inst, "OPTIMAL", [one], False, "one optimal support (enumeration not requested).",
                       mandatory_cells, lower_bound=bound)
    return _enumerate(inst, group_sets, groups, int_costs, search.incumbent_cost, one, support_from,
                      mandatory_cells, deadline, max_supports, bound)


def _enumerate(inst: _Instance, group_sets: np.ndarray, groups, int_costs, optimum: int, one, support_from,
               mandatory_cells, deadline: float, max_supports: int, bound: float) -> Synthesis:
    """Phase 2 on every set (a tied optimum may miss a set the lazy model never needed)."""
    sets = _drop_supersets(group_sets) if group_sets.shape[0] <= _SUPERSET_LIMIT else group_sets
    model, x, objective = _hitting_set_model(sets, int_costs)
    collector, status2 = _enumerate_optima(model, x, objective, optimum, max(_left(deadline), 0.01), max_supports)
    ordered, truncated = _expand(collector.solutions, groups, support_from, one, max_supports, inst.pc.cell_index)
    truncated = truncated or collector.hit_limit
    complete = status2 == "OPTIMAL" and not truncated
    return _result(inst, "OPTIMAL", ordered, complete,
                   _enumeration_message(len(ordered), complete, truncated, status2, max_supports), mandatory_cells,
                   lower_bound=bound)
