"""Replay: run every e-process over a recorded annotation run (paper 001, section 3.2).

Scores are replayed in annotation order (the file's ``order`` column when there is one). The dual
test stops at the first step where the model's e-process (failure mode found) or the auditor's
(audit passed) reaches 1/α. All numbers come from ``audit_core.sequential.replay``.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from audit_core.data.bundled import BUNDLED
from audit_core.data.csvio import read_csv_frame
from audit_core.data.loader import detect_columns, load_audit_csv
from audit_core.errors import InputError
from audit_core.report import views
from audit_core.sequential import AUDITOR_PROCESSES, MODEL_PROCESSES, AuditParams, replay
from pages import _shared

UPLOAD = "upload"


@st.cache_data(show_spinner=False, max_entries=16)
def raw_frame(key: str, _source, name: str) -> pd.DataFrame:
    return read_csv_frame(_source, name=name)


@st.cache_resource(show_spinner=False, max_entries=32)
def audit_data(key: str, _source, name: str, score: str, subgroups: tuple, order: str | None):
    # The page always names the roles: an empty subgroup selection is () = no subgroups (None would
    # ask the loader to auto-detect them again), no order column = file order.
    return load_audit_csv(_source, name=name, score=score, subgroups=tuple(subgroups),
                          order=order if order else False)


@st.cache_resource(show_spinner=False, max_entries=64)
def replay_result(data_key: tuple, params_key: str, model_process: str, auditor_process: str, _data, _params):
    # Keyed by the data/column choice and the parameters' text; the objects themselves are not hashed.
    return replay(_data.scores, _params, subgroups=_data.subgroup_frame, model_process=model_process,
                  auditor_process=auditor_process)


@st.cache_resource(show_spinner=False, max_entries=64)
def replay_specs(run_key: tuple, data_name: str, _result) -> tuple[dict, dict, dict]:
    return views.replay_specs(_result, MODEL_PROCESSES, data_name)


def validate_upload(data: bytes, name: str) -> None:
    """A new upload must parse, and load with its auto-detected columns when a score column is
    detected; without one it is accepted and the user picks the columns below."""
    if detect_columns(read_csv_frame(data, name=name)).score is not None:
        load_audit_csv(data, name=name)


_shared.page_header(
    "Replay",
    "Replay a recorded annotation run through all six e-processes. The model's null (no subgroup "
    "below q) is rejected when a model process reaches 1/α: a failure mode is found. The auditor's "
    "null (its chosen subgroups fall below q from step m on) is rejected when an auditor process "
    "reaches 1/α: the audit is passed.")

keys = list(BUNDLED) + [UPLOAD]
labels = {k: f"Bundled: {BUNDLED[k].title}" for k in BUNDLED}
labels[UPLOAD] = "Upload a labelled CSV"
default_key = "recorded_run" if "recorded_run" in BUNDLED else keys[0]
src_col, up_col = st.columns([1.2, 2])
with src_col:
    source_key = st.selectbox("Data", keys, index=keys.index(default_key), format_func=labels.get,
                              key="replay_source",
                              help="Bundled data are synthetic replicas of the papers' published marginals.")
with up_col:
    if source_key == UPLOAD:
        upload = _shared.accept_upload("Labelled CSV (one row per annotated case)", "replay_upload",
                                       ["csv", "tsv", "txt"], validate_upload,
                                       help="Needs a score column (0/1 or a number in [0, 1]); "
                                            "subgroup and order columns are optional.")
    else:
        upload = None
        st.caption(BUNDLED[source_key].description)

if source_key == UPLOAD and upload is None:
    st.caption(f"No accepted upload: showing the bundled {BUNDLED[default_key].title}.")
    source_key = default_key

if upload is not None:
    data_source, data_name, data_key, style_default = upload.data, upload.name, f"upload:{upload.key}", "gpqa"
    bundled = None
else:
    bundled = BUNDLED[source_key]
    data_source, data_key = str(bundled.path), f"bundled:{source_key}"
    data_name = bundled.path.name
    style_default = bundled.style

frame = raw_frame(data_key, data_source, data_name)
columns = list(frame.columns)
guess = detect_columns(frame)
default_score = bundled.score if bundled else guess.score
default_groups = list(bundled.subgroups) if bundled else list(guess.subgroups)
default_order = bundled.order if bundled else guess.order

with st.expander("Columns and parameters", expanded=source_key == UPLOAD):
    c1, c2, c3, c4 = st.columns(4)
    none = "(none)"
    score_col = c1.selectbox("Score column", columns, key=f"score_{data_key}",
                             index=columns.index(default_score) if default_score in columns else 0,
                             help="1 = correct, 0 = wrong (or a number in [0, 1]).")
    group_cols = c2.multiselect("Subgroup columns", columns, key=f"groups_{data_key}",
                                default=[g for g in default_groups if g in columns])
    order_options = [none] + columns
    order_col = c3.selectbox("Order column", order_options, key=f"order_{data_key}",
                             index=order_options.index(default_order) if default_order in order_options else 0,
                             help="Annotation order of the recorded run; without it, file order is used.")
    style = c4.radio("Parameter defaults", ["gpqa", "sdoh"], key=f"style_{data_key}",
                     index=["gpqa", "sdoh"].index(style_default), horizontal=True,
                     format_func={"gpqa": "GPQA-style", "sdoh": "SDoH-style"}.get)
    d = AuditParams.for_style(style)
    p1, p2, p3, p4, p5, p6 = st.columns(6)
    q = p1.number_input("q (threshold)", 0.01, 0.99, d.q, 0.01, key=f"q_{style}",
                        help="A subgroup with accuracy below q is a failure mode.")
    alpha = p2.number_input("α", 0.001, 0.5, d.alpha, 0.005, format="%.3f", key=f"alpha_{style}",
                            help="Level: a test stops when its e-value reaches 1/α.")
    m = int(p3.number_input("m", 1, 1000, d.m, 1, key=f"m_{style}",
                            help="The auditor's test starts at step m."))
    q_mod = p4.number_input("q − δ", 0.01, 0.99, d.q_mod, 0.01, key=f"qmod_{style}",
                            help="Alternative of LR / SR-LR (model's null).")
    q_aud = p5.number_input("q + δ′", 0.01, 0.99, d.q_aud, 0.01, key=f"qaud_{style}",
                            help="Alternative of AUD-LR (auditor's null).")
    eta = p6.number_input("η", 0.01, 2.0, d.eta, 0.05, key=f"eta_{style}",
                          help="Learning rate of the forecaster used by the -UI processes.")
    r1, r2 = st.columns(2)
    model_process = r1.selectbox("Model process of the dual test", MODEL_PROCESSES,
                                 index=MODEL_PROCESSES.index("SR-LR-UI"), key="replay_model_process")
    auditor_process = r2.selectbox("Auditor process of the dual test", AUDITOR_PROCESSES,
                                   index=AUDITOR_PROCESSES.index("AUD-LR-UI"), key="replay_auditor_process")

source = f"bundled {bundled.key}: {bundled.title}" if bundled else f"uploaded file {data_name}"
try:
    params = AuditParams.for_style(style, q=q, alpha=alpha, m=m, delta=round(q - q_mod, 10),
                                   delta_aud=round(q_aud - q, 10), eta=eta)
    data = audit_data(data_key, data_source, data_name, score_col, tuple(group_cols),
                      None if order_col == none else order_col)
    run_key = ((data_key, score_col, tuple(group_cols), order_col), repr(params.to_dict()),
               model_process, auditor_process)
    result = replay_result(*run_key, data, params)
    columns_used = {"score column": score_col, "subgroup columns": group_cols, "order column": order_col}
except InputError as exc:
    _shared.show_input_error(exc, f"`{data_name}` with these choices")
    previous = st.session_state.get("replay_last_result")
    if previous is None:
        st.stop()
    run_key, result, data, data_name, source, columns_used = previous
else:
    st.session_state["replay_last_result"] = (run_key, result, data, data_name, source, columns_used)

if data.notes:
    with st.expander(f"What the loader detected ({len(data.notes)} notes)"):
        st.markdown("\n".join(f"- {note}" for note in data.notes))

overall = result.overall
dual = result.dual
m1, m2, m3 = st.columns(3)
m1.metric("Cases replayed", result.n)
m2.metric("Stopped at case", "–" if dual.stop is None else dual.stop,
          help="Cases annotated when the dual test stopped (– = never within the run).")
m3.metric("Overall accuracy", f"{overall.accuracy:.3f}",
          help=f"95% anytime-valid interval [{overall.cs_low:.3f}, {overall.cs_high:.3f}]; "
               f"Wilson (fixed n) [{overall.ci_low:.3f}, {overall.ci_high:.3f}].")
verdict_text = (f"**Dual-test decision: {dual.decision}** ({dual.model_process} for the model's null "
                f"vs {dual.auditor_process} for the auditor's null"
                + (f", stopped at case {dual.stop})." if dual.stop else ", no crossing within the run)."))
{"failure mode found": st.warning, "audit passed": st.success}.get(dual.decision, st.info)(verdict_text)

traj_spec, sub_spec, freq_spec = replay_specs(run_key, data_name, result)
_shared.show_chart(traj_spec)
st.subheader("Decision per process")
st.caption("Each process alone: the case at which it first reached 1/α and what that means.")
st.dataframe(views.decision_table(result, MODEL_PROCESSES), hide_index=True, width="stretch")

left, right = st.columns([1.1, 1])
with left:
    _shared.show_chart(sub_spec)
with right:
    _shared.show_chart(freq_spec)
st.subheader("Subgroups")
st.caption("n = cases, correct = sum of scores, accuracy with its 95% Wilson interval (ci, fixed n) and "
           "its anytime-valid interval (cs, valid however the run stopped); below q is flagged on the "
           "anytime-valid bound; share = share of the replayed cases.")
shown, _ = views.subgroup_view(result)
st.dataframe(shown, hide_index=True, width="stretch")
_shared.csv_download(shown, "subgroups.csv")

_shared.register_section(views.replay_section(result, MODEL_PROCESSES, data_name, source, columns_used,
                                              data.notes, (traj_spec, sub_spec, freq_spec)))
