"""Altair chart builders shared by every view module (dashboard pages and exported reports alike).

Each builder takes a tidy DataFrame whose columns are listed in its docstring and returns a
configured Altair chart (``.to_dict()`` gives the Vega-Lite spec the report renders offline). The
charts only draw numbers computed by the engines. Styling for a projector: large fonts, titles,
axis titles and legends everywhere, and every colour doubled by a shape, dash, label or text.

Altair is imported by each builder, not with this module (importing it costs ~0.3 s): a page whose
charts were all kept on disk (the bundled class's, :mod:`audit_core.results_cache`) never loads it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import pandas as pd

from audit_core.errors import MAX_NAME_CHARS

if TYPE_CHECKING:
    import altair as alt

# Outcome colours follow the paper's figures (orange failure found, blue passed, grey neither).
OUTCOME_ORDER = ("failure mode found", "audit passed", "inconclusive")
OUTCOME_COLOURS = ("#d95f02", "#1f78b4", "#9e9e9e")
FONT = dict(labelFontSize=14, titleFontSize=15)


def style(chart: alt.TopLevelMixin) -> alt.TopLevelMixin:
    """Projector-friendly fonts and a white background; applied once per top-level chart."""
    return (chart.configure(background="white", font="sans-serif")
            .configure_axis(**FONT, labelLimit=260)
            .configure_legend(**FONT, symbolSize=180, labelLimit=320)
            .configure_title(fontSize=19, anchor="start", subtitleFontSize=14)
            .configure_header(labelFontSize=14, titleFontSize=15)
            .configure_view(stroke="#c9d3de"))


def hasse_chart(nodes: pd.DataFrame, edges: pd.DataFrame, selection_name: str = "pick",
                title: str = "Support lattice", legend: str = "") -> alt.TopLevelMixin:
    """Hasse diagram of the component lattice.

    ``nodes``: key, label, rank, x, n_collisions, n_classes, cells, identified (bool), status
    (text: "identified" / "not identified"), current (bool). ``edges``: x, y, x2, y2 (rank = y).
    Clicking a node selects its ``key`` through the point selection ``selection_name``.
    """
    import altair as alt
    pick = alt.selection_point(name=selection_name, fields=["key"], on="click", clear=False)
    max_rank = int(nodes["rank"].max()) if len(nodes) else 1
    y_scale = alt.Scale(domain=[-0.6, max_rank + 0.6])
    x_scale = alt.Scale(domain=[float(nodes["x"].min()) - 0.8, float(nodes["x"].max()) + 0.8])
    base_x = alt.X("x:Q", axis=None, scale=x_scale)
    lines = alt.Chart(edges).mark_rule(color="#8da0b3", strokeWidth=2).encode(
        x=alt.X("x:Q", axis=None, scale=x_scale), x2="x2:Q",
        y=alt.Y("y:Q", scale=y_scale, axis=None), y2="y2:Q")
    tooltip = [alt.Tooltip("label:N", title="support"), alt.Tooltip("cells:Q", title="cells"),
               alt.Tooltip("n_classes:Q", title="classes"),
               alt.Tooltip("n_collisions:Q", title="collisions"), alt.Tooltip("status:N", title="verdict")]
    # The count is also written in every node; the legend says what the colour means.
    colour = alt.Color("n_collisions:Q", title="collisions (node colour)",
                       scale=alt.Scale(scheme="orangered", domainMin=0),
                       legend=alt.Legend(orient="top", direction="horizontal", gradientLength=180))
    points = alt.Chart(nodes).mark_point(filled=True, size=1500, stroke="#1b1b1b", cursor="pointer").encode(
        x=base_x, y=alt.Y("rank:Q", scale=y_scale, axis=None),
        color=colour,
        # The legend sits under the plot so the diagram gets the column's whole width.
        shape=alt.Shape("status:N", title="verdict",
                        scale=alt.Scale(domain=["identified", "not identified"],
                                        range=["diamond", "circle"]),
                        legend=alt.Legend(orient="bottom", direction="horizontal", symbolSize=260)),
        strokeWidth=alt.condition("datum.current", alt.value(5), alt.value(1)),
        tooltip=tooltip,
        # A fixed view name (Altair would number it view_1, view_2, ... per chart built) keeps
        # the spec identical from one toggle to the next: only the nodes' data changes.
    ).add_params(pick).properties(name="lattice_nodes")
    counts = alt.Chart(nodes).mark_text(fontSize=15, fontWeight="bold").encode(
        x=base_x, y=alt.Y("rank:Q", scale=y_scale, axis=None), text="n_collisions:Q",
        color=alt.condition("datum.n_collisions > 2", alt.value("white"), alt.value("black")),
        tooltip=tooltip)
    label_enc = dict(x=base_x, y=alt.Y("rank:Q", scale=y_scale, axis=None), text="label:N")
    # A white outline drawn under each support name keeps it readable where edges cross it.
    halo = alt.Chart(nodes).mark_text(fontSize=14, dy=31, stroke="white", strokeWidth=4,
                                      strokeJoin="round").encode(**label_enc)
    labels = alt.Chart(nodes).mark_text(fontSize=14, dy=31).encode(**label_enc, tooltip=tooltip)
    return (lines + points + counts + halo + labels).properties(
        title=alt.TitleParams(title, subtitle=[
            "number in a node = cross-estimand collisions",
            "thick outline = current support; click a node to select it"] + ([legend] if legend else [])),
        height=470)


# Altair refuses a data set of more than 5,000 rows; a chart drawing more is shown aggregated or
# cut to this many marks (and says so in its subtitle), the tables and downloads keep every row.
MAX_CHART_ROWS = 4000


def lattice_levels_chart(levels: pd.DataFrame, title: str, subtitle: Sequence[str]) -> alt.TopLevelMixin:
    """``levels``: rank, status ("identified" / "not identified"), count, end (where the
    segment ends: identified first), current (bool): stacked horizontal bars per rank, and right
    of each bar "identified of total" in dark ink.

    The counts stand outside the bars: written inside each segment, a narrow segment's number
    (1 of C(12, 1) = 12 beside 924 at rank 6) ran over the axis labels and the next segment."""
    import altair as alt
    y = alt.Y("rank:O", title="components in the support", sort="ascending")
    colour = alt.Color("status:N", title="verdict", scale=alt.Scale(domain=["identified", "not identified"],
                                                                      range=["#1f78b4", "#d95f02"]),
                       legend=alt.Legend(orient="bottom"))
    totals = levels.groupby("rank", as_index=False).agg(total=("count", "sum"))
    identified = levels[levels["status"] == "identified"].set_index("rank")["count"]
    totals["label"] = [f"{int(identified.get(r, 0))} of {int(t)}" for r, t in zip(totals["rank"], totals["total"],
                                                                                    strict=True)]
    # room right of the longest bar for its label
    x_scale = alt.Scale(domainMax=float(max(totals["total"].max(), 1)) * 1.3, nice=False)
    bars = alt.Chart(levels).mark_bar(strokeWidth=3).encode(
        x=alt.X("count:Q", title="supports", stack="zero", scale=x_scale), y=y, color=colour,
        order=alt.Order("status:N", sort="ascending"),
        stroke=alt.condition("datum.current", alt.value("#1b1b1b"), alt.value(None)),
        tooltip=["rank", "status", "count"])
    text = alt.Chart(totals).mark_text(align="left", dx=4, fontSize=12, color="#333333").encode(
        x=alt.X("total:Q", scale=x_scale), y=y, text="label:N")
    return (bars + text).properties(title=alt.TitleParams(title, subtitle=list(subtitle)),
                                    height=alt.Step(26))


def letters_with_ink(long: pd.DataFrame) -> pd.DataFrame:
    """``long`` with ``ink``: the colour of each response letter, readable on its cell: white on a
    dark solid fill, black on a light or faded one (black letters on the dark blue cells could not
    be read, issue 19 item 14)."""
    fills = response_fills(long["response"])
    return long.assign(ink=[("white" if in_support and is_dark(fills.get(str(r), "#ffffff")) else "black")
                            for r, in_support in zip(long["response"], long["in_support"], strict=True)])


def response_heatmap(long: pd.DataFrame, title: str = "Policy × cell responses",
                     cell_title: str = "cell", note: str = "") -> alt.TopLevelMixin:
    """Responses per policy and cell; support cells drawn solid with a black outline.

    ``long``: policy (label), cell, response, in_support (bool), support (text "in support" /
    "outside support"). Cell order follows first appearance.
    """
    import altair as alt
    cells = list(dict.fromkeys(long["cell"]))
    policies = list(dict.fromkeys(long["policy"]))
    enc = dict(x=alt.X("cell:N", sort=cells, title=cell_title,
                       axis=alt.Axis(labelAngle=-60, labelFontSize=11)),
               y=alt.Y("policy:N", sort=policies, title="policy"))
    rect = alt.Chart(long).mark_rect().encode(
        **enc,
        color=alt.Color("response:N", title="response", scale=response_colours(long["response"])),
        opacity=alt.Opacity("support:N", title="cell",
                            scale=alt.Scale(domain=["in support", "outside support"], range=[1.0, 0.28])),
        stroke=alt.condition("datum.in_support", alt.value("black"), alt.value("white")),
        strokeWidth=alt.condition("datum.in_support", alt.value(2), alt.value(0.5)),
        tooltip=["policy", "cell", "response", "support"])
    letters = letters_with_ink(long)
    text = alt.Chart(letters).mark_text(fontSize=12).encode(
        **enc, text="response:N", color=alt.Color("ink:N", scale=None),
        opacity=alt.condition("datum.in_support", alt.value(1.0), alt.value(0.45)))
    return (rect + text).resolve_scale(color="independent").properties(
        title=alt.TitleParams(title, subtitle=["letters are the responses; outlined, solid cells are "
                              "in the support, faded cells are not observed"] + ([note] if note else [])),
        height=max(240, 38 * len(policies)))


POSITIVE = ("yes", "true", "1", "correct", "pass")
NEGATIVE = ("no", "false", "0", "incorrect", "fail")
CATEGORY_COLOURS = ("#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2", "#edc948", "#ff9da7", "#9c755f",
                    "#bab0ac", "#e15759")


def is_dark(colour: str) -> bool:
    """Is a ``#rrggbb`` fill dark enough to need white text (relative luminance below 0.4)?"""
    red, green, blue = (int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5))
    channel = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in (red, green, blue)]
    return 0.2126 * channel[0] + 0.7152 * channel[1] + 0.0722 * channel[2] < 0.4


