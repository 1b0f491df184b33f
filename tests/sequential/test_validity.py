"""Anytime validity: seeded Monte Carlo under adversarial adaptive sampling, and exact enumeration.

Each Monte Carlo bound is alpha + 3 standard errors of the run count; the assertion message shows
the observed rejection rate with its Wilson interval so a failure says by how much.
"""

import itertools
import math

import numpy as np
import pytest

from audit_core.sequential import (
    AUDITOR_PROCESSES,
    MODEL_PROCESSES,
    AuditParams,
    DualTest,
    log_evalues,
    make_process,
    wilson_interval,
)
from audit_core.sequential.dual import AUDIT_PASSED, FAILURE_FOUND

ALPHA = 0.05


def adaptive_stream(rng, runs, steps, means_before_m, means_from_m, m, pick="lowest"):
    """Scores of an adversarial auditor that switches subgroups on past data.

    At every step each run picks the subgroup whose past mean score is lowest (``pick="lowest"``)
    or highest (``"highest"``), with 10% random picks, among the subgroups available at that step
    (``means_before_m`` before step m, ``means_from_m`` from m on), and draws a Bernoulli score.
    The alternative it hands to the UI processes is its own running estimate for the chosen
    subgroup, pushed away from q on the side that bets hardest: predictable, so valid.
    Vectorised across runs; returns (scores, alternatives) of shape (runs, steps).
    """
    groups = len(means_before_m) + len(means_from_m)
    means = np.array(list(means_before_m) + list(means_from_m))
    successes = np.zeros((runs, groups))
    counts = np.zeros((runs, groups))
    scores = np.empty((runs, steps))
    alternatives = np.empty((runs, steps))
    rows = np.arange(runs)
    for t in range(1, steps + 1):
        lo, hi = (0, len(means_before_m)) if t < m else (len(means_before_m), groups)
        estimate = (successes[:, lo:hi] + 1.0) / (counts[:, lo:hi] + 2.0)
        noisy = estimate + 1e-9 * rng.random(estimate.shape)
        chosen = lo + (noisy.argmin(axis=1) if pick == "lowest" else noisy.argmax(axis=1))
        explore = rng.random(runs) < 0.1
        chosen = np.where(explore, rng.integers(lo, hi, runs), chosen)
        y = (rng.random(runs) < means[chosen]).astype(float)
        est = estimate[rows, chosen - lo]
        alternatives[:, t - 1] = np.where(pick == "lowest", est - 0.1, est + 0.05)
        scores[:, t - 1] = y
        successes[rows, chosen] += y
        counts[rows, chosen] += 1.0
    return scores, alternatives


def rejection_rate(log_e, log_threshold, budget=None):
    window = log_e if budget is None else log_e[:, :budget]
    return float(np.mean((window >= log_threshold).any(axis=1)))


def check_rate(rate, runs, label):
    bound = ALPHA + 3.0 * math.sqrt(ALPHA * (1.0 - ALPHA) / runs)
    low, high = wilson_interval(rate * runs, runs)
    assert rate <= bound, (f"{label}: rejection rate {rate:.4f} (95% Wilson {low:.4f}-{high:.4f}, "
                           f"{runs} runs) exceeds alpha + 3 SE = {bound:.4f}")
    return rate, (low, high)


def first_crossings(log_e, log_threshold):
    hit = log_e >= log_threshold
    return np.where(hit.any(axis=1), hit.argmax(axis=1) + 1, np.iinfo(np.int64).max)


@pytest.mark.parametrize("params", [AuditParams.gpqa(), AuditParams.sdoh(weights="harmonic")], ids=["gpqa", "sdoh-harmonic"])
def test_model_null_boundary_adaptive_sampler(params):
    runs, steps = 3000, 400
    rng = np.random.default_rng(20240501)
    q = params.q
    scores, alternatives = adaptive_stream(rng, runs, steps, [q, q, q], [q, q, q], params.m, pick="lowest")
    for with_alternatives in (False, True):
        trajectories = log_evalues(scores, params, alternatives=alternatives if with_alternatives else None)
        for name in MODEL_PROCESSES:
            rate = rejection_rate(trajectories[name], params.log_threshold)
            check_rate(rate, runs, f"{name} under the model's boundary null (alternatives={with_alternatives})")


def test_model_null_fractional_scores():
    """Scores in [0, 1] with mean exactly q (Beta distributed): the Bernoulli bound still holds."""
    params = AuditParams.gpqa()
    runs, steps = 3000, 400
    rng = np.random.default_rng(7)
    scores = rng.beta(params.q * 2.0, (1 - params.q) * 2.0, size=(runs, steps))
    trajectories = log_evalues(scores, params, names=MODEL_PROCESSES)
    for name in MODEL_PROCESSES:
        check_rate(rejection_rate(trajectories[name], params.log_threshold), runs, f"{name}, fractional scores")


