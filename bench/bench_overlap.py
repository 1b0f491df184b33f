"""An overlapped label write against a plain one (issue 34 goal: p95 < 10 ms).

Two audits of the same 10,000-case pool in one workspace, same strategy and seed: one without
double labelling, one with every case double-labelled (share 100 %, 2 labellers, label choice
``first``). Timed per step, with the audits open (as the page keeps them):

- plain: ``LiveAudit.label()`` of a case claimed by ``next`` (transaction, INSERT, dual test and
  model update, COMMIT with fsync) in the plain audit: the baseline, same run;
- first label of an overlapped case: the same call in the overlapped audit;
- further label: the second labeller's ``label()`` of that case (the ``overlap_labelled`` event:
  transaction, the checks that nobody labels it twice or past the count, INSERT, COMMIT);
- settlement: ``adjudicate()`` of a disagreeing case (every third one disagrees).

``python bench/bench_overlap.py [--steps 60]``. Last line: one JSON object with the medians and
p95s in ms and the ratios of each p95 to the plain write's p95.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_live import ms, pool_csv  # noqa: E402

from audit_core.live import LiveAudit, connect  # noqa: E402
from audit_core.live.overlap import OverlapPlan  # noqa: E402
from audit_core.sequential import AuditParams  # noqa: E402


def timed(call, *args) -> float:
    t0 = time.perf_counter()
    call(*args)
    return time.perf_counter() - t0


def run(steps: int) -> dict:
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        csv = str(pool_csv(folder / "pool.csv"))
        conn = connect(folder / "w.sqlite")
        params = AuditParams.gpqa(n_init=5, budget=10 * steps)
        plain = LiveAudit.create(conn, csv, "adaptive", "LR", seed=1, params=params, truth="correct")
        double = LiveAudit.create(conn, csv, "adaptive", "LR", seed=1, params=params, truth="correct",
                                  overlap=OverlapPlan(1.0, 2, "first"))
        plain_writes, first_writes, further_writes, settlements = [], [], [], []
        for step in range(steps):
            (case,) = plain.next("ann")
            plain_writes.append(timed(plain.label, case.case_id, plain.truth(case.case_id), "ann"))
            (case,) = double.next("ann")
            truth = double.truth(case.case_id)
            first_writes.append(timed(double.label, case.case_id, truth, "ann"))
            (again,) = double.next("bob")
            assert again.case_id == case.case_id
            disagree = step % 3 == 0
            further_writes.append(timed(double.label, case.case_id, 1.0 - truth if disagree else truth, "bob"))
            if disagree:
                settlements.append(timed(double.adjudicate, case.case_id, truth, "reread", "owner"))
        conn.close()
    result = {"steps": steps, "plain_label": ms(plain_writes), "first_label_overlapped": ms(first_writes),
              "further_label": ms(further_writes), "adjudication": ms(settlements)}
    base = result["plain_label"]["p95_ms"]
    result["p95_ratio_to_plain"] = {k: round(result[k]["p95_ms"] / base, 2)
                                    for k in ("first_label_overlapped", "further_label", "adjudication")}
    result["goal_p95_ms"] = 10.0
    result["goal_met"] = all(result[k]["p95_ms"] < 10.0 for k in ("first_label_overlapped", "further_label"))
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=60)
    result = run(parser.parse_args().steps)
    for key in ("plain_label", "first_label_overlapped", "further_label", "adjudication"):
        row = result[key]
        print(f"{key:<24} median {row['median_ms']:7.2f} ms   p95 {row['p95_ms']:7.2f} ms   (n = {row['n']})")
    print("p95 / plain write:", ", ".join(f"{k} {v:.2f}x" for k, v in result["p95_ratio_to_plain"].items()))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