def response_fills(responses) -> dict[str, str]:
    """Response -> fill colour, in order of first appearance (never alphabetical), and for
    yes/no-like answers a blue positive and an orange negative, so "yes" is never drawn in the
    alarm colour."""
    domain = list(dict.fromkeys(str(r) for r in responses))
    if all(r.lower() in POSITIVE + NEGATIVE for r in domain):
        return {r: "#1f78b4" if r.lower() in POSITIVE else "#d95f02" for r in domain}
    return {r: CATEGORY_COLOURS[i % len(CATEGORY_COLOURS)] for i, r in enumerate(domain)}


def response_colours(responses) -> alt.Scale:
    """The colour scale of :func:`response_fills`."""
    import altair as alt
    fills = response_fills(responses)
    return alt.Scale(domain=list(fills), range=list(fills.values()))


def frequency_heatmap(freq: pd.DataFrame, x_axis: str, y_axis: str,
                      title: str = "How often each cell appears in an optimal support") -> alt.TopLevelMixin:
    """``freq``: column ``x_axis``, column ``y_axis``, count, share (count / number of optima),
    label (the count, with R/X for cells the user required/excluded), constraint ("required",
    "excluded" or "")."""
    import altair as alt
    enc = dict(x=alt.X(field=x_axis, type="nominal", title=x_axis, sort=list(dict.fromkeys(freq[x_axis])),
                       axis=alt.Axis(labelAngle=0)),
               y=alt.Y(field=y_axis, type="nominal", title=y_axis, sort=list(dict.fromkeys(freq[y_axis]))))
    rect = alt.Chart(freq).mark_rect(stroke="white").encode(
        **enc, color=alt.Color("count:Q", title="optima using the cell", scale=alt.Scale(scheme="blues")),
        tooltip=[alt.Tooltip(field=x_axis, type="nominal"), alt.Tooltip(field=y_axis, type="nominal"),
                 "count", alt.Tooltip("share:Q", format=".0%")])
    # The fill's darkness follows the count relative to the largest count (the colour scale's
    # domain), not the share of optima: white on the darker half, black on the lighter one.
    top = max(float(freq["count"].max()), 1.0) if len(freq) else 1.0
    text = alt.Chart(freq.assign(ink=["white" if c / top > 0.5 else "black" for c in freq["count"]])).mark_text(
        fontSize=15).encode(**enc, text="label:N", color=alt.Color("ink:N", scale=None))
    marked = freq[freq["constraint"] != ""] if "constraint" in freq else freq.iloc[:0]
    subtitle = ["number = how many optimal supports contain the cell"]
    layers = rect + text
    if len(marked):
        subtitle.append("R = required by you, X = excluded by you (dashed frame)")
        layers += alt.Chart(marked).mark_rect(fill=None, strokeWidth=3, strokeDash=[4, 2]).encode(
            **enc, stroke=alt.Stroke("constraint:N", title="your constraint",
                                     scale=alt.Scale(domain=["required", "excluded"], range=["#1b9e77", "#d62728"])))
    # The letters' ink is a literal colour, not the fill's count scale: keep the two scales apart.
    return layers.resolve_scale(color="independent").properties(
        title=alt.TitleParams(title, subtitle=subtitle),
        height=max(200, 44 * freq[y_axis].nunique()))