@pytest.mark.parametrize("params", [AuditParams.gpqa(), AuditParams.sdoh()], ids=["gpqa", "sdoh"])
def test_auditor_null_adaptive_sampler(params):
    """Before m the auditor samples subgroups far above q (the forecaster learns high alternatives),
    from m on only subgroups with mean below q or at the boundary q, picking the best-looking one."""
    runs, steps = 3000, 400
    rng = np.random.default_rng(99)
    q = params.q
    scores, alternatives = adaptive_stream(rng, runs, steps, [0.99, 0.97], [q - 0.01, q], params.m, pick="highest")
    for with_alternatives in (False, True):
        trajectories = log_evalues(scores, params, alternatives=alternatives if with_alternatives else None)
        for name in AUDITOR_PROCESSES:
            rate = rejection_rate(trajectories[name], params.log_threshold)
            check_rate(rate, runs, f"{name} under the auditor's null (alternatives={with_alternatives})")


def test_dual_fwer_vectorised_all_pairs():
    """Family-wise error of the dual test under each null, for every model/auditor pair, within budget."""
    params = AuditParams.gpqa()
    runs = 3000
    rng = np.random.default_rng(5)
    q = params.q
    model_null, _ = adaptive_stream(rng, runs, params.budget, [q, q], [q, q], params.m, pick="lowest")
    auditor_null, _ = adaptive_stream(rng, runs, params.budget, [0.99], [q - 0.01, q], params.m, pick="highest")
    under_model, under_auditor = log_evalues(model_null, params), log_evalues(auditor_null, params)
    thr = params.log_threshold
    for model_name, auditor_name in itertools.product(MODEL_PROCESSES, AUDITOR_PROCESSES):
        stop_mod = first_crossings(under_model[model_name], thr)
        stop_aud = first_crossings(under_model[auditor_name], thr)
        false_failure = np.mean((stop_mod <= params.budget) & (stop_mod <= stop_aud))
        check_rate(false_failure, runs, f"dual {model_name}/{auditor_name}: 'failure mode found' under H0_mod")
        stop_mod = first_crossings(under_auditor[model_name], thr)
        stop_aud = first_crossings(under_auditor[auditor_name], thr)
        false_pass = np.mean((stop_aud <= params.budget) & (stop_aud < stop_mod))
        check_rate(false_pass, runs, f"dual {model_name}/{auditor_name}: 'audit passed' under H0_aud")


@pytest.mark.slow
def test_dual_fwer_streaming_adaptive_loop():
    """The streaming DualTest driven by a per-run adaptive auditor that reads the test's own state."""
    params = AuditParams.gpqa()
    q = params.q
    runs = 800
    rng = np.random.default_rng(17)
    errors = {"H0_mod": 0, "H0_aud": 0}
    for scenario, means, wrong in (("H0_mod", [q, q, q], FAILURE_FOUND), ("H0_aud", [q - 0.01, q], AUDIT_PASSED)):
        for _ in range(runs):
            test = DualTest(params)
            successes = np.zeros(len(means))
            counts = np.zeros(len(means))
            while not test.stopped:
                if test.t + 1 < params.m and scenario == "H0_aud":
                    chosen, mean = -1, 0.99  # before m: anything goes, here a very good subgroup
                else:
                    estimate = (successes + 1.0) / (counts + 2.0)
                    # Chase the currently losing side: low scores while the auditor leads, else high.
                    pick_low = test.log_e_auditor > test.log_e_model
                    chosen = int(estimate.argmin() if pick_low else estimate.argmax())
                    mean = means[chosen]
                y = float(rng.random() < mean)
                test.update(y, alternative=0.5 if test.log_e_model > 0 else 0.97)
                if chosen >= 0:
                    successes[chosen] += y
                    counts[chosen] += 1.0
            errors[scenario] += test.decision == wrong
    for scenario, count in errors.items():
        check_rate(count / runs, runs, f"streaming DualTest, wrong decision under {scenario}")


def _all_sequences(t):
    return np.array(list(itertools.product((0.0, 1.0), repeat=t)))


def _probabilities(sequences, means_by_step):
    mu = np.asarray(means_by_step)
    return np.prod(np.where(sequences == 1.0, mu, 1.0 - mu), axis=1)


