"""Minimal supports: the cheapest cell sets that still identify τ (paper 000, protocol synthesis).

A support identifies τ iff it contains at least one distinguishing cell of every pair of policies
with different τ (a weighted minimum hitting set, solved with OR-Tools CP-SAT). This page only
collects costs and constraints and draws what ``audit_core.analyses.check_supports`` returned;
the form keeps its values across pages, so the result on screen always matches the form.
"""

from __future__ import annotations

from pages._first_run import through_router

through_router()  # a deep link as a fresh server's first request runs this file itself (pages/_first_run.py)

import pandas as pd
import streamlit as st

from audit_core.analyses import ESTIMANDS, available_estimands
from audit_core.errors import InputError
from audit_core.report import format as fmt
from pages import _cache, _shared, _uploads
from pages._first_views import SUPPORTS as FIRST

REQUEST_KEY = "synthesis_request"

_shared.page_header(
    "Minimal supports",
    "Find the cheapest sets of cells that still identify τ: every pair of policies with different τ "
    "must differ on at least one chosen cell. Costs, required and forbidden cells are yours to set.")

# The class chosen on the explorer (kept in session state there), else the frozen class.
upload = _uploads.accepted_upload("policy_class")
policy = (_uploads.load_upload("policy_class", upload)
          if upload is not None and st.session_state.get("policy_source") == "upload"
          else _uploads.bundled_source("policy_class"))
_shared.show_source(policy)
pc = policy.value
estimands = list(available_estimands(pc))
axes = list(pc.axes)
if st.session_state.get("syn_estimand") not in estimands:
    st.session_state["syn_estimand"] = (st.session_state.get("estimand") if st.session_state.get("estimand")
                                        in estimands else estimands[0])
LINK = [_shared.LinkField("estimand", "syn_estimand", options=tuple(estimands)),
        _shared.LinkField("costs", "syn_mode", options=("axis", "cell")),
        _shared.LinkField("axis", "syn_axis", options=tuple(axes)),
        *[_shared.LinkField(f"ratio_{a}", f"syn_ratio_{a}", "float", low=1.0, high=10.0) for a in axes],
        _shared.LinkField("time_limit", "syn_time", "float", low=0.5, high=600.0),
        _shared.LinkField("must", "syn_must", "list", options=tuple(pc.cells)),
        _shared.LinkField("exclude", "syn_exclude", "list", options=tuple(pc.cells))]
from_link = policy.bundled and _shared.link_settings(LINK)
# Editors cannot be restored through session state: they start from the last submitted values.
last = st.session_state.get(REQUEST_KEY)
last_costs = dict(last[1]) if last and last[0] == policy.key else {}

with st.form("synthesis"):
    c1, c2 = st.columns([1, 1.4])
    with c1:
        estimand = st.selectbox("Estimand τ", estimands, key=_shared.kept("syn_estimand"),
                                help="; ".join(f"{k}: {v}" for k, v in ESTIMANDS.items()))
        mode = st.radio("Costs", ["axis", "cell"], horizontal=True, key=_shared.kept("syn_mode"),
                        format_func={"axis": "per value of one axis", "cell": "per cell"}.get,
                        help="Per axis value: a cell costs the value of its chosen axis (e.g. candidate "
                             "scoring three times a generated choice). Per cell: edit each cell's cost.")
        if st.session_state.get("syn_axis") not in axes:
            st.session_state["syn_axis"] = "readout" if "readout" in axes else axes[-1]
        cost_axis = st.selectbox("Axis that sets the cost", axes, key=_shared.kept("syn_axis"))
        values = list(pc.axes[cost_axis])
        if len(values) == 2:
            ratio = st.slider(f"Cost of '{values[1]}' relative to '{values[0]}'", 1.0, 10.0, FIRST.ratio, 0.5,
                              key=_shared.kept(f"syn_ratio_{cost_axis}"), help="1 = every cell costs the same.")
            axis_cost = {values[0]: 1.0, values[1]: float(ratio)}
        else:
            edited = st.data_editor(pd.DataFrame({"value": values,
                                                  "cost": [last_costs.get(v, 1.0) for v in values]}),
                                    disabled=["value"], hide_index=True, key="axis_costs")
            axis_cost = dict(zip(edited["value"], edited["cost"].astype(float), strict=False))
        time_limit = st.number_input("Time limit (seconds)", 0.5, 600.0, FIRST.time_limit, 0.5, key=_shared.kept("syn_time"),
                                     help="Limit of the whole search; a support found by then is reported "
                                          "with its cost, a proven lower bound and the gap.")
    with c2:
        cell_costs = st.data_editor(pd.DataFrame({"cell": list(pc.cells),
                                                  "cost": [last_costs.get(c, 1.0) for c in pc.cells]}),
                                    disabled=["cell"], hide_index=True, height=210, key="cell_costs")
        st.caption("Per-cell costs above are used when Costs = per cell.")
        must = st.multiselect("Cells that must be included", list(pc.cells), key=_shared.kept("syn_must"))
        exclude = st.multiselect("Cells that may not be used", list(pc.cells), key=_shared.kept("syn_exclude"))
    submitted = st.form_submit_button("Solve", type="primary", icon=":material/play_arrow:")

