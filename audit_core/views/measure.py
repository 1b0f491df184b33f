"""Tables and Altair chart specs of a :class:`Measurement` (no Streamlit; nothing computed here).

The measure page and exported reports draw these; every number is taken from the Measurement.
"""

from __future__ import annotations

import altair as alt
import pandas as pd

from audit_core.measure.estimates import ALL_MODELS, COMPOSITION, Measurement
from audit_core.report.document import ReportChart, ReportSection, ReportTable
from audit_core.views.charts import chart_spec

# The estimates compared in the chart, left to right: static -> conditional -> joint -> full support.
CHART_ESTIMATES = ("base_accuracy", "target_follow", "sham_stay", "local_given_base", "local_paired", "tau_full")
INTERVALS = {"bootstrap": "cluster bootstrap", "wilson": "Wilson"}
COMPOSITION_COLOURS = ("#9e9e9e", "#d95f02", "#7570b3", "#e6ab02", "#1b9e77")
COMPOSITION_TAGS = ("R", "B", "I", "O", "S")
MODEL_SHAPES = ("circle", "square", "triangle-up", "diamond", "cross", "triangle-down", "wedge", "stroke")


def _blocks(result: Measurement, include_pooled: bool) -> list:
    return list(result.models) + ([result.pooled] if include_pooled and len(result.models) > 1 else [])


def estimates_table(result: Measurement, include_pooled: bool = True) -> pd.DataFrame:
    """One row per model and estimate: counts, rate, Wilson and cluster-bootstrap intervals."""
    pct = f"{100 * result.confidence:g}%"
    rows = []
    for m in _blocks(result, include_pooled):
        for e in m.estimates:
            rows.append({"model": m.model, "estimate": e.label, "unit": e.level, "k": e.successes, "n": e.n,
                         "rate": e.rate, f"Wilson {pct} low": e.wilson_low, f"Wilson {pct} high": e.wilson_high,
                         f"bootstrap {pct} low": e.boot_low, f"bootstrap {pct} high": e.boot_high})
    return pd.DataFrame(rows)


def composition_table(result: Measurement, include_pooled: bool = True) -> pd.DataFrame:
    """Counts per model (rows) and category (columns), plus the total of complete paired units."""
    rows = [{"model": m.model, **dict(m.composition), "paired units": m.n_complete_paired}
            for m in _blocks(result, include_pooled)]
    return pd.DataFrame(rows, columns=["model", *COMPOSITION, "paired units"])


def transitions_table(result: Measurement) -> pd.DataFrame:
    """Per oracle transition and model: rate (k/n) of the paired estimates, bootstrap interval."""
    rows = []
    for t in result.transitions:
        row = {"transition (base→target→sham)": t.transition, "model": t.model, "clusters": t.n_clusters}
        for e in t.estimates:
            row[e.label] = None if e.rate is None else f"{e.rate:.3f} ({e.successes}/{e.n})"
        rows.append(row)
    return pd.DataFrame(rows)


def units_table(result: Measurement) -> pd.DataFrame:
    """Per model-cluster unit: oracle, coverage, engine estimands (blank = not measurable), counts."""
    rows = []
    for u in result.units:
        d = u.to_dict()
        comp = d.pop("composition")
        rows.append({**d, **comp})
    return pd.DataFrame(rows)


MAX_CHART_MODELS = 12  # more models are charted pooled (every model stays in the tables)


def _chart_blocks(result: Measurement) -> list:
    """The models a chart draws: each of them, or all of them pooled when there are too many."""
    return list(result.models) if len(result.models) <= MAX_CHART_MODELS else [result.pooled]


def _chart_note(result: Measurement) -> list[str]:
    if len(result.models) <= MAX_CHART_MODELS:
        return []
    return [f"{len(result.models)} models, drawn pooled (above {MAX_CHART_MODELS}); every model is in the table"]


