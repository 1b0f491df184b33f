"""Estimand-separated results on hand-built logs with known answers; bootstrap determinism."""

import numpy as np
import pytest

from audit_core.errors import InputError
from audit_core.identify import estimand_values, frozen_policy_class
from audit_core.measure import (
    COMPOSITION,
    ENGINE_ESTIMANDS,
    bootstrap_intervals,
    cluster_bootstrap_weights,
    engine_estimands,
    load_response_log,
    measure,
)
from audit_core.sequential import wilson_interval
from tests.measure.helpers import REFERENCE_ORACLE, frozen_units, log_bytes


@pytest.fixture(scope="module")
def frozen_measure():
    return measure(load_response_log(log_bytes(frozen_units())), bootstrap=200, seed=1)


def test_engine_estimands_equal_estimand_values_on_the_frozen_class():
    pc = frozen_policy_class()
    log = load_response_log(log_bytes(frozen_units()))
    got = engine_estimands(log)
    for estimand in ENGINE_ESTIMANDS:
        assert got[estimand].tolist() == estimand_values(pc, estimand).tolist(), estimand
    assert got["tau_full"].tolist() == [1, 0, 0, 0, 0, 0, 0]


def test_engine_estimands_follow_each_clusters_oracle():
    # The same ideal answers judged against a cluster whose target oracle is FALSE are not τ_full.
    pc = frozen_policy_class()
    ideal = {c: pc.response("ideal", c) for c in pc.cells}
    other = {"base": "TRUE", "target": "FALSE", "sham": "TRUE"}
    log = load_response_log(log_bytes([("m", "ref", REFERENCE_ORACLE, ideal), ("m", "flip", other, ideal)]))
    got = engine_estimands(log)
    assert got["tau_full"].tolist() == [1, 0] and got["static_correctness"].tolist() == [1, 1]


# (policy, base-correct, target-follow, sham-stay, local, composition counts) over 12 contexts
KNOWN = {
    "ideal": (12, 12, 12, 12, {"full success": 12}),
    "target_inertia": (12, 0, 12, 0, {"target inertia": 12}),
    "any_edit_reactor": (12, 12, 0, 0, {"other": 12}),
    "fixed_label": (4, 0, 4, 0, {"base-knowledge failure": 8, "target inertia": 4}),
    "mapping_shortcut": (12, 2, 12, 2, {"full success": 2, "target inertia": 10}),
    "generated_only_failure": (12, 6, 6, 6, {"full success": 6, "other": 6}),
    "scoring_only_success": (12, 6, 12, 6, {"full success": 6, "target inertia": 6}),
}


@pytest.mark.parametrize("policy", list(KNOWN))
def test_known_answers_per_frozen_policy(frozen_measure, policy):
    base, follow, stay, local, comp = KNOWN[policy]
    m = frozen_measure.model(policy)
    e = {x.name: x for x in m.estimates}
    assert (e["base_accuracy"].successes, e["base_accuracy"].n) == (base, 12)
    assert (e["target_follow"].successes, e["target_follow"].n) == (follow, base)
    assert (e["sham_stay"].successes, e["sham_stay"].n) == (stay, base)
    assert (e["local_given_base"].successes, e["local_paired"].successes, e["local_paired"].n) == (local, local, 12)
    assert dict(m.composition) == {c: comp.get(c, 0) for c in COMPOSITION}
    assert e["tau_full"].successes == (policy == "ideal") and e["tau_full"].n == 1
    assert e["validity"].rate == 1.0 and m.n_complete_units == 1
    if policy == "ideal":
        assert e["local_given_base"].rate == 1.0 and e["tau_full"].rate == 1.0
    if policy == "target_inertia":
        assert e["target_follow"].rate == 0.0


def test_wilson_intervals_are_the_shared_function(frozen_measure):
    e = frozen_measure.pooled.estimate("base_accuracy")
    assert (e.successes, e.n) == (76, 84)
    assert (e.wilson_low, e.wilson_high) == pytest.approx(wilson_interval(76, 84))


def test_pooled_counts_are_sums_and_composition_is_exclusive(frozen_measure):
    for name in ("base_accuracy", "target_follow", "local_paired", "tau_full", "validity"):
        per_model = [m.estimate(name) for m in frozen_measure.models]
        pooled = frozen_measure.pooled.estimate(name)
        assert pooled.successes == sum(e.successes for e in per_model)
        assert pooled.n == sum(e.n for e in per_model)
    assert sum(dict(frozen_measure.pooled.composition).values()) == frozen_measure.pooled.n_complete_paired == 84


