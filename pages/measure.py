"""Measure: estimand-separated results from model response logs (paper 000, key empirical results).

Static correctness, target-follow and sham-stay given base-correct, local response and
full-support response are reported side by side, never folded into one score, with the
behavioural composition of the paired units. All numbers come from ``audit_core.measure``.
"""

from __future__ import annotations

import streamlit as st

from audit_core.measure import load_response_log, measure
from audit_core.measure import views as measure_views
from audit_core.measure.example import EXAMPLE_PATH
from pages import _shared

UPLOAD_KEY = "measure_upload"
BUNDLED = "bundled"


@st.cache_resource(show_spinner=False, max_entries=16)
def response_log(key: str, _data: bytes, name: str):
    return load_response_log(_data, name=name)


@st.cache_resource(show_spinner=False, max_entries=32)
def measurement(key: str, n_boot: int, seed: int, confidence: float, _log):
    return measure(_log, n_boot=n_boot, seed=seed, confidence=confidence)


@st.cache_data(show_spinner=False, max_entries=32)
def specs(key: str, n_boot: int, seed: int, confidence: float, interval: str, _result) -> tuple[dict, dict]:
    return measure_views.estimates_spec(_result, interval), measure_views.composition_spec(_result)


def validate_upload(data: bytes, name: str) -> None:
    import hashlib
    response_log(hashlib.sha256(data).hexdigest()[:16], data, name)


_shared.page_header(
    "Measure response logs",
    "Estimand-separated results from a model response log (one row per model, cluster and cell). "
    "Base accuracy is static correctness; target-follow and sham-stay are conditional on a correct "
    "base answer; local response needs all three; full-support response (τ_full) needs every one of "
    "the 36 cells. A high base accuracy says nothing about the other estimands (paper 000).")

src_col, up_col = st.columns([1.2, 2])
with src_col:
    source = st.radio("Response log", [BUNDLED, "upload"], key="measure_source",
                      format_func={BUNDLED: "Bundled SYNTHETIC example", "upload": "Upload a CSV"}.get)
with up_col:
    upload = None
    if source == "upload":
        upload = _shared.accept_upload(
            "Response log CSV", UPLOAD_KEY, ["csv", "tsv", "txt"], validate_upload,
            help="Columns model, cluster, cell (world:mapping:readout), response (INVALID = no answer) "
                 "and the oracle: a column 'oracle' (label of the row's world) or columns "
                 "oracle_base, oracle_target, oracle_sham.")
        if upload is None:
            st.info("No valid log uploaded yet: showing the bundled synthetic example.")
    else:
        st.caption("SYNTHETIC data, no real model was run: two made-up models x 24 clusters x 36 cells; each "
                   "model-cluster unit answers as one of the seven frozen policies (drawn with model-specific "
                   "probabilities), and some generated-choice answers are INVALID. "
                   "File: `data/example_response_log.csv`.")

if upload is not None:
    log_key, data, data_name = upload.key, upload.data, upload.name
else:
    log_key, data, data_name = BUNDLED, EXAMPLE_PATH.read_bytes(), measure_views.EXAMPLE_LOG_NAME
log = response_log(log_key, data, data_name)

with st.expander("Interval settings"):
    c1, c2, c3, c4 = st.columns(4)
    n_boot = int(c1.number_input("Bootstrap replicates", min_value=0, max_value=20000, value=2000, step=500,
                                 key="measure_boot", help="Clusters are resampled with replacement."))
    seed = int(c2.number_input("Seed", min_value=0, value=0, step=1, key="measure_seed"))
    confidence = float(c3.select_slider("Confidence", options=[0.8, 0.9, 0.95, 0.99], value=0.95,
                                        key="measure_confidence"))
    interval = c4.radio("Error bars", list(measure_views.INTERVALS), key="measure_interval",
                        format_func=measure_views.INTERVALS.get)

result = measurement(log_key, n_boot, seed, confidence, log)
pooled = result.pooled

m1, m2, m3, m4 = st.columns(4)
m1.metric("Models", len(result.models))
m2.metric("Clusters", len(log.clusters))
m3.metric("Complete paired units", f"{pooled.n_complete_paired} / {pooled.n_paired}")
m4.metric("Units with all cells (τ_full)", f"{pooled.n_complete_units} / {pooled.n_units}")
for note in result.notes:
    st.info(note, icon=":material/info:")

estimates_spec, composition_spec = specs(log_key, n_boot, seed, confidence, interval, result)
st.subheader("Estimates per model")
_shared.show_chart(estimates_spec, key="measure_estimates_chart")
table = measure_views.estimates_table(result)
st.dataframe(table, hide_index=True, width="stretch",
             column_config={**{c: st.column_config.NumberColumn(format="%.3f")
                               for c in table.columns if c == "rate" or c.endswith((" low", " high"))},
                            **{c: st.column_config.NumberColumn(width="small") for c in ("k", "n")}})
_shared.csv_download(table, "measure_estimates.csv", key="measure_estimates_csv")

st.subheader("Behavioural composition")
st.caption("Each paired base/target/sham unit (one model, cluster, mapping and readout) falls in exactly "
           "one category. Reportability failure: a non-answer in any of the three cells; base-knowledge "
           "failure: a wrong base answer; then, for base-correct units, full success (follows the target "
           "and stays on sham), target inertia (keeps the base answer on the target) or other.")
_shared.show_chart(composition_spec, key="measure_composition_chart")
st.dataframe(measure_views.composition_table(result), hide_index=True, width="stretch")

st.subheader("Per oracle transition")
st.caption("The paired estimates again, split by each cluster's oracle labels (base → target → sham): "
           "selective response can depend strongly on the direction of the edit (paper 000, result 5).")
st.dataframe(measure_views.transitions_table(result), hide_index=True, width="stretch")

with st.expander(f"Model-cluster units ({len(result.units)})"):
    units = measure_views.units_table(result)
    st.dataframe(units, hide_index=True, width="stretch")
    _shared.csv_download(units, "measure_units.csv", key="measure_units_csv")

_shared.register_section(measure_views.measurement_section(result, interval))
