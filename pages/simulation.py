"""Simulate: repeat audits on a pool to compare sampling strategies and e-processes (paper 001 §4).

Each row of the paper pairs a sampling strategy with an e-process; ``analyses.simulate_study``
repeats each row with fresh seeded label draws and returns decision rates (with Wilson intervals),
stopping times, charts and the report section. In null-validity mode the pool has no failure mode
(every subgroup at or above q), so any "failure mode found" is a Type-I error of the model's null;
its observed rate is shown with its interval next to α.
"""

from __future__ import annotations

from pages._first_run import through_router

through_router()  # a deep link as a fresh server's first request runs this file itself (pages/_first_run.py)

import streamlit as st

from audit_core.analyses import BUNDLED, BUNDLED_POOLS, NULL_POOL, paper_params, paper_rows, resolve_style
from audit_core.errors import InputError
from audit_core.views.auditing import row_label
from pages import _cache, _shared, _uploads

RESULT_KEY = "sim_result"

_shared.page_header(
    "Simulate",
    "Repeat whole audits on a simulated pool: each replicate draws fresh labels, samples cases with "
    "the row's strategy and stops when the dual test decides or the budget runs out. Rates are "
    "shares of replicates; stopping time = cases annotated until the decision.")

LINK = [_shared.LinkField("mode", "sim_mode", options=("power", "null")),
        _shared.LinkField("pool", "sim_pool", options=tuple(BUNDLED_POOLS)),
        _shared.LinkField("replicates", "sim_replicates", "int", low=2, high=500),
        _shared.LinkField("seed", "sim_seed", "int", low=0, high=2**31 - 1),
        _shared.LinkField("alpha", "sim_alpha", "float", low=0.001, high=0.5)]
_shared.link_settings(LINK)

top1, top2 = st.columns([1.4, 1])
with top1:
    mode = st.radio("Mode", ["power", "null"], horizontal=True, key=_shared.kept("sim_mode"),
                    format_func={"power": "Compare methods on a pool",
                                 "null": "Null validity (observed Type-I error)"}.get,
                    help="Null validity runs on the pool without a failure mode, where every "
                         "'failure mode found' is a false rejection of the model's null.")
with top2:
    if mode == "null":
        pool_key = st.selectbox("Pool", [NULL_POOL], format_func=lambda k: BUNDLED[k].title,
                                help="Every subgroup is at or above q, so the model's null is true.")
    else:
        pool_key = st.selectbox("Pool", BUNDLED_POOLS, format_func=lambda k: BUNDLED[k].title,
                                key=_shared.kept("sim_pool"))
style = resolve_style(None, BUNDLED[pool_key].style)  # the pool's own style, as the CLI and API
rows_available = paper_rows(style)
defaults = paper_params(style)
# Budget and q default to the pool's style, so their widgets are kept per style.
LINK += [_shared.LinkField("budget", f"sim_budget_{style}", "int", low=10, high=2000),
         _shared.LinkField("q", f"sim_q_{style}", "float", low=0.5, high=0.99)]
_shared.link_settings(LINK[-2:])