TRAJECTORY_HEIGHT = 430
LABEL_GAP_PX = 17  # vertical room of one 13-px end label


def spread_labels(values, gap: float, low: float) -> list[float]:
    """Label positions near ``values`` (same order) at least ``gap`` apart and not below ``low``:
    pushed down from the top, then up again from ``low`` where the stack ran past it."""
    order = sorted(range(len(values)), key=lambda i: -values[i])
    placed: dict[int, float] = {}
    previous = float("inf")
    for i in order:
        previous = min(values[i], previous - gap)
        placed[i] = previous
    floor = low
    for i in reversed(order):
        placed[i] = max(placed[i], floor)
        floor = placed[i] + gap
    return [placed[i] for i in range(len(values))]


SHORT_TRAJECTORY = 20   # steps up to which a trajectory's points are drawn on its line


def trajectory_chart(traj: pd.DataFrame, stops: pd.DataFrame, log10_threshold: float, m: int | None,
                     title: str = "E-process trajectories") -> alt.TopLevelMixin:
    """log₁₀ E_t per process.

    ``traj``: step, process, test ("model's null" / "auditor's null"), log10_e.
    ``stops``: process, test, step, log10_e (first crossing of 1/α; may be empty).
    End-of-line names are stacked so they never overlap each other or a stop marker; each stop
    marker carries its step, raised when stops are close together.
    """
    import altair as alt
    processes = list(dict.fromkeys(traj["process"]))
    last_step = int(traj["step"].max()) if len(traj) else 1
    values = list(traj["log10_e"]) + [log10_threshold]
    low, high = min(values), max(values)
    gap = max(high - low, 1e-9) * LABEL_GAP_PX / TRAJECTORY_HEIGHT
    colour = alt.Color("process:N", title="process", sort=processes,
                       scale=alt.Scale(scheme="dark2"))
    dash = alt.StrokeDash("test:N", title="null tested",
                          scale=alt.Scale(domain=["model's null", "auditor's null"], range=[[1, 0], [7, 4]]))
    y = alt.Y("log10_e:Q", title="E-value, log₁₀ scale (log₁₀ E_t)")
    # Room right of the last step for the stacked process names.
    # Steps are whole cases: no "0.10" ticks when a live audit has one or two labels.
    x = alt.X("step:Q", title="annotated cases t", axis=alt.Axis(format="d", tickMinStep=1),
              scale=alt.Scale(domain=[0, last_step * 1.16], nice=False))
    # With few steps a line is one or two points long: draw the points too, so a first label shows.
    lines = alt.Chart(traj).mark_line(strokeWidth=2.6, point=last_step <= SHORT_TRAJECTORY).encode(
        x=x, y=y, color=colour, strokeDash=dash, tooltip=["process", "step", alt.Tooltip("log10_e:Q", format=".3f")])
    ends = traj.sort_values("step", kind="stable").groupby("process", sort=False).tail(1).copy()
    ends["label_y"] = spread_labels(list(ends["log10_e"]), gap, low)
    end_labels = alt.Chart(ends).mark_text(align="left", baseline="middle", dx=14, fontSize=13,
                                           fontWeight="bold").encode(
        x=alt.X("step:Q"), y=alt.Y("label_y:Q"), text="process:N", color=colour)
    # 1/α and m are named in the subtitle, not written into the plot where curves and stops cross.
    threshold = pd.DataFrame({"y": [log10_threshold]})
    rule = alt.Chart(threshold).mark_rule(color="#c00000", strokeDash=[4, 3], strokeWidth=2).encode(y="y:Q")
    layers = [lines, end_labels, rule]
    # m's line is drawn only inside the x axis: beyond the last step it would stand outside the plot.
    m_shown = m is not None and m <= last_step * 1.16
    if m_shown:
        layers.append(alt.Chart(pd.DataFrame({"x": [m]})).mark_rule(
            color="#555", strokeDash=[2, 2], strokeWidth=1.5).encode(x="x:Q"))
    if len(stops):
        # A fixed diamond marks each stop (colour = process, so the legend keeps every process),
        # labelled "process t = step" to its right; a label is raised above every earlier stop's
        # label that it would run into (less than ~15% of the x axis to its left).
        stops = stops.sort_values(["step", "log10_e"], kind="stable").reset_index(drop=True)
        label_y: list[float] = []
        for i, (step, value) in enumerate(zip(stops["step"], stops["log10_e"], strict=True)):
            below = [label_y[j] + gap for j in range(i) if step - stops["step"][j] < 0.15 * last_step]
            label_y.append(max([float(value), *below]))
        stops = stops.assign(stop_label=[f"{p} t = {t}" for p, t in zip(stops["process"], stops["step"], strict=True)],
                             label_y=label_y)
        layers.append(alt.Chart(stops).mark_point(shape="diamond", size=300, filled=True, stroke="black",
                                                  strokeWidth=1.2).encode(
            x=alt.X("step:Q"), y=alt.Y("log10_e:Q"), color=colour,
            tooltip=["process", alt.Tooltip("step:Q", title="stop"), "test"]))
        layers.append(alt.Chart(stops).mark_text(align="left", baseline="bottom", dx=9, dy=-6, fontSize=13,
                                                 fontWeight="bold", color="#1b1b1b").encode(
            x=alt.X("step:Q"), y=alt.Y("label_y:Q"), text="stop_label:N",
            tooltip=["process", alt.Tooltip("step:Q", title="stop")]))
    explained = [f"a test stops when its curve reaches the red dashed line 1/α = {10 ** log10_threshold:.4g} "
                 "(◆ = its stopping point)"]
    explained.append("solid = model's null, dashed = auditor's null"
                     + (f"; dotted vertical line: m = {m}, the auditor's test starts" if m_shown else "")
                     + (f"; the auditor's test starts at m = {m}, after the last case" if m is not None and not m_shown
                        else ""))
    return alt.layer(*layers).resolve_scale(color="shared").properties(
        title=alt.TitleParams(title, subtitle=explained), height=TRAJECTORY_HEIGHT)


