"""Report building: self-contained HTML, Markdown with images, JSON with every number, escaping."""

import base64
import io
import json
import re
import zipfile

import altair as alt
import numpy as np
import pandas as pd
import pytest

from audit_core.report import (
    Report,
    ReportChart,
    ReportSection,
    ReportTable,
    escape_markdown,
    json_safe,
    markdown_zip,
    neutralise_cell,
    render_html,
    render_json,
    render_markdown,
    safe_csv_bytes,
)
from audit_core.views import charts

XSS = "<script>alert(1)</script>"


def _section(category: str = XSS) -> ReportSection:
    table = pd.DataFrame({"subgroup": [category, "ok"], "n": [3, 5], "accuracy": [0.25, 0.875]})
    chart = alt.Chart(table).mark_bar().encode(x="subgroup:N", y="accuracy:Q").properties(
        title=f"Accuracy of {category}")
    return ReportSection(
        key="replay", title=f"Replay of {category}", source=f"upload {category}.csv",
        parameters={"alpha": 0.05, "q": 0.85, "subgroups": [category]},
        summary=(f"worst subgroup {category}",),
        tables=(ReportTable("Subgroups", table),), charts=(ReportChart("Accuracy", chart.to_dict()),),
        numbers={"n": 8, "accuracy": np.array([0.25, 0.875]), "missing": float("nan")})


def test_html_is_self_contained_and_escapes_user_strings():
    html = render_html(Report("Audit", (_section(),)))
    assert XSS not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<svg" in html and 'class="vega-lite-spec"' in html
    # no external resource of any kind: no script src, no link tag, no url() in CSS, no @import
    assert not re.search(r"<script[^>]*\bsrc\s*=", html, re.I)
    assert "<link" not in html.lower() and "@import" not in html and "url(" not in html
    assert not re.search(r'(src|href)\s*=\s*"(https?:)?//', html, re.I)
    # the only executable-looking script blocks are JSON data blocks
    for tag in re.findall(r"<script[^>]*>", html):
        assert 'type="application/json"' in tag


def test_html_states_versions_date_parameters_and_source():
    report = Report("Audit", (_section("cat"),))
    html = render_html(report)
    assert report.created.isoformat() in html
    assert "numpy" in html and report.versions["numpy"] in html
    assert "alpha" in html and "0.05" in html and "upload cat.csv" in html


def test_embedded_spec_round_trips_and_cannot_close_its_script():
    html = render_html(Report("Audit", (_section(),)))
    block = re.search(r'<script type="application/json" class="vega-lite-spec">(.*?)</script>', html, re.S)
    spec = json.loads(block.group(1))
    assert spec["title"] == f"Accuracy of {XSS}"
    assert "</script" not in block.group(1)


def test_markdown_embeds_png_images_and_escapes():
    text = render_markdown(Report("Audit", (_section(),)))
    assert XSS not in text
    uris = re.findall(r"!\[[^\]]*\]\((data:image/png;base64,[A-Za-z0-9+/=]+)\)", text)
    assert len(uris) == 1
    assert base64.b64decode(uris[0].split(",", 1)[1])[:8] == b"\x89PNG\r\n\x1a\n"
    assert "| subgroup | n | accuracy |" in text


def test_markdown_zip_has_images_folder():
    data = markdown_zip(Report("Audit", (_section("cat"),)))
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        names = archive.namelist()
        md = archive.read("report.md").decode()
    assert "images/section-1-chart-1.png" in names
    assert "(images/section-1-chart-1.png)" in md


def test_json_has_every_number_and_metadata():
    doc = json.loads(render_json(Report("Audit", (_section("cat"),))))
    section = doc["sections"][0]
    assert section["numbers"] == {"n": 8, "accuracy": [0.25, 0.875], "missing": None}
    assert section["tables"][0]["rows"][1] == {"subgroup": "ok", "n": 5, "accuracy": 0.875}
    assert section["parameters"]["alpha"] == 0.05
    assert "created_utc" in doc and doc["versions"]["python"]
    assert section["charts"][0]["vega_lite"]["mark"] in ("bar", {"type": "bar"})


