"""The bundled synthetic response log: byte-identical regeneration, size, behaviour generator."""

from pathlib import Path

import pytest

from audit_core.identify import frozen_policy_class
from audit_core.measure import COMPOSITION, load_response_log, measure
from audit_core.measure.example import EXAMPLE_PATH, MODELS, N_CLUSTERS, example_log_csv, policy_response

ORACLE = {"base": "TRUE", "target": "UNKNOWN", "sham": "TRUE"}


def test_regenerates_byte_identically_and_is_small():
    on_disk = Path(EXAMPLE_PATH).read_bytes()
    assert example_log_csv().encode("utf-8") == on_disk
    assert len(on_disk) < 1_000_000
    assert example_log_csv(seed=1) != example_log_csv()


@pytest.mark.parametrize("policy", frozen_policy_class().names)
def test_generator_behaviours_match_the_frozen_class_on_the_reference_oracle(policy):
    pc = frozen_policy_class()
    for cell in pc.cells:
        assert policy_response(policy, ORACLE, *cell.split(":")) == pc.response(policy, cell), cell


def test_example_log_measures_as_designed():
    log = load_response_log(EXAMPLE_PATH)
    assert log.models == tuple(MODELS) and len(log.clusters) == N_CLUSTERS and log.observed.all()
    assert log.notes == ("ignored column(s): generating_policy",)
    m = measure(log, bootstrap=200)
    assert m.pooled.n_complete_paired == 2 * N_CLUSTERS * 12
    assert sum(dict(m.pooled.composition).values()) == 576
    # Scoring is never INVALID; generated choice is, at a higher rate for model A.
    a, b = m.models
    assert a.estimate("validity:scoring").rate == b.estimate("validity:scoring").rate == 1.0
    assert a.estimate("validity:generated").rate < b.estimate("validity:generated").rate < 1.0
    assert all(dict(x.composition)[c] > 0 for x in m.models for c in COMPOSITION)
