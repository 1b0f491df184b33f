"""Views of simulation studies (:class:`~audit_core.auditing.Study`): outcome bars, stopping
times, sampling frequency, Type-I error and the report section. Nothing here computes a statistic."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from audit_core.report.document import ReportChart, ReportSection, ReportTable
from audit_core.views.charts import (
    OUTCOME_ORDER,
    chart_spec,
    frequency_accuracy_chart,
    outcome_bars,
    stop_boxplot,
)

RATE_COLUMNS = {"failure_found": OUTCOME_ORDER[0], "passed": OUTCOME_ORDER[1], "inconclusive": OUTCOME_ORDER[2]}


def row_label(strategy: str, process: str) -> str:
    return f"{strategy} · {process}"


def study_tables(study) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(summary with a ``method`` column first, per-replicate results with ``method``)."""
    summary = study.summary.copy()
    summary.insert(0, "method", [row_label(s, p) for s, p in zip(summary["strategy"], summary["process"], strict=True)])
    results = study.results.copy()
    results["method"] = [row_label(s, p) for s, p in zip(results["strategy"], results["process"], strict=True)]
    return summary, results


def study_specs(study) -> tuple[dict, dict]:
    """(stacked outcome rates, stopping-time box plots) as in paper 001 Figures 2 and 3."""
    summary, results = study_tables(study)
    long = summary.melt(id_vars=["method"], value_vars=list(RATE_COLUMNS), var_name="rate_of", value_name="rate")
    long["outcome"] = long["rate_of"].map(RATE_COLUMNS)
    return (chart_spec(outcome_bars(long[["method", "outcome", "rate"]])),
            # n_annotated = cases annotated until the decision, or the budget when inconclusive
            chart_spec(stop_boxplot(results[["method"]].assign(stop=results["n_annotated"]))))


def sampling_frequency_spec(table: pd.DataFrame, rho: float, process: str) -> dict:
    """The engine's ``sampling_frequency_vs_accuracy`` table as a scatter with the ρ it returned."""
    return chart_spec(frequency_accuracy_chart(
        table, title=f"Sampling frequency vs accuracy (adaptive · {process})",
        subtitle=f"dashed line = sampled in proportion to the pool; Spearman ρ = {rho:.2f}",
        y_field="frequency", y_title="sampling frequency (share / pool share)", y_format=".1f", reference=1.0))


def type_one_error_table(study, alpha: float) -> pd.DataFrame:
    """On a pool without failure mode: each row's 'failure mode found' rate is its observed
    Type-I error; shown with the summary's Wilson interval and α."""
    summary, _ = study_tables(study)
    table = summary[["method", "failure_found", "failure_found_low", "failure_found_high"]].rename(columns={
        "failure_found": "observed Type-I error", "failure_found_low": "95% CI low",
        "failure_found_high": "95% CI high"})
    table["α"] = alpha
    return table.reset_index(drop=True)


def study_section(study, title: str, source: str, parameters: dict[str, Any],
                  charts: Sequence[ReportChart], key: str = "simulate",
                  extra_tables: Sequence[ReportTable] = (), verdict: str = "") -> ReportSection:
    summary, _ = study_tables(study)
    return ReportSection(
        key=key, title=title, source=source, parameters=parameters,
        summary=(*((verdict,) if verdict else ()), *(f"{r.method}: failure found {r.failure_found:.0%}, passed {r.passed:.0%}, "
                      f"inconclusive {r.inconclusive:.0%}, median stop {r.stop_median:g}"
                      for r in summary.itertuples())),
        tables=(*extra_tables, ReportTable("Summary per row", summary)), charts=tuple(charts),
        numbers=study.to_dict())


# ------------------------------------------------------------------------------------- planner

