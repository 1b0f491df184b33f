"""Strategies: which cases each one picks, scenarios (a)/(b), e-values only from the DualTest."""

import numpy as np
import pytest

from audit_core.auditing import (
    PAPER_ROWS,
    SDOH_PAPER_ROWS,
    STRATEGY_NAMES,
    AuditorConfig,
    build_pool,
    load_pool,
    run_audit,
)
from audit_core.errors import InputError
from audit_core.sequential import AuditParams, process_log_evalues

PARAMS = AuditParams.gpqa(n_init=2)


@pytest.fixture(scope="module")
def large():
    return load_pool("gpqa:large")


def _chem(pool):
    return np.array(["Chemistry" in s for s in pool.stratum_names])[pool.strata]


def test_paper_rows():
    assert len(PAPER_ROWS) == 7 and PAPER_ROWS[2] == ("oracle", "LR") and PAPER_ROWS[-1] == ("adaptive", "SR-LR-UI")
    assert SDOH_PAPER_ROWS[2] == ("informed", "LR")
    assert {s for s, _ in PAPER_ROWS + SDOH_PAPER_ROWS} == set(STRATEGY_NAMES)


def test_stratified_round_robin_without_replacement(large):
    run = run_audit(large, "stratified", "LR", PARAMS.replace(budget=120), seed=1)
    assert len(set(run.cases.tolist())) == run.n          # pool: without replacement
    counts = np.bincount(large.strata[run.cases[:120]], minlength=12)
    assert counts.max() - counts.min() <= 1                 # 12 strata visited in turn


def test_oracle_samples_only_the_failure_and_bets_at_its_accuracy(large):
    run = run_audit(large, "oracle", "LR", PARAMS, seed=2)
    assert _chem(large)[run.cases].all()
    assert run.extra["oracle_accuracy"] == pytest.approx(large.truth[_chem(large)].mean())
    assert run.decision == "failure mode found" and run.n <= 20


def test_informed_prior_samples_the_suspects(large):
    run = run_audit(large, "informed", "LR", PARAMS, seed=2, config=AuditorConfig(suspects=("Physics",)))
    physics = np.array([s.startswith("Physics") for s in large.stratum_names])[large.strata]
    # the 119 Physics questions first; once they are used up, random cases ("explore")
    assert physics[run.cases[:119]].all() and run.n > 119
    assert set(run.phases[:119]) == {"target"} and set(run.phases[119:]) == {"explore"}
    with pytest.raises(InputError, match="match no case"):
        run_audit(large, "informed", "LR", PARAMS, seed=2, config=AuditorConfig(suspects=("Astrology",)))


def test_prelearned_takes_heldout_out_of_the_pool(large):
    run = run_audit(large, "pre-learned", "LR", PARAMS, seed=4)
    assert np.isfinite(run.predicted).all() and set(run.phases) == {"subset"}
    assert len(run.extra["heldout"]) == 30 and not set(run.extra["heldout"]) & set(run.cases.tolist())
    assert len(set(run.cases.tolist())) == run.n
    # predictions are fixed after the held-out fit: the first pick is the lowest-predicted subset
    assert run.predicted[0] <= np.quantile(run.predicted, 0.5)


def test_adaptive_concentrates_on_the_failure_mode(large):
    chem = _chem(large)
    fractions = [chem[run_audit(large, "adaptive", "LR", PARAMS.replace(budget=80), seed=s).cases[10:]].mean()
                 for s in range(6)]
    assert np.mean(fractions) > 0.7 > chem.mean()


def test_trajectory_is_the_dual_tests_e_process(large):
    run = run_audit(large, "adaptive", "SR-LR-UI", PARAMS, seed=5)
    np.testing.assert_allclose(run.log_e_model, process_log_evalues("SR-LR-UI", run.scores, PARAMS), atol=1e-9)
    np.testing.assert_allclose(run.log_e_auditor, process_log_evalues("AUD-LR-UI", run.scores, PARAMS), atol=1e-9)
    assert run.stop == run.n and run.log_e_model[-1] >= PARAMS.log_threshold
    assert run.phases[:2] == ("init", "init")
    assert run.case_ids == tuple(large.case_ids[run.cases]) and run.case_ids[0].startswith("Q")
    assert run.to_dict()["decision"] == run.decision and len(run.to_dict()["log_e_model"]) == run.n


def test_bank_scenario_draws_fresh_cases(large):
    config = AuditorConfig(scenario="bank")
    run = run_audit(large, "stratified", "LR", PARAMS.replace(budget=250), seed=6, config=config)
    assert run.n > len(set(run.cases.tolist())) or run.n < 60   # with replacement
    found = [run_audit(large, "adaptive", "SR-LR-UI", PARAMS, seed=s, config=config).decision for s in range(5)]
    assert found.count("failure mode found") == 5


def test_same_seed_same_audit(large):
    a = run_audit(large, "adaptive", "LR-UI", PARAMS, seed=9)
    b = run_audit(large, "adaptive", "LR-UI", PARAMS, seed=9)
    assert a.cases.tolist() == b.cases.tolist() and a.decision == b.decision


def test_bad_names_and_pool_exhaustion():
    pool = build_pool("tiny", [1, 1, 0, 1, 1], np.arange(10.0).reshape(5, 2), [["a"], ["a"], ["b"], ["b"], ["b"]])
    with pytest.raises(InputError, match="strategy"):
        run_audit(pool, "magic", "LR", PARAMS)
    with pytest.raises(InputError, match="process"):
        run_audit(pool, "adaptive", "AUD-LR", PARAMS)
    with pytest.raises(InputError, match="scenario"):
        AuditorConfig(scenario="lake")
    with pytest.raises(InputError, match="learner"):
        AuditorConfig(learner="oracle")
    run = run_audit(pool, "adaptive", "SR-LR-UI", PARAMS, seed=0)
    assert run.n == 5 and run.decision == "inconclusive"      # the pool ran out before the budget


def test_online_and_refit_learners_give_the_same_audit(large):
    runs = [run_audit(large, "adaptive", "SR-LR-UI", PARAMS, seed=21, config=AuditorConfig(learner=name))
            for name in ("online", "refit")]
    assert runs[0].cases.tolist() == runs[1].cases.tolist() and runs[0].decision == runs[1].decision
