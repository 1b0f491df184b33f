"""Views of a replayed run (:class:`~audit_core.sequential.Replay`): trajectories, decisions,
subgroups and the report section. Nothing here computes a statistic."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from audit_core.report import format as fmt
from audit_core.report.document import ReportChart, ReportSection, ReportTable
from audit_core.sequential.replay import STAT_COLUMNS
from audit_core.views.charts import (
    MAX_CHART_ROWS,
    chart_spec,
    frequency_accuracy_chart,
    subgroup_accuracy_chart,
    trajectory_chart,
)
from audit_core.views.flags import FAMILY_FLAG, SUBGROUP_FLAG, family_note, flag_statements  # noqa: F401 (re-exported)

MAX_TRAJECTORY_POINTS = 600  # points drawn per e-process; longer runs are thinned (stops kept)
MAX_SUBGROUP_ROWS = 60  # subgroups drawn in the accuracy chart (the least accurate); all are in the table


def null_of(process: str, model_processes: Sequence[str]) -> str:
    return "model's null" if process in model_processes else "auditor's null"


def thinned_steps(n: int, keep: Sequence[int], max_points: int = MAX_TRAJECTORY_POINTS) -> np.ndarray:
    """1-based steps to draw: all of them, or an even grid plus the ``keep`` steps."""
    if n <= max_points:
        return np.arange(1, n + 1)
    grid = np.unique(np.linspace(1, n, max_points).round().astype(int))
    return np.unique(np.concatenate([grid, np.asarray([k for k in keep if k], dtype=int)]))


def trajectory_spec(result, model_processes: Sequence[str], title: str) -> dict:
    """log₁₀ E_t of every process of a ``Replay`` with the 1/α line, m and the stopping points."""
    names = list(result.log_e)
    steps = thinned_steps(result.n, [s for s in result.stops.values() if s])
    traj = pd.concat([pd.DataFrame({"step": steps, "process": name, "test": null_of(name, model_processes),
                                    "log10_e": np.asarray(result.log_e[name])[steps - 1] / math.log(10)})
                      for name in names], ignore_index=True)
    stops = pd.DataFrame([{"process": n, "test": null_of(n, model_processes), "step": s,
                           "log10_e": float(result.log_e[n][s - 1]) / math.log(10)}
                          for n, s in result.stops.items() if s],
                         columns=["process", "test", "step", "log10_e"])
    return chart_spec(trajectory_chart(traj, stops, result.params.log_threshold / math.log(10),
                                       result.params.m, title=title))


def _log10(log_e) -> float:
    """log₁₀ E of a natural log e-value; NaN (shown ``—``) before any evidence."""
    value = fmt.log10_e(log_e)
    return math.nan if value is None else value


def decision_table(result, model_processes: Sequence[str]) -> pd.DataFrame:
    return pd.DataFrame([{"process": name, "null tested": null_of(name, model_processes).split(" ")[0],
                          "stop (case)": "never" if result.stops[name] is None else str(result.stops[name]),
                          f"final {fmt.LOG_E_LABEL}": _log10(result.log_e[name][-1]),
                          "decision": result.decisions[name]} for name in result.log_e])




def subgroup_view(result) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(table as shown: subgroup columns, n, correct, accuracy, Wilson (fixed-n), per-subgroup
    anytime-valid (cs) and family-wise (fw, α/K) intervals, the two below-q flags, share; chart
    data with a single ``subgroup`` label column)."""
    table = result.subgroup_table.copy()
    group_names = [c for c in table.columns if c not in STAT_COLUMNS]
    table[FAMILY_FLAG] = table["fw_high"] < result.params.q
    table[SUBGROUP_FLAG] = table["cs_high"] < result.params.q
    table["share"] = table["n"] / table["n"].sum()
    # The flags next to the accuracy, the interval bounds last: at 1280 px the table's right-hand
    # columns scroll out of view, and those were the flags (issue 19 item 14).
    first = [*group_names, "n", "correct", "accuracy", FAMILY_FLAG, SUBGROUP_FLAG, "share"]
    table = table[first + [c for c in table.columns if c not in first]]
    chart_data = table.assign(subgroup=table[group_names].astype(str).agg(" · ".join, axis=1))
    return table, chart_data


