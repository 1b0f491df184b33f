"""Minimum identifying supports on the frozen class and edge cases of the solver wrapper."""

import numpy as np
import pytest

from audit_core.errors import InputError
from audit_core.identify import build_policy_class, cell_costs, frozen_policy_class, identify, minimum_supports
from tests.load import busy_factor


@pytest.fixture(scope="module")
def pc():
    return frozen_policy_class()


@pytest.fixture(scope="module")
def syn(pc):
    return minimum_supports(pc)


def test_26_two_cell_optima(pc, syn):
    assert (syn.status, syn.cost, syn.size, syn.n_optimal, syn.complete) == ("OPTIMAL", 2, 2, 26, True)
    assert len(set(syn.supports)) == 26
    for a, b in syn.supports:
        assert a.startswith("target:") and a.endswith(":generated")
        assert b.startswith("sham:") and b.endswith(":scoring")
        assert identify(pc, cells=[a, b]).identified
    assert syn.mandatory_cells == () and syn.in_every_optimum == ()
    assert syn.unseparable_pairs == []


def test_weighted_cost_four(pc):
    s = minimum_supports(pc, cost={"generated": 1, "scoring": 3})
    assert (s.status, s.cost, s.n_optimal, s.complete) == ("OPTIMAL", 4, 26, True)
    assert s.supports == minimum_supports(pc).supports


def test_deterministic_order(pc, syn):
    again = minimum_supports(pc)
    assert again.supports == syn.supports
    index = pc.cell_index
    keys = [[index[c] for c in s] for s in syn.supports]
    assert keys == sorted(keys)


def test_exclude_and_include(pc):
    sham_scoring = [c for c in pc.cells if c.startswith("sham:") and c.endswith(":scoring")]
    s = minimum_supports(pc, exclude=sham_scoring)
    assert s.status == "OPTIMAL" and s.size == 3 and s.complete
    assert all(not set(sup) & set(sham_scoring) for sup in s.supports)
    assert all(identify(pc, cells=sup).identified for sup in s.supports)
    inc = minimum_supports(pc, must_include=["base:ABC:generated"])
    assert inc.cost == 3 and inc.n_optimal == 26 and all("base:ABC:generated" in x for x in inc.supports)
    targets = [c for c in pc.cells if c.startswith("target:") and c.endswith(":generated")]
    bad = minimum_supports(pc, exclude=targets)
    assert bad.status == "INFEASIBLE" and bad.supports == [] and "scoring_only_success" in bad.message
    with pytest.raises(InputError, match="both required and excluded"):
        minimum_supports(pc, must_include=[targets[0]], exclude=[targets[0]])
    with pytest.raises(InputError, match="unknown cell id"):
        minimum_supports(pc, exclude=["moon:ABC:generated"])


def test_single_support_without_enumeration(pc):
    s = minimum_supports(pc, enumerate_all=False)
    assert s.status == "OPTIMAL" and s.n_optimal == 1 and not s.complete and s.cost == 2


def test_max_supports_marks_incomplete(pc):
    s = minimum_supports(pc, max_supports=5)
    assert s.status == "OPTIMAL" and s.n_optimal == 5 and not s.complete and "incomplete" in s.message


def test_cost_resolution(pc):
    c = cell_costs(pc, {"scoring": 3, "target": 2, "sham:ABC:generated": 0.5})
    idx = pc.cell_index
    assert c[idx["target:BAC:scoring"]] == 6 and c[idx["base:ABC:generated"]] == 1
    assert c[idx["sham:ABC:generated"]] == 0.5
    with pytest.raises(InputError, match="positive number"):
        cell_costs(pc, {"scoring": 0})
    with pytest.raises(InputError, match="neither a cell id nor an axis value"):
        cell_costs(pc, {"moon": 2})
    frac = minimum_supports(pc, cost={"scoring": 1.5})
    assert frac.cost == 2.5 and frac.n_optimal == 26


def _tiny(rows, tau):
    cells = [f"c{i}" for i in range(len(next(iter(rows.values()))))]
    return build_policy_class(
        {"cell": cells}, {"cell": [cells[0]]}, {"rest": {"cell": cells[1:]}},
        {n: dict(zip(cells, r, strict=False)) for n, r in rows.items()}, tau=tau, source="tiny",
    )


