"""Replay: run every e-process over a recorded annotation run (paper 001, section 3.2).

Scores are replayed in annotation order (the file's ``order`` column when there is one). The dual
test stops at the first step where the model's e-process (failure mode found) or the auditor's
(audit passed) reaches 1/α. All numbers come from ``audit_core.analyses.replay_run``.
"""

from __future__ import annotations

from pages._first_run import through_router

through_router()  # a deep link as a fresh server's first request runs this file itself (pages/_first_run.py)

import datetime as dt
import functools
from pathlib import Path

import pandas as pd
import streamlit as st

from audit_core import analyses
from audit_core.analyses import (
    ACCEPTED_SCORES,
    AUDITOR_PROCESSES,
    BUNDLED,
    DEFAULT_AUDITOR_PROCESS,
    DEFAULT_MODEL_PROCESS,
    DEFAULT_RUN,
    FAMILY_FLAG,
    MODEL_PROCESSES,
    STYLES,
    SUBGROUP_FLAG,
    AuditParams,
)
from audit_core.errors import InputError
from audit_core.report import format as fmt
from pages import _cache, _shared, _uploads

UPLOAD = "upload"
NONE = "(none)"
MAX_PLANNED = 10_000_000  # a planned number of cases far above any audit (the engine's own bound is higher)
FOLLOW = "follow"
# Following a file by path is offered only under the server's data folder, or on a server bound to
# this machine alone and reached here without a proxy (docs/deploy.md); a visitor of a shared
# server without one cannot name a path.
ACCESS = analyses.follow_access(st.get_option("server.address"), _shared.request_headers())
SEVERAL = "several"
RUN_KEYS = [k for k in BUNDLED] + [UPLOAD, SEVERAL] + ([FOLLOW] if ACCESS.allowed else [])

_shared.page_header(
    "Replay",
    "Replay a recorded annotation run through all six e-processes. The model's null (no subgroup "
    "below q) is rejected when a model process reaches 1/α: a failure mode is found. The auditor's "
    "null (its chosen subgroups fall below q from step m on) is rejected when an auditor process "
    "reaches 1/α: the audit is passed.")

labels = {k: f"Bundled: {BUNDLED[k].title}" for k in BUNDLED}
labels[UPLOAD] = "Upload a labelled CSV or evaluation log"
labels[SEVERAL] = "Upload several runs (CSVs or logs, read as one table with a run column)"
labels[FOLLOW] = "Follow a file on this machine (re-read on request or automatically)"


def reread(path: str) -> None:
    """Read the followed file again (a button callback): a run still being annotated grows."""
    try:
        data = analyses.file_bytes(path, ACCESS, st.get_option("server.maxUploadSize") * 2**20)
        source = _uploads.load_upload("run", _uploads.Upload(Path(path).name, data, analyses.content_key(data, Path(path).name)))
    except InputError as exc:
        st.session_state["replay_follow_error"] = str(exc)
        return
    st.session_state["replay_follow_error"] = None
    _uploads.accept_upload("follow", _uploads.Upload(Path(path).name, data, source.key))
    st.session_state["replay_follow_read"] = (path, dt.datetime.now().strftime("%H:%M:%S"), len(data))


AUTO_SECONDS = 5


def watch(path: str) -> None:
    """Read the followed file again when its content changed (a fragment run every AUTO_SECONDS):
    the whole page then replays what is there now."""
    followed = _uploads.accepted_upload("follow")
    try:
        data = analyses.file_bytes(path, ACCESS, st.get_option("server.maxUploadSize") * 2**20)
    except InputError:
        return  # said by the next Re-read; the last reading stands
    if followed is None or analyses.content_key(data, Path(path).name) != analyses.content_key(followed.data, followed.name):
        reread(path)
        st.rerun(scope="app")


def _in_range(value: float) -> float:
    """A threshold inside the widgets' range [0.01, 0.99]."""
    return min(max(round(value, 10), 0.01), 0.99)