def replay_specs(result, model_processes: Sequence[str], data_name: str) -> tuple[dict, dict, dict]:
    """(trajectories, accuracy per subgroup, sampling share vs accuracy) specs of a ``Replay``.

    Many subgroups: the accuracy chart draws the :data:`MAX_SUBGROUP_ROWS` least accurate and the
    scatter the :data:`~audit_core.views.charts.MAX_CHART_ROWS` least accurate (Altair refuses
    more than 5,000 rows); each says so in its subtitle, the subgroup table keeps all of them."""
    _, chart_data = subgroup_view(result)
    total = len(chart_data)
    by_accuracy = chart_data.sort_values(["accuracy", "n"], ascending=[True, False], kind="stable")
    accuracy_data, accuracy_note = chart_data, ""
    if total > MAX_SUBGROUP_ROWS:
        accuracy_data = by_accuracy.head(MAX_SUBGROUP_ROWS)
        accuracy_note = f"the {MAX_SUBGROUP_ROWS} least accurate of {total} subgroups; the table lists all"
    scatter_data, scatter_note = chart_data, "share of the replayed cases per subgroup against its accuracy"
    if total > MAX_CHART_ROWS:
        scatter_data = by_accuracy.head(MAX_CHART_ROWS)
        scatter_note += f" (the {MAX_CHART_ROWS:,} least accurate of {total:,} subgroups; the table lists all)"
    return (trajectory_spec(result, model_processes, f"E-process trajectories: {data_name}"),
            chart_spec(subgroup_accuracy_chart(accuracy_data, result.params.q, note=accuracy_note,
                                               family=family_note(result))),
            chart_spec(frequency_accuracy_chart(scatter_data, subtitle=scatter_note)))


def _compact_numbers(result) -> dict:
    """``result.to_dict()`` with each process's per-step ``log_e`` as a float array, not a list:
    the report writes the same JSON (json_safe), and a session holding the section of a 500,000-row
    replay keeps 8 bytes per step and process instead of ~32 (issue 18: 20 sessions replaying
    10 MB runs held 6.6 GB)."""
    return result.to_dict(arrays=True)




def replay_section(result, model_processes: Sequence[str], data_name: str, source: str, columns: dict,
                   notes: Sequence[str], specs: Sequence[dict], verdict: str = "",
                   warnings: Sequence[str] = ()) -> ReportSection:
    dual, overall = result.dual, result.overall
    table, _ = subgroup_view(result)
    return ReportSection(
        key="replay", title=f"Replay of {data_name}", source=source,
        parameters={**columns, **result.params.to_dict(), "model process": dual.model_process,
                    "auditor process": dual.auditor_process,
                    **({"planned cases": result.planned_n} if result.planned_n is not None else {})},
        summary=(*((verdict,) if verdict else ()),
                 *(f"Warning: {w}" for w in warnings),   # rows left out, an unfinished run: before any rate
                 f"{fmt.count(result.n)} cases; dual test ({dual.model_process} vs {dual.auditor_process}): "
                 f"{dual.decision}" + (f" at case {fmt.count(dual.stop)}" if dual.stop else "") + ".",
                 f"Overall accuracy {fmt.rate(overall.accuracy)} (95% anytime-valid interval"
                 f"{fmt.planned_note(result.planned_n)} {fmt.anytime_interval(overall.cs_low, overall.cs_high)}, valid for cases in random order; Wilson, fixed n: "
                 f"{fmt.rate(overall.ci_low)}–{fmt.rate(overall.ci_high)}). Subgroup intervals hold under adaptive sampling.",
                 *flag_statements(result),
                 *notes),
        tables=(ReportTable("Decision per process", decision_table(result, model_processes)),
                ReportTable("Subgroups", table)),
        charts=tuple(ReportChart(c, s) for c, s in zip(
            ("E-process trajectories", "Accuracy per subgroup", "Sampling share vs accuracy"), specs, strict=True)),
        numbers=_compact_numbers(result))