def plan_chart(plan) -> dict:
    """P(decision by n) against n for each outcome and scenario, with Wilson bands."""
    import altair as alt
    curves = plan.curves
    colour = alt.Color("outcome:N", title="decision", scale=alt.Scale(domain=list(OUTCOME_ORDER),
                                                                       range=["#d95f02", "#1f78b4", "#9e9e9e"]))
    dash = alt.StrokeDash("scenario:N", title="pool", scale=alt.Scale(domain=["failure", "no failure"],
                                                                       range=[[1, 0], [6, 3]]))
    base = alt.Chart(curves[curves["outcome"] != OUTCOME_ORDER[2]])
    band = base.mark_area(opacity=0.15).encode(
        x=alt.X("n:Q", title="labels n"), y=alt.Y("low:Q", title="P(decision by n)", scale=alt.Scale(domain=[0, 1])),
        y2="high:Q", color=colour, detail="scenario:N")
    line = base.mark_line(strokeWidth=2.5).encode(x="n:Q", y="probability:Q", color=colour, strokeDash=dash,
                                                  tooltip=["scenario", "outcome", "n",
                                                           alt.Tooltip("probability:Q", format=".2f")])
    chart = (band + line).properties(
        title=alt.TitleParams(f"Chance of each decision by n labels ({plan.strategy} · {plan.process})", subtitle=[
            f"{plan.replicates} simulated audits per scenario; bands = 95% Wilson intervals "
            f"(Monte Carlo error up to ±{plan.mc_error:.2f})", "solid = pool with its failure mode, "
            "dashed = the same pool without one"]), height=360)
    return chart_spec(chart)


def samples_run_chart(samples_run, n_samples: int, title: str) -> dict:
    """The share of simulated runs that have ended by n samples (their empirical distribution
    function), against n up to the run's size, with the median and the 90th percentile marked."""
    import altair as alt
    import numpy as np
    runs = np.sort(np.asarray(samples_run, dtype=float))
    steps = np.unique(np.concatenate([[0.0], runs, [float(n_samples)]]))
    share = np.searchsorted(runs, steps, side="right") / len(runs)
    curve = pd.DataFrame({"samples": steps, "share": share})
    marks = pd.DataFrame({"samples": [float(np.quantile(runs, q, method="inverted_cdf")) for q in (0.5, 0.9)],
                          "mark": ["median", "90th percentile"]})
    colour = alt.Color("mark:N", title="runs ended", scale=alt.Scale(domain=["median", "90th percentile"],
                                                                       range=["#1f78b4", "#d95f02"]))
    line = alt.Chart(curve).mark_line(interpolate="step-after", strokeWidth=2.5, color="#333").encode(
        x=alt.X("samples:Q", title="samples run", scale=alt.Scale(domain=[0, n_samples])),
        y=alt.Y("share:Q", title="share of runs ended", scale=alt.Scale(domain=[0, 1]), axis=alt.Axis(format="%")),
        tooltip=[alt.Tooltip("samples:Q", title="samples run"), alt.Tooltip("share:Q", format=".0%")])
    rules = alt.Chart(marks).mark_rule(strokeDash=[5, 3], strokeWidth=2).encode(
        x="samples:Q", color=colour, tooltip=["mark", alt.Tooltip("samples:Q", title="samples run")])
    chart = (line + rules).properties(title=alt.TitleParams(title, subtitle=[
        f"a run of {n_samples:,} samples; a budget at the orange line lets 9 in 10 runs end by themselves"]),
        height=300)
    return chart_spec(chart)


def plan_section(plan, source: str, chart: dict, verdict: str = "") -> ReportSection:
    low, high = plan.p_pass_no_failure[1], plan.p_pass_no_failure[2]
    return ReportSection(
        key="plan", title=f"Audit plan for {plan.pool_name}", source=source,
        parameters={**plan.params.to_dict(), "strategy": plan.strategy, "process": plan.process,
                    "replicates": plan.replicates, "seed": plan.seed},
        summary=(*((verdict,) if verdict else ()),
                 f"P(audit passed | no failure) = {plan.p_pass_no_failure[0]:.2f} (95% CI {low:.2f}–{high:.2f}); "
                 f"Monte Carlo error up to ±{plan.mc_error:.2f}."),
        tables=(ReportTable("Decisions by budget", plan.budget_table),
                ReportTable("Labels needed", plan.labels_needed)),
        charts=(ReportChart("Chance of each decision by n labels", chart),), numbers=plan.to_dict())