def outcome_bars(summary: pd.DataFrame, title: str = "Audit outcomes per method") -> alt.TopLevelMixin:
    """Stacked rates. ``summary``: method, outcome (one of OUTCOME_ORDER), rate."""
    import altair as alt
    data = summary.copy()
    data["order"] = data["outcome"].map({o: i for i, o in enumerate(OUTCOME_ORDER)})
    data = data.sort_values(["method", "order"], kind="stable")
    # Text position of each segment: the middle of its stacked interval.
    data["mid"] = data.groupby("method", sort=False)["rate"].cumsum() - data["rate"] / 2
    data["tag"] = data["outcome"].map({OUTCOME_ORDER[0]: "F ", OUTCOME_ORDER[1]: "P ",
                                       OUTCOME_ORDER[2]: "I "}) + (100 * data["rate"]).round().astype(int).astype(str) + "%"
    methods = list(dict.fromkeys(summary["method"]))
    enc_y = alt.Y("method:N", sort=methods, title="method (sampling · e-process)")
    bars = alt.Chart(data).mark_bar(stroke="white", strokeWidth=1).encode(
        x=alt.X("rate:Q", stack="zero", title="share of replicates",
                axis=alt.Axis(format="%", values=[0, 0.25, 0.5, 0.75, 1.0]),
                scale=alt.Scale(domain=[0, 1])),
        y=enc_y,
        color=alt.Color("outcome:N", title="outcome", sort=list(OUTCOME_ORDER),
                        scale=alt.Scale(domain=list(OUTCOME_ORDER), range=list(OUTCOME_COLOURS)),
                        legend=alt.Legend(orient="bottom", direction="horizontal")),  # bars keep the width
        order=alt.Order("order:Q"),
        tooltip=["method", "outcome", alt.Tooltip("rate:Q", format=".0%")])
    text = alt.Chart(data[data["rate"] >= 0.08]).mark_text(
        fontSize=13, color="white", fontWeight="bold").encode(x=alt.X("mid:Q"), y=enc_y, text="tag:N")
    return (bars + text).properties(
        title=alt.TitleParams(title, subtitle="F = failure mode found, P = audit passed, I = inconclusive"),
        height=max(160, 42 * len(methods)))


