"""Measure: estimand-separated results from model response logs (paper 000, key empirical results).

Static correctness, target-follow and sham-stay given base-correct, local response and
full-support response are reported side by side, never folded into one score, with the
behavioural composition of the paired units. All numbers come from ``audit_core.analyses.measure_log``.
"""

from __future__ import annotations

from pages._first_run import through_router

through_router()  # a deep link as a fresh server's first request runs this file itself (pages/_first_run.py)

import streamlit as st

from audit_core.analyses.measure import INTERVALS
from audit_core.report import format as fmt
from pages import _cache, _shared, _uploads
from pages._first_views import MEASURE as FIRST

BUNDLED, UPLOAD, SEVERAL = "bundled", "upload", "several"

_shared.page_header(
    "Measure response logs",
    "Estimand-separated results from a model response log (one row per model, cluster and cell). "
    "Base accuracy is static correctness; target-follow and sham-stay are conditional on a correct "
    "base answer; local response needs all three; full-support response (τ_full) needs every one of "
    "the 36 cells. A high base accuracy says nothing about the other estimands (paper 000).")

LINK = [_shared.LinkField("source", "measure_source", options=(BUNDLED, UPLOAD, SEVERAL)),
        _shared.LinkField("bootstrap", "measure_boot", "int", low=0, high=20000),
        _shared.LinkField("seed", "measure_seed", "int", low=0),
        _shared.LinkField("confidence", "measure_confidence", "float", low=0.8, high=0.99),
        _shared.LinkField("interval", "measure_interval", options=tuple(INTERVALS))]
_shared.link_settings(LINK)

src_col, up_col = st.columns([1.2, 2])
with src_col:
    choice = st.radio("Response log", [BUNDLED, UPLOAD, SEVERAL], key=_shared.kept("measure_source"),
                      format_func={BUNDLED: "Bundled SYNTHETIC example", UPLOAD: "Upload a log",
                                   SEVERAL: "Upload several evaluation logs"}.get)
with up_col:
    source = None
    if choice == UPLOAD:
        source = _uploads.upload_source(
            "response_log", "Response log: CSV, Inspect AI log or lm-eval samples",
            ["csv", "tsv", "txt", "eval", "json", "jsonl", "zip"],
            help="A CSV with columns model, cluster, cell (world:mapping:readout), response (INVALID = no "
                 "answer) and the oracle (a column 'oracle', or oracle_base, oracle_target, oracle_sham); or "
                 "the log of the testbed's task run in Inspect AI (.eval / .json) or lm-eval "
                 "(a samples_*.jsonl file, or the output folder as a .zip): model, cluster, cell and the "
                 "chosen letter are read from it.")
        if source is None:
            st.info("No valid log uploaded yet: showing the bundled synthetic example.")
    elif choice == SEVERAL:
        source = _uploads.upload_source(
            "response_log", "Evaluation logs of the testbed's task (Inspect AI, lm-eval), measured together",
            ["eval", "json", "jsonl", "zip"], slot="response_logs", multiple=True,
            help="One model per log (each Inspect epoch its own); two logs naming the same model are told "
                 "apart by their file names.")
        if source is None:
            st.info("No valid logs uploaded yet: showing the bundled synthetic example.")
    else:
        st.caption("SYNTHETIC data, no real model was run: two made-up models x 24 clusters x 36 cells; each "
                   "model-cluster unit answers as one of the seven frozen policies (drawn with model-specific "
                   "probabilities), and some generated-choice answers are INVALID. "
                   "File: `data/example_response_log.csv`.")
source = source or _uploads.bundled_source("response_log")

with st.expander("Interval settings"):
    c1, c2, c3, c4 = st.columns(4)
    bootstrap = int(c1.number_input("Bootstrap replicates", min_value=0, max_value=20000, value=FIRST.bootstrap, step=500,
                                 key=_shared.kept("measure_boot"), help="Clusters are resampled with replacement."))
    seed = int(c2.number_input("Seed", min_value=0, value=FIRST.seed, step=1, key=_shared.kept("measure_seed")))
    confidence = float(c3.select_slider("Confidence", options=[0.8, 0.9, 0.95, 0.99], value=FIRST.confidence,
                                        key=_shared.kept("measure_confidence")))
    interval = c4.radio("Error bars", list(INTERVALS), key=_shared.kept("measure_interval"),
                        format_func=INTERVALS.get)

