"""Benchmark the identifiability engine; the last line printed is one JSON object.

1. Equivalence classes + collision count for 20,000 random policies x 1,000 cells with planted
   duplicate rows (target < 1 s), against a straightforward all-pairs comparison measured in the
   same run on a subsample (same classes checked; speed-up on the subsample and extrapolated).
2. CP-SAT minimum hitting set for a random 300-policy x 200-cell class, solved to OPTIMAL.
3. Enumeration of all 26 optimal supports of the frozen class (target < 1 s), against brute
   force over every support of at most two cells.

Run: ``python bench/bench_identify.py``.
"""

from __future__ import annotations

import itertools
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from audit_core.identify import (  # noqa: E402
    build_policy_class,
    collision_count,
    frozen_policy_class,
    identify,
    minimum_supports,
    row_classes,
)

SEED = 20240601


def planted_class(rng: np.random.Generator, n: int, m: int, n_codes: int = 4, dup_fraction: float = 0.25):
    """Random response codes where a fraction of the rows copy another row exactly."""
    codes = rng.integers(0, n_codes, size=(n, m), dtype=np.uint8)
    n_dup = int(n * dup_fraction)
    targets = rng.choice(n, size=n_dup, replace=False)
    sources = rng.integers(0, n, size=n_dup)
    codes[targets] = codes[sources]
    tau = rng.integers(0, 2, size=n).astype(np.int8)
    return codes, tau


def all_pairs_classes(codes: np.ndarray, tau: np.ndarray) -> tuple[np.ndarray, int]:
    """Baseline: compare every pair of rows, union-find the equal ones, count τ-crossing pairs."""
    n = codes.shape[0]
    parent = list(range(n))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    collisions = 0
    for i in range(n):
        row = codes[i]
        for j in range(i + 1, n):
            if np.array_equal(row, codes[j]):
                parent[find(j)] = find(i)
                collisions += int(tau[i] != tau[j])
    roots = np.array([find(i) for i in range(n)])
    return roots, collisions


def same_partition(a: np.ndarray, b: np.ndarray) -> bool:
    return bool(np.array_equal(a[:, None] == a[None, :], b[:, None] == b[None, :]))


def bench_classes(rng: np.random.Generator) -> dict:
    n, m = 20_000, 1_000
    codes, tau = planted_class(rng, n, m)
    support = np.arange(m)  # the full support's columns, selected as identify() does
    best = np.inf
    for _ in range(3):
        t0 = time.perf_counter()
        labels, k = row_classes(codes[:, support])
        n_coll = collision_count(labels, tau, k)
        best = min(best, time.perf_counter() - t0)
    t0 = time.perf_counter()
    uniq_axis0 = np.unique(codes, axis=0).shape[0]
    t_axis0 = time.perf_counter() - t0
    assert uniq_axis0 == k

    sub = 600
    sc, st = codes[:sub], tau[:sub]
    t0 = time.perf_counter()
    roots, coll_pairs = all_pairs_classes(sc, st)
    t_pairs = time.perf_counter() - t0
    t0 = time.perf_counter()
    sub_labels, sub_k = row_classes(sc)
    sub_coll = collision_count(sub_labels, st, sub_k)
    t_hash_sub = time.perf_counter() - t0
    assert same_partition(roots, sub_labels) and coll_pairs == sub_coll
    extrapolated = t_pairs * (n / sub) ** 2 * (n - 1) / n * sub / (sub - 1)
    print(f"classes: {n} x {m}: {k} classes, {n_coll} collisions in {best:.3f} s "
          f"(np.unique(axis=0): {t_axis0:.3f} s, {t_axis0 / best:.1f}x slower)")
    print(f"all-pairs baseline on {sub} rows: {t_pairs:.3f} s vs hashing {t_hash_sub:.4f} s "
          f"({t_pairs / t_hash_sub:.0f}x); extrapolated to {n} rows: {extrapolated:.0f} s ({extrapolated / best:.0f}x)")
    return {
        "classes_seconds": round(best, 4), "n_policies": n, "n_cells": m, "n_classes": k,
        "n_collisions": n_coll, "under_1s": best < 1.0,
        "unique_axis0_seconds": round(t_axis0, 4), "speedup_vs_unique_axis0": round(t_axis0 / best, 2),
        "all_pairs_subsample": sub, "all_pairs_seconds": round(t_pairs, 4),
        "hash_subsample_seconds": round(t_hash_sub, 5),
        "speedup_subsample": round(t_pairs / t_hash_sub, 1),
        "speedup_extrapolated": round(extrapolated / best, 1),
    }


