"""DESIGN.md section 2 numbers on the frozen class, mixtures and estimands."""

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
