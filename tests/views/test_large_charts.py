"""Charts over more rows than Altair's 5,000-row limit (issue 13, item 2): the chart is cut and
says so, the tables keep every row, and the report renders."""

import json

import numpy as np
import pandas as pd
import pytest

from audit_core import analyses
from audit_core.identify import frozen_policy_class, policy_class_to_json
from audit_core.report import Report, render_json, render_markdown
from audit_core.views.charts import MAX_CHART_ROWS


def _rows(spec: dict) -> int:
    """Largest inline data set of a spec (top-level datasets or per-layer values)."""
    sizes = [len(v) for v in spec.get("datasets", {}).values()]
    for layer in spec.get("layer", []):
        sizes.append(len(layer.get("data", {}).get("values", [])))
    return max(sizes or [0])


def test_heatmap_of_139_policies_on_36_cells():
    document = policy_class_to_json(frozen_policy_class())
    template = document["policies"][0]
    document["policies"] = [dict(template, name=f"p{i}", tau=i % 2) for i in range(139)]
    source = analyses.policy_source(json.dumps(document).encode(), name="139.json")
    result = analyses.explore_support(source, None, "tau_full")
    spec = result.heatmap_chart
    assert _rows(spec) <= MAX_CHART_ROWS
    assert "showing the first" in json.dumps(spec) and "of 139 policies" in json.dumps(spec)
    assert render_markdown(Report("big", (result.section,)))


def test_replay_above_5000_subgroups():
    rng = np.random.default_rng(0)
    n = 6000
    frame = pd.DataFrame({"score": (rng.random(2 * n) < 0.9).astype(int),
                          "subgroup": [f"g{i}" for i in range(n)] * 2})
    run = analyses.run_source(frame.to_csv(index=False).encode(), name="many.csv")
    result = analyses.replay_run(run, score="score", subgroups=["subgroup"], order=False)
    assert len(result.subgroup_table) == n  # the table keeps every subgroup
    for spec in (result.subgroup_chart, result.frequency_chart):
        assert _rows(spec) <= MAX_CHART_ROWS
        assert "least accurate of" in json.dumps(spec)
    assert render_json(Report("big", (result.section,)))


@pytest.mark.parametrize("k", [6, 8, 10])
def test_lattices_above_five_components_are_drawn_level_by_level(k):
    from audit_core import analyses
    from audit_core.report import chart_svg
    from tests.corpus.generate import many_components
    view = analyses.explore_support(analyses.policy_source(many_components(k), f"c{k}.json"))
    spec = view.lattice_chart
    assert "level by level" in spec["title"]["text"]
    rows = next(iter(spec["datasets"].values()))
    assert sum(r["count"] for r in rows) == 2 ** k == len(view.lattice.supports)
    identified = sum(r["count"] for r in rows if r["status"] == "identified")
    assert identified == sum(node.identified for node in view.lattice.supports)
    assert "<svg" in chart_svg(spec)


def test_level_counts_stand_right_of_their_bars_as_identified_of_total():
    """Issue 19's leftover: written inside each segment, the narrow segments' numbers (12 supports
    at rank 1 beside 924 at rank 6) ran over the axis labels. One label per rank, right of the whole
    bar: "identified of total", both counted from the engine's lattice."""
    from collections import Counter

    from tests.corpus.generate import many_components
    view = analyses.explore_support(analyses.policy_source(many_components(12), "c12.json"))
    spec = view.lattice_chart
    text_layer = next(layer for layer in spec["layer"] if layer["mark"]["type"] == "text")
    assert text_layer["mark"]["align"] == "left" and text_layer["encoding"]["x"]["field"] == "total"
    labels = {r["rank"]: r["label"] for r in spec["datasets"][text_layer["data"]["name"]]}
    total = Counter(len(node.components) for node in view.lattice.supports)
    identified = Counter(len(node.components) for node in view.lattice.supports if node.identified)
    assert labels == {rank: f"{identified[rank]} of {total[rank]}" for rank in total}
    # the x axis leaves room for the longest bar's label
    assert text_layer["encoding"]["x"]["scale"]["domainMax"] > max(total.values())
