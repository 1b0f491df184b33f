"""Compare two runs: the same cases labelled under two models or two prompt versions.

The paired difference B − A overall and per subgroup with intervals, the regressions and
improvements case by case, each run's own audit decision side by side, and the cases present in
one run only. All numbers come from ``audit_core.analyses.compare_runs``.
"""

from __future__ import annotations

from pages._first_run import through_router

through_router()  # a deep link as a fresh server's first request runs this file itself (pages/_first_run.py)

import streamlit as st

from audit_core.analyses import BUNDLED, AuditParams
from audit_core.errors import InputError
from pages import _cache, _shared, _uploads

UPLOAD = "upload"
RUN_KEYS = [k for k in BUNDLED if k != "recorded_run"] + [UPLOAD]
LABELS = {**{k: f"Bundled: {BUNDLED[k].title}" for k in BUNDLED}, UPLOAD: "Upload a run (CSV or log)"}

_shared.page_header(
    "Compare two runs",
    "Two labelled runs on overlapping cases, matched by case id: is B better or worse than A, where, "
    "and on which cases? Each run's own dual-test decision is shown next to the paired difference.")


def run_choice(side: str, default: str):
    choice = st.selectbox(f"Run {side}", RUN_KEYS, index=RUN_KEYS.index(default), format_func=LABELS.get,
                          key=_shared.kept(f"compare_{side}"))
    if choice == UPLOAD:
        source = _uploads.upload_source("run", f"Run {side}: labelled CSV, Inspect AI log or lm-eval samples",
                                       ["csv", "tsv", "txt", "eval", "json", "jsonl"], slot=f"compare_{side}")
        if source is not None:
            return source
        st.caption("No accepted upload yet: using the bundled default.")
        choice = default
    return _uploads.bundled_source("run", choice)


LINK = [_shared.LinkField("a", "compare_A", options=tuple(k for k in RUN_KEYS if k != UPLOAD)),
        _shared.LinkField("b", "compare_B", options=tuple(k for k in RUN_KEYS if k != UPLOAD)),
        _shared.LinkField("score", "compare_score"), _shared.LinkField("subgroups", "compare_groups", "list"),
        _shared.LinkField("confidence", "compare_confidence", "float", low=0.8, high=0.99)]
_shared.link_settings(LINK)

left, right = st.columns(2)
with left:
    run_a = run_choice("A", "gpqa:large")
with right:
    run_b = run_choice("B", "gpqa:medium")

def offered(source) -> tuple[list[str], list[str]]:
    """The scores and subgroup keys a run offers: a log's scorers/metrics and metadata keys, a CSV's columns."""
    table = source.value
    if table.is_log:
        return list(table.choices.scores), list(table.choices.subgroups)
    return list(table.columns), list(table.columns)


# Picked from the two runs' lists (never typed); a value from a hand-edited link that neither run
# offers goes back to each run's own.
score_options = ["", *dict.fromkeys(offered(run_a)[0] + offered(run_b)[0])]
group_options = list(dict.fromkeys(offered(run_a)[1] + offered(run_b)[1]))
if st.session_state.get("compare_score") not in score_options:
    st.session_state["compare_score"] = ""
st.session_state["compare_groups"] = [g for g in st.session_state.get("compare_groups") or [] if g in group_options]
with st.expander("Roles and parameters"):
    c1, c2, c3 = st.columns(3)
    score = c1.selectbox("Score column, scorer or metric (both runs)", score_options, key=_shared.kept("compare_score"),
                         format_func=lambda v: v or "(each run's own)", help="Empty: each run's own (bundled or detected).") or None
    chosen_groups = c2.multiselect("Subgroups (both runs)", group_options, key=_shared.kept("compare_groups"),
                                   placeholder="Each run's own", help="None chosen: each run's own subgroups.")
    confidence = c3.select_slider("Confidence", [0.8, 0.9, 0.95, 0.99], value=0.95,
                                  key=_shared.kept("compare_confidence"))
subgroups = tuple(chosen_groups) or None
_shared.write_link(LINK, shareable=run_a.bundled and run_b.bundled)

try:
    params = AuditParams.for_style(run_a.value.style)
    view = _cache.compare_runs(run_a.key, run_b.key, score, subgroups, repr(params.to_dict()), float(confidence),
                               run_a, run_b, params)
except InputError as exc:
    _shared.show_input_error(exc, "these two runs", "Choose other runs or roles above.")
    _shared.stop_page()

comparison = view.comparison
_shared.show_verdict(view.verdict)
st.caption(f"Run A: {_shared.plain(run_a.description)} · Run B: {_shared.plain(run_b.description)}")
m1, m2, m3, m4 = st.columns(4)
m1.metric("Common cases", comparison.n_common)
m2.metric("Difference B − A", f"{comparison.overall.difference:+.3f}",
          help=f"{confidence:.0%} {comparison.overall.interval} interval "
               f"[{comparison.overall.ci_low:+.3f}, {comparison.overall.ci_high:+.3f}].")
m3.metric("Regressions", comparison.overall.regressions, help="Cases right in A and wrong in B.")
m4.metric("Improvements", comparison.overall.improvements, help="Cases wrong in A and right in B.")
if comparison.only_a or comparison.only_b:
    st.info(f"Cases in one run only: {len(comparison.only_a)} only in {_shared.plain(comparison.names[0])}, "
            f"{len(comparison.only_b)} only in {_shared.plain(comparison.names[1])}; they are left out of the "
            "paired difference.")
if comparison.notes:
    with st.expander(f"What the loader detected ({len(comparison.notes)} notes)"):
        for note in comparison.notes:
            st.text(f"• {note}")

st.subheader("Each run's audit decision")
_shared.show_table(view.decisions_table)
_shared.show_chart(view.difference_chart)
st.subheader("Per subgroup")
_shared.show_table(view.subgroup_table, intervals=True)
st.subheader("Regressions and improvements, case by case")
_shared.show_table(view.changes_table, height=320)
_shared.csv_download(view.changes_table, "changes.csv", key="compare_changes_csv")
_shared.register_section(view.section)
