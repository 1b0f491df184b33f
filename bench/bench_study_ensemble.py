"""The GPQA-style study with the faster online ensemble against the reference ensemble, same run.

    python bench/bench_study_ensemble.py [--replicates 10] [--pool gpqa:medium]

The reference is the ensemble as written before (tests/auditing/test_same_records.py: every case
scored by every member at every step, numpy mean and std, gathered copies for every update),
patched in for the baseline. Both runs are serial (jobs = 1) and timed in CPU seconds of this
process (the machine is shared; the load average is printed). The records must be identical.
Last line: one JSON object.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from audit_core.auditing import PAPER_ROWS, load_pool, paper_params, run_study  # noqa: E402
from audit_core.auditing.model import OnlineEnsemble  # noqa: E402


def reference():
    spec = importlib.util.spec_from_file_location("same_records", ROOT / "tests" / "auditing" / "test_same_records.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=10)
    parser.add_argument("--pool", default="gpqa:medium")
    args = parser.parse_args()
    ref = reference()
    pool = load_pool(args.pool)
    params = paper_params(pool.style)
    fast = (OnlineEnsemble._update_weighted, OnlineEnsemble.predict)
    slow = (ref.reference_update, ref.reference_predict)
    seconds: dict[str, list[float]] = {"fast": [], "reference": []}
    records = {}
    for _ in range(2):
        for name, (update, predict) in (("fast", fast), ("reference", slow)):
            OnlineEnsemble._update_weighted, OnlineEnsemble.predict = update, predict
            start = time.process_time()
            study = run_study(pool, PAPER_ROWS, args.replicates, params, seed=2024, jobs=1)
            seconds[name].append(time.process_time() - start)
            records[name] = ref._records(study)
    OnlineEnsemble._update_weighted, OnlineEnsemble.predict = fast
    same = records["fast"] == records["reference"]
    best = {k: min(v) for k, v in seconds.items()}
    audits = len(records["fast"])
    print(f"load average {os.getloadavg()}")
    print(f"{args.pool}, 7 rows x {args.replicates} replicates ({audits} audits): fast ensemble {best['fast']:.2f} s CPU, "
          f"reference {best['reference']:.2f} s CPU, ratio {best['fast'] / best['reference']:.2f}; identical records: {same}")
    print(json.dumps({"pool": args.pool, "audits": audits, "cpu_seconds": best,
                      "ratio": best["fast"] / best["reference"], "identical_records": same,
                      "load_average": os.getloadavg()}))


if __name__ == "__main__":
    main()