def test_json_safe_converts_numpy_and_tuples():
    value = json_safe({("a", "b"): np.int64(3), "x": np.float32(0.5), "inf": np.inf, "flag": np.bool_(True)})
    assert value == {"a | b": 3, "x": 0.5, "inf": None, "flag": True}


@pytest.mark.parametrize("cell", ["=1+1", "+cmd", "-2+3", "@SUM(A1)", "\t=1", "\r=1"])
def test_formula_cells_are_neutralised(cell):
    assert neutralise_cell(cell) == "'" + cell


def test_csv_export_neutralises_text_but_keeps_numbers():
    frame = pd.DataFrame({"=name": ["=HYPERLINK(\"x\")", "plain", "@x"], "log_e": [-1.5, 0.0, 2.0]})
    text = safe_csv_bytes(frame).decode()
    lines = text.splitlines()
    assert lines[0] == "'=name,log_e"
    assert lines[1].startswith("\"'=HYPERLINK")
    assert lines[2] == "plain,0.0" and lines[3] == "'@x,2.0"
    assert "-1.5" in lines[1]  # a number stays a number


def test_escape_markdown_keeps_text_literal():
    assert escape_markdown("a|b*c") == "a\\|b\\*c"
    assert "<" not in escape_markdown(XSS)


def test_chart_builders_render_offline():
    nodes = pd.DataFrame({"key": ["", "target"], "label": ["base", "T"], "rank": [0, 1], "x": [0.0, 0.0],
                          "n_collisions": [6, 3], "n_classes": [1, 2], "cells": [1, 2],
                          "identified": [False, False], "status": ["not identified"] * 2,
                          "current": [True, False]})
    edges = pd.DataFrame({"x": [0.0], "y": [0], "x2": [0.0], "y2": [1]})
    summary = pd.DataFrame({"method": ["a", "a", "a"], "outcome": list(charts.OUTCOME_ORDER),
                            "rate": [0.5, 0.3, 0.2]})
    built = [charts.hasse_chart(nodes, edges), charts.outcome_bars(summary),
             charts.stop_boxplot(pd.DataFrame({"method": ["a"] * 4, "stop": [1, 2, 3, 4]}))]
    for chart in built:
        html = render_html(Report("c", (ReportSection("k", "t", "s", charts=(
            ReportChart("c", charts.style(chart).to_dict()),)),)))
        assert html.count("<svg") == 1


def test_spread_labels_keeps_labels_apart_and_in_order():
    from audit_core.views.charts import spread_labels
    rng = np.random.default_rng(7)
    for _ in range(200):
        values = list(rng.normal(0, 1, rng.integers(1, 8)).round(2))
        gap, low = 0.3, min(values)
        placed = spread_labels(values, gap, low)
        assert min(placed) >= low - 1e-12
        ordered = sorted(placed)
        assert all(b - a >= gap - 1e-9 for a, b in zip(ordered, ordered[1:], strict=False))
        for i in range(len(values)):  # a higher line never gets a lower label
            for j in range(len(values)):
                if values[i] > values[j]:
                    assert placed[i] >= placed[j]
    assert spread_labels([3.0, 1.0, -1.0], 0.5, -1.0) == [3.0, 1.0, -1.0]  # already apart: unchanged


