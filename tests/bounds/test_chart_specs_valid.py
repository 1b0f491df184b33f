"""The dashboard builds its charts without Altair's per-chart schema validation (half the cost of a
chart, paid on every cache miss); this test validates what the builders produce instead."""

from altair.utils.schemapi import validate_jsonschema
from altair.vegalite.v5.schema import load_schema

from audit_core import analyses


def test_explorer_and_replay_specs_are_valid_vega_lite():
    schema = load_schema()
    policy = analyses.policy_source()
    view = analyses.explore_support(policy, ("target", "sham"))
    replay = analyses.replay_run(analyses.run_source("recorded_run"))
    specs = [view.lattice_chart, view.heatmap_chart, replay.trajectory_chart, replay.subgroup_chart,
             replay.frequency_chart]
    assert all(specs)
    for spec in specs:
        validate_jsonschema(spec, schema, rootschema=schema)  # raises on an invalid spec