def follow_q(style: str, d: AuditParams) -> None:
    """q − δ and q + δ′ follow a new q (δ and δ′ kept), as the forecaster grids do
    (:func:`audit_core.analyses.audit_params`), unless they were set anew at the same time (a link
    carrying all three). Runs before their widgets, so it may set their values."""
    keys = [_uploads.replay_parameter_key(name, style) for name in ("q", "q_mod", "q_aud")]
    seen = st.session_state.get(f"replay_thresholds_{style}")
    q = st.session_state.get(keys[0], d.q)
    if seen is None or q == seen[0]:
        return
    for key, before in zip(keys[1:], seen[1:], strict=True):
        if st.session_state.get(key, before) == before:
            st.session_state[key] = _in_range(before + q - seen[0])


def threshold_problem(q: float, q_mod: float, q_aud: float) -> str:
    """What is wrong with the three thresholds, in the page's words ('' when nothing is)."""
    if not q_mod < q:
        return f"q − δ = {q_mod:g} must lie below q = {q:g}: lower q − δ (or raise q)"
    if not q_aud > q:
        return f"q + δ′ = {q_aud:g} must lie above q = {q:g}: raise q + δ′ (or lower q)"
    return ""


def in_page_terms(message: str, q: float, d: AuditParams) -> str:
    """An engine message about the parameters, in the words of the widgets above."""
    if "forecaster grids" in message:
        # The grids move with q: the lowest model point stays above 0, the lowest auditor point below 1.
        low, high = d.q - min(d.grid_mod), 1.0 - (min(d.grid_aud) - d.q)
        return (f"q = {q:g} leaves no forecaster grid point on one side of it (the grids move with q, "
                f"docs/e-processes.md); choose q between {low:.2f} and {high:.2f}")
    return message.replace("parameter eta", "η").replace("parameter alpha", "α").replace("parameter m", "m")


_shared.link_settings([_shared.LinkField("dataset", "replay_source", options=tuple(BUNDLED))])
if st.session_state.get("replay_source") not in RUN_KEYS:
    st.session_state["replay_source"] = DEFAULT_RUN
src_col, up_col = st.columns([1.2, 2])
with src_col:
    choice = st.selectbox("Data", RUN_KEYS, format_func=labels.get, key=_shared.kept("replay_source"),
                          help="Bundled data are synthetic replicas of the papers' published marginals.")
with up_col:
    source = None
    if choice == UPLOAD:
        source = _uploads.upload_source(
            "run", "Labelled CSV, Inspect AI log (.eval, .json) or lm-eval samples (.jsonl)",
            ["csv", "tsv", "txt", "eval", "json", "jsonl"],
            help="A CSV needs a score column (0/1 or a number in [0, 1]); subgroup and order columns are "
                 "optional. An Inspect log gives one case per sample (scorer values C = 1, I = 0, P = 0.5, N = 0); "
                 "lm-eval samples one case per document.")
        if source is None:
            st.caption(f"No accepted upload: showing the bundled {BUNDLED[DEFAULT_RUN].title}.")
    elif choice == SEVERAL:
        source = _uploads.upload_source(
            "run", "Several labelled CSVs or evaluation logs (one run each)",
            ["csv", "tsv", "txt", "eval", "json", "jsonl"], slot="runs", multiple=True,
            help="Each file is one run, read with the same columns; the table gets a 'run' column (the model "
                 "and task of each log, or the file name), the first subgroup. lm-eval samples files alone are "
                 "one run with a file per task.")
        if source is None:
            st.caption(f"No accepted upload: showing the bundled {BUNDLED[DEFAULT_RUN].title}.")
    elif choice == FOLLOW:
        path = st.text_input("Path of the labelled file (CSV or log) on this machine" +
                             (", inside the server's data folder" if ACCESS.folder else ""),
                             key=_shared.kept("replay_follow_path"),
                             help="For a run still being annotated: press Re-read to replay what is there now. "
                                  "Rows already replayed keep their trajectories (growing runs)." +
                                  (" A relative path is taken from the data folder; files outside it are not read."
                                   if ACCESS.folder else ""))
        r1, r2 = st.columns([1, 3])
        r1.button("Re-read now", on_click=reread, args=(path,), icon=":material/refresh:", key="replay_reread")
        auto = r2.toggle(f"Re-read every {AUTO_SECONDS} s while the file changes", key=_shared.kept("replay_follow_auto"),
                         help="For a run being written (an Inspect log while the evaluation runs, a CSV being "
                              "labelled): the page replays each new version. The decision at each reading is the "
                              "one you would have stopping then: the e-processes hold at any stopping time.")
        if auto and path:
            st.fragment(functools.partial(watch, path), run_every=AUTO_SECONDS)()
        if st.session_state.get("replay_follow_error"):
            kept = " The last reading stays below." if _uploads.accepted_upload("follow") is not None else ""
            st.error(f"Could not read the file: {_shared.plain(st.session_state['replay_follow_error'])}.{kept}",
                     icon=":material/error:")
        followed = _uploads.accepted_upload("follow")
        if followed is not None:
            source = _uploads.load_upload("run", followed)
            read = st.session_state.get("replay_follow_read")
            if read:
                st.caption(f"Read {_shared.plain(read[0])} at {read[1]} ({read[2]:,} bytes).")
        else:
            st.caption(f"Nothing read yet: showing the bundled {BUNDLED[DEFAULT_RUN].title}.")
    else:
        st.caption(BUNDLED[choice].description)