def test_trajectory_end_and_stop_labels_do_not_collide():
    from audit_core.data.bundled import BUNDLED
    from audit_core.data.loader import load_audit_csv
    from audit_core.sequential import MODEL_PROCESSES, AuditParams, replay
    from audit_core.views import sequential as views
    from audit_core.views.charts import LABEL_GAP_PX, TRAJECTORY_HEIGHT
    data = load_audit_csv(BUNDLED["sdoh"].path)
    result = replay(data.scores, AuditParams.sdoh(), subgroups=data.subgroup_frame)
    spec = views.trajectory_spec(result, MODEL_PROCESSES, "sdoh")
    tables = [rows for rows in spec["datasets"].values() if rows and "label_y" in rows[0]]
    ends = next(t for t in tables if "stop_label" not in t[0])
    stops = next(t for t in tables if "stop_label" in t[0])
    assert sorted(r["process"] for r in ends) == sorted(result.log_e)
    traj = max(spec["datasets"].values(), key=len)  # the drawn (thinned) trajectories
    values = [r["log10_e"] for r in traj] + [np.log10(20)]
    gap = (max(values) - min(values)) * LABEL_GAP_PX / TRAJECTORY_HEIGHT
    ys = sorted(r["label_y"] for r in ends)
    assert all(b - a >= gap * 0.999 for a, b in zip(ys, ys[1:], strict=False))
    # four model processes stop within the first 70 cases: their labels are stacked, one per line
    assert len(stops) == sum(s is not None for s in result.stops.values())
    early = sorted(r["label_y"] for r in stops if r["step"] < 100)
    assert len(early) >= 2 and all(b - a >= gap * 0.999 for a, b in zip(early, early[1:], strict=False))
    assert {r["stop_label"] for r in stops} == {f"{p} t = {s}" for p, s in result.stops.items() if s}


def test_point_labels_overlap_neither_each_other_nor_points():
    from audit_core.views.charts import POINT_LABEL_CHAR_PX, POINT_LABEL_LINE_PX, POINT_LABEL_PLOT, place_point_labels
    rng = np.random.default_rng(3)
    x, y = rng.uniform(0, 1, 30), rng.uniform(0, 1, 30)
    texts = [f"subgroup {i}" for i in range(30)]
    spots = place_point_labels(x, y, texts, (0, 1), (0, 1), x, y)
    width, height = POINT_LABEL_PLOT
    boxes = []
    for xv, text, spot in zip(x, texts, spots, strict=False):
        if spot is None:
            continue
        label_y, side = spot
        w = POINT_LABEL_CHAR_PX * len(text)
        left = xv * width + 8 if side == "right" else xv * width - 8 - w
        top = (1 - label_y) * height - POINT_LABEL_LINE_PX / 2
        assert 0 <= left and left + w <= width + 1e-9 and 0 <= top <= height
        boxes.append((left, top, left + w, top + POINT_LABEL_LINE_PX))
    assert 5 <= len(boxes) < 30  # crowded: some labels are dropped, the rest placed
    overlap = lambda a, b: a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]  # noqa: E731
    assert not any(overlap(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1:])
    dots = [(xv * width - 7, (1 - yv) * height - 7, xv * width + 7, (1 - yv) * height + 7) for xv, yv in zip(x, y, strict=False)]
    assert not any(overlap(a, d) for a in boxes for d in dots)


def test_author_and_commentary_reach_every_format_as_plain_text():
    import datetime as dt

    from audit_core.report import ReportSection, render_html, render_markdown
    from audit_core.report.pdf import typst_source
    hostile = 'See *this* #set text(red) $x$ <script>alert(1)</script>'
    section = ReportSection("k", "Section", "src", summary=("one line",)).with_commentary(hostile)
    report = Report("T", (section,), created=dt.datetime(2026, 1, 1, tzinfo=dt.UTC), author="A. <b>Author</b>")
    html = render_html(report)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "A. &lt;b&gt;Author&lt;/b&gt;" in html
    markdown = render_markdown(report)
    assert "\\*this\\*" in markdown and "<script>" not in markdown
    source = typst_source(report)
    # typst sees the text only inside string literals: never as markup, code or maths
    assert '"See *this* #set text(red) $x$ <script>alert(1)</script>"' in source
    assert '"A. <b>Author</b>"' in source
    assert json.loads(render_json(report))["sections"][0]["commentary"] == hostile
