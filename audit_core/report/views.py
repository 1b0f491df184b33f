"""Tables, chart specs and report sections built from engine results (no Streamlit).

The dashboard pages and the ``report`` command share these builders, so a number, a table and a
chart look the same in the app and in an exported report. Nothing here computes a statistic: the
functions only arrange what ``audit_core.identify``, ``.sequential`` and ``.auditing`` returned.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import altair as alt
import numpy as np
import pandas as pd

from audit_core.report.charts import (
    OUTCOME_ORDER, frequency_accuracy_chart, frequency_heatmap, hasse_chart, outcome_bars,
    response_heatmap, stop_boxplot, style, subgroup_accuracy_chart, trajectory_chart,
)
from audit_core.report.document import ReportChart, ReportSection, ReportTable
from audit_core.sequential.replay import STAT_COLUMNS

EMPTY_SUPPORT_KEY = "∅"
MAX_TRAJECTORY_POINTS = 600  # points drawn per e-process; longer runs are thinned (stops kept)
RATE_COLUMNS = {"failure_found": OUTCOME_ORDER[0], "passed": OUTCOME_ORDER[1], "inconclusive": OUTCOME_ORDER[2]}


def chart_spec(chart: alt.TopLevelMixin) -> dict:
    """Styled Vega-Lite spec that fills its container's width (the report fixes the width)."""
    spec = style(chart).to_dict()
    spec.setdefault("width", "container")
    # Fit the width only: the height stays the plot's own, so titles and rotated labels add to it.
    spec["autosize"] = {"type": "fit-x", "contains": "padding"}
    return spec


def support_name(components: Sequence[str]) -> str:
    """Name of a component support used everywhere: "base only" or "target + sham"."""
    return " + ".join(components) if components else "base only"


# ------------------------------------------------------------------------------ identifiability

def support_key(components: Sequence[str]) -> str:
    """Selection key of a lattice node ("∅" for the base support)."""
    return "+".join(components) if components else EMPTY_SUPPORT_KEY


def components_of_key(key: str) -> list[str]:
    return [] if key == EMPTY_SUPPORT_KEY else key.split("+")


def abbreviations(names: Sequence[str]) -> dict[str, str]:
    """One capital letter per component when the initials are unique, else the full names."""
    initials = [n[:1].upper() for n in names]
    if len(set(initials)) == len(initials) and all(initials):
        return dict(zip(names, initials))
    return {n: n for n in names}


def _cell_count(cells) -> int:
    return cells if isinstance(cells, (int, np.integer)) else len(cells)


def lattice_spec(lat, component_names: Sequence[str], estimand: str, current: str | None) -> dict:
    """Hasse diagram of ``lattice()``: rank = number of components, ``current`` node outlined."""
    short = abbreviations(component_names)
    rows = []
    for node in lat.supports:
        comps = tuple(node.components)
        rows.append({"key": support_key(comps), "label": "base" if not comps else "+".join(short[c] for c in comps),
                     "rank": len(comps), "n_collisions": int(node.n_collisions), "n_classes": int(node.n_classes),
                     "cells": _cell_count(node.cells), "identified": bool(node.identified),
                     "status": "identified" if node.identified else "not identified", "members": set(comps)})
    nodes = pd.DataFrame(rows)
    # Nodes of one rank spread evenly around x = 0, in the engine's order (rank, then name).
    nodes["x"] = nodes.groupby("rank").cumcount().astype(float)
    nodes["x"] = 1.6 * (nodes["x"] - nodes.groupby("rank")["x"].transform("mean"))
    nodes["current"] = nodes["key"] == current
    x_of = dict(zip(nodes["key"], nodes["x"]))
    edges = pd.DataFrame([{"x": x_of[lo["key"]], "y": lo["rank"], "x2": x_of[up["key"]], "y2": up["rank"]}
                          for lo in rows for up in rows
                          if up["rank"] == lo["rank"] + 1 and lo["members"] <= up["members"]],
                         columns=["x", "y", "x2", "y2"])
    legend = ", ".join(f"{v} = {k}" for k, v in short.items() if v != k)
    return chart_spec(hasse_chart(nodes.drop(columns=["members"]), edges,
                                  title=f"Support lattice for {estimand}", legend=legend))


def heatmap_spec(pc, tau: np.ndarray, support: Sequence[str]) -> dict:
    """Policy × cell responses of the deterministic policies, support cells outlined."""
    labels = [f"{name} (τ={int(t)})" for name, t in zip(pc.names, tau)]
    codebook = list(pc.codebook)
    inside = set(support)
    long = pd.DataFrame([{"policy": labels[i], "cell": cell, "response": codebook[int(pc.responses[i, j])] or "(empty)",
                          "in_support": cell in inside,
                          "support": "in support" if cell in inside else "outside support"}
                         for i in range(len(pc.names)) for j, cell in enumerate(pc.cells)])
    return chart_spec(response_heatmap(long, title=f"Policy × cell responses ({len(inside)} of "
                                                   f"{len(pc.cells)} cells observed)",
                                       cell_title=f"cell ({':'.join(pc.axes)})"))


