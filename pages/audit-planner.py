"""Audit planner: before any label, how many labels will this audit need?

With a bundled pool or an assumed structure of subgroups, a strategy and an e-process, q and α,
``audit_core.analyses.plan_study`` simulates the audit with and without its failure mode and
gives the chance of each decision by n labels, the labels the median and the 90th-percentile
audit need, and the chance of passing when there is no failure, each with its Monte Carlo error.
*An Inspect run that stops itself*: ``audit_core.analyses.plan_inspect_run`` gives the samples a
run with early stopping will need (median and 90th percentile), to set its budget.
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
    plan_inspect_run,
    resolve_style,
)
from audit_core.errors import InputError
from pages import _cache, _shared, _uploads

RESULT_KEY = "plan_result"
RUN_RESULT_KEY = "plan_run_result"
ASSUMED = "assumed"
AUDIT, INSPECT_RUN = "audit", "inspect-run"
MODES = {AUDIT: "a labelling audit", INSPECT_RUN: "an Inspect run that stops itself"}

_shared.page_header(
    "Audit planner",
    "Decide how much annotation to pay for before you start: simulated audits of your pool (or of "
    "an assumed structure of subgroups) with and without a failure mode.")

LINK = [_shared.LinkField("plan", "plan_mode", options=(AUDIT, INSPECT_RUN)),
        _shared.LinkField("pool", "plan_pool", options=(*BUNDLED_POOLS, ASSUMED)),
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
mode = st.radio("Plan", tuple(MODES), horizontal=True, key=_shared.kept("plan_mode"), format_func=MODES.get,
                help="A labelling audit: how many labels? An Inspect run with audit_core.inspect.early_stopping: "
                     "how many samples will it run, so you can set its budget?")


def _pool(style: str, sizes_text: str, failing: float, base: float, seed: int):
    if pool_key == ASSUMED:
        sizes = [int(v) for v in sizes_text.replace(";", ",").split(",") if v.strip()]
        return assumed_pool_source(sizes, failing, base, seed=seed, style=style)
    return _uploads.bundled_source("pool", pool_key)


def _assumed_inputs() -> tuple[str, float, float]:
    if pool_key != ASSUMED:
        st.caption(f"Subgroups, sizes and accuracies: those of {_shared.plain(BUNDLED[pool_key].title)}.")
        return "", 0.0, 0.0
    a1, a2, a3 = st.columns(3)
    sizes_text = a1.text_input("Assumed subgroup sizes", "100,100,100,100", key=_shared.kept("plan_sizes"),
                               help="Comma-separated case counts, one per subgroup.")
    failing = a2.number_input("Accuracy of the failing subgroup", 0.0, 1.0, 0.6, 0.05, key=_shared.kept("plan_fail"))
    base = a3.number_input("Accuracy of the others", 0.0, 1.0, 0.92, 0.01, key=_shared.kept("plan_base"))
    return sizes_text, failing, base


def _progress(what: str):
    bar = st.progress(0.0, text="Simulating…")

    def progress(done: int, total: int) -> None:
        bar.progress(min(done / max(total, 1), 1.0), text=f"{done} of {total} simulated {what}")

    return bar, progress


def inspect_run_planner() -> None:
    """The samples an Inspect run with early stopping needs (rules as audit_core.inspect.early_stopping)."""
    style = resolve_style(None, BUNDLED[pool_key].style if pool_key in BUNDLED else None)
    defaults = paper_params(style)
    with st.form("plan_run"):
        sizes_text, failing, base = _assumed_inputs()
        r1, r2, r3, r4 = st.columns(4)
        dual = r1.checkbox("Dual test", True, key=_shared.kept("plan_run_dual"),
                           help="Stop when the dual test of paper 001 decides (failure mode found / audit passed).")
        per_subgroup = r2.checkbox("Per subgroup", False, key=_shared.kept("plan_run_per_subgroup"),
                                   help="Each subgroup stops when its own questions are answered.")
        precision = r3.number_input("Precision ε (0 = off)", 0.0, 0.5, 0.0, 0.01, key=_shared.kept("plan_run_precision"),
                                    help="Stop when the anytime-valid interval's half-width is at most ε.")
        threshold = r4.number_input("Threshold (0 = off)", 0.0, 0.99, 0.0, 0.01, key=_shared.kept("plan_run_threshold"),
                                    help="Stop when the anytime-valid interval lies entirely above or below it.")
        p1, p2, p3, p4, p5 = st.columns(5)
        q = p1.number_input("q", 0.5, 0.99, float(defaults.q), 0.01, key=_shared.kept(f"plan_run_q_{style}"))
        alpha = p2.number_input("α", 0.001, 0.5, defaults.alpha, 0.005, format="%.3f", key=_shared.kept("plan_alpha"))
        concurrency = int(p3.number_input("Samples at once", 1, 64, 8, 1, key=_shared.kept("plan_run_concurrency"),
                                          help="Inspect's max_samples: the samples running when a decision is made "
                                               "still complete (and cost)."))
        runs = int(p4.number_input("Simulated runs", 5, 2000, 100, 5, key=_shared.kept("plan_run_runs")))
        seed = int(p5.number_input("Seed", 0, 2**31 - 1, 0, 1, key=_shared.kept("plan_seed")))
        go = st.form_submit_button("Plan the run", type="primary", icon=":material/play_arrow:")
    if go:
        try:
            pool = _pool(style, sizes_text, failing, base, seed)
            bar, progress = _progress("runs")
            st.session_state[RUN_RESULT_KEY] = plan_inspect_run(
                pool, per_subgroup=per_subgroup, dual=dual, precision=precision or None, threshold=threshold or None,
                style=style, q=q, alpha=alpha, runs=runs, seed=seed, concurrency=concurrency, progress=progress)
            bar.empty()
        except InputError as exc:
            _shared.show_input_error(exc, "these settings", "The last plan stays below.")
        except ValueError:
            st.error("Could not use the assumed subgroup sizes: give whole numbers separated by commas. "
                     "The last plan stays below.")
    view = st.session_state.get(RUN_RESULT_KEY)
    if view is None:
        st.info("Choose the rules and press **Plan the run**. 100 simulated runs of a few hundred samples take a "
                "few seconds.")
        _shared.stop_page()
    _shared.show_verdict(view.verdict)
    table = view.summary_table
    m1, m2, m3 = st.columns(3)
    for col, row in zip((m1, m2), table.itertuples(), strict=False):
        col.metric(row.quantity.capitalize(), f"{row.value:,.0f}",
                   help=f"95% Monte Carlo interval {row.low:,.0f} to {row.high:,.0f}, of {view.n_samples:,} samples.")
    m3.metric("Runs that end early", f"{view.stopped_early / view.runs:.0%}")
    _shared.show_chart(view.used_chart)
    _shared.show_table(table, intervals=True)
    _shared.register_section(view.section)


if mode == INSPECT_RUN:
    _shared.write_link(LINK)
    inspect_run_planner()
    _shared.stop_page()
with st.form("plan"):
    c2, c3 = st.columns(2)
    strategy = c2.selectbox("Strategy", STRATEGY_NAMES, index=STRATEGY_NAMES.index("adaptive"),
                            key=_shared.kept("plan_strategy"))
    process = c3.selectbox("Model process", MODEL_PROCESSES, index=MODEL_PROCESSES.index(DEFAULT_MODEL_PROCESS),
                           key=_shared.kept("plan_process"))
    sizes_text, failing, base = _assumed_inputs()
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
        pool = _pool(style, sizes_text, failing, base, seed)
        params = paper_params(style, q=q, alpha=alpha, budget=budget)
        bar, progress = _progress("audits")
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