if source is None:
    source = _uploads.bundled_source("run", choice if choice in BUNDLED else DEFAULT_RUN)
table = source.value
# Widget keys name the data, so each file keeps its own column choices.
# A followed file keeps its choices while it grows (its content key changes at every reading).
data_key = (source.key if source.bundled else f"follow:{st.session_state.get('replay_follow_path', '')}"
            if choice == FOLLOW else _uploads.replay_data_key(source.key))
columns = list(table.columns)
defaults = table.defaults

def link_fields(style: str | None, dataset: bool = True) -> list:
    """The settings a link carries for this data (parameters of the chosen style)."""
    fields = [_shared.LinkField("dataset", "replay_source", options=tuple(BUNDLED))] if dataset else []
    if not table.is_log:
        fields += [_shared.LinkField("score", f"score_{data_key}", options=tuple(columns)),
                   _shared.LinkField("subgroups", f"groups_{data_key}", "list", options=tuple(columns)),
                   _shared.LinkField("order", f"order_{data_key}", options=(NONE, *columns))]
    fields += [_shared.LinkField("style", f"style_{data_key}", options=tuple(STYLES)),
               _shared.LinkField("model_process", "replay_model_process", options=tuple(MODEL_PROCESSES)),
               _shared.LinkField("auditor_process", "replay_auditor_process", options=tuple(AUDITOR_PROCESSES)),
               _shared.LinkField("planned_n", "replay_planned_n", "int", low=0, high=MAX_PLANNED)]
    if style:
        fields += [_shared.LinkField(name, _uploads.replay_parameter_key(name, style), kind, low=low, high=high)
                   for name, kind, low, high in (("q", "float", 0.01, 0.99), ("alpha", "float", 0.001, 0.5),
                                                 ("m", "int", 1, 1000), ("q_mod", "float", 0.01, 0.99),
                                                 ("q_aud", "float", 0.01, 0.99), ("eta", "float", 0.01, 2.0))]
    return fields


if source.bundled:
    _shared.link_settings(link_fields(None, dataset=False))
    linked_style = st.session_state.get(f"style_{data_key}")
    if linked_style in STYLES:
        _shared.link_settings(link_fields(linked_style, dataset=False)[-6:])

