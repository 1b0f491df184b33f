"""Compare runs: two or more labelled runs of the same cases, matched by case id.

Is B better than A, or the same within a pre-registered margin, and which runs are statistically
tied? The decision sentence comes first, then the anytime-valid difference with its margin band,
the tie groups and ranks of every run, the fixed-n interval and McNemar's test, the subgroups, the
cases that changed, and each run's own audit decision. All numbers come from
``audit_core.analyses.compare_runs``.
"""

from __future__ import annotations

from pages._first_run import through_router

through_router()  # a deep link as a fresh server's first request runs this file itself (pages/_first_run.py)

import streamlit as st

from audit_core.analyses import BUNDLED, COMPARE_MARGIN, audit_params, resolve_style
from audit_core.errors import InputError
from audit_core.report import format as fmt
from pages import _cache, _shared, _uploads
from pages._first_views import COMPARE as FIRST

SET, RUNS = "set", "runs"
BUNDLED_SET = FIRST.run_set
UPLOAD, NONE = "upload", "none"
RUN_KEYS = [k for k in BUNDLED if k != "recorded_run"] + [UPLOAD]
LABELS = {**{k: f"Bundled: {BUNDLED[k].title}" for k in BUNDLED}, UPLOAD: "Upload a run (CSV or log)",
          NONE: "No third run"}
MARGINS = [0.0, 0.005, 0.01, 0.02, 0.03, 0.05, 0.1]

_shared.page_header(
    "Compare runs",
    "Runs of the same cases (two models, two prompt versions, a set of checkpoints), matched by case id: is B "
    "better than A, or the same within a margin agreed beforehand, and which runs are statistically tied? The "
    "bounds are anytime-valid: look as the runs grow and stop whenever the decision is reached.")

LINK = [_shared.LinkField("mode", "compare_mode", options=(SET, RUNS)),
        _shared.LinkField("a", "compare_A", options=tuple(k for k in RUN_KEYS if k != UPLOAD)),
        _shared.LinkField("b", "compare_B", options=tuple(k for k in RUN_KEYS if k != UPLOAD)),
        _shared.LinkField("c", "compare_C", options=(NONE, *(k for k in RUN_KEYS if k != UPLOAD))),
        _shared.LinkField("pa", "compare_pair_A"), _shared.LinkField("pb", "compare_pair_B"),
        _shared.LinkField("margin", "compare_margin", "float", low=0.0, high=0.1),
        _shared.LinkField("budget", "compare_budget", "int", low=0, high=10_000_000),
        _shared.LinkField("score", "compare_score"), _shared.LinkField("subgroups", "compare_groups", "list"),
        _shared.LinkField("confidence", "compare_confidence", "float", low=0.8, high=0.99)]
_shared.link_settings(LINK)

mode = st.radio("Runs to compare", [SET, RUNS], horizontal=True, key=_shared.kept("compare_mode"),
                format_func={SET: "One table of several runs (a run column)", RUNS: "Separate runs: A, B, C"}.get)


def run_choice(side: str, default: str, keys: list[str]):
    choice = st.selectbox(f"Run {side}", keys, index=keys.index(default), format_func=LABELS.get,
                          key=_shared.kept(f"compare_{side}"))
    if choice == NONE:
        return None
    if choice == UPLOAD:
        source = _uploads.upload_source("run", f"Run {side}: labelled CSV, Inspect AI log or lm-eval samples",
                                       ["csv", "tsv", "txt", "eval", "json", "jsonl"], slot=f"compare_{side}")
        if source is not None:
            return source
        st.caption("No accepted upload yet: using the bundled default.")
        choice = default
    return None if choice == NONE else _uploads.bundled_source("run", choice)


