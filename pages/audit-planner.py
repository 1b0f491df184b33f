"""Audit planner: before any label, how many labels will this audit need?

With a bundled pool or an assumed structure of subgroups, a strategy and an e-process, q and α,
``audit_core.analyses.plan_study`` simulates the audit with and without its failure mode and
gives the chance of each decision by n labels, the labels the median and the 90th-percentile
audit need, and the chance of passing when there is no failure, each with its Monte Carlo error.
"""

from __future__ import annotations

from pages._first_run import through_router

through_router()  # a deep link as a fresh server's first request runs this file itself (pages/_first_run.py)

import streamlit as st

from audit_core.analyses import (
    BUNDLED,
    BUNDLED_POOLS,
    DEFAULT_MODEL_PROCESS,
    MODEL_PROCESSES,
    STRATEGY_NAMES,
    assumed_pool_source,
    paper_params,
    resolve_style,
)
from audit_core.errors import InputError
from pages import _cache, _shared, _uploads

RESULT_KEY = "plan_result"
ASSUMED = "assumed"

_shared.page_header(
    "Audit planner",
    "Decide how much annotation to pay for before you start: simulated audits of your pool (or of "
    "an assumed structure of subgroups) with and without a failure mode.")

LINK = [_shared.LinkField("pool", "plan_pool", options=(*BUNDLED_POOLS, ASSUMED)),
        _shared.LinkField("strategy", "plan_strategy", options=tuple(STRATEGY_NAMES)),
        _shared.LinkField("process", "plan_process", options=tuple(MODEL_PROCESSES)),
        _shared.LinkField("sizes", "plan_sizes"),
        _shared.LinkField("failing_accuracy", "plan_fail", "float", low=0.0, high=1.0),
        _shared.LinkField("base_accuracy", "plan_base", "float", low=0.0, high=1.0),
        _shared.LinkField("alpha", "plan_alpha", "float", low=0.001, high=0.5),
        _shared.LinkField("replicates", "plan_replicates", "int", low=5, high=2000),
        _shared.LinkField("seed", "plan_seed", "int", low=0)]
_shared.link_settings(LINK)

# The pool is chosen outside the form, so the assumed structure's inputs show only when they apply
# (with a bundled pool they were shown and silently ignored, issue 19 item 11).
pool_key = st.selectbox("Pool", list(BUNDLED_POOLS) + [ASSUMED], key=_shared.kept("plan_pool"),
                        format_func=lambda k: "Assumed structure of subgroups (sizes and accuracies below)"
                        if k == ASSUMED else BUNDLED[k].title)
with st.form("plan"):
    c2, c3 = st.columns(2)
    strategy = c2.selectbox("Strategy", STRATEGY_NAMES, index=STRATEGY_NAMES.index("adaptive"),
                            key=_shared.kept("plan_strategy"))
    process = c3.selectbox("Model process", MODEL_PROCESSES, index=MODEL_PROCESSES.index(DEFAULT_MODEL_PROCESS),
                           key=_shared.kept("plan_process"))
    sizes_text, failing, base = "", 0.0, 0.0
    if pool_key == ASSUMED:
        a1, a2, a3 = st.columns(3)
        sizes_text = a1.text_input("Assumed subgroup sizes", "100,100,100,100", key=_shared.kept("plan_sizes"),
                                   help="Comma-separated case counts, one per subgroup.")
        failing = a2.number_input("Accuracy of the failing subgroup", 0.0, 1.0, 0.6, 0.05,
                                  key=_shared.kept("plan_fail"))
        base = a3.number_input("Accuracy of the others", 0.0, 1.0, 0.92, 0.01, key=_shared.kept("plan_base"))
    else:
        st.caption(f"Subgroups, sizes and accuracies: those of {_shared.plain(BUNDLED[pool_key].title)}.")
    p1, p2, p3, p4, p5 = st.columns(5)
    style = resolve_style(None, BUNDLED[pool_key].style if pool_key in BUNDLED else None)  # as the CLI and API
    defaults = paper_params(style)
    q = p1.number_input("q", 0.5, 0.99, float(defaults.q), 0.01, key=_shared.kept(f"plan_q_{style}"))
    alpha = p2.number_input("α", 0.001, 0.5, defaults.alpha, 0.005, format="%.3f", key=_shared.kept("plan_alpha"))
    budget = int(p3.number_input("Budget", 10, 2000, defaults.budget, 10, key=_shared.kept(f"plan_budget_{style}")))
    replicates = int(p4.number_input("Simulated audits", 5, 2000, 40, 5, key=_shared.kept("plan_replicates"),
                                     help="Per scenario; the Monte Carlo error shrinks as 1/√n."))
    seed = int(p5.number_input("Seed", 0, 2**31 - 1, 0, 1, key=_shared.kept("plan_seed")))
    run = st.form_submit_button("Plan the audit", type="primary", icon=":material/play_arrow:")

if run:
    try:
        if pool_key == ASSUMED:
            sizes = [int(v) for v in sizes_text.replace(";", ",").split(",") if v.strip()]
            pool = assumed_pool_source(sizes, failing, base, seed=seed, style=style)
        else:
            pool = _uploads.bundled_source("pool", pool_key)
        params = paper_params(style, q=q, alpha=alpha, budget=budget)
        bar = st.progress(0.0, text="Simulating…")

        def progress(done: int, total: int) -> None:
            bar.progress(min(done / max(total, 1), 1.0), text=f"{done} of {total} simulated audits")

        st.session_state[RESULT_KEY] = _cache.plan_study(pool, strategy, process, params, replicates, seed, progress)
        bar.empty()
    except InputError as exc:  # before ValueError, its base class: the engine's message names the limit
        _shared.show_input_error(exc, "these settings", "The last plan stays below.")
    except ValueError:
        st.error("Could not use the assumed subgroup sizes: give whole numbers separated by commas. "
                 "The last plan stays below.")

_shared.write_link(LINK)
view = st.session_state.get(RESULT_KEY)
if view is None:
    st.info("Choose a pool and settings and press **Plan the audit**. 40 simulated audits per scenario take "
            "a few seconds.")
    _shared.stop_page()
plan = view.plan
_shared.show_verdict(view.verdict)
st.caption(f"Plan for {_shared.plain(view.source.description)}; {plan.strategy} · {plan.process}, q = {plan.params.q}, "
           f"α = {plan.params.alpha}, budget {plan.params.budget}, {plan.replicates} audits per scenario, "
           f"seed {plan.seed}.")
p, low, high = plan.p_pass_no_failure
m1, m2 = st.columns(2)
m1.metric("P(audit passed | no failure)", f"{p:.2f}", help=f"95% Wilson interval [{low:.2f}, {high:.2f}].")
m2.metric("Monte Carlo error (largest)", f"±{plan.mc_error:.2f}",
          help="Half-width of the widest 95% interval of a probability on this page.")
_shared.show_chart(view.decisions_chart)
left, right = st.columns([1.6, 1])
with left:
    st.subheader("Decisions by budget")
    _shared.show_table(view.budget_table)
with right:
    st.subheader("Labels needed")
    st.caption("∞ = more than the budget (fewer than that share of audits decide within it).")
    _shared.show_table(view.labels_table)
_shared.register_section(view.section)
