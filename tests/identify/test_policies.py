"""The frozen class is built from behaviour: check each policy's answers cell by cell."""

import json
from pathlib import Path

import numpy as np
import pytest

from audit_core.errors import InputError
from audit_core.identify import (
    estimand_values,
    frozen_policy_class,
    load_policy_class,
    parse_cell_id,
    policy_class_to_json,
    support_cells,
)

FROZEN_JSON = Path("data/frozen_policies.json")


@pytest.fixture(scope="module")
def pc():
    return frozen_policy_class()


def test_full_support_is_36_cells_in_canonical_order(pc):
    assert len(pc.cells) == 36
    assert pc.cells[0] == "base:ABC:generated"
    assert pc.cells[1] == "base:ABC:scoring"
    assert pc.cells[-1] == "sham:CBA:scoring"
    assert parse_cell_id("target:BAC:scoring", pc.axes) == {"world": "target", "mapping": "BAC", "readout": "scoring"}


def test_supports_of_the_chain(pc):
    assert support_cells(pc, []) == ("base:ABC:generated",)
    assert support_cells(pc, ["target"]) == ("base:ABC:generated", "target:ABC:generated")
    assert len(support_cells(pc, ["target", "sham"])) == 3
    assert len(support_cells(pc, ["target", "sham", "readout"])) == 6
    assert len(support_cells(pc, ["mapping"])) == 6
    assert support_cells(pc, None) == pc.cells


@pytest.mark.parametrize("cell", ["base:ABC", "moon:ABC:generated", "base:XYZ:generated", "base:ABC:gen"])
def test_parse_cell_id_rejects(pc, cell):
    with pytest.raises(InputError, match="cell id"):
        parse_cell_id(cell, pc.axes)


def test_unknown_component_is_input_error(pc):
    with pytest.raises(InputError, match="unknown component 'moon'"):
        support_cells(pc, ["moon"])


def test_behaviour_of_each_policy(pc):
    r = pc.response
    # Oracle: base TRUE, target UNKNOWN, sham TRUE; BAC gives TRUE->B, FALSE->A, UNKNOWN->C.
    assert [r("ideal", f"{w}:BAC:generated") for w in ("base", "target", "sham")] == ["B", "C", "B"]
    assert {r("target_inertia", c) for c in pc.cells if ":BAC:" in c} == {"B"}
    assert [r("any_edit_reactor", f"{w}:ABC:scoring") for w in ("base", "target", "sham")] == ["A", "C", "C"]
    assert {r("fixed_label", c) for c in pc.cells} == {"A"}
    assert r("mapping_shortcut", "target:ABC:generated") == "C"
    assert r("mapping_shortcut", "target:CAB:generated") == "C"  # CAB: TRUE->C (inertia)
    assert r("mapping_shortcut", "target:ACB:scoring") == "A"
    assert [r("generated_only_failure", f"{w}:ABC:scoring") for w in ("base", "target", "sham")] == ["A", "B", "B"]
    assert [r("generated_only_failure", f"{w}:ABC:generated") for w in ("base", "target", "sham")] == ["A", "C", "A"]
    assert [r("scoring_only_success", f"{w}:ABC:generated") for w in ("base", "target", "sham")] == ["A", "A", "A"]
    assert [r("scoring_only_success", f"{w}:ACB:scoring") for w in ("base", "target", "sham")] == ["A", "B", "A"]


def test_tau_full_only_ideal(pc):
    assert list(estimand_values(pc, "tau_full")) == [1, 0, 0, 0, 0, 0, 0]
    assert list(estimand_values(pc, "file")) == [1, 0, 0, 0, 0, 0, 0]
    assert list(estimand_values(pc, "static_correctness")) == [1] * 7
    # local response: ideal, mapping shortcut and generated-only failure are ideal on ABC/generated
    assert list(estimand_values(pc, "local_response")) == [1, 0, 0, 0, 1, 1, 0]


def test_unknown_estimand(pc):
    with pytest.raises(InputError, match="unknown estimand"):
        estimand_values(pc, "vibes")


def test_mixture_is_declared(pc):
    assert pc.mixtures == {"half_inert": {"ideal": 0.5, "target_inertia": 0.5}}


def test_shipped_json_equals_code():
    assert json.loads(FROZEN_JSON.read_text()) == policy_class_to_json(frozen_policy_class())


def test_shipped_json_round_trips():
    loaded = load_policy_class(FROZEN_JSON)
    built = frozen_policy_class()
    assert loaded.names == built.names and loaded.cells == built.cells
    assert np.array_equal(loaded.responses, built.responses)
    assert np.array_equal(loaded.tau, built.tau)
    assert loaded.oracle == built.oracle and loaded.mixtures == built.mixtures


def test_split_cell_id_is_the_inverse_of_cell_id(pc):
    from audit_core.identify import cell_id, split_cell_id
    for c in pc.cells:
        parts = split_cell_id(c)
        assert cell_id(parts) == c and dict(zip(pc.axes, parts, strict=False)) == parse_cell_id(c, pc.axes)
    with pytest.raises(InputError, match="not a string"):
        split_cell_id(7)
    with pytest.raises(InputError, match="not a string"):
        parse_cell_id(None, pc.axes)


# ------------------------------------------------------------------ issue 13: sizes

def test_layout_of_forty_axes_is_refused_before_it_is_built():
    from audit_core.identify import load_policy_class
    from audit_core.identify.cells import MAX_CELLS
    text = "policy,cell,response\n" + "".join(
        f"p{i},{':'.join(f'{v}{k}' for k in range(40))},A\n" for i, v in enumerate("ab"))
    assert len(text) < 400
    with pytest.raises(InputError, match=f"more than {MAX_CELLS:,} cells"):
        load_policy_class(text.encode(), name="forty.csv")


def test_encoding_distinct_responses_is_linear():
    import time

    from audit_core.identify import build_policy_class

    def seconds(n: int) -> float:
        axes = {"item": tuple(f"i{k}" for k in range(n))}
        policies = {"p": {f"i{k}": f"r{k}" for k in range(n)}}
        started = time.perf_counter()
        pc = build_policy_class(axes, {"item": ("i0",)}, {"rest": {"item": axes["item"][1:]}}, policies)
        assert len(pc.codebook) == n
        return time.perf_counter() - started

    small, large = seconds(20_000), seconds(80_000)
    # quadratic would be 16 x; linear (with sorting) about 4-5 x; allow noise from a shared machine
    assert large < 10 * small + 0.5, (small, large)