# ---------------------------------------------------------------------------------- comparison

def comparison_chart(comparison) -> dict:
    """Paired difference B − A overall and per subgroup with its interval (0 = no change)."""
    import altair as alt
    rows = [{"subgroup": "overall", "difference": comparison.overall.difference,
             "ci_low": comparison.overall.ci_low, "ci_high": comparison.overall.ci_high,
             "n": comparison.overall.n, "kind": "overall"}]
    for r in comparison.subgroups.itertuples():
        rows.append({"subgroup": str(r.subgroup), "difference": r.difference, "ci_low": r.ci_low,
                     "ci_high": r.ci_high, "n": int(r.n), "kind": "subgroup"})
    frame = pd.DataFrame(rows).dropna(subset=["difference"])
    a, b = comparison.names
    y = alt.Y("subgroup:N", sort=list(frame["subgroup"]), title=None)
    rules = alt.Chart(frame).mark_rule(strokeWidth=2, color="#5b6b7b").encode(
        x=alt.X("ci_low:Q", title=f"accuracy difference {b} − {a} with {comparison.confidence:.0%} interval",
                scale=alt.Scale(domain=[-1, 1])), x2="ci_high:Q", y=y)
    points = alt.Chart(frame).mark_point(filled=True, size=120).encode(
        x="difference:Q", y=y,
        color=alt.Color("kind:N", title="row", scale=alt.Scale(domain=["overall", "subgroup"],
                                                                 range=["#1f4e79", "#d95f02"])),
        shape=alt.Shape("kind:N", title="row", scale=alt.Scale(domain=["overall", "subgroup"],
                                                                 range=["diamond", "circle"])),
        tooltip=["subgroup", "n", alt.Tooltip("difference:Q", format="+.3f"),
                 alt.Tooltip("ci_low:Q", format="+.3f"), alt.Tooltip("ci_high:Q", format="+.3f")])
    zero = alt.Chart(pd.DataFrame({"x": [0.0]})).mark_rule(strokeDash=[4, 3], color="#999").encode(x="x:Q")
    chart = (rules + points + zero).properties(
        title=alt.TitleParams(f"Paired difference, {b} − {a}", subtitle=[
            f"{comparison.n_common} common cases; left of the dashed line = {b} worse"]),
        height=max(160, 26 * len(frame)))
    return chart_spec(chart)


def decisions_table(comparison) -> pd.DataFrame:
    """Each run's own dual-test decision, side by side."""
    return pd.DataFrame([{"run": d.name, "cases": d.n, "decision": d.decision,
                          "stop (case)": "never" if d.stop is None else str(d.stop),
                          "processes": f"{d.model_process} vs {d.auditor_process}"} for d in comparison.decisions])