def stop_boxplot(runs: pd.DataFrame, title: str = "Stopping times") -> alt.TopLevelMixin:
    """``runs``: method, stop (cases annotated until the decision or the budget), outcome."""
    import altair as alt
    methods = list(dict.fromkeys(runs["method"]))
    box = alt.Chart(runs).mark_boxplot(extent=1.5, size=24, color="#5b7ea3", median={"color": "black"}).encode(
        x=alt.X("stop:Q", title="cases annotated until a decision (or the budget)"),
        y=alt.Y("method:N", sort=methods, title="method (sampling · e-process)"))
    return box.properties(title=alt.TitleParams(title, subtitle="box = quartiles, bar = median, "
                                                "whiskers = 1.5 IQR, dots = outliers"),
                          height=max(160, 42 * len(methods)))


def subgroup_accuracy_chart(table: pd.DataFrame, q: float | None,
                            title: str = "Accuracy per subgroup", note: str = "",
                            family: str = "") -> alt.TopLevelMixin:
    """``table``: subgroup, n, accuracy, ci_low/ci_high (Wilson, fixed n), cs_low/cs_high
    (anytime-valid, this subgroup alone), optionally fw_low/fw_high (anytime-valid, family-wise at
    α/K; ``family`` says so); sorted by accuracy. Line at q. ▼ = below q family-wise (the run-level
    claim), ◆ = below q on the subgroup's own interval only, ● = neither. Without fw columns the
    per-subgroup interval is the only one and ▼ marks it.

    The axis title is short and the legend is in the subtitle, so the plot keeps its width in a
    half-page column at 1280 px (the long axis title was cut to "Wilson (f")."""
    import altair as alt
    order = list(table.sort_values("accuracy")["subgroup"])
    y = alt.Y("subgroup:N", sort=order, title=None, axis=alt.Axis(labelLimit=180))
    has_family = {"fw_low", "fw_high"} <= set(table.columns)
    threshold = q if q is not None else -1.0
    marks = table.assign(flag=[("family-wise" if (r.fw_high if has_family else r.cs_high) < threshold else
                                "this subgroup alone" if r.cs_high < threshold else "not below q")
                               for r in table.itertuples()])
    tooltip = ["subgroup", "n", alt.Tooltip("accuracy:Q", format=".3f"), alt.Tooltip("flag:N", title="below q"),
               alt.Tooltip("cs_low:Q", format=".3f", title="anytime-valid low (alone)"),
               alt.Tooltip("cs_high:Q", format=".3f", title="anytime-valid high (alone)"),
               alt.Tooltip("ci_low:Q", format=".3f", title="Wilson low (fixed n)"),
               alt.Tooltip("ci_high:Q", format=".3f", title="Wilson high (fixed n)")]
    if has_family:
        tooltip[4:4] = [alt.Tooltip("fw_low:Q", format=".3f", title="family-wise low"),
                        alt.Tooltip("fw_high:Q", format=".3f", title="family-wise high")]
    flags = ["family-wise", "this subgroup alone", "not below q"]
    shape = alt.Shape("flag:N", scale=alt.Scale(domain=flags, range=["triangle-down", "diamond", "circle"]),
                      legend=None)
    colour = alt.Color("flag:N", scale=alt.Scale(domain=flags, range=["#d95f02", "#b8860b", "#1f78b4"]),
                       legend=None)
    points = alt.Chart(marks).mark_point(filled=True, size=120).encode(
        x=alt.X("accuracy:Q", title="accuracy", scale=alt.Scale(domain=[0, 1])),
        y=y, shape=shape, color=colour, tooltip=tooltip)
    layers = []
    if has_family:
        layers.append(alt.Chart(marks).mark_rule(strokeWidth=11, color="#deebf7", opacity=0.9).encode(
            x="fw_low:Q", x2="fw_high:Q", y=y))
    layers += [alt.Chart(marks).mark_rule(strokeWidth=6, color="#9ecae1", opacity=0.9).encode(
                   x="cs_low:Q", x2="cs_high:Q", y=y),
               # Wilson's interval is drawn light and dashed: it holds only at a sample size fixed in
               # advance, and an auditor who stops when its upper end drops below q = 0.85 at a true
               # 0.85 says "below q" in 20.9% of runs (anytime-valid: 1.2%; issue 28 item 5)
               alt.Chart(marks).mark_rule(strokeWidth=1.5, color="#999", strokeDash=[3, 2]).encode(
                   x="ci_low:Q", x2="ci_high:Q", y=y),
               points]
    if q is not None:
        line = pd.DataFrame({"q": [q], "label": [f"q = {q:g}"]})
        layers.append(alt.Chart(line).mark_rule(color="#c00000", strokeDash=[4, 3], strokeWidth=2).encode(x="q:Q"))
        layers.append(alt.Chart(line).mark_text(color="#c00000", align="left", dx=4, y=-8, fontSize=13).encode(
            x="q:Q", text="label:N"))
    if has_family:
        legend = ["▼ below q family-wise, ◆ below q for this subgroup alone, ● neither",
                  f"bars: widest = family-wise ({family or 'α/K'}),",
                  "middle = this subgroup's 95% anytime-valid,",
                  "dashed = Wilson, fixed n only: not the audit's evidence (stopping on it errs far more often than α)"]
    else:
        legend = ["▼ anytime-valid interval below q, ● not",
                  "bars: wide = 95% anytime-valid,",
                  "dashed = Wilson, fixed n only: not the audit's evidence (stopping on it errs far more often than α)"]
    return alt.layer(*layers).properties(
        title=alt.TitleParams(title, subtitle=legend + ([note] if note else [])),
        height=max(200, 26 * len(order)))


