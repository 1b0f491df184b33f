"""Early stopping inside Inspect AI: samples used until the decision, and what the manager costs.

    PYTHONPATH=. python bench/bench_early_stop.py [ORDERS]      (default 100 random orders a pool)

In one run:

1. Every bundled pool (``data/``) and a 600-sample Inspect log (written here by a real
   ``inspect eval`` of tests/inspect/scripted.py's task, no early stopping), each in ORDERS random
   completion orders (8 samples at once, the next to complete at random), through
   ``early_stopping(style=<the pool's style>)``: cases used until the decision (median, 90th
   percentile) against the full run's size; agreement of the early decision with the full run's
   dual decision in the same order (replay of every case: the same by construction, the dual
   test's decision is its first crossing), and with the full pool's point estimate (accuracy >= q
   read as "audit passed", below as "failure mode found"; an inconclusive run does not match).
2. The manager's cost per completed sample (``schedule_sample`` + ``complete_sample``, timed alone,
   microseconds; goal <= 20 us for the default rule) against Inspect's own per-sample overhead
   measured in the same run: the wall time of the 600-sample ``inspect eval`` with a scripted
   model that answers at once, divided by 600.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "inspect"))

from audit_core.data.bundled import BUNDLED  # noqa: E402
from audit_core.data.sources import load_audit_source  # noqa: E402
from audit_core.inspect import early_stopping  # noqa: E402
from audit_core.inspect.simulation import run_now, simulate_run  # noqa: E402
from audit_core.presets import BUNDLED_POOLS  # noqa: E402
from audit_core.sequential import AuditParams, replay  # noqa: E402


def inspect_log(n: int, workdir: Path) -> tuple[Path, float]:
    """A real n-sample inspect eval without early stopping: (log, seconds of wall time)."""
    from inspect_ai import eval as inspect_eval
    from scripted import arith_task

    task, model = arith_task(n, {"algebra": 0.05, "biology": 0.1, "chemistry": 0.25})
    started = time.perf_counter()
    (log,) = inspect_eval(task, model=model, log_dir=str(workdir), display="none", max_samples=8)
    return Path(log.location), time.perf_counter() - started


def orders(name: str, scores: np.ndarray, style: str, count: int, rng) -> dict:
    params = AuditParams.for_style(style)
    used, agree_full, agree_truth, decisions = [], 0, 0, {}
    truth = "audit passed" if scores.mean() >= params.q else "failure mode found"
    for _ in range(count):
        shuffled = rng.permutation(scores)
        outcomes = shuffled[:, None] == 1.0
        record = simulate_run(early_stopping(style=style), shuffled, rng, outcomes=outcomes)
        taken = [float(outcomes[i - 1, 0]) for i, _, status in record["order"] if status in ("used", "late")]
        rest = [float(outcomes[i - 1, 0]) for i in range(1, len(scores) + 1)
                if i not in {j for j, _, _ in record["order"]}]
        full = replay(np.array(taken + rest), params).dual  # the full run: the same order, then the rest
        used.append(record["used"])
        decisions[record["decision"]] = decisions.get(record["decision"], 0) + 1
        agree_full += (full.decision, full.stop) == (record["decision"], record["groups"][0]["dual"]["stop"])
        agree_truth += record["decision"] == truth
    return {"data": name, "n": len(scores), "accuracy": round(float(scores.mean()), 3), "q": params.q,
            "median used": int(np.median(used)), "p90 used": int(np.percentile(used, 90)),
            "agrees with full run": f"{agree_full}/{count}", "matches accuracy vs q": f"{agree_truth}/{count}",
            "decisions": ", ".join(f"{k} {v}" for k, v in sorted(decisions.items()))}


def manager_cost(n: int, accuracy: float = 0.9, repeats: int = 5, **rules) -> tuple[float, float]:
    """Microseconds per completed sample of the protocol methods alone (its ``schedule_sample`` and
    ``complete_sample``), and per skipped sample (its ``schedule_sample`` returning an EarlyStop):
    the fastest of ``repeats`` runs (the least disturbed on a shared machine)."""
    runs = [_manager_cost(n, accuracy, **rules) for _ in range(repeats)]
    return min(r[0] for r in runs), min(r[1] for r in runs)


def _manager_cost(n: int, accuracy: float, **rules) -> tuple[float, float]:
    from types import SimpleNamespace

    rng = np.random.default_rng(0)
    y = rng.random(n) < accuracy
    subjects = ("a", "b", "c")
    manager = early_stopping(**rules)
    samples = [SimpleNamespace(id=i, metadata={"subject": subjects[i % 3]}) for i in range(n)]
    run_now(manager.start_task(SimpleNamespace(task="t", scorers=[SimpleNamespace(name="match")]), samples, 1))
    values = [{"match": "C" if v else "I"} for v in y]
    run_time = skip_time = 0.0
    completed = skipped = 0
    clock = time.perf_counter
    for i in range(n):
        started = clock()
        if run_now(manager.schedule_sample(i, 1)) is None:
            run_now(manager.complete_sample(i, 1, values[i]))
            run_time += clock() - started
            completed += 1
        else:
            skip_time += clock() - started
            skipped += 1
    return run_time / completed * 1e6, (skip_time / skipped * 1e6 if skipped else float("nan"))


def dual_update_cost(n: int = 20_000, repeats: int = 3) -> float:
    """Microseconds of the engine's DualTest.update alone (the statistics the manager adds to), fastest of repeats."""
    from audit_core.sequential import DualTest

    y = (np.random.default_rng(0).random(n) < 0.9).astype(float).tolist()
    best = float("inf")
    for _ in range(repeats):
        dual = DualTest(AuditParams.gpqa(q=0.9, grid_mod=(0.7, 0.8, 0.87), grid_aud=(0.93, 0.96), budget=10 * n))
        started = time.perf_counter()
        for v in y:
            dual.update(v)
        best = min(best, (time.perf_counter() - started) / n * 1e6)
    return best


