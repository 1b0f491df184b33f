"""Live audit: the strategy proposes a case, a person labels it, the dual test updates (issue 10).

Everything is stored in the workspace database (``$AUDIT_HOME``) as events; this page keeps only
the chosen audit id and the annotator's name in ``st.session_state`` (under its own keys, so they
survive visits to other pages); only the audit id travels in the URL. Every number comes from
``audit_core.analyses.live``.

Who acts (issue 23): with sign-in configured, the signed-in identity and its role (``pages/_auth``);
the engine refuses what the role does not allow, and this page only leaves out the controls a
role cannot use. Without sign-in, the name typed below, recorded as self-declared.
"""

from __future__ import annotations

from pages._first_run import through_router

through_router()  # a deep link as a fresh server's first request runs this file itself (pages/_first_run.py)

import math

import streamlit as st

from audit_core import analyses
from audit_core.analyses import live
from audit_core.errors import InputError
from audit_core.report import format as fmt
from pages import _auth, _shared, _uploads

AUDIT_KEY = "live_audit_id"              # the audit this session works on
ANNOTATOR_KEY = "live_annotator"         # who labels
LAST_LABEL_KEY = "live_last_label"       # case just labelled: offer undo before claiming the next
SECTIONS_KEY = "report_sections"         # the Report page's session key for computed sections
UPLOAD = "upload a file"
OWN_REASON = "another reason (write it below)"
# Keyboard shortcuts (Streamlit reserves C and R; typing in a text box does not trigger them).
LABEL_KEYS = {"correct": "1", "incorrect": "2", "partial": "3"}
SKIP_KEY, UNDO_KEY, NEXT_KEY = "S", "U", "N"
LABEL_CHOICE_TEXT = {"first": "first label", "adjudicated": "settled label"}
DOUBLE_LABEL_NOTES = {
    "double-labelled": ": a double-labelled case, so your label measures agreement (it cannot be undone; an "
                       "adjudicator can settle a disagreement).",
    "waits": ": a double-labelled case, so the e-processes see it once its labels agree or an adjudicator "
             "settles it (it cannot be undone)."}
# The open audit travels in the URL, so a reload (a new browser session) lands on the same case
# instead of *Resume* (issue 19 item 13). A name never does (issue 27 item 4): whoever opened a
# link carrying one would label as that person, on their claimed case. An old link's name is dropped.
AUDIT_PARAM, ANNOTATOR_PARAM = "audit", "annotator"

_shared.page_header(
    "Live audit",
    "Run the adaptive audit for real: the auditor's strategy picks the next case, you label it, and both "
    "e-processes update until one reaches 1/α. Labels are saved as they are given; close the browser and "
    "resume later, or label from several sessions at once.")


def _keep(source: str, target: str) -> None:
    st.session_state[target] = st.session_state[source]


def _error(exc: InputError) -> None:
    st.error(_shared.plain(exc), icon=":material/error:")


def _may(who: live.Identity | None, action: str) -> bool:
    """The role allows ``action`` and, for a write, the sign-in has not ended."""
    return live.may(who, action)


