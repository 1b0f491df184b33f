"""Benchmark synthesis at scale (issue 12); the last line printed is one JSON object.

(a) The random dense class: 300 policies x 200 cells, uniform responses over three codes, about
    30% τ = 1 (issue 21: cost 7, bound 2 before the cardinality bound; now bound 4).
    ``minimum_supports`` with a 60 s limit (whole call) against HiGHS
    (``scipy.optimize.milp``) on the plain hitting-set model (every distinct distinguishing set)
    with the same limit, in the same run: cost, lower bound and gap of each.
(b) Behaviour-composed classes over a 12-world x 6-mapping x 4-readout protocol (288 cells,
    ``audit_core.identify.scale_classes.behaviour_class``), 1,000 and 2,000 policies, τ_full and
    the many-to-many "ideal on every target world" τ: OPTIMAL in under 10 s is the target; HiGHS
    on the plain model is timed in the same run and the ratio printed.

Run: ``python bench/bench_synthesis_scale.py [--limit SECONDS]`` (default 60 for part a).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import csr_matrix

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from audit_core.identify import identify, minimum_supports  # noqa: E402
from audit_core.identify.distinguish import pair_sets  # noqa: E402
from audit_core.identify.estimands import estimand_values  # noqa: E402
from audit_core.identify.scale_classes import behaviour_class, random_dense_class  # noqa: E402

SEED = 20261201


def plain_sets(pc, estimand: str) -> np.ndarray:
    """Baseline model: every distinct non-empty distinguishing set over all cells (no other reduction)."""
    sets = pair_sets(pc, estimand_values(pc, estimand))
    masks = sets.differ.reshape(-1, len(pc.cells))
    masks = masks[masks.any(axis=1)]
    return np.unique(masks, axis=0)


def highs(pc, estimand: str, limit: float) -> dict:
    """HiGHS branch-and-cut on min Σx s.t. x(D) ≥ 1 for every set D, x binary; model build timed too."""
    t0 = time.perf_counter()
    sets = plain_sets(pc, estimand)
    built = time.perf_counter() - t0
    n = sets.shape[1]
    res = milp(np.ones(n), constraints=LinearConstraint(csr_matrix(sets.astype(float)), lb=1, ub=np.inf),
               integrality=np.ones(n), bounds=Bounds(0, 1), options={"time_limit": limit})
    t = time.perf_counter() - t0
    cost = None if res.x is None else int(round(res.fun))
    bound = getattr(res, "mip_dual_bound", None)
    return {"status": "OPTIMAL" if res.status == 0 else f"stopped ({res.message.strip()})", "cost": cost,
            "lower_bound": None if bound is None else round(float(bound), 4), "seconds": round(t, 3),
            "model_build_seconds": round(built, 3),
            "sets": int(sets.shape[0])}


def ours(pc, estimand: str, limit: float) -> dict:
    t0 = time.perf_counter()
    s = minimum_supports(pc, estimand=estimand, enumerate_all=False, time_limit=limit)
    t = time.perf_counter() - t0
    ok = bool(s.supports) and identify(pc, cells=s.supports[0], estimand=estimand).identified
    return {"status": s.status, "cost": s.cost, "lower_bound": s.lower_bound, "gap": s.gap, "seconds": round(t, 3),
            "identifies": ok, "lazy_rounds": s.reductions.get("lazy_rounds"),
            "constraints_in_model": s.reductions.get("constraints_in_model"), "lp_bound": s.reductions.get("lp_bound"),
            "greedy_cost": s.reductions.get("greedy_cost"), "cardinality_bound": s.reductions.get("cardinality_bound")}


def part_a(limit: float) -> dict:
    pc = random_dense_class(np.random.default_rng(SEED), 300, 200, 0.3)
    a = ours(pc, "file", limit)
    b = highs(pc, "file", limit)
    print(f"(a) random 300 x 200, {int(pc.tau.sum())} with τ = 1, limit {limit:g} s")
    print(f"    minimum_supports: {a['status']}, cost {a['cost']}, bound {a['lower_bound']}, gap {a['gap']}, "
          f"{a['seconds']} s (greedy {a['greedy_cost']}, LP {a['lp_bound']}, cardinality {a['cardinality_bound']}, "
          f"{a['lazy_rounds']} lazy rounds, "
          f"{a['constraints_in_model']} sets in the model); identifies: {a['identifies']}")
    print(f"    HiGHS milp:       {b['status']}, cost {b['cost']}, bound {b['lower_bound']}, {b['seconds']} s "
          f"({b['sets']} sets)")
    return {"random": {"ours": a, "highs": b}}


def part_b() -> dict:
    out = {}
    for n, tau in ((1000, "full"), (1000, "targets"), (2000, "targets")):
        pc = behaviour_class(np.random.default_rng(SEED + n), n=n, tau=tau)
        a = ours(pc, "file", 10.0)
        b = highs(pc, "file", 60.0)
        ratio = b["seconds"] / a["seconds"] if a["seconds"] > 0 else float("inf")
        key = f"behaviour_{n}x{len(pc.cells)}_{tau}"
        print(f"(b) {key}: {int(pc.tau.sum())} with τ = 1")
        print(f"    minimum_supports: {a['status']}, cost {a['cost']}, bound {a['lower_bound']}, {a['seconds']} s "
              f"(under 10 s: {a['seconds'] < 10}); identifies: {a['identifies']}")
        # A HiGHS run stopped by its limit makes the ratio a lower bound of the true one.
        sign = "=" if b["status"] == "OPTIMAL" else ">="
        print(f"    HiGHS milp:       {b['status']}, cost {b['cost']}, {b['seconds']} s (model build "
              f"{b['model_build_seconds']} s, {b['sets']} sets); HiGHS / ours {sign} {ratio:.1f}x")
        out[key] = {"ours": a, "highs": b, "ratio_highs_over_ours": round(ratio, 2),
                    "optimal_under_10s": a["status"] == "OPTIMAL" and a["seconds"] < 10}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=float, default=60.0, help="time limit of part (a), seconds")
    args = parser.parse_args()
    out = {}
    out.update(part_a(args.limit))
    out.update(part_b())
    print(json.dumps(out))


if __name__ == "__main__":
    main()