def main(count: int) -> None:
    rng = np.random.default_rng(20261202)
    workdir = Path(tempfile.mkdtemp())
    log, wall = inspect_log(600, workdir)
    rows = []
    for key in BUNDLED_POOLS:
        dataset = BUNDLED[key]
        scores = pd.read_csv(dataset.path)[dataset.score].to_numpy(dtype=float)
        rows.append(orders(key, scores, dataset.style, count, rng))
    data = load_audit_source(log.read_bytes(), log.name)
    rows.append(orders("inspect log (600 samples)", data.scores, "gpqa", count, rng))
    pd.set_option("display.width", 200)
    print(f"Cases used until the decision, {count} random completion orders each (8 at once):")
    print(pd.DataFrame(rows).to_string(index=False))
    # a long run at the boundary (accuracy = q = 0.9): no decision comes, every sample is completed
    boundary = AuditParams.gpqa(q=0.9, grid_mod=(0.7, 0.8, 0.87), grid_aud=(0.93, 0.96), delta=0.03, delta_aud=0.05)
    cost_long, _ = manager_cost(20_000, repeats=3, params=boundary)
    cost_default, cost_skip = manager_cost(600)
    cost_rules, _ = manager_cost(3000, repeats=3, subgroups="subject", precision=0.02, threshold=0.95, dual=True)
    engine = dual_update_cost()
    per_sample = wall / 600 * 1e6
    print(f"\nInspect's own overhead: 600 samples, scripted model, max_samples 8: {wall:.1f} s, "
          f"{per_sample:,.0f} us a sample")
    print(f"manager, default (dual test), 600 samples until its decision: {cost_default:.1f} us a completed sample "
          f"({cost_default / per_sample:.3%} of Inspect's), {cost_skip:.1f} us a skipped one")
    print(f"manager, dual test over 20,000 samples at the boundary (no decision): {cost_long:.1f} us a completed sample; "
          f"the engine's DualTest.update alone: {engine:.1f} us")
    print(f"manager, 3 subgroups x (dual + precision 0.02 + threshold 0.95), 3,000 samples: {cost_rules:.1f} us "
          f"a completed sample ({cost_rules / per_sample:.3%} of Inspect's)")
    print("goal: <= 20 us a completed sample for the default rule")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100)