def test_invalid_outputs_are_reportability_failures_and_lower_validity():
    pc = frozen_policy_class()
    answers = {c: pc.response("ideal", c) for c in pc.cells}
    answers["target:BAC:generated"] = "INVALID"
    answers["sham:CBA:generated"] = "invalid"
    m = measure(load_response_log(log_bytes([("m", "c", REFERENCE_ORACLE, answers)])), bootstrap=10)
    e = m.pooled
    assert dict(e.composition)["reportability failure"] == 2 and dict(e.composition)["full success"] == 10
    assert e.estimate("validity:generated").successes == 16 and e.estimate("validity:scoring").rate == 1.0
    assert e.estimate("tau_full").successes == 0 and e.estimate("local_response").successes == 1
    assert m.units[0].composition[0] == ("reportability failure", 2)


def test_bootstrap_weights_and_intervals():
    w = np.vstack(list(cluster_bootstrap_weights(7, 500, seed=3)))
    assert w.shape == (500, 7) and (w.sum(axis=1) == 7).all()
    # The same stream whatever the block size, so memory can be bounded without changing results.
    assert np.array_equal(w, np.vstack(list(cluster_bootstrap_weights(7, 500, seed=3, chunk=64))))
    assert not np.array_equal(w, np.vstack(list(cluster_bootstrap_weights(7, 500, seed=4))))
    s = np.column_stack([np.full(7, 3.0), [0, 1, 2, 3, 4, 5, 6.0], np.zeros(7)])
    n = np.column_stack([np.full(7, 4.0), np.full(7, 6.0), np.zeros(7)])
    low, high = bootstrap_intervals(s, n, 500, seed=3, confidence=0.95)
    # Identical clusters: every replicate gives the same rate.
    assert low[0] == pytest.approx(0.75) and high[0] == pytest.approx(0.75)
    # Heterogeneous clusters: the interval covers the pooled rate and is not degenerate.
    assert low[1] < s[:, 1].sum() / n[:, 1].sum() < high[1]
    # By hand: percentiles of the replicate rates from the same weights.
    rates = (w @ s[:, 1]) / (w @ n[:, 1])
    assert (low[1], high[1]) == pytest.approx(tuple(np.quantile(rates, [0.025, 0.975])))
    assert np.isnan(low[2]) and np.isnan(high[2])  # n = 0 everywhere
    assert np.isnan(bootstrap_intervals(s, n, 0, seed=3, confidence=0.95)[0]).all()


def test_bootstrap_is_seeded_and_deterministic():
    data = open("data/example_response_log.csv", "rb").read()
    log = load_response_log(data)
    a, b = measure(log, bootstrap=300, seed=7), measure(log, bootstrap=300, seed=7)
    c = measure(log, bootstrap=300, seed=8)
    assert a.to_dict() == b.to_dict()
    key = lambda m: [(e.boot_low, e.boot_high) for e in m.pooled.estimates]
    assert key(a) != key(c)
    assert [(e.successes, e.n) for e in a.pooled.estimates] == [(e.successes, e.n) for e in c.pooled.estimates]
    local = a.pooled.estimate("local_given_base")
    assert local.boot_low <= local.rate <= local.boot_high


def test_parameters_validated():
    log = load_response_log(log_bytes(frozen_units()))
    with pytest.raises(InputError, match="bootstrap"):
        measure(log, bootstrap=-1)
    with pytest.raises(InputError, match="confidence"):
        measure(log, confidence=1.5)
    assert measure(log, bootstrap=0).pooled.estimate("local_paired").boot_low is None


def test_transitions_split_the_pooled_counts():
    log = load_response_log(open("data/example_response_log.csv", "rb").read())
    m = measure(log, bootstrap=100, seed=0)
    labels = {t.transition for t in m.transitions}
    assert len(labels) == 6 and all(t.n_clusters == 4 for t in m.transitions)
    for block in m.models + (m.pooled,):
        mine = [t for t in m.transitions if t.model == block.model]
        for name in ("base_accuracy", "target_follow", "local_paired"):
            assert sum(t.estimate(name).successes for t in mine) == block.estimate(name).successes
            assert sum(t.estimate(name).n for t in mine) == block.estimate(name).n
    # A two-cluster log with an ideal unit on one transition and target inertia on the other.
    pc = frozen_policy_class()
    flip = {"base": "FALSE", "target": "UNKNOWN", "sham": "FALSE"}
    from audit_core.measure.example import policy_response
    units = [("m", "k1", REFERENCE_ORACLE, {c: pc.response("ideal", c) for c in pc.cells}),
             ("m", "k2", flip, {c: policy_response("target_inertia", flip, *c.split(":")) for c in pc.cells})]
    t = {x.transition: x for x in measure(load_response_log(log_bytes(units)), bootstrap=50).transitions}
    assert t["TRUE→UNKNOWN→TRUE"].estimate("local_paired").rate == 1.0
    assert t["FALSE→UNKNOWN→FALSE"].estimate("local_paired").rate == 0.0
    assert t["FALSE→UNKNOWN→FALSE"].estimate("base_accuracy").rate == 1.0