def _start_form(who: live.Identity | None) -> None:
    with st.form("live_new"):
        source = st.selectbox("Pool", (*live.LIVE_POOLS, UPLOAD), key="live_new_pool")
        upload = st.file_uploader("Pool file: a CSV (one row per model output to label) or an Inspect AI "
                                  "log (.eval / .json; its outputs are labelled, its scorers hidden)",
                                  type=["csv", "eval", "json"], key="live_new_upload")
        strategy = st.selectbox("Strategy", live.LIVE_STRATEGIES, index=live.LIVE_STRATEGIES.index("adaptive"),
                                key="live_new_strategy")
        process = st.selectbox("Model e-process", live.MODEL_PROCESSES, index=live.MODEL_PROCESSES.index(live.DEFAULT_MODEL_PROCESS),
                               key="live_new_process")
        seed = st.number_input("Seed", min_value=0, value=0, step=1, key="live_new_seed")
        share, labellers, choice = st.columns([2, 1, 2])
        overlap = share.slider("Double-labelled cases (%)", 0, 100, 0, step=5, key="live_new_overlap",
                               help="This share of cases, chosen by their ids before any label, is labelled by "
                                    "several people each, to measure agreement. 0: every case once.")
        per_case = labellers.number_input("Labellers per case", min_value=2, max_value=10, value=2, step=1,
                                          key="live_new_labellers")
        label_choice = choice.radio("The e-processes see", live.OVERLAP_LABEL_CHOICES, key="live_new_label_choice",
                                    format_func=LABEL_CHOICE_TEXT.get, horizontal=True,
                                    help="Chosen before any label. 'first label': the audit goes on at once, the "
                                         "further labels only measure agreement. 'settled label': a double-labelled "
                                         "case waits until its labels agree or an adjudicator settles it.")
        plan = {"overlap": overlap / 100.0, "labellers": int(per_case), "label_choice": label_choice}
        if st.form_submit_button("Start audit", icon=":material/play_arrow:"):
            try:
                if source == UPLOAD:
                    if upload is None:
                        raise InputError("pool: choose a CSV file or an Inspect AI log to upload")
                    started = live.start_live_audit(upload.name, strategy, process, int(seed),
                                                    content=upload.getvalue(), who=who, **plan)
                else:
                    started = live.start_live_audit(source, strategy, process, int(seed), who=who, **plan)
                st.session_state[AUDIT_KEY] = started.audit["audit_id"]
                st.session_state.pop(LAST_LABEL_KEY, None)
            except InputError as exc:
                _error(exc)
            else:
                # Draw the page again with the audit open: the start form folds away and the case
                # and its label buttons come first (this run already drew the form open).
                st.rerun()


def from_url() -> None:
    """Take the audit from the URL when this session has none; a name in it is dropped, unread."""
    raw = st.query_params.get(AUDIT_PARAM)
    if st.session_state.get(AUDIT_KEY) is None and raw and raw.isdigit():
        st.session_state[AUDIT_KEY] = int(raw)
    if ANNOTATOR_PARAM in st.query_params:
        del st.query_params[ANNOTATOR_PARAM]


def to_url(audit_id: int | None) -> None:
    value = None if audit_id is None else str(audit_id)
    if value is None:
        if AUDIT_PARAM in st.query_params:
            del st.query_params[AUDIT_PARAM]
    elif st.query_params.get(AUDIT_PARAM) != value:
        st.query_params[AUDIT_PARAM] = value


def choose_audit(who: live.Identity | None) -> int | None:
    current = st.session_state.get(AUDIT_KEY)
    # With an audit open the case comes first: starting or resuming another folds away, so the
    # label buttons are above the fold at 1280 × 800.
    holder = (st.expander(f"Start or resume another audit (audit {current} is open)")
              if current is not None else st.container())
    with holder:
        return _choose(who)


def _choose(who: live.Identity | None) -> int | None:
    try:
        audits = live.live_audit_list()
    except InputError as exc:  # a broken workspace is said once; starting one may still work
        _error(exc)
        audits = None
    start, resume = st.tabs(["Start an audit", "Resume an audit"])
    with start:
        if _auth.sign_in_configured() and not _may(who, "create"):
            st.caption("Your sign-in has ended: sign in again (sidebar) to start an audit."
                       if who is not None and live.allows(who.role, "create") and live.expired(who)
                       else "Only an owner can start an audit (the operator assigns roles).")
        else:
            _start_form(who)
    with resume:
        if audits is None or audits.empty:
            st.caption("No audit in this workspace yet.")
        else:
            _shared.show_table(audits)
            ids = [int(i) for i in audits["audit_id"]]
            current = st.session_state.get(AUDIT_KEY)
            picked = st.selectbox("Audit", ids, index=ids.index(current) if current in ids else len(ids) - 1,
                                  key="live_resume_pick")
            if st.button("Resume", key="live_resume", icon=":material/history:"):
                st.session_state[AUDIT_KEY] = int(picked)
                st.session_state.pop(LAST_LABEL_KEY, None)
                st.rerun()   # as after Start: the case first
    return st.session_state.get(AUDIT_KEY)


