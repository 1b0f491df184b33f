"""AuditParams: docs/e-processes.md, Parameters and defaults defaults and validation."""

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


NEAR_ONE = dict(q=0.9999999, delta=1e-8, delta_aud=5e-8, m=5, grid_mod=(0.5, 0.9), grid_aud=(0.99999995,))


def test_q_whose_clip_interval_is_empty_is_refused():
    # For q > 1 - 1e-6 the auditor's interval [q, 1 - 1e-6] is empty; clipping used to bet below q.
    with pytest.raises(InputError, match=r"parameter q: must lie strictly between 1e-06 and 1 - 1e-06"):
        AuditParams.gpqa(**NEAR_ONE)
    with pytest.raises(InputError, match="parameter q"):
        AuditParams.gpqa(q=5e-7, delta=1e-7, grid_mod=(2e-7,))
    from audit_core.sequential import clip_alternative
    with pytest.raises(InputError, match="^q: "):
        clip_alternative(0.9999999, 0.9999999, "above")


@pytest.mark.parametrize("change,field", [
    ({"q": 0.99999, "delta_aud": 9.995e-6, "grid_aud": (0.999991,)}, "delta_aud"),  # q + delta' > 1 - 1e-6
    ({"q": 0.99999, "delta_aud": 5e-6, "grid_aud": (0.9999995,)}, "grid_aud"),
    ({"q": 1e-5, "delta": 9.5e-6, "grid_mod": (5e-6,)}, "delta"),  # q - delta < 1e-6
    ({"q": 1e-5, "delta": 5e-6, "grid_mod": (5e-7,)}, "grid_mod"),
])
def test_alternatives_outside_the_clip_interval_are_refused(change, field):
    with pytest.raises(InputError, match=f"parameter {field}"):
        AuditParams.gpqa(**change)


def test_clipping_never_crosses_q():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from audit_core.sequential import clip_alternative
    from audit_core.sequential.likelihood import CLIP

    @settings(max_examples=300, deadline=None, derandomize=True)
    @given(st.floats(CLIP * 1.0001, 1 - CLIP * 1.0001), st.floats(-10.0, 10.0), st.sampled_from(["below", "above"]))
    def check(q, alternative, side):
        g = clip_alternative(alternative, q, side)
        assert (CLIP <= g <= q) if side == "below" else (q <= g <= 1 - CLIP)
    check()
    edge = AuditParams.gpqa(q=0.99999, delta_aud=5e-6, grid_aud=(0.999992, 0.999999))
    assert edge.q_aud == 0.999995 and edge.grid_aud[-1] == 1 - CLIP


def test_threshold_is_minus_log_alpha_even_for_subnormal_alpha():
    p = AuditParams.gpqa(alpha=1e-320)
    assert math.isfinite(p.log_threshold) and p.log_threshold == -math.log(1e-320)
    assert p.log_threshold == pytest.approx(736.83, abs=0.01)
    for alpha in (0.05, 1e-10, 1e-300, 5e-324):
        assert AuditParams.gpqa(alpha=alpha).log_threshold == pytest.approx(-math.log(alpha), rel=1e-15)
    from audit_core.sequential import first_crossing, log_evalues, replay
    y = [1.0] * 30
    assert first_crossing(log_evalues(y, p)["AUD-LR"], p.log_threshold) is None
    assert first_crossing([700.0, 737.0], p.log_threshold) == 2
    assert replay(y, p).decision == "inconclusive"


def test_params_from_the_three_thresholds_people_set():
    for style in ("gpqa", "sdoh"):
        d = AuditParams.for_style(style)
        same = AuditParams.from_thresholds(style, q=d.q, alpha=d.alpha, m=d.m, q_mod=d.q_mod, q_aud=d.q_aud, eta=d.eta)
        assert same == d
    typed = AuditParams.from_thresholds("sdoh", q=0.83, alpha=0.05, m=40, q_mod=0.80, q_aud=0.86, eta=0.2)
    assert typed.delta == 0.03 and typed.delta_aud == 0.03   # not 0.029999999999999916