def agreement_chart(statistics: pd.DataFrame, title: str = "Agreement between labellers") -> alt.TopLevelMixin:
    """``statistics``: subgroup, statistic, cases, estimate, low, high (one row per subgroup and
    statistic, ``(all)`` for the audit). One row of the chart per subgroup, a point per statistic
    with its bootstrap interval as a bar; a dashed line at 0 (chance agreement for κ and α)."""
    import altair as alt
    order = ["(all)", *sorted(set(statistics["subgroup"]) - {"(all)"})]
    names = list(dict.fromkeys(statistics["statistic"]))
    y = alt.Y("subgroup:N", sort=order, title="subgroup", axis=alt.Axis(labelLimit=230))
    colour = alt.Color("statistic:N", scale=alt.Scale(domain=names, range=["#1f78b4", "#d95f02", "#33a02c"][:len(names)]),
                       legend=alt.Legend(title="statistic", orient="bottom"))
    offset = alt.YOffset("statistic:N", scale=alt.Scale(domain=names))
    tooltip = ["subgroup", "statistic", "cases", alt.Tooltip("estimate:Q", format=".3f"),
               alt.Tooltip("low:Q", format=".3f", title="interval low"),
               alt.Tooltip("high:Q", format=".3f", title="interval high")]
    low = min(-0.1, float(statistics["low"].min()))
    x = alt.X("estimate:Q", title="agreement (1 = perfect; 0 = chance for κ and α)",
              scale=alt.Scale(domain=[low, 1.0]))
    bars = alt.Chart(statistics).mark_rule(strokeWidth=5, opacity=0.45).encode(
        x=alt.X("low:Q", scale=alt.Scale(domain=[low, 1.0])), x2="high:Q", y=y, yOffset=offset, color=colour)
    points = alt.Chart(statistics).mark_point(filled=True, size=110).encode(
        x=x, y=y, yOffset=offset, color=colour, tooltip=tooltip)
    zero = alt.Chart(pd.DataFrame({"x": [0.0]})).mark_rule(color="#666", strokeDash=[4, 3]).encode(x="x:Q")
    return alt.layer(bars, points, zero).properties(
        title=alt.TitleParams(title, subtitle=["points: estimate; bars: bootstrap interval over cases"]),
        height=max(120, 22 * len(names) * len(order)))


