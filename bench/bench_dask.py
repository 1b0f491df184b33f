"""Benchmark: a sweep of 20,000 audits on the local process pool and on a Dask LocalCluster.

    python bench/bench_dask.py [--audits 20000] [--jobs 2] [--budget 60]

Both runs use the same study (GPQA-style small pool, the cheap rows stratified / oracle with the
LR process, budget 60 by default, so that 20,000 audits fit in a few minutes on two cores) and
the same seed; the script checks that the two give identical records, then prints the wall
times and the ratio Dask / local. The Dask time includes starting the LocalCluster (``--jobs``
worker processes on 127.0.0.1) and scattering the pool. The last line is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from audit_core.auditing import load_pool, paper_params, run_study  # noqa: E402 (after the sys.path line: this checkout's package)

ROWS = (("stratified", "LR"), ("oracle", "LR"))


def _identical(a, b) -> bool:
    columns = [c for c in a.results.columns if c not in ("seconds", "cases")]
    return bool(a.results[columns].equals(b.results[columns])
                and all((x == y).all() for x, y in zip(a.results["cases"], b.results["cases"], strict=False)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--audits", type=int, default=20000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--budget", type=int, default=60)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    pool = load_pool("gpqa:small")
    params = paper_params("gpqa", budget=args.budget)
    replicates = max(1, args.audits // len(ROWS))
    total = replicates * len(ROWS)

    started = time.perf_counter()
    local = run_study(pool, ROWS, replicates, params, seed=args.seed, jobs=args.jobs)
    local_seconds = time.perf_counter() - started
    print(f"local process pool ({args.jobs} workers): {total} audits in {local_seconds:.1f} s "
          f"({total / local_seconds:.0f} audits/s)", flush=True)

    started = time.perf_counter()
    marks = []
    on_dask = run_study(pool, ROWS, replicates, params, seed=args.seed, jobs=args.jobs, backend="dask",
                        progress=lambda done, _total: marks.append((done, time.perf_counter() - started)))
    dask_seconds = time.perf_counter() - started
    first = marks[0][1] if marks else float("nan")
    print(f"Dask LocalCluster ({args.jobs} workers): {total} audits in {dask_seconds:.1f} s "
          f"({total / dask_seconds:.0f} audits/s; first result after {first:.1f} s, {len(marks)} progress updates)")
    same = _identical(local, on_dask)
    ratio = dask_seconds / local_seconds
    print(f"identical records: {same}; Dask / local wall time = {ratio:.2f}")
    print(json.dumps({"audits": total, "jobs": args.jobs, "budget": args.budget, "local_seconds": round(local_seconds, 2),
                      "dask_seconds": round(dask_seconds, 2), "ratio_dask_over_local": round(ratio, 3),
                      "dask_first_result_seconds": round(first, 2), "identical": same}))
    if not same:
        sys.exit(1)


if __name__ == "__main__":
    main()