if mode == "axis":
    cost = tuple(sorted(axis_cost.items()))
else:
    cost = tuple(sorted(zip(cell_costs["cell"], cell_costs["cost"].astype(float), strict=False)))
request = (policy.key, cost, estimand, tuple(must), tuple(exclude), float(time_limit))
if submitted or from_link or last is None or last[0] != policy.key:
    st.session_state[REQUEST_KEY] = request
_shared.write_link([f for f in LINK if f.key in st.session_state], shareable=policy.bundled)
if mode == "cell":
    st.caption("Per-cell costs stay in this session; a link carries the per-axis costs only.")
_, cost, estimand, must, exclude, time_limit = st.session_state[REQUEST_KEY]
if st.session_state[REQUEST_KEY] != request:
    st.caption("The result below is for the last solved settings; press **Solve** to use the form's.")

try:
    with st.spinner("Solving with CP-SAT…"):
        search = _cache.check_supports(policy, estimand, cost, must, exclude, time_limit)
except InputError as exc:
    _shared.show_input_error(exc, "these constraints", "Change them and press Solve again.")
    _shared.stop_page()
result = search.synthesis

_shared.show_verdict(search.verdict)
m1, m2, m3, m4 = st.columns(4)
m1.metric("Solver status", result.status,
          help="OPTIMAL: proven minimum. FEASIBLE: a support was found but not proven cheapest. "
               "NOT_IDENTIFIABLE: some pair with different τ differs on no cell.")
m2.metric("Optimal cost", "–" if result.cost is None else f"{result.cost:g}")
m3.metric("Cells in an optimum", "–" if result.size is None else fmt.count(result.size))
m4.metric("Optimal supports", fmt.count(result.n_optimal), help="How many different supports reach the optimal cost.")
if result.cost is not None and result.lower_bound is not None and not result.fallback_for_separable_pairs:
    st.caption(f"Lower bound {result.lower_bound:g}: no support costs less. "
               + ("It meets the cost, so the support is proven cheapest." if result.gap == 0 else
                  f"Gap {result.gap:g} to the cost {result.cost:g} after the {time_limit:g} s time limit: "
                  "the support may not be the cheapest."))
if result.fallback_for_separable_pairs and result.supports:
    st.warning("The supports below are a fallback: they separate every pair that can be separated, but they do "
               "not identify τ, because the pairs named below differ on no cell at all.")
if result.supports and not result.complete:
    st.warning("The list of optimal supports may be incomplete (enumeration not proven complete).")
if result.unseparable_pairs:
    st.error("These pairs differ on no cell and can never be separated: "
             + _shared.plain("; ".join(f"{a} ≡ {b}" for a, b in result.unseparable_pairs)))
st.caption("Cells in every identifying support of the class (whatever the constraints): "
           + (", ".join(result.mandatory_cells) if result.mandatory_cells else "none") + ". "
           + ("Required by you: " + ", ".join(must) + ". " if must else "")
           + ("Excluded by you: " + ", ".join(exclude) + "." if exclude else ""))

if result.supports:
    optima = search.optima_table
    # One above the other: side by side, at 1280 px (presentation mode) either the table's last
    # column or the frequency map's title and axis labels were cut.
    st.subheader("All optimal supports")
    _shared.show_table(optima, height=380, column_config={
        name: st.column_config.Column(width="small") for name in ("#", "size", "collisions", "identifies τ")})
    _shared.csv_download(optima, "optimal_supports.csv")
    _shared.show_chart(search.frequency_chart)

    pick = st.selectbox("Support to open in the explorer", optima["#"],
                        format_func=lambda i: f"#{i}: {optima['cells'][i - 1]}")
    b1, b2 = st.columns(2)
    if b1.button("Open in protocol explorer", icon=":material/open_in_new:"):
        st.switch_page("pages/protocol-explorer.py", query_params={
            "components": "none", "estimand": estimand, "cells": ",".join(result.supports[pick - 1])})
    if policy.bundled and result.identifies and estimand == "tau_full":  # the testbed's items are the frozen layout's
        if b2.button("Run these cells: testbed items for this support", icon=":material/play_arrow:", key="ms_run_cells",
                     help="Items and task files for these cells only; Measure gives τ_full through identification "
                          "from their logs."):
            st.switch_page("pages/testbed-items.py", query_params={"support": ",".join(result.supports[pick - 1])})

_shared.register_section(search.section)