@pytest.mark.parametrize("weights", ["uniform", "harmonic"])
def test_exact_expectation_at_most_one(weights):
    """E[E_t] <= 1 for every t <= 12 by summing over all 2^12 binary sequences."""
    t = 12
    params = AuditParams.gpqa(m=5, weights=weights)
    q = params.q
    sequences = _all_sequences(t)
    # Model's null at the boundary: products are martingales (E = 1), SR sums to sum_{j<=t} w_j.
    prob = _probabilities(sequences, [q] * t)
    assert prob.sum() == pytest.approx(1.0, abs=1e-12)
    values = {name: np.exp(v) for name, v in log_evalues(sequences, params).items()}
    w = np.array([1 / params.m if j <= params.m else 0.0 for j in range(1, t + 1)]) if weights == "uniform" \
        else np.array([1 / (j * (j + 1)) for j in range(1, t + 1)])
    for name in MODEL_PROCESSES:
        expectation = prob @ values[name]
        expected = np.cumsum(w) if name.startswith("SR") else np.ones(t)
        assert np.allclose(expectation, expected, atol=1e-12), (name, expectation)
        assert np.all(expectation <= 1.0 + 1e-12)
    # Above the boundary the model's processes lose money on average.
    prob_high = _probabilities(sequences, [0.9] * t)
    for name in MODEL_PROCESSES:
        assert np.all(prob_high @ values[name] < 1.0 - 1e-6)
    # Auditor's null: anything before m (here 0.99), at most q from m on.
    for post in (q, q - 0.05):
        prob_aud = _probabilities(sequences, [0.99] * (params.m - 1) + [post] * (t - params.m + 1))
        for name in AUDITOR_PROCESSES:
            expectation = prob_aud @ values[name]
            assert np.all(expectation <= 1.0 + 1e-12), (name, post, expectation)
            if post == q:
                assert np.allclose(expectation, 1.0, atol=1e-12)


def test_exact_optional_stopping_and_adaptive_alternatives():
    """E[E_tau] <= 1 for a data-dependent stopping time, with alternatives chosen from the past."""
    t = 12
    params = AuditParams.gpqa(m=4)
    q = params.q
    sequences = _all_sequences(t)
    prob = _probabilities(sequences, [q] * t)
    # Predictable alternatives: bet hard after a failure, mildly after a success.
    previous = np.concatenate([np.ones((len(sequences), 1)), sequences[:, :-1]], axis=1)
    alternatives = np.where(previous == 0.0, 0.3, 0.84)
    for name, log_e in log_evalues(sequences, params, alternatives=alternatives).items():
        if name in AUDITOR_PROCESSES:
            continue
        hit = log_e >= math.log(2.0)
        tau = np.where(hit.any(axis=1), hit.argmax(axis=1), t - 1)
        stopped_value = np.exp(log_e[np.arange(len(sequences)), tau])
        assert prob @ stopped_value <= 1.0 + 1e-12, name
    # Auditor side with adaptive alternatives above q and the boundary from m on.
    prob_aud = _probabilities(sequences, [0.5] * (params.m - 1) + [q] * (t - params.m + 1))
    alternatives = np.where(previous == 1.0, 0.99, 0.86)
    for name in AUDITOR_PROCESSES:
        log_e = log_evalues(sequences, params, alternatives=alternatives, names=(name,))[name]
        assert np.allclose(prob_aud @ np.exp(log_e), 1.0, atol=1e-12), name


@pytest.mark.parametrize("kind", ["zeros", "ones", "random"])
def test_million_step_streams_are_finite(kind):
    n = 10**6
    y = {"zeros": np.zeros(n), "ones": np.ones(n),
         "random": np.random.default_rng(1).random(n)}[kind]
    for params in (AuditParams.gpqa(), AuditParams.sdoh(weights="harmonic")):
        for name, log_e in log_evalues(y, params).items():
            assert np.all(np.isfinite(log_e)), (kind, name)
            assert log_e.shape == (n,)


@pytest.mark.slow
def test_million_step_streaming_is_finite_and_matches():
    n = 10**6
    params = AuditParams.gpqa(weights="harmonic")
    for value, name in ((0.0, "SR-LR-UI"), (1.0, "AUD-LR-UI")):
        process = make_process(name, params)
        for _ in range(n):
            process.update(value)
        vectorised = log_evalues(np.full(n, value), params, names=(name,))[name][-1]
        assert math.isfinite(process.log_e)
        assert process.log_e == pytest.approx(vectorised, rel=1e-9, abs=1e-6)


def test_monte_carlo_detects_an_invalid_process():
    """The harness has teeth: an alternative that peeks at the current score, or an auditor's
    process started at step 1 instead of m, breaks the alpha + 3 SE bound by a wide margin."""
    params = AuditParams.gpqa()
    q = params.q
    runs = 1000
    scores, _ = adaptive_stream(np.random.default_rng(3), runs, 300, [q, q], [q, q], params.m)
    peeking = np.where(scores == 0.0, 0.3, 0.849)
    log_e = log_evalues(scores, params, alternatives=peeking, names=("LR-UI",))["LR-UI"]
    with pytest.raises(AssertionError, match="exceeds alpha"):
        check_rate(rejection_rate(log_e, params.log_threshold), runs, "peeking LR-UI")
    scores, _ = adaptive_stream(np.random.default_rng(4), runs, 300, [0.99], [q], params.m, pick="highest")
    early = log_evalues(scores, params.replace(m=1), names=("AUD-LR",))["AUD-LR"]
    with pytest.raises(AssertionError, match="exceeds alpha"):
        check_rate(rejection_rate(early, params.log_threshold), runs, "auditor's LR from step 1")
