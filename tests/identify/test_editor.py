"""Policy-class editing: composition from the behaviour vocabulary, add/replace/duplicate/delete,
the compact link form, and refusals."""

import base64
import zlib

import pytest

from audit_core.errors import InputError
from audit_core.identify import frozen_policy_class, identify, load_policy_class, minimum_supports
from audit_core.identify.editor import (
    BEHAVIOURS,
    BehaviourRule,
    compose_responses,
    decode_class,
    duplicate_policy,
    encode_class,
    with_policy,
    without_policy,
)

FROZEN_NAME_OF = {"ideal": "ideal", "inertia": "target_inertia", "any-edit": "any_edit_reactor",
                  "fixed-label": "fixed_label", "mapping-conditional": "mapping_shortcut",
                  "generated-only failure": "generated_only_failure", "scoring-only success": "scoring_only_success"}


def row_of(pc, name):
    i = list(pc.names).index(name)
    return {c: pc.codebook[int(code)] for c, code in zip(pc.cells, pc.responses[i], strict=False)}


@pytest.mark.parametrize("behaviour", list(BEHAVIOURS))
def test_each_behaviour_composes_to_its_frozen_policy(behaviour):
    pc = frozen_policy_class()
    assert compose_responses(pc, behaviour) == row_of(pc, FROZEN_NAME_OF[behaviour])


def test_rules_override_in_order_and_a_new_policy_grows_the_minimal_support():
    pc = frozen_policy_class()
    rules = [BehaviourRule("world", "target", "inertia"), BehaviourRule("readout", "generated", "ideal")]
    row = compose_responses(pc, "ideal", rules)
    ideal = row_of(pc, "ideal")
    differs = {c for c in pc.cells if row[c] != ideal[c]}
    assert differs and all(c.startswith("target:") and c.endswith(":scoring") for c in differs)
    edited = with_policy(pc, "scoring_target_inertia", row, tau=0)
    assert len(edited.names) == 8
    before, after = minimum_supports(pc), minimum_supports(edited)
    assert (before.size, after.size) == (2, 3)
    assert identify(edited, cells=list(after.supports[0])).identified


def test_replace_duplicate_delete_round_trip():
    pc = frozen_policy_class()
    copied = duplicate_policy(pc, "fixed_label", "fixed_label_copy")
    assert row_of(copied, "fixed_label_copy") == row_of(pc, "fixed_label")
    replaced = with_policy(copied, "fixed_label_copy", row_of(pc, "ideal"), tau=1)
    assert list(replaced.names).index("fixed_label_copy") == len(pc.names)  # replaced in place
    assert row_of(replaced, "fixed_label_copy") == row_of(pc, "ideal")
    back = without_policy(replaced, "fixed_label_copy")
    assert list(back.names) == list(pc.names)
    with pytest.raises(InputError, match="already in the class"):
        duplicate_policy(pc, "ideal", "fixed_label")
    with pytest.raises(InputError, match="not in the class"):
        without_policy(pc, "nobody")


def test_link_form_round_trips_and_bad_or_huge_text_is_refused():
    pc = frozen_policy_class()
    text = encode_class(pc)
    assert text is not None and len(text) < 1800
    assert list(decode_class(text).names) == list(pc.names)
    with pytest.raises(InputError, match="not a readable class"):
        decode_class("not-a-class")
    bomb = base64.urlsafe_b64encode(zlib.compress(b"[" * (8 << 20), 9)).decode().rstrip("=")
    with pytest.raises(InputError, match="not a readable class"):
        decode_class(bomb)  # inflated no further than the cap, never parsed


def test_composition_needs_the_frozen_layout():
    other = load_policy_class(b"policy,cell,response\np1,a:x,1\np1,a:y,0\np2,a:x,1\np2,a:y,1\n", name="small.csv")
    with pytest.raises(InputError, match="compose only"):
        compose_responses(other, "ideal")


def test_axes_of_a_csv_class_can_be_renamed_and_components_follow():
    from audit_core.identify.editor import rename_axes
    pc = load_policy_class("data/example_policies.csv")
    assert list(pc.axes) == ["axis1", "axis2"]
    renamed = rename_axes(pc, {"axis1": "world", "axis2": "format"})
    assert list(renamed.axes) == ["world", "format"] and list(renamed.component_names) == ["world", "format"]
    assert identify(renamed).n_collisions == identify(pc).n_collisions
    with pytest.raises(InputError, match="distinct"):
        rename_axes(pc, {"axis1": "x", "axis2": "x"})
