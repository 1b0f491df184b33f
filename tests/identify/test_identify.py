"""docs/identification.md numbers on the frozen class, mixtures and estimands."""

import numpy as np
import pytest

from audit_core.errors import InputError
from audit_core.identify import collision_count, frozen_policy_class, identify, row_classes

CHAIN = {
    "O0": ([], 1, 6),
    "O1": (["target"], 2, 3),
    "O2": (["target", "sham"], 3, 2),
    "O3": (["target", "sham", "readout"], 5, 1),
    "O4": (["target", "sham", "readout", "mapping"], 7, 0),
}


@pytest.fixture(scope="module")
def pc():
    return frozen_policy_class()


@pytest.mark.parametrize("support", list(CHAIN))
def test_published_chain(pc, support):
    comps, n_classes, n_coll = CHAIN[support]
    r = identify(pc, comps)
    assert (r.n_classes, r.n_collisions) == (n_classes, n_coll)
    assert len(r.collisions) == n_coll
    assert r.identified == (n_coll == 0)
    assert sorted(sum(r.classes, [])) == sorted(pc.names)


def test_collision_pairs_and_separating_cells(pc):
    r = identify(pc, ["target", "sham", "readout"])
    assert r.collisions == [("ideal", "mapping_shortcut")]
    cells = r.separating_cells[("ideal", "mapping_shortcut")]
    assert len(cells) == 10 and all(c.startswith("target:") and ":ABC:" not in c for c in cells)
    assert identify(pc, []).collisions[0] == ("ideal", "target_inertia")


def test_default_is_full_support_and_cells_argument(pc):
    assert len(identify(pc).cells) == 36
    r = identify(pc, cells=["sham:BAC:scoring", "target:CAB:generated"])
    assert r.cells == ("target:CAB:generated", "sham:BAC:scoring") and r.identified
    with pytest.raises(InputError, match="unknown cell id"):
        identify(pc, cells=["moon:ABC:generated"])
    with pytest.raises(InputError, match="either components or cells"):
        identify(pc, ["target"], cells=["base:ABC:generated"])


def test_mixture_signature_and_weights_not_identified(pc):
    on_base = identify(pc, [])
    assert on_base.mixture_signatures == {"half_inert": (0,)}
    rep = on_base.mixtures[0]
    assert rep.equivalent_policies == pc.names and rep.weights_identified is False
    full = identify(pc)
    assert full.mixture_signatures["half_inert"] == (0, 1)
    assert full.mixtures[0].equivalent_policies == ()
    assert "not identified" in full.mixtures[0].statement
    assert "class 1 (ideal)" in full.mixtures[0].statement


def test_other_estimands(pc):
    assert identify(pc, [], estimand="static_correctness").identified
    local = identify(pc, ["target", "sham"], estimand="local_response")
    assert local.identified and local.n_classes == 3
    assert identify(pc, ["target"], estimand="local_response").n_collisions == 3


def test_row_classes_first_appearance_and_count():
    codes = np.array([[2, 1], [0, 0], [2, 1], [0, 0], [1, 1]], dtype=np.uint8)
    labels, k = row_classes(codes)
    assert list(labels) == [0, 1, 0, 1, 2] and k == 3
    tau = np.array([1, 0, 0, 1, 1], dtype=np.int8)
    assert collision_count(labels, tau, k) == 2
    assert row_classes(codes[:, :0])[1] == 1


def test_to_dict_has_cli_shape(pc):
    d = identify(pc, ["target"]).to_dict()
    assert {"cells", "n_classes", "classes", "n_collisions", "collisions", "identified"} <= set(d)
    assert d["cells"] == 2 and d["collisions"][0] == ["ideal", "any_edit_reactor"]
    assert d["mixtures"]["half_inert"]["weights_identified"] is False


def _class_with_mixtures():
    from audit_core.identify import build_policy_class
    axes = {"world": ["base", "edit"], "format": ["plain", "json"]}
    cells = [f"{w}:{f}" for w in axes["world"] for f in axes["format"]]
    rows = {"a": "yyny", "a_twin": "yynn", "b": "yyyy", "c": "nnnn"}
    return build_policy_class(
        axes, {"world": ["base"], "format": ["plain"]},
        {"edit": {"world": ["edit"]}, "format": {"format": ["json"]}},
        {n: dict(zip(cells, r, strict=False)) for n, r in rows.items()}, tau={"a": 1, "a_twin": 0, "b": 0, "c": 0},
        mixtures={"m1": {"a": 0.5, "b": 0.5}, "m2": {"a_twin": 0.5, "b": 0.5}, "m3": {"a": 0.3, "b": 0.7}},
        source="mix",
    )


def test_mixtures_compared_by_per_cell_distributions():
    pc = _class_with_mixtures()
    on_edit = identify(pc, ["edit"])  # a and a_twin agree on base:plain, edit:plain
    reports = {m.name: m for m in on_edit.mixtures}
    assert reports["m1"].equivalent_mixtures == ("m2",) and reports["m2"].equivalent_mixtures == ("m1",)
    assert reports["m3"].equivalent_mixtures == ()  # same classes, different weights: not the same distribution
    assert on_edit.mixture_signatures["m3"] == on_edit.mixture_signatures["m1"]
    full = identify(pc)
    assert {m.name: m.equivalent_mixtures for m in full.mixtures}["m1"] == ()
    assert all(not m.weights_identified for m in full.mixtures)


def test_collision_listing_is_capped_but_count_exact():
    pc = _class_with_mixtures()
    r = identify(pc, [], max_pairs=2)
    assert r.n_collisions == 2 and not r.collisions_truncated
    r = identify(pc, [], max_pairs=1)
    assert r.n_collisions == 2 and r.collisions == [("a", "a_twin")] and r.collisions_truncated


def test_leave_one_out_on_a_custom_class():
    from audit_core.identify import lattice
    pc = _class_with_mixtures()
    loo = {item.removed: item for item in lattice(pc).leave_one_out}
    assert loo["format"].exclusive_witnesses == (("a", "a_twin"),)
    assert loo["format"].corollary.startswith("Format insufficiency")
    assert "edit:json" in loo["format"].corollary
    # without edit only base cells remain: a, a_twin and b all answer y, y
    assert loo["edit"].witnesses == (("a", "a_twin"), ("a", "b")) and loo["edit"].necessary


def test_component_not_needed_gets_a_negative_corollary():
    from audit_core.identify import build_policy_class, lattice
    pc = build_policy_class(
        {"w": ["x", "y"], "r": ["p", "q"]}, {"w": ["x"], "r": ["p"]},
        {"Y": {"w": ["y"]}, "Q": {"r": ["q"]}},
        {"good": {"x:p": "1", "x:q": "1", "y:p": "0", "y:q": "0"},
         "bad": {"x:p": "1", "x:q": "1", "y:p": "1", "y:q": "1"}},
        tau={"good": 1, "bad": 0}, source="t",
    )
    loo = {item.removed: item for item in lattice(pc).leave_one_out}
    assert loo["Q"].n_collisions == 0 and not loo["Q"].necessary
    assert loo["Q"].corollary.startswith("Q is not necessary")
    assert loo["Y"].necessary and "good" in loo["Y"].corollary