with st.form("simulation"):
    c2, c3, c4, c5, c6 = st.columns(5)
    replicates = int(c2.number_input("Replicates", 2, 500, 40 if mode == "null" else 20, 1,
                                     key=_shared.kept("sim_replicates"),
                                     help="Independent repetitions per row (the paper uses 40–100)."))
    budget = int(c3.number_input("Budget", 10, 2000, defaults.budget, 10, key=_shared.kept(f"sim_budget_{style}"),
                                 help="Maximum cases annotated in one audit."))
    seed = int(c4.number_input("Seed", 0, 2**31 - 1, 0, 1, key=_shared.kept("sim_seed"),
                               help="Same seed, same results."))
    alpha = c5.number_input("α", 0.001, 0.5, defaults.alpha, 0.005, format="%.3f", key=_shared.kept("sim_alpha"),
                            help="Level of both tests: a test stops when its e-value reaches 1/α.")
    q = c6.number_input("q (threshold)", 0.5, 0.99, float(defaults.q), 0.01, key=_shared.kept(f"sim_q_{style}"),
                        help="A subgroup below q is a failure mode.")
    labels = [row_label(*r) for r in rows_available]
    if any(v not in labels for v in st.session_state.get(f"sim_rows_{style}", [])):
        del st.session_state[f"sim_rows_{style}"]
    chosen = st.multiselect("Rows (sampling strategy · e-process)", labels, default=labels,
                            key=_shared.kept(f"sim_rows_{style}"),
                            help="The seven method rows of the paper (SDoH uses the informed prior "
                                 "instead of the oracle).")
    run = st.form_submit_button("Run simulation", type="primary", icon=":material/play_arrow:")

if run:
    rows = [r for r in rows_available if row_label(*r) in chosen]
    if not rows:
        st.error("Choose at least one row.")
    else:
        try:
            # The paper's study parameters with the page's settings, as `simulate --paper` builds them.
            params = paper_params(style, q=q, alpha=alpha, budget=budget)
            bar = st.progress(0.0, text="Starting…")

            def progress(done: int, total: int) -> None:
                bar.progress(min(done / max(total, 1), 1.0), text=f"{done} of {total} audits done")

            st.session_state[RESULT_KEY] = _cache.simulate_study(
                _uploads.bundled_source("pool", pool_key), rows, replicates, params, seed, mode, progress)
            bar.empty()
        except InputError as exc:
            _shared.show_input_error(exc, "these settings", "The last result stays below.")

_shared.write_link(LINK)
view = st.session_state.get(RESULT_KEY)
if view is None:
    st.info("Choose settings and press **Run simulation**. A study of 7 rows × 20 replicates takes "
            "a few seconds.")
    _shared.stop_page()

params = view.params
_shared.show_verdict(view.verdict)
st.caption(f"Last run: pool **{_shared.plain(view.source.name)}**, {view.replicates} replicates per row, "
           f"budget {params.budget}, seed {view.seed}, q = {params.q}, α = {params.alpha}, m = {params.m}, "
           f"{params.n_init} initial random cases of the adaptive auditor (as in the paper).")
if view.type_one_table is not None:
    st.subheader("Null validity")
    st.caption("On this pool no subgroup is below q, so every 'failure mode found' is a false "
               "rejection. Anytime validity promises a rate of at most α.")
    type1 = view.type_one_table
    worst = type1.sort_values("observed Type-I error", kind="stable").iloc[-1]
    m1, m2 = st.columns(2)
    m1.metric("Highest observed Type-I error", f"{worst['observed Type-I error']:.3f}",
              help=f"Row {worst['method']}; 95% Wilson interval "
                   f"[{worst['95% CI low']:.3f}, {worst['95% CI high']:.3f}].")
    m2.metric("α", f"{params.alpha:g}")
    _shared.show_table(type1)

left, right = st.columns(2)
with left:
    _shared.show_chart(view.outcome_chart)
with right:
    _shared.show_chart(view.stop_chart)
if view.frequency_chart is not None:
    _shared.show_chart(view.frequency_chart)
    st.caption("Does the adaptive auditor learn to sample the weak subgroups? Frequency above 1 means a "
               "subgroup was annotated more often than its share of the pool (paper 001, Figure 3).")
st.subheader("Summary per row")
st.caption("Rates are shares of replicates with their 95% Wilson intervals; stop = cases annotated "
           "until the decision (median and quartiles).")
summary = view.summary_table
# strategy and process are in "method"; rates to two decimals keep the wide table readable.
_shared.show_table(summary, column_config={"strategy": None, "process": None, "seconds_per_audit": None})
_shared.csv_download(summary, "simulation_summary.csv")
_shared.register_section(view.section)
