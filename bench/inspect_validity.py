"""Validity of audit_core.inspect's rules under Inspect-like scheduling: the figures of docs/inspect.md.

    PYTHONPATH=. python bench/inspect_validity.py [RUNS]      (default 2000 runs per experiment)

Every run goes through the manager's own protocol methods (audit_core.inspect.simulation): 8
samples at once, the next to complete chosen by an adversary from past scores, skipped samples
never run. Each line: the error, its rate over RUNS seeded runs with the 95% Wilson interval, and
alpha. Experiments (alpha = 0.05, q = 0.85, gpqa defaults):

1. dual test, model's null: 150 items at q and q + 0.1 (alternating); after a failure the weakest
   running item completes next. Error: failure mode found.
2. dual test, auditor's null: 150 items at q and q - 0.1; after a success the strongest completes
   next. Error: audit passed.
2b. dual test at the boundary, every item at q (both nulls true), random completion order: either
   decision is an error (the family-wise error of the dual test).
3. dual test, epochs as cases, 50 items x 3 epochs at q / q + 0.1 (model's null), low-after-failure.
4. dual test, epochs as clusters, the same items (a cluster's score: the mean of its 3 epochs).
5. per subgroup (3 subjects at q, 0.95, 0.6; 60 items each), precision ε = 0.1 and threshold q' = q
   with stop_when="all", high-after-success: some subgroup's final interval misses its accuracy;
   some subgroup decided on the wrong side of q' (any side is wrong at q' itself). Each subgroup's
   interval is tuned to its 60 planned cases (the default, planned_n="dataset"); 5u: the same
   untuned (planned_n=None).
6. per subgroup dual test (the same pool, dual only): some subgroup's decision wrong (any decision at
   q, failure found at 0.95, audit passed at 0.6).
7. negative control, outside the guarantee: every item at q, and a sample's own outcome sets when it
   completes (``successes-first``: with 8 running, a correct one always completes first; and 32 at once). Error:
   audit passed. ``--negative`` runs this one alone.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from audit_core.inspect import early_stopping
from audit_core.inspect.simulation import simulate_run
from audit_core.sequential import wilson_interval

Q = 0.85


def line(label: str, errors: int, runs: int, extra: str = "") -> None:
    low, high = wilson_interval(errors, runs)
    print(f"{label:<64} {errors / runs:7.4f}  [{low:.4f}, {high:.4f}]  alpha 0.05  {extra}", flush=True)


def negative(runs: int, rng) -> None:
    for concurrency in (8, 32):
        passed = 0
        for _ in range(runs):
            record = simulate_run(early_stopping(), np.full(150, Q), rng, order="successes-first",
                                  concurrency=concurrency)
            passed += record["decision"] == "audit passed"
        line(f"7 negative control: at q, successes first, {concurrency} at once: passed", passed, runs)


def main(runs: int) -> None:
    rng = np.random.default_rng(20261202)
    items = 150
    alternating = np.arange(items) % 2 == 0
    started = time.perf_counter()
    found = passed = 0
    used_model, used_auditor = [], []
    for _ in range(runs):
        record = simulate_run(early_stopping(), np.where(alternating, Q, Q + 0.1), rng, order="low-after-failure")
        found += record["decision"] == "failure mode found"
        used_model.append(record["used"])
        record = simulate_run(early_stopping(), np.where(alternating, Q, Q - 0.1), rng, order="high-after-success")
        passed += record["decision"] == "audit passed"
        used_auditor.append(record["used"])
    line("1 dual, model's null (q / q+0.1), low-after-failure: found", found, runs,
         f"median cases used {np.median(used_model):.0f} of {items}")
    line("2 dual, auditor's null (q / q-0.1), high-after-success: passed", passed, runs,
         f"median cases used {np.median(used_auditor):.0f} of {items}")

    found = passed = 0
    for _ in range(runs):
        decision = simulate_run(early_stopping(), np.full(items, Q), rng)["decision"]
        found += decision == "failure mode found"
        passed += decision == "audit passed"
    line("2b dual, every item at q, random order: found / passed / either", found + passed, runs,
         f"found {found}, passed {passed}")

    p = np.where(np.arange(50) % 2 == 0, Q, Q + 0.1)
    for epochs_as in ("cases", "clusters"):
        found = 0
        for _ in range(runs):
            record = simulate_run(early_stopping(epochs=epochs_as), p, rng, epochs=3, order="low-after-failure")
            found += record["decision"] == "failure mode found"
        line(f"{3 if epochs_as == 'cases' else 4} dual, 3 epochs as {epochs_as}, model's null: found", found, runs)

    accuracy = {"a": Q, "b": 0.95, "c": 0.6}
    subjects = [s for _ in range(60) for s in accuracy]
    pool = np.array([accuracy[s] for s in subjects])
    metadata = [{"subject": s} for s in subjects]
    missed = {"dataset": 0, None: 0}
    wrong_side = {"dataset": 0, None: 0}
    used = {"dataset": [], None: []}
    dual_wrong = 0
    for _ in range(runs):
        for planned in ("dataset", None):
            record = simulate_run(early_stopping(subgroups="subject", precision=0.1, threshold=Q, planned_n=planned),
                                  pool, rng, metadata=metadata, order="high-after-success")
            groups = {g["subgroup"]: g for g in record["groups"]}
            missed[planned] += any(not g["interval"][0] <= accuracy[k] <= g["interval"][1] for k, g in groups.items())
            sides = {k: (g["threshold"] or {}).get("side") for k, g in groups.items()}
            wrong_side[planned] += any(side is not None and (accuracy[k] == Q or (side == "above") != (accuracy[k] > Q))
                                       for k, side in sides.items())
            used[planned].append(record["used"])
        record = simulate_run(early_stopping(subgroups="subject"), pool, rng, metadata=metadata,
                              order="high-after-success")
        groups = {g["subgroup"]: g for g in record["groups"]}
        dual_wrong += (groups["a"]["dual"]["decision"] != "inconclusive"
                       or groups["b"]["dual"]["decision"] == "failure mode found"
                       or groups["c"]["dual"]["decision"] == "audit passed")
    for planned, name in (("dataset", "5"), (None, "5u")):
        cases = f"median cases used {np.median(used[planned]):.0f} of {len(pool)}"
        line(f"{name} precision 0.1, 3 subgroups: some final interval misses", missed[planned], runs, cases)
        line(f"{name} threshold q' = q, 3 subgroups: some subgroup on the wrong side", wrong_side[planned], runs)
    line("6 dual per subgroup (alpha/3 each): some subgroup wrong", dual_wrong, runs)
    negative(runs, rng)
    print(f"{runs} runs per experiment in {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    numbers = [a for a in sys.argv[1:] if a.isdigit()]
    count = int(numbers[0]) if numbers else 2000
    if "--negative" in sys.argv:
        negative(count, np.random.default_rng(20261203))
    else:
        main(count)