if mode == SET:
    uploaded = _uploads.upload_source(
        "run", "A CSV with a 'run' column naming each row's run (one row per case and run)", ["csv", "tsv", "txt"],
        slot="compare_set")
    sources = [uploaded if uploaded is not None else _uploads.bundled_source("run", BUNDLED_SET)]
    if uploaded is None:
        st.caption("Showing the bundled SYNTHETIC set: four made-up models on the same 448 GPQA-style questions.")
else:
    left, middle, right = st.columns(3)
    with left:
        run_a = run_choice("A", "gpqa:large", RUN_KEYS)
    with middle:
        run_b = run_choice("B", "gpqa:medium", RUN_KEYS)
    with right:
        run_c = run_choice("C", NONE, [NONE, *RUN_KEYS])
    sources = [s for s in (run_a, run_b, run_c) if s is not None]


def offered(source) -> tuple[list[str], list[str]]:
    """The scores and subgroup keys a run offers: a log's scorers/metrics and metadata keys, a CSV's columns."""
    table = source.value
    if table.is_log:
        return list(table.choices.scores), list(table.choices.subgroups)
    return list(table.columns), list(table.columns)


# Picked from the runs' lists (never typed); a value from a hand-edited link that no run offers
# goes back to each run's own.
score_options = ["", *dict.fromkeys(c for s in sources for c in offered(s)[0])]
group_options = list(dict.fromkeys(c for s in sources for c in offered(s)[1]))
if st.session_state.get("compare_score") not in score_options:
    st.session_state["compare_score"] = ""
st.session_state["compare_groups"] = [g for g in st.session_state.get("compare_groups") or [] if g in group_options]
c1, c2, c3 = st.columns(3)
margin = c1.select_slider("Margin δ of B − A (agreed beforehand)", MARGINS, value=COMPARE_MARGIN,
                          key=_shared.kept("compare_margin"), format_func=lambda v: f"{v:g}",
                          help="B better: lower bound above δ; A better: upper bound below −δ; equivalent: both "
                               "inside ±δ; non-inferior: lower bound above −δ. Choose it before looking.")
budget = c2.number_input("Budget (paired cases planned; 0 = open-ended)", min_value=0, value=FIRST.budget, step=50,
                         key=_shared.kept("compare_budget"),
                         help="Undecided at the budget is 'inconclusive at the budget'; before it, 'continue'.")
confidence = c3.select_slider("Confidence", [0.8, 0.9, 0.95, 0.99], value=FIRST.confidence, key=_shared.kept("compare_confidence"))
with st.expander("Roles"):
    r1, r2 = st.columns(2)
    score = r1.selectbox("Score column, scorer or metric (every run)", score_options, key=_shared.kept("compare_score"),
                         format_func=lambda v: v or "(each run's own)", help="Empty: each run's own (bundled or detected).") or None
    chosen_groups = r2.multiselect("Subgroups (every run)", group_options, key=_shared.kept("compare_groups"),
                                   placeholder="Each run's own", help="None chosen: each run's own subgroups.")
subgroups = tuple(chosen_groups) or None


def compare(pair: tuple[int, int]):
    params = audit_params(resolve_style(None, sources[0].value.style))  # run A's own style, as the CLI and API
    return _cache.compare_runs(tuple(sources), score, subgroups, float(confidence), float(margin),
                               int(budget) or None, pair, params)


try:
    view = compare(FIRST.pair)
    if len(view.names) > 2:   # which two runs are A and B: by name, from the runs themselves
        p1, p2 = st.columns(2)
        for key, index in (("compare_pair_A", 0), ("compare_pair_B", 1)):
            if st.session_state.get(key) not in view.names:
                st.session_state[key] = view.names[index]
        name_a = p1.selectbox("A (the baseline)", view.names, key=_shared.kept("compare_pair_A"))
        name_b = p2.selectbox("B (compared with A)", view.names, key=_shared.kept("compare_pair_B"))
        pair = (view.names.index(name_a), view.names.index(name_b))
        if pair != (0, 1):
            view = compare(pair)