def label_panel(audit_id: int, annotator: live.Identity | None) -> None:
    """The audit; with ``annotator`` (who may label) their case to label, else a read-only view."""
    last = st.session_state.get(LAST_LABEL_KEY)
    view = live.live_audit_view(audit_id, annotator, claim=last is None and _may(annotator, "claim"))
    status = view.status
    if status.stop is not None:
        st.success(f"Decision: {_shared.plain(view.verdict)}", icon=":material/flag:")
    elif status.done:
        st.warning(f"Decision: {_shared.plain(view.verdict)}", icon=":material/flag:")
    else:
        st.info(_shared.plain(view.verdict), icon=":material/pending:")
    if annotator is not None and live.expired(annotator) and live.allows(annotator.role, "label"):
        st.warning(f"Your sign-in ended at {live.utc_time(annotator.expires)}: sign in again (sidebar) to label"
                   + (f"; case {_shared.plain(view.current[0].case_id)} stays yours meanwhile." if view.current else ".")
                   + " Until then you see the audit read-only.", icon=":material/schedule:")
    elif last is not None:
        done_panel(audit_id, annotator, last, status)
    elif view.current:
        case_panel(audit_id, annotator, view)
    elif annotator is not None and not _may(annotator, "label"):
        st.caption(f"You are signed in as a {annotator.role}: you see the audit, you do not label.")
    # One base for people: log₁₀ E, as on the chart (its red line is log₁₀(1/α)); "—" before any label.
    cols = st.columns(4)
    cols[0].metric("Labelled", fmt.count(status.n))
    cols[1].metric(f"{fmt.LOG_E_LABEL} {status.process}", fmt.evalue(status.log_e_model),
                   help="— until the first label counts.")
    cols[2].metric(f"{fmt.LOG_E_LABEL} {status.auditor_process}", fmt.evalue(status.log_e_auditor),
                   help="— until the first label counts.")
    cols[3].metric("Threshold log₁₀(1/α)", fmt.evalue(status.log_threshold),
                   help=f"A process stops the audit when its E reaches 1/α = {fmt.number(math.exp(status.log_threshold))}.")
    if status.n_skipped:
        st.caption(live.skip_note(status.n_skipped))
    if view.trajectory is not None:
        _shared.show_chart(view.trajectory, key="live_trajectory")
    with st.expander(f"Labels ({len(view.labels)})"):
        _shared.show_table(view.labels)
    if len(view.by_annotator):
        with st.expander(f"Who labelled how many cases ({len(view.by_annotator)})"):
            _shared.show_table(view.by_annotator)
    if len(view.skips):
        with st.expander(f"Skipped cases ({len(view.skips)})"):
            _shared.show_table(view.skips)
    if view.agreement is not None:
        agreement_panel(view.agreement)
        if _may(annotator, "adjudicate"):
            adjudication_panel(audit_id, annotator, view.agreement)
    if _may(annotator, "audit trail"):
        owner_panel(audit_id, annotator, view)
    share(audit_id, view, annotator)


def agreement_panel(agreement) -> None:
    """How far the labellers agree: the sentence, the three statistics, the per-subgroup chart,
    each labeller against the others, the disagreements and how they were settled."""
    st.subheader("Agreement between labellers")
    st.caption(_shared.plain(agreement.verdict))
    overall = agreement.statistics[agreement.statistics["subgroup"] == "(all)"]
    if len(overall):
        cols = st.columns(len(overall))
        for col, row in zip(cols, overall.itertuples(), strict=True):
            col.metric(row.statistic, fmt.number(row.estimate),
                       help=f"{fmt.number(row.low)} to {fmt.number(row.high)}: bootstrap interval over the "
                            f"{fmt.count(row.cases)} double-labelled cases.")
    if agreement.chart is not None:
        _shared.show_chart(agreement.chart, key="live_agreement_chart")
    with st.expander(f"Agreement statistics per subgroup ({len(agreement.statistics)})"):
        _shared.show_table(agreement.statistics, intervals=True)
    if len(agreement.annotators):
        with st.expander(f"Each labeller against the others ({len(agreement.annotators)})"):
            _shared.show_table(agreement.annotators)
    if len(agreement.disagreements) or agreement.hidden:
        with st.expander(f"Disagreements ({len(agreement.disagreements)})"):
            _shared.show_table(agreement.disagreements)
            if agreement.hidden:
                st.caption(f"{fmt.count(agreement.hidden)} more on cases you may still be asked to label: "
                           "no one sees another's label first.")


