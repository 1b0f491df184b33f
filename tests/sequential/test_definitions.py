"""Fast recursions (streaming and vectorised) equal the brute-force definitions of paper 001 3.2."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from audit_core.errors import InputError
from audit_core.sequential import (
    AUDITOR_PROCESSES,
    PROCESS_NAMES,
    AuditParams,
    EWAForecaster,
    ewaf_forecasts,
    log_evalues,
    make_process,
    process_log_evalues,
)
from audit_core.sequential.weights import changepoint_log_weights

TOL = 1e-9


def p(y, gamma):
    """p(Y; gamma) = gamma^Y (1 - gamma)^(1 - Y), straight from the paper."""
    return gamma ** y * (1.0 - gamma) ** (1.0 - y)


def direct_forecasts(y, grid, q, eta):
    """gamma_{k-1} recomputed from scratch at every k: weights prod_{i<k} (p(Y_i;q_b)/p(Y_i;q))^eta."""
    out = []
    for k in range(len(y)):
        log_u = [eta * sum(math.log(p(y[i], g) / p(y[i], q)) for i in range(k)) for g in grid]
        top = max(log_u)
        u = [math.exp(v - top) for v in log_u]
        out.append(sum(ui * g for ui, g in zip(u, grid, strict=False)) / sum(u))
    return np.array(out)


def direct_weights(n, scheme, m):
    if scheme == "uniform":
        return [1.0 / m if j <= m else 0.0 for j in range(1, n + 1)]
    return [1.0 / (j * (j + 1)) for j in range(1, n + 1)]


def brute_force(name, y, params):
    """log E_t from the definitions: products for LR, the explicit O(n^2) changepoint sum for SR."""
    q = params.q
    below = name in ("LR", "LR-UI", "SR-LR", "SR-LR-UI")
    if "UI" in name:
        grid = params.grid_mod if below else params.grid_aud
        gammas = direct_forecasts(y, grid, q, params.eta)
    else:
        gammas = np.full(len(y), params.q - params.delta if below else params.q + params.delta_aud)
    log_l = np.array([math.log(p(v, g) / p(v, q)) for v, g in zip(y, gammas, strict=False)])
    n = len(y)
    out = np.empty(n)
    for t in range(1, n + 1):
        if name.startswith("SR"):
            w = direct_weights(n, params.weights, params.m)
            terms = [math.log(w[j - 1]) + log_l[j - 1:t].sum() for j in range(1, t + 1) if w[j - 1] > 0]
            top = max(terms)
            out[t - 1] = top + math.log(sum(math.exp(v - top) for v in terms))
        elif name.startswith("AUD"):
            out[t - 1] = 0.0 if t < params.m else log_l[params.m - 1:t].sum()
        else:
            out[t - 1] = log_l[:t].sum()
    return out


STREAMS = [
    ("binary q", lambda rng: (rng.random(160) < 0.85).astype(float)),
    ("binary low", lambda rng: (rng.random(160) < 0.6).astype(float)),
    ("fractional", lambda rng: rng.random(160)),
    ("shift", lambda rng: np.concatenate([(rng.random(60) < 0.95), (rng.random(100) < 0.55)]).astype(float)),
]
PARAMS = [
    ("gpqa uniform m=40", AuditParams.gpqa()),
    ("sdoh harmonic m=7", AuditParams.sdoh(weights="harmonic", m=7)),
    ("gpqa uniform m=7", AuditParams.gpqa(m=7)),
]


@pytest.mark.parametrize("stream_name,make", STREAMS, ids=[s[0] for s in STREAMS])
@pytest.mark.parametrize("params_name,params", PARAMS, ids=[p[0] for p in PARAMS])
def test_both_interfaces_equal_brute_force(stream_name, make, params_name, params):
    y = make(np.random.default_rng(abs(hash(stream_name + params_name)) % 2**32))
    vectorised = log_evalues(y, params)
    for name in PROCESS_NAMES:
        expected = brute_force(name, y, params)
        process = make_process(name, params)
        streamed = np.array([process.update(v) for v in y])
        assert np.max(np.abs(vectorised[name] - expected)) < TOL, name
        assert np.max(np.abs(streamed - expected)) < TOL, name
        assert np.max(np.abs(process_log_evalues(name, y, params) - expected)) < TOL, name


def test_forecaster_is_direct_formula_and_predictable():
    params = AuditParams.sdoh()
    rng = np.random.default_rng(3)
    y = rng.random(120)
    for grid in (params.grid_mod, params.grid_aud):
        side = "below" if grid[0] < params.q else "above"
        expected = direct_forecasts(y, grid, params.q, params.eta)
        assert np.max(np.abs(ewaf_forecasts(y, grid, params.q, side, params.eta) - expected)) < 1e-12
        forecaster = EWAForecaster(grid, params.q, side, params.eta)
        streamed = []
        for v in y:
            streamed.append(forecaster.predict())
            forecaster.observe(v)
        assert np.max(np.abs(np.array(streamed) - expected)) < 1e-12
        # Strict predictability: changing Y_k does not change gamma_{k-1}, ..., gamma_0.
        changed = y.copy()
        changed[50] = 1.0 - changed[50]
        a = ewaf_forecasts(y, grid, params.q, side, params.eta)
        b = ewaf_forecasts(changed, grid, params.q, side, params.eta)
        assert np.array_equal(a[:51], b[:51]) and not np.array_equal(a[51:], b[51:])
        assert np.all((a > min(grid) - 1e-12) & (a < max(grid) + 1e-12))


def test_alternative_override_streaming_matches_vectorised_and_is_clipped():
    params = AuditParams.gpqa(m=10)
    rng = np.random.default_rng(11)
    y = (rng.random(80) < 0.8).astype(float)
    alternatives = np.where(rng.random(80) < 0.5, rng.random(80), np.nan)
    vectorised = log_evalues(y, params, alternatives=alternatives)
    for name in PROCESS_NAMES:
        process = make_process(name, params)
        streamed = np.array([process.update(v, None if np.isnan(a) else a) for v, a in zip(y, alternatives, strict=False)])
        assert np.max(np.abs(streamed - vectorised[name])) < TOL, name
    # An override on the wrong side of q is clipped to q: a factor of exactly 1.
    process = make_process("LR-UI", params)
    process.update(0.0, alternative=0.99)
    assert process.last_alternative == params.q and process.log_e == 0.0
    auditor = make_process("AUD-LR-UI", params)
    auditor.update(1.0, alternative=0.10)
    assert auditor.last_alternative == params.q


def test_auditor_processes_are_one_before_m():
    params = AuditParams.gpqa(m=25)
    y = np.ones(60)
    for name in AUDITOR_PROCESSES:
        log_e = process_log_evalues(name, y, params)
        assert np.all(log_e[:24] == 0.0) and log_e[24] > 0.0
        process = make_process(name, params)
        values = [process.update(v) for v in y]
        assert values[23] == 0.0 and values[24] == pytest.approx(log_e[24], abs=1e-12)


def test_weights_contract():
    for scheme, m in (("uniform", 40), ("harmonic", 40), ("uniform", 3)):
        log_w = changepoint_log_weights(5000, scheme, m)
        assert np.logaddexp.reduce(log_w) <= 1e-12
    from audit_core.sequential.weights import check_weight_sum
    with pytest.raises(InputError, match="sum"):
        check_weight_sum(np.log(np.full(3, 0.4)))


def test_scores_outside_unit_interval_are_rejected():
    params = AuditParams.gpqa()
    with pytest.raises(InputError, match=r"position 3"):
        log_evalues([0.0, 1.0, 1.5], params)
    with pytest.raises(InputError):
        make_process("LR", params).update(float("nan"))
    with pytest.raises(InputError, match="process"):
        make_process("nope", params)


@st.composite
def streams_and_params(draw):
    q = draw(st.floats(0.2, 0.95))
    params = AuditParams(
        q=q, alpha=draw(st.floats(0.01, 0.5)), m=draw(st.integers(1, 25)), delta=q * draw(st.floats(0.01, 0.9)),
        delta_aud=(1 - q) * draw(st.floats(0.01, 0.9)), eta=draw(st.floats(0.01, 2.0)),
        grid_mod=(q * 0.4, q * 0.8, q * 0.99), grid_aud=(q + (1 - q) * 0.2, q + (1 - q) * 0.9),
        weights=draw(st.sampled_from(["uniform", "harmonic"])),
    )
    binary = draw(st.booleans())
    element = st.sampled_from([0.0, 1.0]) if binary else st.floats(0.0, 1.0)
    scores = np.array(draw(st.lists(element, min_size=1, max_size=50)))
    return scores, params


@settings(max_examples=40, deadline=None, derandomize=True)
@given(streams_and_params())
def test_property_interfaces_agree_with_definitions(case):
    y, params = case
    vectorised = log_evalues(y, params)
    for name in PROCESS_NAMES:
        expected = brute_force(name, y, params)
        process = make_process(name, params)
        streamed = np.array([process.update(v) for v in y])
        assert np.all(np.isfinite(vectorised[name]))
        assert np.max(np.abs(vectorised[name] - expected)) < TOL, name
        assert np.max(np.abs(streamed - expected)) < TOL, name