except InputError as exc:
    _shared.show_input_error(exc, "these runs", "Choose other runs, roles or a margin above.")
    _shared.stop_page()
_shared.write_link(LINK, shareable=all(s.bundled for s in sources))

comparison, seq = view.comparison, view.comparison.sequence
_shared.show_verdict(view.verdict)
st.caption(" · ".join(f"{_shared.plain(s.description)}" for s in view.sources))
m1, m2, m3, m4 = st.columns([1, 1, 1.6, 1.4])
m1.metric("Paired cases", fmt.count(seq.n))
m2.metric("Difference B − A", f"{seq.difference:+.3f}")
m3.metric("Anytime-valid bounds", f"{seq.lower:+.3f} … {seq.upper:+.3f}",
          help=f"{1 - seq.alpha:.0%} confidence sequence: holds at every case, however you choose when to stop.")
m4.metric("Decision", seq.decision, help=f"At margin {seq.margin:g}" +
          (f"; reached at case {seq.decided_at}." if seq.decided_at else "."))
unmatched = {name: ids for name, ids in view.matched.unmatched.items() if ids}
if unmatched:
    st.info("Cases not in every run, left out: " + "; ".join(
        f"{_shared.plain(name)}: {len(ids)} ({_shared.plain(', '.join(ids[:5]))}{', …' if len(ids) > 5 else ''})"
        for name, ids in unmatched.items()))
_shared.show_chart(view.trajectory_chart)

st.subheader("Tie groups and ranks" if len(view.names) > 2 else "Both runs")
st.caption(f"{view.runs.multiplicity} over the {view.runs.family_size} pair(s): each pair's bounds at level "
           f"α/{view.runs.family_size}, so every separation and every rank interval holds at once with probability "
           f"≥ {confidence:.0%}. Runs in one group are statistically indistinguishable at δ = {margin:g}.")
g1, g2 = st.columns([1, 1])
with g1:
    _shared.show_table(view.tie_table)
with g2:
    _shared.show_chart(view.ranks_chart)
with st.expander(f"Every pair ({len(view.pairs_table)})"):
    _shared.show_table(view.pairs_table)
if view.tasks is not None:
    st.subheader(f"Per task ({len(view.tasks.tasks)}) and pooled")
    st.caption(_shared.plain(view.tasks.pooling.capitalize() + "."))
    _shared.show_table(view.task_table)

st.subheader("Fixed sample size, for reference")
f1, f2 = st.columns(2)
o = comparison.overall
f1.metric(f"{confidence:.0%} interval (fixed n)", f"[{o.ci_low:+.3f}, {o.ci_high:+.3f}]", help=o.interval +
          ": valid only at a sample size fixed in advance, not when you look as the run grows.")
if comparison.mcnemar is not None:
    f2.metric("Exact McNemar p (fixed n)", f"{comparison.mcnemar.pvalue:.3g}",
              help=f"{comparison.mcnemar.regressions} regressions, {comparison.mcnemar.improvements} improvements.")
if comparison.notes:
    with st.expander(f"What the loader detected ({len(comparison.notes)} notes)"):
        for note in comparison.notes:
            st.text(f"• {note}")
st.subheader("Per subgroup")
st.caption("decision and 'anytime α/G': anytime-valid at α/G over the G subgroups (all hold at once); 'anytime "
           "own': each subgroup's own anytime-valid bounds; 'fixed n' (" + _shared.plain(comparison.overall.interval) +
           ") and McNemar: valid only at a sample size fixed in advance.")
_shared.show_table(view.subgroup_table, intervals=True)
_shared.show_chart(view.difference_chart)
st.subheader("Regressions and improvements, case by case")
_shared.show_table(view.changes_table, height=320)
_shared.csv_download(view.changes_table, "changes.csv", key="compare_changes_csv")
st.subheader("Each run's own audit decision")
_shared.show_table(view.decisions_table)
_shared.register_section(view.section)