def comparison_section(comparison, source: str, parameters: dict, chart: dict, verdict: str = "",
                       many=None, charts: Sequence[tuple[str, dict]] = (), tasks=None) -> ReportSection:
    """The report section of a comparison: the decision sentence, the anytime-valid and fixed-n
    numbers, the tie groups of all runs (per task and pooled, when ``tasks``); tables and charts
    as on the page."""
    a, b = comparison.names
    o = comparison.overall
    many_tables = () if many is None else (ReportTable("Tie groups and rank intervals", many.tie_table()),
                                           ReportTable("Every pair, simultaneous bounds", pairs_table(many)))
    task_tables = () if tasks is None else (ReportTable("Tie groups per task and pooled", tasks.table()),)
    return ReportSection(
        key="compare", title=f"Comparison of {b} with {a}" if many is None or len(many.names) == 2
        else f"Comparison of {len(many.names)} runs", source=source, parameters=parameters,
        summary=(*((verdict,) if verdict else ()),
                 *((sequential_summary(comparison),) if comparison.sequence is not None else ()),
                 *((many_summary(many),) if many is not None and len(many.names) > 2 else ()),
                 *((f"Per task and {tasks.pooling}.",) if tasks is not None else ()),
                 f"{comparison.n_common} common cases (only in {a}: {len(comparison.only_a)}, only in {b}: "
                 f"{len(comparison.only_b)}); difference {o.difference:+.3f} [{o.ci_low:+.3f}, {o.ci_high:+.3f}] "
                 f"({o.interval}, fixed n); {o.regressions} regressions, {o.improvements} improvements.",
                 *comparison.notes),
        tables=(*many_tables, *task_tables,
                ReportTable("Each run's audit decision", decisions_table(comparison)),
                ReportTable("Paired difference per subgroup", comparison.subgroups),
                ReportTable("Regressions and improvements, case by case", comparison.changes)),
        charts=(*(ReportChart(title, spec) for title, spec in charts),
                ReportChart("Paired difference overall and per subgroup", chart),),
        numbers={**comparison.to_dict(), **({"runs": many.to_dict()} if many is not None else {}),
                 **({"tasks": tasks.to_dict()} if tasks is not None else {})})


# ---------------------------------------------------------------------------- many audits at once

def combination_table(results: dict, names, own_decisions) -> pd.DataFrame:
    """One row per audit: its log e-value, its own decision and each method's rejection."""
    first = next(iter(results.values()))
    table = pd.DataFrame({"audit": list(names), fmt.LOG_E_LABEL: [_log10(v) for v in first.log_e],
                          "own decision": list(own_decisions)})
    for method, result in results.items():
        table[f"rejected by {method}"] = list(result.rejected)
    return table


def combination_section(results: dict, names, own_decisions, level: float, source: str,
                        verdict: str = "") -> ReportSection:
    table = combination_table(results, names, own_decisions)
    return ReportSection(
        key="combine", title=f"{len(table)} audits combined", source=source, parameters={"level": level},
        summary=(*((verdict,) if verdict else ()),
                 *(f"{m}: {sum(r.rejected)} of {len(table)} rejected ({r.guarantee})" for m, r in results.items())),
        tables=(ReportTable("Audits and rejections", table),),
        numbers={m: r.to_dict() for m, r in results.items()})


# ------------------------------------------------------------------- anytime-valid comparison

