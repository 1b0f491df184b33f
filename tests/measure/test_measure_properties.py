"""Properties on random logs: composition partitions the paired units, estimates nest, and the
engine estimands agree with a direct check of the oracle on their cells."""

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from audit_core.identify import frozen_policy_class
from audit_core.measure import load_response_log, measure, paired_units

PC = frozen_policy_class()
LABELS = ("TRUE", "FALSE", "UNKNOWN")
CANONICAL = ["base:ABC:generated", "target:ABC:generated", "sham:ABC:generated"]


@st.composite
def random_log(draw):
    n_models = draw(st.integers(1, 3))
    n_clusters = draw(st.integers(1, 4))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    lines = ["model,cluster,cell,response,oracle"]
    for k in range(n_clusters):
        oracle = {w: LABELS[rng.integers(3)] for w in ("base", "target", "sham")}
        for m in range(n_models):
            for cell in PC.cells:
                if rng.random() < 0.08:
                    continue  # unobserved cell
                response = ["A", "B", "C", "INVALID"][rng.integers(4)] if rng.random() < 0.5 else PC.response("ideal", cell)
                lines.append(f"m{m},k{k},{cell},{response},{oracle[cell.split(':')[0]]}")
    return "\n".join(lines).encode()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_log())
def test_measure_invariants(data):
    log = load_response_log(data)
    result = measure(log, bootstrap=30, seed=0)
    for block in result.models + (result.pooled,):
        e = {x.name: x for x in block.estimates}
        comp = dict(block.composition)
        assert sum(comp.values()) == block.n_complete_paired == e["base_accuracy"].n
        assert comp["full success"] == e["local_paired"].successes == e["local_given_base"].successes
        assert e["target_follow"].n == e["sham_stay"].n == e["base_accuracy"].successes
        assert e["local_paired"].successes <= min(e["target_follow"].successes, e["sham_stay"].successes)
        assert e["tau_full"].n == block.n_complete_units
        for x in block.estimates:
            if x.n:
                assert x.wilson_low <= x.rate <= x.wilson_high
                if x.boot_low is not None:
                    assert 0 <= x.boot_low <= x.boot_high <= 1
    # Engine estimands per unit against a direct reading of the oracle on their cells.
    index = PC.cell_index
    pairs = paired_units(log)
    local = pairs.target_follow & pairs.sham_stay
    for u, unit in enumerate(result.units):
        obs, ok = log.observed[u], log.correct[u]
        for name, cells in (("static_correctness", CANONICAL[:1]), ("local_response", CANONICAL),
                            ("tau_full", PC.cells)):
            cols = [index[c] for c in cells]
            want = None if not obs[cols].all() else int(ok[cols].all())
            assert getattr(unit, name) == want, (name, unit)
        assert unit.cells_observed == int(obs.sum())
        # The paired path at the canonical context agrees with the engine's local response.
        if unit.local_response is not None:
            assert int(local[u, pairs.canonical]) == unit.local_response
        assert sum(dict(unit.composition).values()) == unit.n_paired