def random_synthesis_class(rng: np.random.Generator, n: int = 300, m: int = 200):
    """Policies deviating from a reference row in 2-6 random cells, about 10% with τ = 1.

    A random weighted set cover with thousands of small sets: the hard case for proving optimality
    (with 30% τ = 1 the same generator exceeds a minute on this machine).
    """
    ref = rng.integers(0, 3, size=m)
    rows = np.tile(ref, (n, 1))
    for r in rows:
        k = rng.integers(2, 7)
        cols = rng.choice(m, size=k, replace=False)
        r[cols] = (r[cols] + rng.integers(1, 3, size=k)) % 3
    tau = (rng.random(n) < 0.1).astype(int)
    cells = [f"c{j:03d}" for j in range(m)]
    names = [f"h{i:03d}" for i in range(n)]
    return build_policy_class(
        {"cell": cells}, {"cell": [cells[0]]}, {"rest": {"cell": cells[1:]}},
        {name: dict(zip(cells, map(str, row), strict=False)) for name, row in zip(names, rows, strict=False)},
        tau=dict(zip(names, tau.tolist(), strict=False)), source="random 300x200",
    )


def bench_cpsat(rng: np.random.Generator) -> dict:
    pc = random_synthesis_class(rng)
    t0 = time.perf_counter()
    s = minimum_supports(pc, estimand="file", enumerate_all=False, time_limit=60.0)
    t = time.perf_counter() - t0
    ok = identify(pc, cells=s.supports[0], estimand="file").n_collisions == 0 if s.supports else False
    print(f"CP-SAT 300 x 200: {s.status}, cost {s.cost}, in {t:.3f} s; reductions {s.reductions}; identifies: {ok}")
    return {"cpsat_status": s.status, "cpsat_seconds": round(t, 3), "cpsat_cost": s.cost,
            "cpsat_reductions": s.reductions, "cpsat_support_identifies": ok}


def bench_enumeration() -> dict:
    pc = frozen_policy_class()
    best = np.inf
    for _ in range(3):
        t0 = time.perf_counter()
        s = minimum_supports(pc)
        best = min(best, time.perf_counter() - t0)
    t0 = time.perf_counter()
    brute = [sub for k in (1, 2) for sub in itertools.combinations(pc.cells, k)
             if identify(pc, cells=sub).identified]
    t_brute = time.perf_counter() - t0
    assert sorted(brute) == sorted(s.supports) and s.n_optimal == 26 and s.complete
    print(f"frozen enumeration: {s.n_optimal} optima, complete={s.complete}, {best:.4f} s "
          f"(brute force over <=2-cell supports {t_brute:.3f} s, {t_brute / best:.1f}x)")
    return {"enumeration_seconds": round(best, 4), "n_optimal": s.n_optimal, "enumeration_complete": s.complete,
            "enumeration_under_1s": best < 1.0, "brute_force_seconds": round(t_brute, 4),
            "speedup_vs_brute_force": round(t_brute / best, 1)}


def main() -> None:
    rng = np.random.default_rng(SEED)
    out = {}
    out.update(bench_classes(rng))
    out.update(bench_cpsat(rng))
    out.update(bench_enumeration())
    print(json.dumps(out))


if __name__ == "__main__":
    main()
