"""A toggle changes the lattice's rows, not its spec (issue 14, "snappy in the room"): the browser
then swaps the rows in place instead of drawing the chart again."""

import json

import vl_convert as vlc

from audit_core import analyses
from audit_core.views.charts import positional_dataset_names

FULL = ["target", "sham", "readout", "mapping"]


def _without_rows(spec: dict) -> str:
    return json.dumps({k: v for k, v in spec.items() if k != "datasets"}, sort_keys=True)


def test_lattice_spec_is_the_same_for_every_support_and_only_the_current_node_moves():
    source = analyses.policy_source()
    full = analyses.explore_support(source, FULL).lattice_chart
    others = [analyses.explore_support(source, chosen).lattice_chart
              for chosen in (FULL[1:], ["target"], [])]
    for other in others:
        assert _without_rows(other) == _without_rows(full)
        assert list(other["datasets"]) == list(full["datasets"])

    def current(spec):
        rows = next(rows for rows in spec["datasets"].values() if rows and "current" in rows[0])
        return [row["key"] for row in rows if row["current"]]

    assert [len(current(spec)) for spec in [full, *others]] == [1, 1, 1, 1]
    assert len({current(spec)[0] for spec in [full, *others]}) == 4


def test_positional_names_keep_every_reference_and_every_row():
    spec = analyses.explore_support(analyses.policy_source(), FULL).lattice_chart
    assert "data-0" in spec["datasets"] and "data-1" in spec["datasets"]
    # every {"data": {"name": ...}} points at a data set that exists
    refs = set()

    def collect(node):
        if isinstance(node, dict):
            data = node.get("data")
            if isinstance(data, dict) and "name" in data:
                refs.add(data["name"])
            for key, value in node.items():
                if key != "datasets":
                    collect(value)
        elif isinstance(node, list):
            for item in node:
                collect(item)

    collect(spec)
    assert refs and refs <= set(spec["datasets"])
    assert not any(name.startswith("data-") and len(name) > 10 for name in refs)
    # the chart still renders offline (the report's PNG/SVG path)
    assert "<svg" in vlc.vegalite_to_svg(spec)


def test_row_values_that_look_like_data_set_names_are_left_alone():
    spec = {"data": {"name": "data-abc"}, "layer": [{"mark": "point", "data": {"name": "data-def"}}],
            "datasets": {"data-abc": [{"name": "data-abc", "data": {"name": "data-def"}}],
                         "data-def": [{"x": 1}]}}
    out = positional_dataset_names(spec)
    assert out["data"] == {"name": "data-0"} and out["layer"][0]["data"] == {"name": "data-1"}
    assert out["datasets"] == {"data-0": [{"name": "data-abc", "data": {"name": "data-def"}}],
                               "data-1": [{"x": 1}]}
    assert spec["data"] == {"name": "data-abc"}  # the input is not modified


def test_charts_from_the_class_template_equal_altairs_own_build():
    """The lattice and heat map are built by Altair once per class and copied with each support's
    rows: for every support of the bundled class (three estimands) and of a 5-component class, the
    copy equals the chart Altair builds for that support itself."""
    import itertools

    from audit_core.identify import estimand_values, identify, lattice, load_policy_class
    from audit_core.views import identify as views
    from tests.app.test_room_data_pages import class_with_components

    def unstored(kind, inputs, build):
        return build()

    def specs(pc, estimand, template):
        lat, tau = lattice(pc, estimand), estimand_values(pc, estimand)
        names = list(pc.component_names)
        out = []
        for combo in [c for k in range(len(names) + 1) for c in itertools.combinations(names, k)]:
            cells = identify(pc, components=list(combo), estimand=estimand).cells
            out.append(json.dumps([views.lattice_spec(lat, names, estimand, views.support_key(combo),
                                                      store=unstored, template=template),
                                   views.heatmap_spec(pc, tau, cells, store=unstored, template=template)],
                                  sort_keys=True))
        return out

    bundled = analyses.policy_source().value
    five = load_policy_class(class_with_components(5), name="c5.json")
    cases = [(bundled, e) for e in ("tau_full", "static_correctness", "local_response")] + [(five, "tau_full")]
    views._TEMPLATES.clear()
    templated = [specs(pc, e, True) for pc, e in cases]
    built = [specs(pc, e, False) for pc, e in cases]
    assert sum(len(s) for s in built) == 3 * 16 + 32
    assert templated == built
