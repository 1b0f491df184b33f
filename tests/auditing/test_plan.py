"""Audit planner: curves equal their definition, quantile intervals cover, scenarios as stated."""

import math

import numpy as np
import pytest

from audit_core.auditing import paper_params, run_study
from audit_core.auditing.plan import (
    assumed_pool,
    decision_curves,
    default_budgets,
    no_failure_pool,
    plan_audit,
    quantile_with_interval,
)
from audit_core.errors import InputError
from audit_core.sequential import AUDIT_PASSED, FAILURE_FOUND, INCONCLUSIVE

PARAMS = paper_params("gpqa", budget=120)


@pytest.fixture(scope="module")
def pool():
    return assumed_pool([60, 90, 90], failing_accuracy=0.55, base_accuracy=0.95, seed=4)


def test_assumed_pool_has_the_stated_structure(pool):
    assert pool.n == 240 and len(pool.stratum_names) == 3
    acc = dict(zip(pool.stratum_names, pool.stratum_accuracy(), strict=False))
    assert acc["subgroup 1 (failing)"] == pytest.approx(0.55) and acc["subgroup 2"] == pytest.approx(0.95)
    lifted = no_failure_pool(pool, PARAMS.q, 0.9)
    assert lifted.stratum_accuracy().min() == pytest.approx(0.9)
    assert np.array_equal(lifted.features, pool.features)
    with pytest.raises(InputError, match="subgroup sizes"):
        assumed_pool([0, 10], 0.5)
    with pytest.raises(InputError, match="failing accuracy"):
        assumed_pool([10], 1.5)


def test_curves_equal_the_definition():
    rng = np.random.default_rng(0)
    decisions = rng.choice([FAILURE_FOUND, AUDIT_PASSED, INCONCLUSIVE], 50).astype(object)
    stops = np.where(decisions == INCONCLUSIVE, 30, rng.integers(1, 31, 50)).astype(float)
    curves = decision_curves(decisions, stops, 30, "failure")
    for outcome in (FAILURE_FOUND, AUDIT_PASSED):
        for n in (1, 7, 30):
            row = curves[(curves["outcome"] == outcome) & (curves["n"] == n)].iloc[0]
            brute = sum(1 for d, s in zip(decisions, stops, strict=False) if d == outcome and s <= n) / 50
            assert row["probability"] == pytest.approx(brute) and row["low"] <= brute <= row["high"]
    assert (np.diff(curves[curves["outcome"] == FAILURE_FOUND]["probability"]) >= 0).all()


def test_quantile_interval_covers_at_its_level():
    rng = np.random.default_rng(12)
    truth = -math.log(1 - 0.9) * 50  # 90th percentile of an exponential with mean 50
    reps, hits = 2000, 0
    for _ in range(reps):
        _, low, high = quantile_with_interval(rng.exponential(50, 60), 0.9)
        hits += low <= truth <= high
    se = math.sqrt(0.95 * 0.05 / reps)
    assert hits / reps >= 0.95 - 3 * se
    est, low, high = quantile_with_interval(np.r_[np.arange(1, 11), np.full(10, np.inf)], 0.5)
    assert est == 10 and high == math.inf  # half never decide: the median is at the edge


def test_plan_matches_the_studies_it_summarises(pool):
    plan = plan_audit(pool, "stratified", "LR", PARAMS, replicates=30, seed=3, budgets=(40, 120), jobs=1)
    study = run_study(pool, [("stratified", "LR")], 30, PARAMS, seed=3, jobs=1)
    found = (study.results["decision"] == FAILURE_FOUND) & (study.results["n_annotated"] <= 40)
    row = plan.budget_table[(plan.budget_table["scenario"] == "failure") & (plan.budget_table["budget"] == 40)].iloc[0]
    assert row[FAILURE_FOUND] == pytest.approx(found.mean())
    last = plan.budget_table[(plan.budget_table["scenario"] == "no failure") & (plan.budget_table["budget"] == 120)].iloc[0]
    assert plan.p_pass_no_failure[0] == pytest.approx(last[AUDIT_PASSED])
    assert set(plan.curves["scenario"]) == {"failure", "no failure"} and plan.curves["n"].max() == 120
    assert 0 < plan.mc_error <= 0.5
    payload = plan.to_dict()
    assert payload["replicates"] == 30 and "Wilson" in payload["mc_note"]
    with pytest.raises(InputError, match="budgets"):
        plan_audit(pool, "stratified", "LR", PARAMS, replicates=2, budgets=(500,))


def test_default_budgets():
    assert default_budgets(250) == (50, 100, 150, 200, 250)
    assert default_budgets(12)[-1] == 12
