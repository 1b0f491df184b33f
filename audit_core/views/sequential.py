"""Views of a replayed run (:class:`~audit_core.sequential.Replay`): trajectories, decisions,
subgroups and the report section. Nothing here computes a statistic."""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
import pandas as pd

from audit_core.report.document import ReportChart, ReportSection, ReportTable
from audit_core.views.charts import (
    MAX_CHART_ROWS, chart_spec, frequency_accuracy_chart, subgroup_accuracy_chart, trajectory_chart,
)

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


def decision_table(result, model_processes: Sequence[str]) -> pd.DataFrame:
    return pd.DataFrame([{"process": name, "null tested": null_of(name, model_processes).split(" ")[0],
                          "stop (case)": "never" if result.stops[name] is None else str(result.stops[name]),
                          "final log₁₀ E": float(result.log_e[name][-1]) / math.log(10),
                          "decision": result.decisions[name]} for name in result.log_e])


def subgroup_view(result) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(table as shown: subgroup columns, n, correct, accuracy, interval, share; chart data with a
    single ``subgroup`` label column)."""
    table = result.subgroup_table.copy()
    group_names = [c for c in table.columns if c not in ("n", "correct", "accuracy", "ci_low", "ci_high")]
    table["share"] = table["n"] / table["n"].sum()
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
            chart_spec(subgroup_accuracy_chart(accuracy_data, result.params.q, note=accuracy_note)),
            chart_spec(frequency_accuracy_chart(scatter_data, subtitle=scatter_note)))


def replay_section(result, model_processes: Sequence[str], data_name: str, source: str, columns: dict,
                   notes: Sequence[str], specs: Sequence[dict], verdict: str = "") -> ReportSection:
    dual, overall = result.dual, result.overall
    table, _ = subgroup_view(result)
    return ReportSection(
        key="replay", title=f"Replay of {data_name}", source=source,
        parameters={**columns, **result.params.to_dict(), "model process": dual["model_process"],
                    "auditor process": dual["auditor_process"]},
        summary=(*((verdict,) if verdict else ()),
                 f"{result.n} cases; dual test ({dual['model_process']} vs {dual['auditor_process']}): "
                 f"{dual['decision']}" + (f" at case {dual['stop']}" if dual["stop"] else "") + ".",
                 f"Overall accuracy {overall['accuracy']:.3f} (95% CI {overall['ci_low']:.3f}–{overall['ci_high']:.3f}).",
                 *notes),
        tables=(ReportTable("Decision per process", decision_table(result, model_processes)),
                ReportTable("Subgroups", table)),
        charts=tuple(ReportChart(c, s) for c, s in zip(
            ("E-process trajectories", "Accuracy per subgroup", "Sampling share vs accuracy"), specs)),
        numbers=result.to_dict())