def class_table(ident, tau: dict[str, int]) -> pd.DataFrame:
    return pd.DataFrame([{"class": i + 1,
                          "τ values": ", ".join(str(v) for v in sorted({tau[m] for m in members if m in tau})),
                          "size": len(members), "members": ", ".join(members)}
                         for i, members in enumerate(ident.classes)],
                        columns=["class", "τ values", "size", "members"])


def mixture_table(ident) -> pd.DataFrame:
    return pd.DataFrame([{"mixture": k, "classes occupied": ", ".join(str(i + 1) for i in v)}
                         for k, v in ident.mixture_signatures.items()], columns=["mixture", "classes occupied"])


def collision_table(ident, tau: dict[str, int]) -> pd.DataFrame:
    return pd.DataFrame([{"policy A": a, "policy B": b, "τ(A)": tau.get(a), "τ(B)": tau.get(b),
                          "cells that would separate them": ", ".join(ident.separating_cells.get((a, b), ())),
                          "# separating cells": len(ident.separating_cells.get((a, b), ()))}
                         for a, b in ident.collisions],
                        columns=["policy A", "policy B", "τ(A)", "τ(B)", "cells that would separate them",
                                 "# separating cells"])


def leave_one_out_table(lat) -> pd.DataFrame:
    return pd.DataFrame([{"removed": row.removed, "collisions": row.n_collisions,
                          "witnesses": "; ".join(f"{a} ≡ {b}" for a, b in row.witnesses),
                          "exclusive witnesses": "; ".join(f"{a} ≡ {b}" for a, b in row.exclusive_witnesses),
                          "corollary": row.corollary} for row in lat.leave_one_out],
                        columns=["removed", "collisions", "witnesses", "exclusive witnesses", "corollary"])


def lattice_table(lat) -> pd.DataFrame:
    return pd.DataFrame([{"support": support_name(node.components), "cells": _cell_count(node.cells),
                          "classes": node.n_classes, "collisions": node.n_collisions,
                          "identified": node.identified} for node in lat.supports])


def identification_section(ident, lat, tau: dict[str, int], estimand: str, support_label: str, source: str,
                           components: Sequence[str], custom_cells: Sequence[str] | None,
                           charts: Sequence[ReportChart]) -> ReportSection:
    verdict = "identified" if ident.identified else "not identified"
    return ReportSection(
        key="explorer", title=f"Identifiability of {estimand} on {support_label}", source=source,
        parameters={"estimand": estimand, "components": list(components), "custom cells": list(custom_cells or ())},
        summary=(f"{len(ident.cells)} cells observed; {ident.n_classes} equivalence classes; "
                 f"{ident.n_collisions} cross-estimand collisions; {estimand} {verdict}.",
                 *(f"Without {row.removed}: {row.corollary}" for row in lat.leave_one_out)),
        tables=(ReportTable("Equivalence classes", class_table(ident, tau)),
                ReportTable("Collisions", collision_table(ident, tau)),
                ReportTable("Lattice of component supports", lattice_table(lat)),
                ReportTable("Leave one component out", leave_one_out_table(lat))),
        charts=tuple(charts),
        numbers={"identification": ident.to_dict(), "lattice": lat.to_dict()})


def optima_table(result, checks: Sequence) -> pd.DataFrame:
    """Every optimal support with the re-check by ``identify`` (collisions, identifies τ)."""
    return pd.DataFrame({"#": range(1, len(result.supports) + 1),
                         "cells": [", ".join(s) for s in result.supports],
                         "size": [len(s) for s in result.supports],
                         "collisions": [c.n_collisions for c in checks],
                         "identifies τ": ["yes" if c.identified else "NO" for c in checks]})


def cell_frequency_spec(pc, supports: Sequence[Sequence[str]], parse_cell_id) -> dict:
    """Heat map of how many optimal supports use each cell: x = the axis with most values, y = the rest."""
    counts = pd.Series([cell for s in supports for cell in s], dtype=object).value_counts()
    axes = list(pc.axes)
    parsed = pd.DataFrame([parse_cell_id(c, pc.axes) for c in pc.cells])
    x_axis = max(axes, key=lambda a: len(pc.axes[a]))
    y_axes = [a for a in axes if a != x_axis]
    y_name = " × ".join(y_axes) if y_axes else "cell"
    freq = pd.DataFrame({x_axis: parsed[x_axis],
                         y_name: parsed[y_axes].agg(":".join, axis=1) if y_axes else "all",
                         "count": [int(counts.get(c, 0)) for c in pc.cells]})
    freq["share"] = freq["count"] / max(len(supports), 1)
    return chart_spec(frequency_heatmap(freq, x_axis, y_name))


