"""Minimal supports: the cheapest cell sets that still identify τ (paper 000, protocol synthesis).

A support identifies τ iff it contains at least one distinguishing cell of every pair of policies
with different τ (a weighted minimum hitting set, solved with OR-Tools CP-SAT by
``audit_core.identify.minimum_supports``). This page only collects costs and constraints, shows
the solver's answer and re-checks each optimum with ``identify``.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from audit_core.identify import ESTIMANDS, parse_cell_id
from audit_core.report import views
from pages import _shared

_shared.page_header(
    "Minimal supports",
    "Find the cheapest sets of cells that still identify τ: every pair of policies with different τ "
    "must differ on at least one chosen cell. Costs, required and forbidden cells are yours to set.")

pc_key, pc, pc_label = _shared.current_policy_class()
estimands = [e for e in ESTIMANDS if e != "file" or pc.tau is not None]
axes = list(pc.axes)

with st.form("synthesis"):
    c1, c2 = st.columns([1, 1.4])
    with c1:
        estimand = st.selectbox("Estimand τ", estimands, help="; ".join(f"{k}: {v}" for k, v in ESTIMANDS.items()),
                                index=estimands.index(st.session_state.get("estimand", estimands[0]))
                                if st.session_state.get("estimand") in estimands else 0)
        mode = st.radio("Costs", ["axis", "cell"], horizontal=True,
                        format_func={"axis": "per value of one axis", "cell": "per cell"}.get,
                        help="Per axis value: a cell costs the value of its chosen axis (e.g. candidate "
                             "scoring three times a generated choice). Per cell: edit each cell's cost.")
        cost_axis = st.selectbox("Axis that sets the cost", axes,
                                 index=axes.index("readout") if "readout" in axes else len(axes) - 1)
        values = list(pc.axes[cost_axis])
        if len(values) == 2:
            ratio = st.slider(f"Cost of '{values[1]}' relative to '{values[0]}'", 1.0, 10.0, 1.0, 0.5,
                              help="1 = every cell costs the same.")
            axis_cost = {values[0]: 1.0, values[1]: float(ratio)}
        else:
            edited = st.data_editor(pd.DataFrame({"value": values, "cost": [1.0] * len(values)}),
                                    disabled=["value"], hide_index=True, key="axis_costs")
            axis_cost = dict(zip(edited["value"], edited["cost"].astype(float)))
    with c2:
        cell_costs = st.data_editor(pd.DataFrame({"cell": list(pc.cells), "cost": [1.0] * len(pc.cells)}),
                                    disabled=["cell"], hide_index=True, height=210, key="cell_costs")
        st.caption("Per-cell costs above are used when Costs = per cell.")
        must = st.multiselect("Cells that must be included", list(pc.cells))
        exclude = st.multiselect("Cells that may not be used", list(pc.cells))
    submitted = st.form_submit_button("Solve", type="primary", icon=":material/play_arrow:")

if mode == "axis":
    cost = tuple(sorted(axis_cost.items()))
else:
    cost = tuple(sorted(zip(cell_costs["cell"], cell_costs["cost"].astype(float))))
request = (estimand, cost, tuple(must), tuple(exclude))
if submitted or "synthesis_request" not in st.session_state:
    st.session_state["synthesis_request"] = request
estimand, cost, must, exclude = st.session_state["synthesis_request"]

try:
    with st.spinner("Solving with CP-SAT…"):
        result = _shared.synthesis(pc_key, estimand, cost, must, exclude, pc)
except Exception as exc:
    from audit_core.errors import InputError
    if not isinstance(exc, InputError):
        raise
    _shared.show_input_error(exc, "these constraints")
    st.stop()

m1, m2, m3, m4 = st.columns(4)
m1.metric("Solver status", result.status,
          help="OPTIMAL: proven minimum. FEASIBLE: a support was found but not proven cheapest.")
m2.metric("Optimal cost", "–" if result.cost is None else f"{result.cost:g}")
m3.metric("Cells in an optimum", "–" if result.size is None else result.size)
m4.metric("Optimal supports", result.n_optimal,
          help="How many different supports reach the optimal cost.")
if result.complete:
    st.success(f"All optimal supports are listed ({result.n_optimal}); enumeration was proven complete.")
elif result.status in ("OPTIMAL", "FEASIBLE"):
    st.warning("The list of optimal supports may be incomplete (enumeration not proven complete).")
else:
    st.error(f"No identifying support under these constraints (status {result.status}).")
if result.unseparable_pairs:
    st.error("These pairs differ on no cell and can never be separated: "
             + "; ".join(f"{a} ≡ {b}" for a, b in result.unseparable_pairs))
st.caption("Mandatory cells (in every identifying support): "
           + (", ".join(result.mandatory_cells) if result.mandatory_cells else "none."))

if result.supports:
    checks = [_shared.identification(pc_key, (), estimand, tuple(s), pc) for s in result.supports]
    optima = views.optima_table(result, checks)
    all_ok = all(c.identified for c in checks)
    (st.success if all_ok else st.error)(
        f"Check with identify(): {sum(c.identified for c in checks)} of {len(checks)} optimal supports "
        "identify τ.")
    freq_spec = views.cell_frequency_spec(pc, result.supports, parse_cell_id)

    left, right = st.columns([1, 1.2])
    with left:
        st.subheader("All optimal supports")
        st.dataframe(optima, hide_index=True, width="stretch", height=380)
        _shared.csv_download(optima, "optimal_supports.csv")
    with right:
        _shared.show_chart(freq_spec)

    pick = st.selectbox("Support to open in the explorer", optima["#"],
                        format_func=lambda i: f"#{i}: {optima['cells'][i - 1]}")
    if st.button("Open in protocol explorer", icon=":material/open_in_new:"):
        st.switch_page("pages/explorer.py", query_params={
            "components": "none", "estimand": estimand, "cells": ",".join(result.supports[pick - 1])})

    _shared.register_section(views.synthesis_section(result, optima, freq_spec, estimand, pc_label,
                                                     dict(cost), must, exclude))