_shared.write_link(LINK, shareable=source.bundled)
view = _cache.measure_log(source, bootstrap, seed, confidence, interval)
result, pooled = view.result, view.result.pooled

_shared.show_verdict(view.verdict)
_shared.show_verdict(view.support_verdict)
_shared.show_source(source)
m1, m2, m3, m4 = st.columns(4)
m1.metric("Models", fmt.count(len(result.models)))
m2.metric("Clusters", fmt.count(len(source.value.clusters)))
m3.metric("Complete paired units", f"{pooled.n_complete_paired} / {pooled.n_paired}")
m4.metric("Units with all cells (τ_full)", f"{pooled.n_complete_units} / {pooled.n_units}")
for note in result.notes:
    st.info(_shared.plain(note), icon=":material/info:")

if view.identified is not None:
    ident = view.identified
    st.subheader("τ_full through identification")
    st.caption(_shared.plain(f"Assumption: {ident.assumption}. {ident.statement}"))
    i1, i2, i3, i4 = st.columns(4)
    tau = ident.pooled.tau
    i1.metric("τ_full (identified)", "–" if tau.rate is None else f"{tau.rate:.3f}",
              help=f"{tau.successes} of {tau.n} identified units")
    i2.metric("Outside the class", f"{ident.pooled.n_outside} / {ident.pooled.outside.n}",
              help="Units whose answers on the support are no policy's: counted, never given a τ.")
    i3.metric("Cells per cluster", f"{len(ident.cells)} / {ident.n_cells_full}")
    i4.metric("Model calls saved", fmt.count(ident.model_calls_full - ident.model_calls),
              help=f"{ident.model_calls:,} calls instead of {ident.model_calls_full:,}")
    _shared.show_table(view.identified_table)
    for note in ident.notes:
        st.info(_shared.plain(note), icon=":material/info:")

st.subheader("Estimates per model")
_shared.show_chart(view.estimates_chart, key="measure_estimates_chart")
table = view.estimates_table
_shared.show_table(table, intervals=True,
                  column_config={c: st.column_config.NumberColumn(width="small") for c in ("k", "n")})
_shared.csv_download(table, "measure_estimates.csv", key="measure_estimates_csv")

st.subheader("Behavioural composition")
st.caption("Each paired base/target/sham unit (one model, cluster, mapping and readout) falls in exactly "
           "one category. Reportability failure: a non-answer in any of the three cells; base-knowledge "
           "failure: a wrong base answer; then, for base-correct units, full success (follows the target "
           "and stays on sham), target inertia (keeps the base answer on the target) or other.")
_shared.show_chart(view.composition_chart, key="measure_composition_chart")
_shared.show_table(view.composition_table)

st.subheader("Per oracle transition")
st.caption("The paired estimates again, split by each cluster's oracle labels (base → target → sham): "
           "selective response can depend strongly on the direction of the edit (paper 000, result 5).")
_shared.show_table(view.transitions_table, intervals=True)

if view.invariance_table is not None:
    st.subheader("Mapping and readout invariance")
    st.caption("Semantic equivariance (same decoded answer under all six mappings), fixed-label attachment "
               "(same raw letter under all six), validity per readout, readout agreement per world, and the "
               "equal-weighted selective response over the six oracle directions against base accuracy "
               "(paper 000, results 3-5), with cluster-bootstrap intervals.")
    _shared.show_table(view.invariance_table, intervals=True)

with st.expander(f"Model-cluster units ({len(result.units)})"):
    _shared.show_table(view.units_table)
    _shared.csv_download(view.units_table, "measure_units.csv", key="measure_units_csv")

_shared.register_section(view.section)