def synthesis_section(result, optima: pd.DataFrame, freq_spec: dict | None, estimand: str, source: str,
                      cost: dict | None, must_include: Sequence[str], exclude: Sequence[str]) -> ReportSection:
    return ReportSection(
        key="supports", title=f"Minimal identifying supports for {estimand}", source=source,
        parameters={"estimand": estimand, "cost": cost or "1 per cell", "must include": list(must_include),
                    "exclude": list(exclude)},
        summary=(f"Status {result.status}; optimal cost {result.cost}; {result.size} cells; "
                 f"{result.n_optimal} optimal supports (complete list: {result.complete}); "
                 f"{(optima['identifies τ'] == 'yes').sum()} of {len(optima)} re-checked as identifying.",),
        tables=(ReportTable("All optimal supports", optima),),
        charts=(ReportChart("Cell frequency among optimal supports", freq_spec),) if freq_spec else (),
        numbers=result.to_dict())


# --------------------------------------------------------------------------------------- replay

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


def decision_table(result, model_processes: Sequence[str]) -> pd.DataFrame:
    return pd.DataFrame([{"process": name, "null tested": null_of(name, model_processes).split(" ")[0],
                          "stop (case)": "never" if result.stops[name] is None else str(result.stops[name]),
                          "final log₁₀ E": float(result.log_e[name][-1]) / math.log(10),
                          "decision": result.decisions[name]} for name in result.log_e])


def subgroup_view(result) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(table as shown: subgroup columns, n, correct, accuracy, Wilson (fixed-n) and anytime-valid
    intervals, the below-q flag on the anytime-valid bound, share; chart data with a single
    ``subgroup`` label column)."""
    table = result.subgroup_table.copy()
    group_names = [c for c in table.columns if c not in STAT_COLUMNS]
    table["below q (anytime-valid)"] = table["cs_high"] < result.params.q
    table["share"] = table["n"] / table["n"].sum()
    chart_data = table.assign(subgroup=table[group_names].astype(str).agg(" · ".join, axis=1))
    return table, chart_data


def replay_specs(result, model_processes: Sequence[str], data_name: str) -> tuple[dict, dict, dict]:
    """(trajectories, accuracy per subgroup, sampling share vs accuracy) specs of a ``Replay``."""
    _, chart_data = subgroup_view(result)
    return (trajectory_spec(result, model_processes, f"E-process trajectories: {data_name}"),
            chart_spec(subgroup_accuracy_chart(chart_data, result.params.q)),
            chart_spec(frequency_accuracy_chart(
                chart_data, subtitle="share of the replayed cases per subgroup against its accuracy")))


def replay_section(result, model_processes: Sequence[str], data_name: str, source: str, columns: dict,
                   notes: Sequence[str], specs: Sequence[dict]) -> ReportSection:
    dual, overall = result.dual, result.overall
    table, _ = subgroup_view(result)
    below = [" / ".join(map(str, p.label)) for p in result.subgroups if p.below(result.params.q)]
    return ReportSection(
        key="replay", title=f"Replay of {data_name}", source=source,
        parameters={**columns, **result.params.to_dict(), "model process": dual.model_process,
                    "auditor process": dual.auditor_process},
        summary=(f"{result.n} cases; dual test ({dual.model_process} vs {dual.auditor_process}): "
                 f"{dual.decision}" + (f" at case {dual.stop}" if dual.stop else "") + ".",
                 f"Overall accuracy {overall.accuracy:.3f} (95% anytime-valid interval {overall.cs_low:.3f}–"
                 f"{overall.cs_high:.3f}; Wilson, fixed n: {overall.ci_low:.3f}–{overall.ci_high:.3f}).",
                 (f"Subgroups whose anytime-valid interval lies below q = {result.params.q:g}: {', '.join(below)}."
                  if below else f"No subgroup's anytime-valid interval lies below q = {result.params.q:g}."),
                 *notes),
        tables=(ReportTable("Decision per process", decision_table(result, model_processes)),
                ReportTable("Subgroups", table)),
        charts=tuple(ReportChart(c, s) for c, s in zip(
            ("E-process trajectories", "Accuracy per subgroup", "Sampling share vs accuracy"), specs)),
        numbers=result.to_dict())


# ---------------------------------------------------------------------------------------- study

def row_label(strategy: str, process: str) -> str:
    return f"{strategy} · {process}"


def study_tables(study) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(summary with a ``method`` column first, per-replicate results with ``method``)."""
    summary = study.summary.copy()
    summary.insert(0, "method", [row_label(s, p) for s, p in zip(summary["strategy"], summary["process"])])
    results = study.results.copy()
    results["method"] = [row_label(s, p) for s, p in zip(results["strategy"], results["process"])]
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
                  extra_tables: Sequence[ReportTable] = ()) -> ReportSection:
    summary, _ = study_tables(study)
    return ReportSection(
        key=key, title=title, source=source, parameters=parameters,
        summary=tuple(f"{r.method}: failure found {r.failure_found:.0%}, passed {r.passed:.0%}, "
                      f"inconclusive {r.inconclusive:.0%}, median stop {r.stop_median:g}"
                      for r in summary.itertuples()),
        tables=(*extra_tables, ReportTable("Summary per row", summary)), charts=tuple(charts),
        numbers=study.to_dict())
