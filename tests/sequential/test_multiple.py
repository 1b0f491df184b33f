"""e-BH and e-Bonferroni: definitions, brute force, and seeded Monte Carlo checks of FDR / FWER."""

import itertools
import math
import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from audit_core.errors import InputError
from audit_core.sequential import AuditParams, process_log_evalues, replay
from audit_core.sequential.multiple import E_BH, E_BONFERRONI, audit_e_value, combine, e_bh, e_bonferroni

ALPHA = 0.05


def _largest_self_consistent(e: np.ndarray, level: float) -> set[int]:
    """e-BH by its definition (Wang & Ramdas 2022, Prop. 2): the largest set R in which every
    member has e_i >= K / (level |R|); found by trying every subset."""
    k = len(e)
    best: set[int] = set()
    for size in range(k, 0, -1):
        for subset in itertools.combinations(range(k), size):
            if all(e[i] >= k / (level * size) * (1 - 1e-12) for i in subset):
                return set(subset)
    return best


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(min_value=0.0, max_value=400.0), min_size=1, max_size=7),
       st.sampled_from([0.05, 0.1, 0.2]))
def test_e_bh_equals_the_largest_self_consistent_set(values, level):
    e = np.asarray(values)
    with np.errstate(divide="ignore"):
        result = e_bh(np.log(e), level)
    assert {i for i, r in enumerate(result.rejected) if r} == _largest_self_consistent(e, level)


def test_e_bonferroni_threshold_and_e_bh_threshold():
    log_e = np.log([400.0, 90.0, 41.0, 1.0])  # K = 4, alpha = .05: Bonferroni needs e >= 80
    bonf = e_bonferroni(log_e, ALPHA, names=list("abcd"))
    assert bonf.rejected_names == ("a", "b") and math.isclose(bonf.threshold, 80.0)
    bh = e_bh(log_e, ALPHA, names=list("abcd"))
    # k = 3: 3 * 41 / 4 = 30.75 >= 20, so the three largest are rejected at threshold 4/(.05*3)
    assert bh.rejected_names == ("a", "b", "c") and math.isclose(bh.threshold, 4 / (0.05 * 3))
    none = e_bh(np.log([10.0, 5.0]), ALPHA)
    assert none.n_rejected == 0 and none.threshold == math.inf and none.to_dict()["threshold"] is None
    assert set(combine(log_e, ALPHA)) == {E_BH, E_BONFERRONI}


def test_one_tolerance_rule_for_both_procedures():
    """Defect: e-BH accepted an e-value within a relative 1e-12 of its threshold, e-Bonferroni did
    not. One rule now: e >= threshold up to a relative 1e-12 (rounding of the logs), for both."""
    just_below = [math.log(20.0) - 5e-13]  # K = 1, alpha = .05: both thresholds are 20
    assert e_bh(just_below, ALPHA).rejected == e_bonferroni(just_below, ALPHA).rejected == (True,)
    clearly_below = [math.log(20.0) - 1e-9]
    assert e_bh(clearly_below, ALPHA).rejected == e_bonferroni(clearly_below, ALPHA).rejected == (False,)
    # exact ties at K > 1 (e = K / alpha computed through logs) are rejected by both
    tie = np.log([3 / ALPHA, 1.0, 1.0])
    assert e_bonferroni(tie, ALPHA).rejected[0] and e_bh(tie, ALPHA).rejected[0]


def test_an_infinite_e_value_is_always_rejected():
    """Defect: ``combine`` refused log e = +inf; both procedures are defined for it (rejected)."""
    results = combine([math.inf, 0.0, -math.inf], ALPHA, names=["a", "b", "c"])
    for result in results.values():
        assert result.rejected == (True, False, False) and math.isfinite(result.log_threshold)
        assert result.to_dict()["hypotheses"][0]["rejected"] is True
    assert combine([math.inf], ALPHA)[E_BH].n_rejected == 1


def test_bad_input_names_the_problem():
    with pytest.raises(InputError, match="level"):
        e_bh([0.0], level=1.5)
    with pytest.raises(InputError, match="log e-value 2"):
        e_bh([0.0, float("nan")])
    with pytest.raises(InputError, match="names"):
        e_bonferroni([0.0, 1.0], names=["one"])
    with pytest.raises(InputError, match="method"):
        combine([0.0], methods=["BH"])


def test_audit_e_value_is_the_process_at_the_dual_stop():
    params = AuditParams.gpqa()
    scores = np.r_[np.ones(30), np.zeros(40)]
    result = replay(scores, params)
    stop = result.dual.stop
    assert stop is not None
    assert stop < len(scores)
    assert audit_e_value(result, at="stop") == pytest.approx(result.log_e["SR-LR-UI"][stop - 1])
    assert audit_e_value(result.to_dict(), "auditor", "stop") == pytest.approx(result.log_e["AUD-LR-UI"][stop - 1])
    assert audit_e_value(result) == pytest.approx(result.log_e["SR-LR-UI"][-1])
    never = replay(np.ones(20) * 0.85, params)  # no crossing: the value at the end of the run
    assert never.dual.stop is None
    assert audit_e_value(never, at="stop") == pytest.approx(never.log_e["SR-LR-UI"][-1])
    with pytest.raises(InputError, match="replay result"):
        audit_e_value({"n": 3})


# ------------------------------------------------------------------------- Monte Carlo guarantees

K, N_STEPS, REPS = 10, 100, 2000


