"""Simulate: repeat audits on a pool to compare sampling strategies and e-processes (paper 001 §4).

Each row of the paper pairs a sampling strategy with an e-process; ``run_study`` repeats each row
with fresh seeded label draws and returns decision rates (with Wilson intervals) and stopping times.
In null-validity mode the pool has no failure mode (every subgroup at or above q), so any
"failure mode found" is a Type-I error of the model's null; its observed rate is shown with its
interval next to α.
"""

from __future__ import annotations

import streamlit as st


from audit_core.auditing import load_pool, paper_params, paper_rows, run_study, sampling_frequency_vs_accuracy
from audit_core.data.bundled import BUNDLED
from audit_core.errors import InputError
from audit_core.report import ReportChart, ReportTable, views
from pages import _shared

POOLS = [k for k in ("gpqa:large", "gpqa:medium", "gpqa:small", "gpqa:none", "sdoh") if k in BUNDLED]
NULL_POOL = "gpqa:none"


def row_label(row) -> str:
    return views.row_label(*row)


def study_params(style: str, alpha: float, budget: int, q: float):
    """The paper's study parameters (``paper_params``: 2 initial random cases on GPQA, 20 on SDoH)
    with the page's settings, built exactly as ``python -m audit_core simulate --paper`` builds them
    (a changed q moves both forecaster grids with it)."""
    return paper_params(style, q=q, alpha=alpha, budget=budget)


@st.cache_resource(show_spinner=False, max_entries=8)
def pool_of(spec: str):
    return load_pool(spec)


def study_charts(study, pool) -> tuple[dict, dict, dict | None, str | None]:
    """Outcome bars, stopping-time boxes and, when an adaptive row ran, the engine's sampling
    frequency vs accuracy (paper 001 Figure 3) for it; built once per run."""
    bars_spec, box_spec = views.study_specs(study)
    adaptive = [p for s, p in study.rows if s == "adaptive"]
    if not adaptive:
        return bars_spec, box_spec, None, None
    process = "SR-LR-UI" if "SR-LR-UI" in adaptive else adaptive[0]
    table, rho = sampling_frequency_vs_accuracy(study, pool, "adaptive", process)
    return bars_spec, box_spec, views.sampling_frequency_spec(table, rho, process), process


_shared.page_header(
    "Simulate",
    "Repeat whole audits on a simulated pool: each replicate draws fresh labels, samples cases with "
    "the row's strategy and stops when the dual test decides or the budget runs out. Rates are "
    "shares of replicates; stopping time = cases annotated until the decision.")

top1, top2 = st.columns([1.4, 1])
with top1:
    mode = st.radio("Mode", ["power", "null"], horizontal=True, key="sim_mode",
                    format_func={"power": "Compare methods on a pool",
                                 "null": "Null validity (observed Type-I error)"}.get,
                    help="Null validity runs on the pool without a failure mode, where every "
                         "'failure mode found' is a false rejection of the model's null.")
with top2:
    if mode == "null":
        pool_key = st.selectbox("Pool", [NULL_POOL], format_func=lambda k: BUNDLED[k].title,
                                help="Every subgroup is at or above q, so the model's null is true.")
    else:
        pool_key = st.selectbox("Pool", POOLS, format_func=lambda k: BUNDLED[k].title, key="sim_pool")
style = BUNDLED[pool_key].style
rows_available = paper_rows(style)
defaults = paper_params(style)

with st.form("simulation"):
    c2, c3, c4, c5, c6 = st.columns(5)
    replicates = int(c2.number_input("Replicates", 2, 500, 40 if mode == "null" else 20, 1,
                                     help="Independent repetitions per row (the paper uses 40–100)."))
    budget = int(c3.number_input("Budget", 10, 2000, defaults.budget, 10,
                                 help="Maximum cases annotated in one audit."))
    seed = int(c4.number_input("Seed", 0, 2**31 - 1, 0, 1, help="Same seed, same results."))
    alpha = c5.number_input("α", 0.001, 0.5, defaults.alpha, 0.005, format="%.3f",
                            help="Level of both tests: a test stops when its e-value reaches 1/α.")
    q = c6.number_input("q (threshold)", 0.5, 0.99, float(defaults.q), 0.01,
                        help="A subgroup below q is a failure mode.")
    labels = [row_label(r) for r in rows_available]
    chosen = st.multiselect("Rows (sampling strategy · e-process)", labels, default=labels,
                            help="The seven method rows of the paper (SDoH uses the informed prior "
                                 "instead of the oracle).")
    run = st.form_submit_button("Run simulation", type="primary", icon=":material/play_arrow:")