def difference_trajectory_chart(comparison) -> dict:
    """The confidence sequence of B − A after every paired case, the running mean, the margin
    band [−δ, δ] and the zero line (thinned to MAX_TRAJECTORY_POINTS steps, the decision kept)."""
    import altair as alt
    seq = comparison.sequence
    a, b = comparison.names
    cs = seq.sequence
    steps = thinned_steps(seq.n, [seq.decided_at or 0, seq.n])
    d = seq.differences
    running = np.cumsum(d) / np.arange(1, d.size + 1)
    frame = pd.DataFrame({"case": steps, "lower": cs.lower[steps - 1], "upper": cs.upper[steps - 1],
                          "mean": running[steps - 1]})
    delta = comparison.margin
    x = alt.X("case:Q", title="paired cases so far", scale=alt.Scale(domain=[1, max(seq.n, 2)]))
    y_scale = alt.Scale(domain=[-1, 1])
    band = alt.Chart(pd.DataFrame({"low": [-delta], "high": [delta], "what": [f"margin ±{delta:g}"]})).mark_rect(
        opacity=0.18, color="#7f7f7f").encode(y=alt.Y("low:Q", scale=y_scale), y2="high:Q",
                                              tooltip=[alt.Tooltip("what:N", title="band")])
    area = alt.Chart(frame).mark_area(opacity=0.3, color="#1f4e79").encode(
        x=x, y=alt.Y("lower:Q", title=f"{b} − {a}", scale=y_scale), y2="upper:Q")
    long = frame.melt(id_vars="case", value_vars=["lower", "upper", "mean"], var_name="line", value_name="value")
    names = {"lower": f"{1 - seq.alpha:.0%} lower bound", "upper": f"{1 - seq.alpha:.0%} upper bound",
             "mean": "running mean difference"}
    long["line"] = long["line"].map(names)
    lines = alt.Chart(long).mark_line(strokeWidth=2).encode(
        x=x, y=alt.Y("value:Q", scale=y_scale),
        color=alt.Color("line:N", title=None, scale=alt.Scale(domain=list(names.values()),
                                                              range=["#1f4e79", "#1f4e79", "#d95f02"])),
        strokeDash=alt.StrokeDash("line:N", title=None, scale=alt.Scale(domain=list(names.values()),
                                                                        range=[[6, 3], [1, 0], [2, 2]])),
        tooltip=["case:Q", "line:N", alt.Tooltip("value:Q", format="+.3f")])
    zero = alt.Chart(pd.DataFrame({"y": [0.0]})).mark_rule(color="#444").encode(y="y:Q")
    layers = [band, area, lines, zero]
    if seq.decided_at:
        mark = pd.DataFrame({"case": [seq.decided_at], "text": [f"{seq.decision} at case {seq.decided_at}"]})
        layers.append(alt.Chart(mark).mark_rule(strokeDash=[2, 2], color="#2a7f3f").encode(x="case:Q"))
        layers.append(alt.Chart(mark).mark_text(align="left", dx=4, dy=-8, fontSize=13, color="#2a7f3f").encode(
            x="case:Q", y=alt.value(12), text="text:N"))
    chart = alt.layer(*layers).properties(
        title=alt.TitleParams(f"Anytime-valid difference, {b} − {a}", subtitle=[
            f"{1 - seq.alpha:.0%} confidence sequence: valid at every case, however you stop",
            f"grey band = margin ±{delta:g}; bounds above it = {b} better, below = {a} better"]), height=300)
    return chart_spec(chart)


def ranks_chart(many) -> dict:
    """Each run's rank interval (1 = best) with its mean score, coloured and shaped by tie group."""
    import altair as alt
    table = many.tie_table()
    table["rank_mid"] = (table["rank_low"] + table["rank_high"]) / 2
    table["tie group"] = table["group"].map(lambda g: f"group {g}")
    order = list(table["run"])
    y = alt.Y("run:N", sort=order, title=None)
    x = alt.X("rank_low:Q", title="rank interval (1 = best), simultaneous over all runs",
              scale=alt.Scale(domain=[0.5, len(many.names) + 0.5]), axis=alt.Axis(tickMinStep=1))
    groups = sorted(table["tie group"].unique(), key=lambda g: int(g.split()[1]))
    shapes = ["circle", "square", "diamond", "triangle-up", "cross", "triangle-down"]
    colour = alt.Color("tie group:N", scale=alt.Scale(domain=groups), title="tie group")
    shape = alt.Shape("tie group:N", scale=alt.Scale(domain=groups,
                                                    range=[shapes[i % len(shapes)] for i in range(len(groups))]),
                      title="tie group")
    rules = alt.Chart(table).mark_rule(strokeWidth=6, opacity=0.6).encode(x=x, x2="rank_high:Q", y=y, color=colour)
    points = alt.Chart(table).mark_point(filled=True, size=140).encode(
        x="rank_mid:Q", y=y, color=colour, shape=shape,
        tooltip=["run", "group", alt.Tooltip("mean:Q", format=".3f"), "rank_low", "rank_high",
                 "indistinguishable_from"])
    labels = alt.Chart(table).mark_text(align="left", dx=10, fontSize=13).encode(
        x="rank_high:Q", y=y, text=alt.Text("mean:Q", format=".3f"))
    chart = (rules + points + labels).properties(
        title=alt.TitleParams("Ranks with simultaneous intervals", subtitle=[
            f"{len(many.names)} runs on {many.n} matched cases", f"{many.multiplicity} over {many.family_size} pair(s); "
            "label = mean score"]), height=max(140, 34 * len(table)))
    return chart_spec(chart)