POINT_LABEL_PLOT = (560, 380)  # pixels assumed for label placement: the narrowest plot the pages draw
POINT_LABEL_CHAR_PX = 6.8      # average width of a 12-px label character
POINT_LABEL_LINE_PX = 15


def place_point_labels(x, y, texts, x_domain, y_domain, obstacles_x=(), obstacles_y=(),
                       plot=POINT_LABEL_PLOT) -> list[tuple[float, str] | None]:
    """Greedy label placement for a scatter: per point, in the given order, ``(label y in data
    units, "left" | "right")`` or None when every tried slot would overlap an earlier label or a
    point of ``obstacles`` (all points of the chart).

    A label goes right of its point (left when it would leave the plot), at the point's height or
    one line above or below it; boxes are estimated in pixels of a ``plot`` (w, h) area."""
    width, height = plot
    (x0, x1), (y0, y1) = x_domain, y_domain
    x_span, y_span = (x1 - x0) or 1.0, (y1 - y0) or 1.0
    centres = [((xv - x0) / x_span * width, (y1 - yv) / y_span * height) for xv, yv in zip(x, y, strict=True)]
    # Every point is an obstacle too (a 7-px radius), so no label covers another point.
    placed_boxes: list[tuple[float, float, float, float]] = [
        (cx - 7, cy - 7, cx + 7, cy + 7) for cx, cy in (
            ((xv - x0) / x_span * width, (y1 - yv) / y_span * height) for xv, yv in zip(obstacles_x, obstacles_y, strict=True))]
    out: list[tuple[float, str] | None] = []
    for (px, py), yv, text in zip(centres, y, texts, strict=True):
        w = POINT_LABEL_CHAR_PX * len(str(text))
        side = "right" if px + 8 + w <= width else "left"
        left = px + 8 if side == "right" else px - 8 - w
        choice = None
        for shift in (0, -1, 1):
            top = py - POINT_LABEL_LINE_PX / 2 + shift * POINT_LABEL_LINE_PX
            box = (left, top, left + w, top + POINT_LABEL_LINE_PX)
            if 0 <= left and left + w <= width and 0 <= top and top + POINT_LABEL_LINE_PX <= height and not any(
                    box[0] < b[2] and b[0] < box[2] and box[1] < b[3] and b[1] < box[3] for b in placed_boxes):
                placed_boxes.append(box)
                choice = (yv - shift * POINT_LABEL_LINE_PX / height * y_span, side)
                break
        out.append(choice)
    return out


def frequency_accuracy_chart(table: pd.DataFrame, title: str = "Sampling frequency vs accuracy",
                             subtitle: str = "", n_labels: int = 8, y_field: str = "share",
                             y_title: str = "share of audited cases", y_format: str = "%",
                             reference: float | None = None) -> alt.TopLevelMixin:
    """``table``: subgroup, accuracy and ``y_field`` (how often the subgroup was sampled). Up to
    ``n_labels`` of the least accurate subgroups are named next to their points, skipping a name
    that would overlap another (every subgroup is in the tooltip)."""
    import altair as alt
    acc = table["accuracy"].astype(float)
    freq = table[y_field].astype(float)
    pad = max(float(acc.max() - acc.min()), 0.05) * 0.04
    x_domain = (float(acc.min()) - pad, float(acc.max()) + pad)
    y_top = max(float(freq.max()), reference or 0.0)
    y_domain = (min(0.0, float(freq.min())), y_top * 1.08 if y_top > 0 else 1.0)
    x = alt.X("accuracy:Q", title="subgroup accuracy", scale=alt.Scale(domain=list(x_domain), nice=False),
              axis=alt.Axis(tickCount=8, format=".2f"))
    y = alt.Y(f"{y_field}:Q", title=y_title, axis=alt.Axis(format=y_format),
              scale=alt.Scale(domain=list(y_domain), nice=False))
    points = alt.Chart(table).mark_point(filled=True, size=110, color="#1f4e79", shape="circle").encode(
        x=x, y=y, tooltip=["subgroup", alt.Tooltip("accuracy:Q", format=".3f"),
                           alt.Tooltip(f"{y_field}:Q", format=".3f", title=y_title)])
    candidates = table.sort_values("accuracy", kind="stable").head(n_labels)
    spots = place_point_labels(candidates["accuracy"].astype(float), candidates[y_field].astype(float),
                               candidates["subgroup"], x_domain, y_domain, acc, freq)
    rows = [{"accuracy": a, "label_y": spot[0], "side": spot[1], "subgroup": str(g)}
            for a, g, spot in zip(candidates["accuracy"], candidates["subgroup"], spots, strict=True) if spot is not None]
    labelled = pd.DataFrame(rows, columns=["accuracy", "label_y", "side", "subgroup"])
    layers = [points]
    for side, align, dx in (("right", "left", 8), ("left", "right", -8)):
        part = labelled[labelled["side"] == side]
        if len(part):
            layers.append(alt.Chart(part).mark_text(align=align, dx=dx, fontSize=12, color="#333").encode(
                x=alt.X("accuracy:Q"), y=alt.Y("label_y:Q"), text="subgroup:N"))
    if reference is not None:
        layers.insert(0, alt.Chart(pd.DataFrame({"y": [reference]})).mark_rule(
            strokeDash=[5, 4], color="#777", strokeWidth=1.5).encode(y="y:Q"))
    return alt.layer(*layers).properties(title=alt.TitleParams(title, subtitle=subtitle or None), height=380)