if run:
    rows = [r for r in rows_available if row_label(r) in chosen]
    if not rows:
        st.error("Choose at least one row.")
    else:
        try:
            params = study_params(style, alpha=alpha, budget=budget, q=q)
            pool = pool_of(pool_key)
            bar = st.progress(0.0, text="Starting…")

            def progress(done: int, total: int) -> None:
                bar.progress(min(done / max(total, 1), 1.0), text=f"{done} of {total} audits done")

            study = run_study(pool, rows, replicates, params, seed, progress=progress)
            bar.empty()
            st.session_state["sim_result"] = {"study": study, "pool": pool_key, "params": params,
                                              "replicates": replicates, "seed": seed, "mode": mode,
                                              "specs": study_charts(study, pool)}
        except InputError as exc:
            _shared.show_input_error(exc, "these settings")


def show_results(saved: dict) -> None:
    """Charts, tables and the report section of the last simulation run."""
    study, params = saved["study"], saved["params"]
    summary, _ = views.study_tables(study)
    st.caption(f"Last run: pool **{BUNDLED[saved['pool']].title}**, {saved['replicates']} replicates per row, "
               f"budget {params.budget}, seed {saved['seed']}, q = {params.q}, α = {params.alpha}, m = {params.m}, "
               f"{params.n_init} initial random cases of the adaptive auditor (as in the paper).")
    bars_spec, box_spec, freq_spec, adaptive_process = saved["specs"]

    type1 = None
    if saved["mode"] == "null":
        st.subheader("Null validity")
        st.caption("On this pool no subgroup is below q, so every 'failure mode found' is a false "
                   "rejection. Anytime validity promises a rate of at most α.")
        type1 = views.type_one_error_table(study, params.alpha)
        worst = type1.sort_values("observed Type-I error", kind="stable").iloc[-1]
        m1, m2 = st.columns(2)
        m1.metric("Highest observed Type-I error", f"{worst['observed Type-I error']:.3f}",
                  help=f"Row {worst['method']}; 95% Wilson interval "
                       f"[{worst['95% CI low']:.3f}, {worst['95% CI high']:.3f}].")
        m2.metric("α", f"{params.alpha:g}")
        above = type1[type1["observed Type-I error"] > params.alpha]
        if above.empty:
            st.success(f"In every row the observed Type-I error is at most α = {params.alpha:g}.")
        else:
            st.warning("Observed Type-I error above α in: " + ", ".join(above["method"])
                       + ". With few replicates this can happen by chance; check the interval.")
        st.dataframe(type1, hide_index=True, width="stretch")

    left, right = st.columns(2)
    with left:
        _shared.show_chart(bars_spec)
    with right:
        _shared.show_chart(box_spec)
    if freq_spec is not None:
        _shared.show_chart(freq_spec)
        st.caption("Does the adaptive auditor learn to sample the weak subgroups? Frequency above 1 means a "
                   "subgroup was annotated more often than its share of the pool (paper 001, Figure 3).")
    st.subheader("Summary per row")
    st.caption("Rates are shares of replicates with their 95% Wilson intervals; stop = cases annotated "
               "until the decision (median and quartiles).")
    # strategy and process are in "method"; rates to two decimals keep the wide table readable.
    st.dataframe(summary, hide_index=True, width="stretch",
                 column_config={"strategy": None, "process": None, "seconds_per_audit": None,
                                **{c: st.column_config.NumberColumn(format="%.2f") for c in summary.columns
                                   if c.startswith(("failure_found", "passed", "inconclusive"))}})
    _shared.csv_download(summary, "simulation_summary.csv")

    charts = [ReportChart("Audit outcomes per method", bars_spec), ReportChart("Stopping times", box_spec)]
    if freq_spec is not None:
        charts.append(ReportChart(f"Sampling frequency vs accuracy (adaptive · {adaptive_process})", freq_spec))
    section = views.study_section(
        study, ("Simulation study" if saved["mode"] == "power" else "Null validity (Type-I error)")
        + f" on {BUNDLED[saved['pool']].title}",
        source=f"bundled pool {saved['pool']}: {BUNDLED[saved['pool']].description}",
        parameters={**params.to_dict(), "replicates": saved["replicates"], "seed": saved["seed"]},
        charts=charts, key="simulate" if saved["mode"] == "power" else "null_validity",
        extra_tables=(ReportTable("Observed Type-I error per row", type1),) if type1 is not None else ())
    _shared.register_section(section)


saved = st.session_state.get("sim_result")
if saved is None:
    st.info("Choose settings and press **Run simulation**. A study of 7 rows × 20 replicates takes "
            "a few seconds.")
else:
    show_results(saved)