def pairs_table(many) -> pd.DataFrame:
    """Every pair's difference, simultaneous bounds and margin decision."""
    return many.pairs.rename(columns={"a": "run A", "b": "run B", "difference": "B − A", "lower": "lower bound",
                                      "upper": "upper bound"})


def sequential_summary(comparison) -> str:
    """One line: the sequence's bounds, the decision and where it was reached, the fixed-n tests."""
    seq, o = comparison.sequence, comparison.overall
    text = (f"Anytime-valid {1 - seq.alpha:.0%} bounds on B − A after {seq.n} paired cases: "
            f"[{seq.lower:+.3f}, {seq.upper:+.3f}] ({seq.method} on (d + 1)/2), margin {seq.margin:g}: {seq.decision}"
            + (f" (from case {seq.decided_at})" if seq.decided_at else "") + ". "
            f"Fixed-n (valid only at this n, fixed in advance): {o.interval} [{o.ci_low:+.3f}, {o.ci_high:+.3f}]")
    if comparison.mcnemar is not None:
        m = comparison.mcnemar
        text += f"; exact McNemar p = {m.pvalue:.3g} ({m.regressions} regressions, {m.improvements} improvements)"
    return text + "."


def many_summary(many) -> str:
    groups = ", ".join("{" + ", ".join(many.names[r] for r in g) + "}" for g in many.groups)
    return (f"{len(many.names)} runs on {many.n} matched cases: tie groups at margin {many.margin:g}, best first: "
            f"{groups} ({many.multiplicity} over {many.family_size} pair(s), each at level "
            f"{many.level:.3g}: every claim holds at once with probability ≥ {1 - many.alpha:.0%}).")


def subgroup_display_table(comparison) -> pd.DataFrame:
    """The subgroup rows, the anytime-valid columns first: family-wise bounds and decision, the
    subgroup's own bounds, then the fixed-n interval and McNemar p. The fixed-n method, the same
    on every row, is named once beside the table (the overall interval's name), not in a column;
    rows of different methods (0/1 scores in one subgroup, graded in another) keep the column."""
    table = comparison.subgroups
    columns = ["subgroup", "n", "mean_a", "mean_b", "difference", "decision", "fw_low", "fw_high", "cs_low",
               "cs_high", "ci_low", "ci_high", "mcnemar_p", "regressions", "improvements"]
    if "interval" in table.columns and table["interval"].nunique() > 1:
        columns.append("interval")
    names = {"fw_low": "anytime α/G low", "fw_high": "anytime α/G high", "cs_low": "anytime own low",
             "cs_high": "anytime own high", "ci_low": "fixed n low", "ci_high": "fixed n high",
             "mcnemar_p": "McNemar p", "interval": "fixed-n method"}
    return table[[c for c in columns if c in table.columns]].rename(columns=names)


def confidence_sequence_chart(frame: pd.DataFrame, confidence: float) -> dict:
    """The anytime-valid interval after every score, one band per group (``frame``: group, t,
    mean, low, high; thinned to :data:`MAX_TRAJECTORY_POINTS` steps per group)."""
    import altair as alt
    x = alt.X("t:Q", title="scores seen")
    band = alt.Chart(frame).mark_area(opacity=0.25).encode(
        x=x, y=alt.Y("low:Q", title=f"mean score, {confidence:.0%} anytime-valid interval",
                     scale=alt.Scale(domain=[0, 1])), y2="high:Q", color=alt.Color("group:N", title=None))
    line = alt.Chart(frame).mark_line().encode(
        x=x, y="mean:Q", color="group:N",
        tooltip=["group", "t", alt.Tooltip("mean:Q", format=".3f"), alt.Tooltip("low:Q", format=".3f"),
                 alt.Tooltip("high:Q", format=".3f")])
    return chart_spec((band + line).properties(title="Confidence sequence of the mean score", height=260))