# Checking a spec against the Vega-Lite JSON schema is about a third of building a chart (jsonschema,
# on every chart of every first page run). The specs come from the fixed templates of this module,
# so the tests check them (tests/views/test_chart_schema.py turns this on for every use case's
# charts) and the pages do not.
VALIDATE_SPECS = False


def chart_spec(chart: alt.TopLevelMixin) -> dict:
    """Styled Vega-Lite spec that fills its container's width (the report fixes the width),
    its data sets named by position (:func:`positional_dataset_names`), its long text values
    shortened (:func:`shorten_labels`)."""
    spec = style(chart).to_dict(validate=VALIDATE_SPECS)
    spec.setdefault("width", "container")
    # Fit the width only: the height stays the plot's own, so titles and rotated labels add to it.
    spec["autosize"] = {"type": "fit-x", "contains": "padding"}
    return shorten_labels(positional_dataset_names(spec))


# Longest text value a chart draws. Vega measures and fits every label, and its cost grows faster
# than the label's length: one 100,000-character subgroup name kept `report --out x.html` busy for
# over two minutes (issue 18). Tables and CSV exports keep names in full.
MAX_LABEL_CHARS = MAX_NAME_CHARS  # 120, as names in messages (audit_core.errors)


def shorten_rows(rows, limit: int = MAX_LABEL_CHARS) -> bool:
    """Cut, in place, every string value of the records ``rows`` longer than ``limit`` to
    ``limit - 1`` characters plus "…"; whether any was."""
    shortened = False
    for row in rows if isinstance(rows, list) else ():
        if not isinstance(row, dict):
            continue
        for key, value in row.items():
            if isinstance(value, str) and len(value) > limit:
                row[key] = value[:limit - 1] + "…"
                shortened = True
    return shortened


def shorten_labels(spec: dict, limit: int = MAX_LABEL_CHARS) -> dict:
    """``spec`` with every string value of its inline data sets longer than ``limit`` cut to
    ``limit - 1`` characters plus "…"; when any was, the subtitle says so."""
    shortened = False
    for rows in (spec.get("datasets") or {}).values():
        shortened = shorten_rows(rows, limit) or shortened
    if shortened:
        note = f"names longer than {limit} characters are shortened (…); the tables give them in full"
        title = spec.get("title")
        if isinstance(title, dict):
            subtitle = title.get("subtitle") or []
            title["subtitle"] = [*([subtitle] if isinstance(subtitle, str) else subtitle), note]
        else:
            spec["title"] = {"text": title or "", "subtitle": note}
    return spec


def positional_dataset_names(spec: dict) -> dict:
    """``spec`` with its data sets renamed ``data-0``, ``data-1``, ... in the order they are listed.

    Altair names a data set by the hash of its rows, so new rows (the lattice's current node, a
    support's outline) changed the spec itself and the dashboard redrew the chart from scratch;
    with positional names the spec stays the same and Streamlit swaps the rows in place.
    References are ``{"data": {"name": ...}}`` (top level, layers, lookups); rows are not touched.
    """
    datasets = spec.get("datasets")
    if not datasets:
        return spec
    names = {name: f"data-{i}" for i, name in enumerate(datasets)}

    def rename(node):
        if isinstance(node, list):
            return [rename(item) for item in node]
        if not isinstance(node, dict):
            return node
        out = {}
        for key, value in node.items():
            if key == "data" and isinstance(value, dict) and value.get("name") in names:
                out[key] = {**value, "name": names[value["name"]]}
            elif key == "values" or (node is spec and key == "datasets"):
                out[key] = value  # rows: user text stays as it is
            else:
                out[key] = rename(value)
        return out

    renamed = rename(spec)
    renamed["datasets"] = {names[name]: rows for name, rows in datasets.items()}
    return renamed