with st.expander("Columns and parameters", expanded=not source.bundled or bool(table.pending)):
    c1, c2, c3, c4 = st.columns(4)
    if table.is_log:
        # A log names its scorers/metrics and metadata keys: both are picked from lists, and the
        # subgroups the reader (and the command line without --subgroup) takes are the default.
        choices = table.choices
        scores = list(choices.scores)
        score_col = c1.selectbox("Scorer or metric", scores, key=_shared.kept(f"score_{data_key}"),
                                 index=scores.index(defaults.score) if defaults.score in scores else None,
                                 placeholder="Choose the scorer or metric",
                                 help="Inspect AI: a scorer (scorer.key for a scorer with several values); "
                                      "lm-eval: a per-sample metric.")
        offered = [c for c in choices.subgroups if c != score_col]
        group_cols = c2.multiselect("Subgroups (metadata keys or doc fields)", offered,
                                    key=_shared.kept(f"groups_{data_key}"),
                                    default=[g for g in choices.default_subgroups if g in offered],
                                    help="One key, several (crossed: one subgroup per combination) or none.")
        c2.caption("Default (as the command line without --subgroup): "
                   + (", ".join(_shared.plain(g) for g in choices.default_subgroups) or "none")
                   + (". Several tasks: 'task' is the first subgroup of any choice but none." if "task"
                      in choices.default_subgroups else "."))
        c3.caption(f"Order: {defaults.order or 'as logged'} (from the log's timestamps).")
        if table.pending and not score_col:
            st.info(f"{_shared.plain(table.pending)}: pick it under *Scorer or metric*.", icon=":material/touch_app:")
        order_col = None
    else:
        # Never a guess: without a detected score column the user picks one.
        score_col = c1.selectbox("Score column", columns, key=_shared.kept(f"score_{data_key}"),
                                 index=columns.index(defaults.score) if defaults.score in columns else None,
                                 placeholder="Choose the score column", help=ACCEPTED_SCORES)
        group_cols = c2.multiselect("Subgroup columns", columns, key=_shared.kept(f"groups_{data_key}"),
                                    default=[g for g in defaults.subgroups if g in columns])
        order_options = [NONE] + columns
        order_col = c3.selectbox("Order column", order_options, key=_shared.kept(f"order_{data_key}"),
                                 index=order_options.index(defaults.order) if defaults.order in order_options else 0,
                                 help="Annotation order of the recorded run; without it, file order is used.")
        order_col = False if order_col == NONE else order_col
    style = c4.radio("Parameter defaults", list(STYLES), key=_shared.kept(f"style_{data_key}"),
                     index=list(STYLES).index(table.style), horizontal=True,
                     format_func={"gpqa": "GPQA-style", "sdoh": "SDoH-style"}.get)
    d = AuditParams.for_style(style)
    follow_q(style, d)
    p1, p2, p3, p4, p5, p6 = st.columns(6)
    q = p1.number_input("q (threshold)", 0.01, 0.99, d.q, 0.01, key=_shared.kept(_uploads.replay_parameter_key("q", style)),
                        help="A subgroup with accuracy below q is a failure mode. Changing q moves q − δ, q + δ′ "
                             "and the forecaster grids with it (docs/e-processes.md, Parameters and defaults).")
    alpha = p2.number_input("α", 0.001, 0.5, d.alpha, 0.005, format="%.3f", key=_shared.kept(_uploads.replay_parameter_key("alpha", style)),
                            help="Level: a test stops when its e-value reaches 1/α.")
    m = int(p3.number_input("m", 1, 1000, d.m, 1, key=_shared.kept(_uploads.replay_parameter_key("m", style)),
                            help="The auditor's test starts at step m."))
    q_mod = p4.number_input("q − δ", 0.01, 0.99, _in_range(q - d.delta), 0.01, key=_shared.kept(_uploads.replay_parameter_key("q_mod", style)),
                            help="Alternative of LR / SR-LR (model's null).")
    q_aud = p5.number_input("q + δ′", 0.01, 0.99, _in_range(q + d.delta_aud), 0.01, key=_shared.kept(_uploads.replay_parameter_key("q_aud", style)),
                            help="Alternative of AUD-LR (auditor's null).")
    eta = p6.number_input("η", 0.01, 2.0, d.eta, 0.05, key=_shared.kept(_uploads.replay_parameter_key("eta", style)),
                          help="Learning rate of the forecaster used by the -UI processes.")
    st.session_state[f"replay_thresholds_{style}"] = (q, q_mod, q_aud)
    r1, r2, r3 = st.columns(3)
    model_process = r1.selectbox("Model process of the dual test", MODEL_PROCESSES,
                                 index=MODEL_PROCESSES.index(DEFAULT_MODEL_PROCESS),
                                 key=_shared.kept("replay_model_process"))
    auditor_process = r2.selectbox("Auditor process of the dual test", AUDITOR_PROCESSES,
                                   index=AUDITOR_PROCESSES.index(DEFAULT_AUDITOR_PROCESS),
                                   key=_shared.kept("replay_auditor_process"))
    planned_n = int(r3.number_input(
        "Planned number of cases (0: none)", 0, MAX_PLANNED, 0, 1, key=_shared.kept("replay_planned_n"),
        help="The number of cases the audit planned before any data (its budget). The overall anytime-valid "
             "interval of 0/1 scores is then tuned to it: narrower up to that many cases, still valid at every "
             "number. Only a number fixed before the data keeps that guarantee: not the run's length after the fact.")) or None

