"""Validity of every rule of audit_core.inspect under Inspect-like scheduling, seeded Monte Carlo.

Each run goes through the manager's own protocol methods (``simulate_run``: 8 samples at once, the
next to complete chosen from past scores, skipped samples never run). Each error rate must stay
below alpha + 3 standard errors of the run count, the message giving the Wilson interval. Power
(normal approximation): with R runs the bound is alpha + 3 sqrt(alpha (1 - alpha) / R); a true rate
of 2 alpha = 0.10 exceeds it with probability 0.76 at R = 300 (0.88 at R = 400), a rate of
2.5 alpha with probability 0.97 at R = 300. The larger figures (thousands of runs) are in docs/inspect.md,
made by bench/inspect_validity.py.
"""

import math

import numpy as np

from audit_core.inspect import early_stopping
from audit_core.inspect.simulation import simulate_run
from audit_core.sequential import wilson_interval

ALPHA = 0.05
Q = 0.85


def check_rate(errors: int, runs: int, label: str) -> float:
    rate = errors / runs
    bound = ALPHA + 3.0 * math.sqrt(ALPHA * (1.0 - ALPHA) / runs)
    low, high = wilson_interval(errors, runs)
    assert rate <= bound, f"{label}: error rate {rate:.4f} (95% Wilson {low:.4f}-{high:.4f}, {runs} runs) > {bound:.4f}"
    return rate


def test_dual_test_both_nulls_adversarial_completion_order():
    """Model's null: items at q and q + 0.1, after each failure the weakest running item completes
    next. Auditor's null: items at q and q - 0.1, after each success the strongest completes next.
    The boundary: every item at q, both nulls true, either decision an error (the dual test's
    family-wise error, 0.047 [0.039, 0.057] over 2,000 runs in docs/inspect.md)."""
    runs, items = 300, 100
    rng = np.random.default_rng(3101)
    model_null = np.where(np.arange(items) % 2 == 0, Q, Q + 0.1)
    auditor_null = np.where(np.arange(items) % 2 == 0, Q, Q - 0.1)
    found = passed = either = 0
    for _ in range(runs):
        found += simulate_run(early_stopping(), model_null, rng, order="low-after-failure")["decision"] == "failure mode found"
        passed += simulate_run(early_stopping(), auditor_null, rng, order="high-after-success")["decision"] == "audit passed"
        either += simulate_run(early_stopping(), np.full(items, Q), rng)["decision"] != "inconclusive"
    check_rate(found, runs, "failure found when every item is at or above q")
    check_rate(passed, runs, "audit passed when every item is at or below q")
    check_rate(either, runs, "a decision when every item is at q")


def test_per_subgroup_rules_family_wise_adversarial_order():
    """Three subgroups (metadata 'subject'), each item of a subgroup alike: the precision rule's final
    intervals cover every subgroup's accuracy at once, the threshold decision (q' = 0.85) is on the
    right side for every subgroup, and each subgroup's dual test errs, all family-wise at alpha
    (each rule at alpha / 3). One subgroup sits at q' itself, where any side is an error."""
    runs, per_group = 300, 60
    rng = np.random.default_rng(3102)
    accuracy = {"a": Q, "b": 0.95, "c": 0.6}
    subjects = [s for _ in range(per_group) for s in accuracy]
    p = np.array([accuracy[s] for s in subjects])
    metadata = [{"subject": s} for s in subjects]
    missed = wrong_side = dual_wrong = 0
    for _ in range(runs):
        manager = early_stopping(subgroups="subject", precision=0.2, threshold=Q, dual=True, stop_when="any")
        record = simulate_run(manager, p, rng, metadata=metadata, order="high-after-success")
        groups = {g["subgroup"]: g for g in record["groups"]}
        missed += any(not g["interval"][0] <= accuracy[k] <= g["interval"][1] for k, g in groups.items())
        sides = {k: (g["threshold"] or {}).get("side") for k, g in groups.items()}
        wrong_side += any(side is not None and (side == "above") != (accuracy[k] > Q) or
                          (side is not None and accuracy[k] == Q) for k, side in sides.items())
        # the dual test errs on a subgroup at q (either decision) or a failure found on 'b'
        dual_wrong += (groups["a"]["dual"]["decision"] != "inconclusive"
                       or groups["b"]["dual"]["decision"] == "failure mode found"
                       or groups["c"]["dual"]["decision"] == "audit passed")
    check_rate(missed, runs, "some subgroup's final interval misses its accuracy")
    check_rate(wrong_side, runs, "some subgroup decided on the wrong side of q'")
    check_rate(dual_wrong, runs, "some subgroup's dual test wrong")


def test_negative_control_outcome_dependent_completion_breaks_it():
    """Outside the guarantee, so the simulation must see it: every item at q, and with 32 running a
    sample that will be correct always completes first (wrong answers take longer). The audit is
    passed far more often than alpha (1.0 in 200 runs; docs/inspect.md): the check above would fail."""
    runs = 40
    rng = np.random.default_rng(3103)
    passed = sum(simulate_run(early_stopping(), np.full(150, Q), rng, order="successes-first", concurrency=32)
                 ["decision"] == "audit passed" for _ in range(runs))
    assert passed / runs > ALPHA + 3.0 * math.sqrt(ALPHA * (1.0 - ALPHA) / runs) + 0.5