def _chart_frame(result: Measurement, interval: str) -> pd.DataFrame:
    low, high = ("boot_low", "boot_high") if interval == "bootstrap" else ("wilson_low", "wilson_high")
    rows = []
    for m in _chart_blocks(result):
        for name in CHART_ESTIMATES:
            e = m.estimate(name)
            if e.rate is None:
                continue
            lo = getattr(e, low)
            hi = getattr(e, high)
            rows.append({"model": m.model, "estimate": e.label, "rate": e.rate,
                         "low": e.rate if lo is None else lo, "high": e.rate if hi is None else hi,
                         "counts": f"{e.successes}/{e.n}", "unit": e.level,
                         "tag": f"{e.rate:.2f}"})
    return pd.DataFrame(rows, columns=["model", "estimate", "rate", "low", "high", "counts", "unit", "tag"])


def estimates_chart(result: Measurement, interval: str = "bootstrap") -> alt.TopLevelMixin:
    """Rate per estimate and model (point, shape and colour per model) with interval bars."""
    data = _chart_frame(result, interval)
    labels = [result.pooled.estimate(n).label for n in CHART_ESTIMATES]
    models = [m.model for m in _chart_blocks(result)]
    y = alt.Y("estimate:N", sort=labels, title=None, axis=alt.Axis(labelLimit=340))
    offset = alt.YOffset("model:N", sort=models)
    # Colour and shape share field, title and domain (no ``sort``), so Vega-Lite merges their legends.
    model_colour = alt.Color("model:N", title="model", scale=alt.Scale(domain=models, scheme="dark2"))
    model_shape = alt.Shape("model:N", title="model",
                            scale=alt.Scale(domain=models, range=[MODEL_SHAPES[i % len(MODEL_SHAPES)]
                                                                 for i in range(len(models))]))
    x = alt.X("rate:Q", title=f"rate with {100 * result.confidence:g}% {INTERVALS[interval]} interval",
              scale=alt.Scale(domain=[0, 1]), axis=alt.Axis(format="%"))
    tooltip = ["model", "estimate", "counts", alt.Tooltip("rate:Q", format=".3f"),
               alt.Tooltip("low:Q", format=".3f"), alt.Tooltip("high:Q", format=".3f"), "unit"]
    bars = alt.Chart(data).mark_rule(strokeWidth=2.5).encode(
        x=alt.X("low:Q", scale=alt.Scale(domain=[0, 1])), x2="high:Q", y=y, yOffset=offset,
        color=model_colour)
    points = alt.Chart(data).mark_point(filled=True, size=150, stroke="#1b1b1b", strokeWidth=0.6).encode(
        x=x, y=y, yOffset=offset, color=model_colour, shape=model_shape, tooltip=tooltip)
    text = alt.Chart(data).mark_text(align="left", dx=6, dy=-9, fontSize=12, color="#333").encode(
        x="high:Q", y=y, yOffset=offset, text="tag:N")
    return alt.layer(bars, points, text).properties(
        title=alt.TitleParams("Estimand-separated rates per model",
                              subtitle=["static correctness → conditional target-follow / sham-stay → "
                                        "local response → full-support response (τ_full)", *_chart_note(result)]),
        height=alt.Step(max(18, 60 // max(len(models), 1))))


def composition_chart(result: Measurement) -> alt.TopLevelMixin:
    """Stacked counts of the mutually exclusive categories per model (each segment labelled)."""
    rows = []
    for m in _chart_blocks(result):
        start = 0
        for i, (category, count) in enumerate(m.composition):
            rows.append({"model": m.model, "category": category, "count": count, "order": i,
                         "mid": start + count / 2, "tag": f"{COMPOSITION_TAGS[i]} {count}"})
            start += count
    data = pd.DataFrame(rows, columns=["model", "category", "count", "order", "mid", "tag"])
    models = [m.model for m in _chart_blocks(result)]
    y = alt.Y("model:N", sort=models, title="model")
    bars = alt.Chart(data).mark_bar(stroke="white", strokeWidth=1).encode(
        x=alt.X("count:Q", stack="zero", title="paired base/target/sham units"),
        y=y,
        color=alt.Color("category:N", title="category", sort=list(COMPOSITION),
                        scale=alt.Scale(domain=list(COMPOSITION), range=list(COMPOSITION_COLOURS)),
                        legend=alt.Legend(orient="bottom", direction="horizontal")),  # bars keep the width
        order=alt.Order("order:Q"),
        tooltip=["model", "category", "count"])
    total = max(1, int(data.groupby("model")["count"].sum().max())) if len(data) else 1
    # Wide segments show letter and count, narrow ones the letter alone, so no segment is known by
    # its colour only (slivers under 2% of the widest bar are left to the tooltip and the table).
    data["tag"] = [tag if count >= 0.08 * total else tag.split(" ")[0]
                   for tag, count in zip(data["tag"], data["count"], strict=True)]
    text = alt.Chart(data[data["count"] >= 0.02 * total]).mark_text(
        fontSize=13, color="white", fontWeight="bold").encode(x="mid:Q", y=y, text="tag:N")
    return (bars + text).properties(
        title=alt.TitleParams("Behavioural composition (mutually exclusive)",
                              subtitle="R = reportability failure, B = base-knowledge failure, I = target inertia, "
                                       "O = other, S = full success"),
        height=max(120, 48 * len(models)))


def estimates_spec(result: Measurement, interval: str = "bootstrap") -> dict:
    return chart_spec(estimates_chart(result, interval))


def composition_spec(result: Measurement) -> dict:
    return chart_spec(composition_chart(result))


def invariance_table(invariance) -> pd.DataFrame:
    """One row per model (and pooled) and invariance estimate, then the balanced-transition and
    asymmetry contrasts: counts, rate and cluster-bootstrap interval (paper 000 results 3-5)."""
    pct = f"{100 * invariance.confidence:g}%"
    rows = []
    blocks = list(invariance.models) + ([invariance.pooled] if len(invariance.models) > 1 else [])
    for block in blocks:
        for e in block.estimates:
            rows.append({"model": block.model, "estimate": e.label, "k": e.successes, "n": e.n, "rate": e.rate,
                         f"bootstrap {pct} low": e.boot_low, f"bootstrap {pct} high": e.boot_high})
        contrasts = []
        if block.balanced is not None:
            contrasts += [block.balanced.selective_mean, block.balanced.base_accuracy_mean, block.balanced.delta]
        if block.asymmetry is not None:
            contrasts.append(block.asymmetry.difference)
        for c in contrasts:
            rows.append({"model": block.model, "estimate": c.label, "k": None, "n": None, "rate": c.value,
                         f"bootstrap {pct} low": c.boot_low, f"bootstrap {pct} high": c.boot_high})
    return pd.DataFrame(rows)


def measurement_section(result: Measurement, interval: str = "bootstrap", verdict: str = "",
                        charts: tuple[dict, dict] | None = None,
                        invariance_table: pd.DataFrame | None = None) -> ReportSection:
    """Report section: estimates, composition, both charts and the full JSON numbers."""
    pooled = result.pooled
    local = pooled.estimate("local_given_base")
    tau = pooled.estimate("tau_full")
    base = pooled.estimate("base_accuracy")
    who = ALL_MODELS if len(result.models) > 1 else result.models[0].model

    def rate(e) -> str:
        return "n/a" if e.rate is None else f"{e.rate:.3f} ({e.successes}/{e.n})"

    return ReportSection(
        key="measure", title=f"Estimand-separated results of {result.source}", source=result.source,
        parameters={"bootstrap replicates": result.bootstrap, "seed": result.seed, "confidence": result.confidence},
        summary=(*((verdict,) if verdict else ()),
                 f"{who}: base accuracy {rate(base)}; local response given base-correct {rate(local)}; "
                 f"full-support response {rate(tau)} on complete model-cluster units.",
                 *result.notes),
        tables=(ReportTable("Estimates per model", estimates_table(result)),
                ReportTable("Behavioural composition (paired units)", composition_table(result)),
                ReportTable("Paired estimates per oracle transition", transitions_table(result)),
                *((ReportTable("Mapping and readout invariance, balanced transitions (paper 000 results 3-5)",
                               invariance_table),) if invariance_table is not None else ())),
        charts=(ReportChart("Estimand-separated rates per model",
                            charts[0] if charts else estimates_spec(result, interval)),
                ReportChart("Behavioural composition", charts[1] if charts else composition_spec(result))),
        numbers={k: v for k, v in result.to_dict().items() if k != "units"})