def adjudication_panel(audit_id: int, who: live.Identity, agreement) -> None:
    """Owners and adjudicators: the disagreements waiting to be settled, one at a time, with every
    label and its author; the settled label and the reason are an event like any other."""
    queue = agreement.disagreements[agreement.disagreements["state"] == "waits for adjudication"]
    st.subheader(f"Adjudication ({len(queue)} to settle)")
    if queue.empty:
        st.caption("No disagreement waits to be settled.")
        return
    case = queue.iloc[0]
    st.write(f"Case **{_shared.plain(case['case'])}** ({_shared.plain(case['subgroup'])}): "
             f"{_shared.plain(case['labels'])}")
    pick, why, go = st.columns([2, 3, 1], vertical_alignment="bottom")
    names = [name for name, _ in live.LABEL_CHOICES]
    settled = pick.selectbox("Settled label", names, key="live_adjudicate_label")
    reason = why.text_input("Reason (kept with the label)", key="live_adjudicate_reason")
    if go.button("Settle", key="live_adjudicate", icon=":material/gavel:", width="stretch"):
        _act(live.adjudicate_case, audit_id, case["case"], dict(live.LABEL_CHOICES)[settled], reason, who)


def owner_panel(audit_id: int, owner: live.Identity, view) -> None:
    """Owners: the audit trail (with its CSV and JSON files), and undo of the last label or skip
    whoever gave it."""
    with st.expander("Audit trail (owners)"):
        trail = live.audit_trail(audit_id, owner)
        _shared.show_table(trail)
        left, right = st.columns(2)
        for col, suffix in ((left, ".csv"), (right, ".json")):
            col.download_button(f"Download the trail ({suffix[1:].upper()})",
                                live.audit_trail_bytes(audit_id, trail, suffix),
                                file_name=f"live_audit_{audit_id}_trail{suffix}", key=f"live_trail{suffix}",
                                mime="text/csv" if suffix == ".csv" else "application/json",
                                icon=":material/download:")
        last = view.undoable
        if last is not None and last.annotator != owner.name and _auth.sign_in_configured():
            if st.button(f"Undo the last label or skip (case {last.case_id}, by {last.annotator})",
                         key="live_owner_undo", icon=":material/undo:"):
                _act(live.undo_last_label, audit_id, owner)


def _act(action, *args, done: tuple[str, str] | None = None, **kwargs) -> None:
    """Run one write (label, skip, undo) and rerun; a refused write shows its one message and
    changes nothing. ``done``: (case id, "labelled" / "skipped") to offer undo for afterwards."""
    try:
        result = action(*args, **kwargs)
    except InputError as exc:
        _error(exc)
        return
    received = getattr(result, "received", None)
    if done is not None and received is not None:   # a double-labelled case's label: no undo
        done = (done[0], "waits" if received["waits"] else "double-labelled")
    if done is None:
        st.session_state.pop(LAST_LABEL_KEY, None)
    else:
        st.session_state[LAST_LABEL_KEY] = done
    st.rerun()


def done_panel(audit_id: int, annotator: str, last, status) -> None:
    """After a label or skip: undo it, or go on to the next case (claimed only then)."""
    case_id, kind = last if isinstance(last, tuple) else (last, "labelled")
    st.write(f"{'Skipped' if kind == 'skipped' else 'Labelled'} case **{_shared.plain(case_id)}**"
             + DOUBLE_LABEL_NOTES.get(kind, "."))
    undo_col, next_col = st.columns(2)
    if undo_col.button(f"Undo this {'skip' if kind == 'skipped' else 'label'}", key="live_undo",
                       icon=":material/undo:", disabled=not status.can_undo or kind in DOUBLE_LABEL_NOTES,
                       shortcut=UNDO_KEY):
        _act(live.undo_last_label, audit_id, annotator)
    if next_col.button("Next case", key="live_next", icon=":material/skip_next:", disabled=status.done,
                       shortcut=NEXT_KEY):
        st.session_state.pop(LAST_LABEL_KEY, None)
        st.rerun()