def _scores(rng, accuracy: np.ndarray, dependence: str) -> np.ndarray:
    """(REPS, K, N_STEPS) Bernoulli scores; 'comonotone': every stream thresholds the same uniform
    at each step (strong positive dependence); 'antithetic': half the streams use 1 - U."""
    if dependence == "independent":
        u = rng.random((REPS, K, N_STEPS))
    else:
        shared = rng.random((REPS, 1, N_STEPS))
        u = np.repeat(shared, K, axis=1)
        if dependence == "antithetic":
            u[:, K // 2:, :] = 1.0 - u[:, K // 2:, :]
    return (u < accuracy[None, :, None]).astype(float)


def _stopped_log_e(process: str, scores: np.ndarray, params: AuditParams, at: str = "end") -> np.ndarray:
    """Each audit's log e-value at the end of its run, or ("stop") at its own stopping time: the
    first crossing of 1/alpha, else the end."""
    flat = scores.reshape(-1, N_STEPS)
    log_e = process_log_evalues(process, flat, params)
    crossed = log_e >= params.log_threshold
    stop = np.where(crossed.any(axis=1) & (at == "stop"), crossed.argmax(axis=1), N_STEPS - 1)
    return log_e[np.arange(len(flat)), stop].reshape(REPS, K)


def _rates(log_e: np.ndarray, is_null: np.ndarray):
    fdp, any_false, naive_any = [], [], []
    for row in log_e:
        bh = np.asarray(e_bh(row, ALPHA).rejected)
        bonf = np.asarray(e_bonferroni(row, ALPHA).rejected)
        fdp.append((bh & is_null).sum() / max(1, bh.sum()))
        any_false.append(bool((bonf & is_null).any()))
        naive_any.append(bool(((row >= math.log(1 / ALPHA)) & is_null).any()))
    return np.asarray(fdp), np.asarray(any_false, float), np.asarray(naive_any, float)


@pytest.mark.parametrize("at", ["end", "stop"])
@pytest.mark.parametrize("dependence", ["independent", "comonotone", "antithetic"])
@pytest.mark.parametrize("process", ["LR-UI", "SR-LR"])
def test_fdr_and_fwer_are_controlled_under_dependence(process, dependence, at):
    params = AuditParams.gpqa()
    rng = np.random.default_rng([20261201, zlib.crc32(f"{process}|{dependence}|{at}".encode())])
    # 6 true nulls at the boundary accuracy q (the hardest null), 4 failing audits at 0.55
    accuracy = np.r_[np.full(6, params.q), np.full(4, 0.55)]
    is_null = accuracy >= params.q
    log_e = _stopped_log_e(process, _scores(rng, accuracy, dependence), params, at)
    fdp, fwe, _ = _rates(log_e, is_null)
    fdr, fdr_se = fdp.mean(), fdp.std(ddof=1) / math.sqrt(REPS)
    fwer = fwe.mean()
    fwer_se = math.sqrt(max(fwer * (1 - fwer), ALPHA * (1 - ALPHA)) / REPS)
    assert fdr <= ALPHA + 3 * fdr_se, (fdr, fdr_se)
    assert fwer <= ALPHA + 3 * fwer_se, (fwer, fwer_se)
    # at the end of the run the failing audits are found: the guarantee is not bought by never
    # rejecting (stopped at their crossing, e ~ 1/alpha is too little for K = 10 audits)
    power = np.mean([np.asarray(e_bh(row, ALPHA).rejected)[~is_null].mean() for row in log_e])
    if at == "end":
        assert power > 0.5, power


def test_the_monte_carlo_check_detects_an_uncorrected_procedure():
    """Rejecting every audit with e >= 1/alpha on its own, with 10 independent true nulls, has a
    family-wise error far above alpha: the simulation above would see a procedure that fails."""
    params = AuditParams.gpqa()
    rng = np.random.default_rng(7)
    accuracy = np.full(K, params.q)
    log_e = _stopped_log_e("LR-UI", _scores(rng, accuracy, "independent"), params, "stop")
    _, fwe, naive = _rates(log_e, np.ones(K, bool))
    se = math.sqrt(ALPHA * (1 - ALPHA) / REPS)
    assert naive.mean() > ALPHA + 3 * se
    assert fwe.mean() <= ALPHA + 3 * se


@pytest.mark.parametrize("dependence", ["comonotone", "independent"])
def test_e_bh_bound_is_attained_for_tight_e_values(dependence):
    """e_i = 1{U_i <= alpha} / alpha has E[e_i] = 1 under its null. With 6 such nulls and 4
    certain discoveries, e-BH's FDR bound alpha K_0/K is attained under comonotone U (all nulls
    rejected together with probability alpha): the check is sharp both ways, a more liberal
    threshold would exceed the bound and a more conservative one would not attain it."""
    rng = np.random.default_rng([5, zlib.crc32(dependence.encode())])
    reps, k0 = 20000, 6
    u = rng.random((reps, 1)) if dependence == "comonotone" else rng.random((reps, k0))
    null_e = np.broadcast_to(np.where(u <= ALPHA, 1 / ALPHA, 0.0), (reps, k0))
    with np.errstate(divide="ignore"):
        log_e = np.log(np.c_[null_e, np.full((reps, 4), 1e6)])
    is_null = np.r_[np.ones(k0, bool), np.zeros(4, bool)]
    fdp = []
    for row in log_e:
        rejected = np.asarray(e_bh(row, ALPHA).rejected)
        fdp.append((rejected & is_null).sum() / max(1, rejected.sum()))
    fdp = np.asarray(fdp)
    bound = ALPHA * k0 / K
    se = max(fdp.std(ddof=1), 1e-3) / math.sqrt(reps)
    assert fdp.mean() <= bound + 3 * se
    if dependence == "comonotone":
        assert abs(fdp.mean() - bound) <= 3 * se  # attained
