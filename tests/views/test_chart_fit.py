"""Issue 19 items 13 and 14, in the specs: no mark outside the scales (the fit autosize shrank the
plot), a short axis title on the per-subgroup chart, readable numbers on heat-map cells."""

from __future__ import annotations

import pandas as pd

from audit_core.views.charts import (
    frequency_heatmap,
    is_dark,
    response_heatmap,
    subgroup_accuracy_chart,
    trajectory_chart,
)


def _layers(chart) -> list[dict]:
    return chart.to_dict()["layer"]


def _rows(chart, predicate) -> list[dict]:
    spec = chart.to_dict()
    return [row for rows in spec["datasets"].values() for row in rows if predicate(row)]


def test_m_line_is_drawn_only_inside_the_x_scale():
    traj = pd.DataFrame({"step": [1, 2, 3, 4], "process": "SR-LR-UI", "test": "model's null",
                         "log10_e": [-0.5, -0.4, -0.3, -0.2]})
    stops = pd.DataFrame(columns=["process", "test", "step", "log10_e"])
    early = trajectory_chart(traj, stops, 1.301, m=40)   # 4 labels, m = 40: beyond the x scale (0–4.64)
    assert not _rows(early, lambda r: r.get("x") == 40)
    assert "the auditor's test starts at m = 40" in " ".join(early.to_dict()["title"]["subtitle"])
    later = trajectory_chart(traj.assign(step=[10, 20, 30, 45]), stops, 1.301, m=40)
    assert _rows(later, lambda r: r.get("x") == 40)


def test_subgroup_chart_axis_title_is_short_and_flags_are_named():
    table = pd.DataFrame({"subgroup": ["a", "b"], "n": [10, 12], "accuracy": [0.5, 0.9],
                          "ci_low": [0.2, 0.7], "ci_high": [0.8, 0.97], "cs_low": [0.1, 0.6], "cs_high": [0.8, 1.0],
                          "fw_low": [0.05, 0.5], "fw_high": [0.9, 1.0]})
    spec = subgroup_accuracy_chart(table, 0.85, family="α = 0.05 over K = 2").to_dict()
    titles = [layer["encoding"]["x"].get("title") for layer in spec["layer"] if "title" in layer["encoding"].get("x", {})]
    assert titles == ["accuracy"]   # was a 70-character title, cut to "Wilson (f" at 1280 px
    flags = {r["subgroup"]: r["flag"] for rows in spec["datasets"].values() for r in rows if "flag" in r}
    assert flags == {"a": "this subgroup alone", "b": "not below q"}


def test_heat_map_letters_are_white_on_dark_cells():
    long = pd.DataFrame({"policy": ["p1", "p1", "p2", "p2"], "cell": ["c1", "c2", "c1", "c2"],
                         "response": ["yes", "no", "yes", "maybe"], "in_support": [True, True, False, True],
                         "support": ["in support", "in support", "outside support", "in support"]})
    chart = response_heatmap(long)
    inks = {(r["policy"], r["cell"]): r["ink"] for r in _rows(chart, lambda r: "ink" in r)}
    assert inks[("p1", "c1")] == "white"       # solid dark blue "yes": white letters (were black)
    assert inks[("p2", "c1")] == "black"       # faded cell: black
    freq = pd.DataFrame({"x": ["a", "b", "c"], "y": ["u", "u", "u"], "count": [4, 1, 0], "share": [0.4, 0.1, 0.0],
                         "label": ["4", "1", "0"], "constraint": ["", "", ""]})
    inks = [r["ink"] for r in _rows(frequency_heatmap(freq, "x", "y"), lambda r: "ink" in r)]
    assert inks == ["white", "black", "black"]  # the darkest cell (share 0.4 of optima) was black on dark blue
    assert is_dark("#1f78b4") and not is_dark("#edc948")


def test_heat_maps_render_offline():
    # The letters' literal colours must not share the fill's colour scale (vl-convert refused it).
    from audit_core.report import chart_svg
    from audit_core.views.charts import chart_spec
    freq = pd.DataFrame({"x": ["a", "b"], "y": ["u", "u"], "count": [4, 1], "share": [0.4, 0.1],
                         "label": ["4", "1"], "constraint": ["required", ""]})
    svg = chart_svg(chart_spec(frequency_heatmap(freq, "x", "y")))
    # Drawn, not only run: each cell's fill from the count scale (the busier cell darker), and each
    # label in the literal ink chosen for its cell (white on the dark one, black on the light one).
    import re
    fills = {x: tuple(int(v) for v in re.search(rf'aria-label="x: {x}; y: u; optima[^"]*"[^>]*fill="rgb\(([^)]*)\)"',
                                                svg).group(1).split(","))
             for x in ("a", "b")}
    assert sum(fills["a"]) < sum(fills["b"])
    assert re.search(r'aria-label="x: a; y: u; ink: white; label: 4"[^>]*fill="white">4</text>', svg)
    assert re.search(r'aria-label="x: b; y: u; ink: black; label: 1"[^>]*fill="black">1</text>', svg)