def case_panel(audit_id: int, annotator: str, view) -> None:
    """The claimed case, why it was chosen, the label buttons and the skip row."""
    case, table, reason = view.current[0], view.case_tables[0], view.reasons[0]
    st.subheader(f"Case {_shared.plain(case.case_id)}")
    st.caption(f"Subgroup: {_shared.plain(case.subgroup)}. Why this case: {reason}"
               + (f" (predicted accuracy {case.predicted:.2f})." if case.predicted is not None else "."))
    # The case's fields in a box of bounded height, the label buttons beside it: both fit above
    # the fold at 1280 × 800 however long the model's output is.
    fields, buttons = st.columns([3, 1])
    with fields:
        _shared.show_table(table, height=min(36 + 35 * len(table), 250))
    for name, score in live.LABEL_CHOICES:
        if buttons.button(name, key=f"live_label_{name}", width="stretch", shortcut=LABEL_KEYS[name]):
            _act(live.record_label, audit_id, case.case_id, score, annotator, show_next=False,
                 done=(case.case_id, "labelled"))
    why, own, go = st.columns([3, 3, 1], vertical_alignment="bottom")
    choice = why.selectbox("Skip this case without a label, because", (*live.SKIP_REASONS, OWN_REASON),
                           key="live_skip_reason")
    note = own.text_input("Your reason", key="live_skip_note", disabled=choice != OWN_REASON)
    if go.button("Skip", key="live_skip", icon=":material/redo:", shortcut=SKIP_KEY, width="stretch"):
        _act(live.skip_case, audit_id, case.case_id, note if choice == OWN_REASON else choice, annotator,
             show_next=False, done=(case.case_id, "skipped"))
    st.caption("Keys: 1 correct, 2 incorrect, 3 partial, S skip, then U undo or N next. A skipped case gets "
               "no label and leaves the audit; the reason is kept.")


def open_in_replay(audit_id: int, who: live.Identity | None) -> None:
    """Hand the export to Replay as an accepted upload, with the settings of this audit."""
    handoff = live.replay_handoff(audit_id, who=who)
    upload = _uploads.Upload(handoff.name, handoff.data, analyses.content_key(handoff.data, handoff.name))
    _uploads.open_in_replay(upload, handoff.score, handoff.style, handoff.params, handoff.model_process,
                           handoff.auditor_process, handoff.planned_n)


def share(audit_id: int, view, who: live.Identity | None) -> None:
    st.session_state.setdefault(SECTIONS_KEY, {})[view.section.key] = view.section
    left, middle, right = st.columns(3)
    if view.status.n and _may(who, "export"):
        left.download_button("Export labelled CSV (recorded-run format)", live.export_live_csv(audit_id, who=who),
                             file_name=f"live_audit_{audit_id}.csv", mime="text/csv", key="live_export",
                             icon=":material/download:")
        if middle.button("Open in Replay", key="live_to_replay", icon=":material/replay:",
                         help="Replays the export with this audit's parameters and processes: the same "
                              "trajectories, decision and stop."):
            open_in_replay(audit_id, who)
        right.caption("This audit is also on *Report*.")


def typed_name() -> live.Identity | None:
    """Without sign-in: the name typed here, recorded as self-declared (None until one is given)."""
    if "live_annotator_input" not in st.session_state:
        st.session_state["live_annotator_input"] = st.session_state.get(ANNOTATOR_KEY, "")
    st.text_input("Your name (recorded with every label)", key="live_annotator_input",
                  on_change=_keep, args=("live_annotator_input", ANNOTATOR_KEY))
    name = st.session_state.get(ANNOTATOR_KEY) or st.session_state.get("live_annotator_input", "")
    return live.declared(name) if name.strip() else None


sign_in = _auth.sign_in_configured()
who = _auth.session_identity() if sign_in else None
from_url()
audit_id = choose_audit(who)
if not sign_in:
    who = typed_name()
elif who is not None:
    st.caption(f"Signed in as **{_shared.plain(who.name)}** ({who.role})"
               + (": every label records this identity." if _may(who, "label") else "."))
to_url(audit_id)
if audit_id is None:
    st.caption("Start or resume an audit above.")
elif who is None and not sign_in:
    st.caption(f"Audit {audit_id} is open: enter your name to label.")
else:
    if who is None:
        st.caption(f"Audit {audit_id}: sign in (sidebar) to label; until then you see it read-only.")
    try:
        label_panel(int(audit_id), who)
    except InputError as exc:
        _error(exc)
