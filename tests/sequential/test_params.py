"""AuditParams: DESIGN.md section 3 defaults and validation."""

import math

import pytest

from audit_core.errors import InputError
from audit_core.sequential import AuditParams


def test_gpqa_defaults():
    p = AuditParams.gpqa()
    assert (p.q, p.alpha, p.m, p.q_mod, p.q_aud, p.eta, p.budget) == (0.85, 0.05, 40, 0.82, 0.90, 0.1, 250)
    assert p.grid_mod == (0.6, 0.655, 0.71, 0.765, 0.82)
    assert p.grid_aud == (0.88, 0.91, 0.94)
    assert p.weights == "uniform" and p.n_init == 0
    assert p.log_threshold == pytest.approx(math.log(20))


def test_sdoh_defaults():
    p = AuditParams.sdoh()
    assert (p.q, p.q_mod, p.q_aud, p.eta, p.m, p.budget, p.n_init) == (0.83, 0.80, 0.86, 0.2, 40, 400, 20)
    assert p.grid_mod == (0.6, 0.65, 0.7, 0.75, 0.8)
    assert p.grid_aud == (0.86, 0.89, 0.92, 0.95)


def test_overrides_and_style():
    assert AuditParams.gpqa(m=20).m == 20
    assert AuditParams.for_style("sdoh", alpha=0.1, m=None).alpha == 0.1
    assert AuditParams.gpqa().replace(weights="harmonic").weights == "harmonic"
    assert AuditParams.gpqa().to_dict()["grid_aud"] == [0.88, 0.91, 0.94]


@pytest.mark.parametrize("change,field", [
    ({"q": 1.2}, "q"), ({"alpha": 0.0}, "alpha"), ({"m": 0}, "m"), ({"m": 2.5}, "m"),
    ({"delta": 0.9}, "delta"), ({"delta_aud": 0.2}, "delta_aud"), ({"eta": -1.0}, "eta"),
    ({"weights": "geometric"}, "weights"), ({"grid_mod": (0.5, 0.9)}, "grid_mod"),
    ({"grid_aud": (0.8,)}, "grid_aud"), ({"budget": 0}, "budget"), ({"q": float("nan")}, "q"),
])
def test_validation_names_the_field(change, field):
    with pytest.raises(InputError, match=f"parameter {field}"):
        AuditParams.gpqa(**change)
    with pytest.raises(InputError, match="style"):
        AuditParams.for_style("mmlu")