score_mapping = None
if score_col is None and table.is_log:
    _shared.stop_page()
if score_col is None:
    st.info("No score column was detected in this file: choose it under *Columns and parameters*. "
            + ACCEPTED_SCORES, icon=":material/touch_app:")
    _shared.stop_page()
# A log's scorer values have their own documented meaning; a CSV's text labels may need a mapping.
labels = None if table.is_log else _cache.score_labels(source, score_col)
if labels is not None and labels.needs_mapping and not labels.too_many:
    mapping_key = f"mapping_{data_key}_{score_col}"
    st.markdown(f"**Scores for the labels of {_shared.plain(score_col)}** (edit where the suggestion is wrong; "
                "leave a cell empty to report the label as unreadable)")
    if labels.note:
        st.caption(labels.note)
    suggested = st.session_state.get(mapping_key, labels.suggested)

    edited = st.data_editor(
        pd.DataFrame({"label": list(labels.labels), "score": [suggested.get(v) for v in labels.labels]}),
        disabled=["label"], hide_index=True, key=f"editor_{mapping_key}",
        column_config={"score": st.column_config.NumberColumn(min_value=0.0, max_value=1.0, step=0.25)})
    score_mapping = {str(r.label): float(r.score) for r in edited.itertuples() if pd.notna(r.score)}
    st.session_state[mapping_key] = score_mapping
elif labels is not None and labels.too_many:
    st.caption(f"{_shared.plain(score_col)} has more than {len(labels.labels)} distinct text values: it is not a label column. "
               + ACCEPTED_SCORES)

# Rows without a score: said, and left out only when the user asks (issue 29 item 7).
n_missing = _cache.missing_score_count(source, score_col)
drop_missing = bool(n_missing) and st.checkbox(
    f"Leave out the {n_missing:,} rows without a score in {_shared.plain(score_col)}",
    key=_shared.kept(f"drop_missing_{data_key}_{score_col}"),
    help="Without this the run is refused: a rate over the rows that have a score is only what it says if "
         "the missing ones are missing for reasons unrelated to the answers. The replay says how many it left out.")

_shared.write_link(link_fields(style), shareable=source.bundled and choice in BUNDLED)

LAST_GOOD = f"replay_last_good_{data_key}"  # the arguments of the last replay shown for this data
try:
    problem = threshold_problem(q, q_mod, q_aud)
    if problem:
        raise InputError(problem)
    try:
        params = AuditParams.from_thresholds(style, q=q, alpha=alpha, m=m, q_mod=q_mod, q_aud=q_aud, eta=eta)
    except InputError as exc:  # the engine names its fields; the page names its widgets
        raise InputError(in_page_terms(str(exc), q, d)) from None
    replay_args = (source, score_col, None if group_cols is None else tuple(group_cols), order_col,
                   model_process, auditor_process, tuple(sorted((score_mapping or {}).items())), drop_missing, planned_n, params)
    view = _cache.replay_run(*replay_args)
    st.session_state[LAST_GOOD] = replay_args
