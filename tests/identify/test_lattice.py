"""Lattice, leave-one-out witnesses, corollaries and distinguishing sets on the frozen class."""

import numpy as np
import pytest

from audit_core.errors import InputError
from audit_core.identify import frozen_policy_class
from audit_core.identify.distinguish import distinguishing_cells, pack_sets, unpack_sets
from audit_core.identify.lattice import lattice


@pytest.fixture(scope="module")
def pc():
    return frozen_policy_class()


@pytest.fixture(scope="module")
def lat(pc):
    return lattice(pc)


def test_sixteen_supports_ordered_by_rank(lat):
    assert len(lat.supports) == 16
    ranks = [len(n.components) for n in lat.supports]
    assert ranks == sorted(ranks)
    assert lat.supports[0].components == () and lat.supports[-1].components == ("target", "sham", "readout", "mapping")


def test_chain_numbers_in_lattice(lat):
    expected = {(): (1, 1, 6), ("target",): (2, 2, 3), ("target", "sham"): (3, 3, 2),
                ("target", "sham", "readout"): (6, 5, 1), ("target", "sham", "readout", "mapping"): (36, 7, 0)}
    for comps, (cells, k, coll) in expected.items():
        node = lat.node(comps)
        assert (len(node.cells), node.n_classes, node.n_collisions) == (cells, k, coll)
    # only the full support identifies τ
    assert [n.identified for n in lat.supports].count(True) == 1


def test_leave_one_out_numbers_and_witnesses(lat):
    loo = {item.removed: item for item in lat.leave_one_out}
    assert {k: v.n_collisions for k, v in loo.items()} == {"target": 3, "sham": 1, "readout": 1, "mapping": 1}
    assert loo["sham"].exclusive_witnesses == (("ideal", "any_edit_reactor"),)
    assert loo["readout"].exclusive_witnesses == (("ideal", "generated_only_failure"),)
    assert loo["mapping"].exclusive_witnesses == (("ideal", "mapping_shortcut"),)
    assert set(loo["target"].witnesses) == {("ideal", "target_inertia"), ("ideal", "mapping_shortcut"),
                                           ("ideal", "scoring_only_success")}
    assert all(item.necessary for item in lat.leave_one_out)


def test_corollaries_are_built_from_witnesses(pc, lat):
    loo = {item.removed: item for item in lat.leave_one_out}
    text = loo["sham"].corollary
    assert text.startswith("Sham insufficiency")
    assert pc.label("any_edit_reactor") in text and pc.label("ideal") in text
    assert "12 cell(s) that sham adds" in text
    assert "mapping-conditional shortcut" in loo["mapping"].corollary
    assert "generated-only failure" in loo["readout"].corollary
    assert "target inertia" in loo["target"].corollary
    # different data -> different text: relabel a policy and the sentence follows
    assert len({item.corollary for item in lat.leave_one_out}) == 4


def test_to_dict_shape(lat):
    d = lat.to_dict()
    assert len(d["supports"]) == 16 and d["supports"][1]["cells"] == 2
    assert d["leave_one_out"][0]["removed"] == "target" and d["leave_one_out"][0]["n_collisions"] == 3


def test_distinguishing_cells(pc):
    d = distinguishing_cells(pc)
    assert list(d) == [("ideal", n) for n in pc.names[1:]]
    sizes = {k[1]: len(v) for k, v in d.items()}
    assert sizes == {"target_inertia": 12, "any_edit_reactor": 12, "fixed_label": 24, "mapping_shortcut": 10,
                     "generated_only_failure": 12, "scoring_only_success": 6}
    assert set(d[("ideal", "scoring_only_success")]) == {c for c in pc.cells if c.startswith("target") and c.endswith("generated")}
    for (a, b), cells in d.items():
        for c in pc.cells:
            assert (c in cells) == (pc.response(a, c) != pc.response(b, c))


@pytest.mark.parametrize("n_cells", [1, 36, 64, 65, 200])
def test_pack_unpack_round_trip(n_cells):
    rng = np.random.default_rng(n_cells)
    m = rng.random((5, n_cells)) < 0.4
    words = pack_sets(m)
    assert words.dtype == np.uint64 and words.shape == (5, -(-n_cells // 64))
    assert np.array_equal(unpack_sets(words, n_cells), m)


# ------------------------------------------------------------- issue 13: too many components

def _many_components(k: int):
    from audit_core.identify import build_policy_class
    values = tuple(f"v{i}" for i in range(k + 1))
    components = {f"c{i}": {"x": (values[i],)} for i in range(1, k + 1)}
    policies = {"p": {v: "A" for v in values}, "q": {v: ("B" if v == values[-1] else "A") for v in values}}
    return build_policy_class({"x": values}, {"x": ("v0",)}, components, policies, tau={"p": 0, "q": 1},
                              source="thirteen")


def test_more_than_twelve_components_is_refused_naming_the_limit():
    from audit_core.identify import MAX_LATTICE_COMPONENTS, lattice
    with pytest.raises(InputError, match=f"limited to {MAX_LATTICE_COMPONENTS} components"):
        lattice(_many_components(13))


def test_explorer_explains_the_support_without_the_lattice():
    from audit_core import analyses
    from audit_core.analyses.sources import Source
    from audit_core.report import Report, render_markdown
    pc = _many_components(13)
    source = Source("policy_class", "k", "thirteen", "thirteen components", pc)
    result = analyses.explore_support(source, None, "tau_full", suggest=False)
    assert result.lattice is None and result.lattice_chart is None
    assert "limited to 12 components" in result.lattice_note
    assert result.identification.identified
    assert any("No lattice" in line for line in result.section.summary)
    assert "No lattice" in render_markdown(Report("x", (result.section,)))