def test_mandatory_and_unseparable():
    pc = _tiny({"good": "aab", "twin": "aab", "bad": "abb", "other": "baa"},
               {"good": 1, "twin": 0, "bad": 0, "other": 0})
    s = minimum_supports(pc)
    assert s.unseparable_pairs == [("good", "twin")]
    assert s.mandatory_cells == ("c1",)
    assert s.status == "NOT_IDENTIFIABLE" and s.solver_status == "OPTIMAL"
    assert s.supports == [("c0", "c1"), ("c1", "c2")] and "cannot be separated" in s.message


def test_nothing_to_separate():
    pc = _tiny({"a": "xy", "b": "xz"}, {"a": 1, "b": 1})
    s = minimum_supports(pc)
    assert s.status == "OPTIMAL" and s.supports == [()] and s.cost == 0 and s.complete


def test_unseparable_pair_is_not_identifiable():
    # good and twin have different τ but the same response on every cell: no support identifies τ.
    pc = _tiny({"good": "aab", "twin": "aab", "bad": "abb", "other": "baa"},
               {"good": 1, "twin": 0, "bad": 0, "other": 0})
    s = minimum_supports(pc)
    assert s.status == "NOT_IDENTIFIABLE" and not s.identifies
    assert s.unseparable_pairs == [("good", "twin")]
    assert s.fallback_for_separable_pairs and s.solver_status == "OPTIMAL"
    assert "NOT identifiable" in s.message and "good vs twin" in s.message and "Fallback" in s.message
    # The fallback separates every separable pair at minimum cost, and indeed leaves τ unidentified.
    assert s.supports == [("c0", "c1"), ("c1", "c2")] and s.cost == 2
    for sup in s.supports:
        r = identify(pc, cells=sup, estimand="file")
        assert not r.identified and set(r.collisions) == {("good", "twin")}
    d = s.to_dict()
    assert (d["status"], d["identifies"], d["fallback_for_separable_pairs"]) == ("NOT_IDENTIFIABLE", False, True)
    # With nothing separable left, the fallback is the empty support, still not identifying.
    only = minimum_supports(_tiny({"a": "xy", "b": "xy"}, {"a": 1, "b": 0}))
    assert only.status == "NOT_IDENTIFIABLE" and only.supports == [()] and only.fallback_for_separable_pairs


def test_identifiable_classes_are_not_fallbacks(syn):
    assert syn.identifies and not syn.fallback_for_separable_pairs and syn.solver_status == "OPTIMAL"


# ------------------------------------------------------------ issue 13: solver limits

def _random_class(n_policies: int, n_cells: int, seed: int = 0):
    from audit_core.identify import build_policy_class
    rng = np.random.default_rng(seed)
    values = tuple(f"c{i}" for i in range(n_cells))
    answers = rng.integers(0, 3, size=(n_policies, n_cells))
    policies = {f"p{i}": {v: "ABC"[a] for v, a in zip(values, row, strict=False)} for i, row in enumerate(answers)}
    tau = {f"p{i}": i % 2 for i in range(n_policies)}
    return build_policy_class({"cell": values}, {"cell": ("c0",)}, {"rest": {"cell": values[1:]}}, policies,
                              tau=tau, source="random")


def test_time_limit_covers_the_whole_call_reductions_included():
    import time

    from audit_core.identify import minimum_supports
    pc = _random_class(600, 200)
    started = time.perf_counter()
    result = minimum_supports(pc, time_limit=1.0)
    elapsed = time.perf_counter() - started
    # the pair sets themselves (before any reduction) take a few seconds on a shared machine
    assert elapsed < 5 * busy_factor(), f"{elapsed:.1f} s with a 1 s limit"
    assert result.status in ("OPTIMAL", "FEASIBLE", "UNKNOWN")
    if result.status == "UNKNOWN":
        assert "does not mean no support exists" in result.message and "No identifying" not in result.message


@pytest.mark.parametrize("bad", [float("nan"), 0, -1, float("inf"), True])
def test_time_limit_must_be_a_positive_finite_number(bad):
    from audit_core.identify import frozen_policy_class, minimum_supports
    with pytest.raises(InputError, match="time limit"):
        minimum_supports(frozen_policy_class(), time_limit=bad)