except InputError as exc:
    last = st.session_state.get(LAST_GOOD)
    _shared.show_input_error(exc, f"{source.name} with these choices",
                             "The last good result stays below (its parameters are in its caption)." if last else
                             "Choose other columns or parameters above; nothing below belongs to them.")
    if last is None:
        _shared.stop_page()
    replay_args = last
    view = _cache.replay_run(*replay_args)
    shown = replay_args[-1]
    st.caption(f"Showing the last good result: q = {shown.q:g}, q − δ = {shown.q_mod:g}, q + δ′ = {shown.q_aud:g}, "
               f"α = {shown.alpha:g}, m = {shown.m}, η = {shown.eta:g}.")

result, dual, overall = view.result, view.result.dual, view.result.overall
_shared.show_verdict(view.verdict)
for warning in view.data.warnings:  # rows left out, an unfinished run: read before any number below
    st.warning(_shared.plain(warning), icon=":material/warning:")
_shared.show_source(source)
if view.data.notes:
    with st.expander(f"What the loader detected ({len(view.data.notes)} notes)"):
        for note in view.data.notes:
            st.text(f"• {note}")

m1, m2, m3 = st.columns(3)
m1.metric("Cases replayed", fmt.count(result.n))
m2.metric("Stopped at case", fmt.count(dual.stop),
          help="Cases annotated when the dual test stopped (— = never within the run).")
m3.metric("Overall accuracy", fmt.rate(overall.accuracy),
          help=f"95% anytime-valid interval{fmt.planned_note(result.planned_n)} "
               f"{fmt.anytime_interval(overall.cs_low, overall.cs_high)} (valid when "
               f"cases arrived in random order; an adaptive auditor changes what it covers); Wilson (fixed n) "
               f"[{fmt.rate(overall.ci_low)}, {fmt.rate(overall.ci_high)}].")

_shared.show_chart(view.trajectory_chart)
st.subheader("Decision per process")
st.caption("Each process alone: the case at which it first reached 1/α and what that means.")
_shared.show_table(view.decision_table)

# One above the other: side by side at 1280 px each plot was squeezed to 60–150 px (issue 19 item 14).
_shared.show_chart(view.subgroup_chart)
_shared.show_chart(view.frequency_chart)
st.subheader("Subgroups")
st.caption(view.subgroup_caption)
# The whole table within 1280 px (issue 29 item 13): the flags and the three intervals in view, short
# headers with the full name in their help; correct (n × accuracy) and share (the chart above) are
# in the download only.
_shared.show_table(view.subgroup_table, intervals=True, column_config={
    "correct": None, "share": None,
    FAMILY_FLAG: st.column_config.CheckboxColumn("< q family", help=FAMILY_FLAG, width="small"),
    SUBGROUP_FLAG: st.column_config.CheckboxColumn("< q alone", help=SUBGROUP_FLAG, width="small"),
    "ci": st.column_config.TextColumn("Wilson", help="95% Wilson interval: fixed n only"),
    "cs": st.column_config.TextColumn("anytime", help="anytime-valid interval of this subgroup alone"),
    "fw": st.column_config.TextColumn("family-wise", help="family-wise anytime-valid interval (level fw_alpha)"),
    "fw_alpha": st.column_config.NumberColumn("fw α", help="the level of this subgroup's family-wise interval",
                                              format="%.4f")})
_shared.csv_download(view.subgroup_table, "subgroups.csv")

# The session keeps how to get the section, not its per-step arrays (the Report page asks the cache).
# A partial, not a lambda: a lambda would keep this run's globals (``view`` among them) alive.
_shared.register_section(view.section, rebuild=functools.partial(_cache.replay_section, *replay_args))
