"""Views of a replayed run (:class:`~audit_core.sequential.Replay`): trajectories, decisions,
subgroups and the report section. Nothing here computes a statistic."""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
import pandas as pd

from audit_core.report.document import ReportChart, ReportSection, ReportTable
from audit_core.sequential.replay import STAT_COLUMNS
from audit_core.views.charts import (
    chart_spec, frequency_accuracy_chart, subgroup_accuracy_chart, trajectory_chart,
)

MAX_TRAJECTORY_POINTS = 600  # points drawn per e-process; longer runs are thinned (stops kept)


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
                   notes: Sequence[str], specs: Sequence[dict], verdict: str = "") -> ReportSection:
    dual, overall = result.dual, result.overall
    table, _ = subgroup_view(result)
    below = [" / ".join(map(str, p.label)) for p in result.subgroups if p.below(result.params.q)]
    return ReportSection(
        key="replay", title=f"Replay of {data_name}", source=source,
        parameters={**columns, **result.params.to_dict(), "model process": dual.model_process,
                    "auditor process": dual.auditor_process},
        summary=(*((verdict,) if verdict else ()),
                 f"{result.n} cases; dual test ({dual.model_process} vs {dual.auditor_process}): "
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


