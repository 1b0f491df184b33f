"""Protocol explorer: which policies a support tells apart, and whether it identifies the estimand.

Paper 000 (Theorem 1): τ is point-identified on a support O iff no two policies with different τ
give the same responses on every cell of O. The toggles, the estimand and a custom cell list live
in the URL (``?components=target,sham&estimand=tau_full``), so a link reproduces the view on the
bundled class; an uploaded class cannot travel in a link.
"""

from __future__ import annotations

from pages._first_run import through_router

through_router()  # a deep link as a fresh server's first request runs this file itself (pages/_first_run.py)

import os

import pandas as pd
import streamlit as st

from audit_core import analyses
from audit_core.analyses import BEHAVIOURS, ESTIMANDS, BehaviourRule
from audit_core.errors import InputError
from audit_core.views.identify import components_of_key, leave_one_out_table, support_metrics, support_metrics_by_key
from pages import _cache, _runs, _shared, _uploads

# Up to this many equivalence classes / collisions are listed as wrapped text (long member and
# cell lists do not fit a table column); more go into a scrollable table.
MAX_LISTED_COLLISIONS = 12
FROZEN, UPLOAD = "frozen", "upload"
KEEP_TOGGLES = "_explorer_keep_toggles"   # set by an edit of the class: its next run keeps the toggles
EXPLORER_PATHS = ("", "/protocol-explorer")   # where the instant numbers apply (the default page)


# ------------------------------------------------------------------------------ URL <-> state

def sync_from_url(pc_key: str, component_names: tuple[str, ...]) -> None:
    """Copy the URL into widget state when it changed from outside (link, page switch); a newly
    chosen policy class starts on its full support."""
    params = st.query_params
    url = (params.get("components"), params.get("estimand"), params.get("cells"))
    last = st.session_state.get("explorer_url")
    if last == (pc_key, url):
        return
    if last is not None and last[0] != pc_key and st.session_state.pop(KEEP_TOGGLES, False):
        # An edit of the class keeps the support in view: the same toggles (a new component starts on).
        for name in component_names:
            st.session_state.setdefault(f"cmp_{name}", True)
        return
    if last is not None and last[0] != pc_key and last[1] == url:
        chosen, cells = set(component_names), None
    else:
        raw = url[0]
        chosen = set(component_names) if raw is None else {c for c in raw.split(",") if c and c != "none"}
        unknown = chosen - set(component_names)
        if unknown:
            st.warning("Ignored unknown component(s) in the link: " + _shared.plain(", ".join(sorted(unknown))) + ".")
        cells = tuple(c for c in url[2].split(",") if c) if url[2] else None
        if url[1]:   # one this class cannot evaluate is named (and replaced) below
            st.session_state["estimand"] = url[1]
    for name in component_names:
        st.session_state[f"cmp_{name}"] = name in chosen
    st.session_state["custom_cells"] = cells


def write_url(pc_key: str, components: tuple[str, ...], estimand: str, cells: tuple[str, ...] | None) -> None:
    wanted = {"components": ",".join(components) or "none", "estimand": estimand}
    if cells:
        wanted["cells"] = ",".join(cells)
    for key in ("components", "estimand", "cells"):
        if key in wanted and st.query_params.get(key) != wanted[key]:
            st.query_params[key] = wanted[key]
        elif key not in wanted and key in st.query_params:
            del st.query_params[key]
    st.session_state["explorer_url"] = (pc_key, (wanted["components"], estimand, wanted.get("cells")))


def on_lattice_pick(chart_key: str, component_names: tuple[str, ...]) -> None:
    """Lattice click: the toggles follow the clicked node (callback runs before the rerun)."""
    state = st.session_state.get(chart_key) or {}
    picked = (state.get("selection") or {}).get("pick") or []
    if not picked or picked[0].get("key") is None:
        return
    chosen = set(components_of_key(picked[0]["key"]))
    for name in component_names:
        st.session_state[f"cmp_{name}"] = name in chosen
    st.session_state["custom_cells"] = None
    # A fresh chart key next run, so clicking the same node again is a new selection.
    st.session_state["lattice_nonce"] = st.session_state.get("lattice_nonce", 0) + 1


def clear_custom_cells() -> None:
    st.session_state["custom_cells"] = None


def back_to_toggles(component_names: tuple[str, ...]) -> None:
    """Leave a custom cell list for the component toggles, on the full support."""
    st.session_state["custom_cells"] = None
    for name in component_names:
        st.session_state[f"cmp_{name}"] = True


def use_class(source) -> None:
    """Make an edited (or linked) class the active class: it is kept like an uploaded file."""
    data = analyses.class_file(source)
    _uploads.accept_upload("policy_class", _uploads.Upload(source.name, data, analyses.content_key(data, source.name),
                                                           edited_from=source.edited_from))
    st.session_state["policy_source"] = UPLOAD
    st.session_state["explorer_edit_message"] = None


def edit_class(action: str, policy) -> None:
    """Apply the editor's form (a button callback, before the rerun draws the new class)."""
    state = st.session_state
    try:
        if action == "compose":
            rules = [BehaviourRule(state[f"ed_axis_{i}"], state[f"ed_value_{i}"], state[f"ed_beh_{i}"])
                     for i in range(2) if state.get(f"ed_axis_{i}") and state.get(f"ed_value_{i}")]
            new = analyses.add_policy(policy, state.get("ed_name", ""), state.get("ed_base"), rules,
                                      tau=state.get("ed_tau"))
        elif action == "row":
            row = state["ed_row_table"]
            new = analyses.add_policy(policy, state.get("ed_name", ""),
                                      responses=dict(zip(row["cell"], row["response"].astype(str), strict=False)),
                                      tau=state.get("ed_tau"))
        elif action == "duplicate":
            new = analyses.copy_policy(policy, state["ed_pick"], state.get("ed_name", ""))
        elif action == "axes":
            new = analyses.rename_axes(policy, {a: state.get(f"ed_axis_name_{a}", a) for a in policy.value.axes})
        else:
            new = analyses.remove_policy(policy, state["ed_pick"])
    except InputError as exc:
        state["explorer_edit_message"] = str(exc)
        return
    use_class(new)
    state[KEEP_TOGGLES] = True


def class_editor(policy) -> None:
    """Add, edit, duplicate or delete a policy and watch classes, collisions and supports change."""
    pc = policy.value
    with st.expander("Edit the policy class: add, edit, duplicate or delete a policy"):
        message = st.session_state.get("explorer_edit_message")
        if message:
            st.error(f"Could not apply the edit: {_shared.plain(message)}. The class is unchanged.",
                     icon=":material/error:")
        can_compose = analyses.composable(pc)
        actions = (["compose"] if can_compose else []) + ["row", "duplicate", "delete", "axes"]
        action = st.radio("Edit", actions, horizontal=True, key="ed_action",
                          format_func={"compose": "Add by composing behaviours", "row": "Add or edit a response row",
                                       "duplicate": "Duplicate a policy", "delete": "Delete a policy",
                                       "axes": "Rename the axes"}.get)
        c1, c2 = st.columns(2)
        if action in ("duplicate", "delete"):
            c1.selectbox("Policy", list(pc.names), key="ed_pick")
        if action == "axes":
            for axis in pc.axes:
                st.text_input(f"New name of axis {axis} (values: {', '.join(pc.axes[axis])})", axis,
                              key=f"ed_axis_name_{axis}")
        elif action != "delete":
            c2.text_input("Name of the new (or replaced) policy", key="ed_name")
        if action == "compose":
            b1, b2 = st.columns([1, 2])
            b1.selectbox("Behaves as", BEHAVIOURS, key="ed_base")
            b2.caption("…except where a rule below says otherwise (the later rule wins).")
            for i in range(2):
                r1, r2, r3 = st.columns(3)
                axis = r1.selectbox(f"Rule {i + 1}: where", [""] + list(pc.axes), key=f"ed_axis_{i}",
                                    format_func=lambda a: a or "(no rule)")
                r2.selectbox("is", list(pc.axes[axis]) if axis else [""], key=f"ed_value_{i}")
                r3.selectbox("behave as", BEHAVIOURS, key=f"ed_beh_{i}")
        if action == "row":
            base = st.selectbox("Start from", list(pc.names), key="ed_row_from")
            row = analyses.policy_row(policy, base)
            st.session_state["ed_row_table"] = st.data_editor(
                pd.DataFrame({"cell": list(row), "response": list(row.values())}), disabled=["cell"],
                hide_index=True, height=240, key=f"ed_row_{base}")
        if action in ("compose", "row") and pc.tau is not None:
            st.radio("τ of the policy (used by the estimand 'file')", [0, 1], horizontal=True, key="ed_tau")
        st.button("Apply", type="primary", on_click=edit_class, args=(action, policy), key="ed_apply")
        st.download_button("Export the class (JSON)", analyses.class_file(policy), "policy_class.json",
                           "application/json", key="ed_export", icon=":material/download:")


def class_from_link() -> None:
    """A small edited class travels in the link (``?class=``): open it as the active class."""
    text = st.query_params.get("class")
    if not text or st.session_state.get("_class_link_seen") == text:
        return
    st.session_state["_class_link_seen"] = text
    try:
        use_class(analyses.class_from_link(text))
    except InputError as exc:
        st.warning(_shared.plain(exc))


def policy_class_source():
    """The class chosen here (kept across pages): the frozen class or the accepted upload."""
    source_col, upload_col = st.columns([1.1, 3.4])
    with source_col:
        choice = st.radio("Policy class", [FROZEN, UPLOAD], key=_shared.kept("policy_source"),
                          format_func={FROZEN: "Frozen seven-policy class", UPLOAD: "Uploaded JSON / CSV"}.get,
                          help="The frozen class is the paper's reference class; upload your own in the JSON "
                               "or long-CSV format of docs/formats.md.")
    with upload_col:
        if choice == UPLOAD:
            source = _uploads.upload_source("policy_class", "Policy-class file (JSON, or CSV with policy,cell,response)",
                                           ["json", "csv"])
            if source is not None:
                return source
            st.info("No valid file yet: showing the frozen class.")
        else:
            st.caption("Policies: ideal semantic updater, target inertia, any-edit reactor, fixed-label "
                       "responder, mapping-conditional shortcut, generated-only failure, scoring-only success.")
    return _uploads.bundled_source("policy_class")


# ------------------------------------------------------------------------------------- page

_shared.page_header(
    "Protocol explorer",
    "Pick the support components a protocol observes. Two policies are equivalent on a support when "
    "they answer every observed cell alike; a collision is an equivalent pair with different τ. "
    "τ is identified exactly when there is no collision (paper 000, Theorem 1).")
# A newcomer with results in hand: where their file goes, in their words (issue 29 item 14).
start, replay_link, measure_link = st.columns([2.2, 1.3, 1.5], vertical_alignment="center")
start.markdown("**Have results already?** An Inspect AI or lm-eval log, or a CSV of scored answers:")
replay_link.page_link("pages/replay-run.py", label="Replay it: is any subgroup below your bar?", icon=":material/replay:")
measure_link.page_link("pages/measure-logs.py", label="Measure testbed logs: what did the model learn?",
                       icon=":material/analytics:")

class_from_link()
policy = policy_class_source()
pc = policy.value
component_names = tuple(pc.component_names)
estimands = list(analyses.available_estimands(pc))   # only those this class can evaluate
sync_from_url(policy.key, component_names)
if st.session_state.get("estimand") not in estimands:
    wanted = st.session_state.get("estimand")
    if wanted is not None:
        st.info(f"Not offered for this class: {_shared.plain(analyses.estimand_unavailable(pc, str(wanted)))}. "
                f"Showing {estimands[0]} instead.", icon=":material/info:")
    st.session_state["estimand"] = estimands[0]

estimand_col, note_col = st.columns([1.1, 3.4])
with estimand_col:
    estimand = st.selectbox("Estimand τ", estimands, key=_shared.kept("estimand"),
                            help="The behavioural property the protocol should measure.")
with note_col:
    st.caption(ESTIMANDS[estimand] if policy.bundled or estimand == "file" else
               f"{estimand} on the uploaded class.")
class_editor(policy)


def support_view() -> None:
    """Everything that depends on the component toggles. A toggle reruns only this fragment (not
    the class source, estimand and editor above, the leave-one-out table below, nor the sidebar).

    The run sends the toggled numbers first: the toggles' row is reserved at the top and filled
    after the verdict and metrics (their values are already in the session state), and the
    lattice, class and collision lists follow.

    Every element of this run is re-sent on every toggle as a message through the server's event
    loop and the websocket's middleware, under the interpreter lock: that, not the engine's work,
    is most of a toggle's cost under load (issue 27 item 10, docs/deploy.md). So rows are
    horizontal containers (one message) rather than columns (one per column) and what a toggle
    does not change (the active data) is drawn outside."""
    toggle_row = st.container(horizontal=True)
    components = tuple(n for n in component_names if st.session_state.get(f"cmp_{n}"))
    custom = st.session_state.get("custom_cells")
    link = None if policy.bundled else analyses.class_link(policy)
    if policy.bundled or link:
        write_url(policy.key, components, estimand, custom)
        if link and st.query_params.get("class") != link:
            st.query_params["class"] = link
            st.session_state["_class_link_seen"] = link
        elif policy.bundled and "class" in st.query_params:
            del st.query_params["class"]
    else:
        st.session_state["explorer_url"] = (policy.key, (st.query_params.get("components"),
                                                         st.query_params.get("estimand"), st.query_params.get("cells")))
        st.caption("This class is too large to travel in a link: export it (JSON) and share the file.")

    try:
        view = _cache.explore_support(policy, components, estimand, custom)
    except InputError as exc:  # a custom cell list from a hand-edited link
        _shared.show_input_error(exc, "the cell list in the link", "Showing the component toggles instead.")
        st.session_state["custom_cells"] = custom = None
        view = _cache.explore_support(policy, components, estimand, None)
    show_numbers(view, custom)
    with toggle_row:
        component_toggles()
    show_details(view)


def component_toggles() -> None:
    for name in component_names:
        st.toggle(name, key=_shared.kept(f"cmp_{name}"), on_change=clear_custom_cells, width="stretch",
                  help="Adds the cells with "
                       + " and ".join(f"{axis} ∈ {{{', '.join(v)}}}" for axis, v in pc.components[name].items()))


def show_numbers(view, custom) -> None:
    """Verdict and the four metrics: what a toggle changes first."""
    ident = view.identification
    _shared.show_verdict(view.verdict)
    if custom:
        info, button = st.columns([4, 1])
        info.info(f"Showing a custom support of {len(custom)} cells (opened from *Minimal supports*): "
                  + ", ".join(custom))
        button.button("Back to component toggles", on_click=back_to_toggles, args=(component_names,))

    # The same labels and formatting as the instant numbers (support_metrics_by_key), which the
    # browser shows the moment a toggle flips. "yes" / "no": "not identified" is clipped in a
    # quarter of the page at 1280 px in presentation mode.
    values = support_metrics(len(ident.cells), ident.n_classes, ident.n_collisions, ident.identified)
    helps = (f"Observed cells out of {len(pc.cells)} in the full support.",
             "Groups of policies that give identical responses on every observed cell.",
             "Pairs of policies with different τ that the support cannot tell apart.",
             "τ is identified iff there are no collisions (the verdict above says how to repair it).")
    metrics = st.container(horizontal=True)
    for (label, value), text in zip(values.items(), helps, strict=True):
        metrics.metric(label, value, help=text)
    if view.inside is not None or view.repair is not None:
        st.page_link("pages/minimal-supports.py", label="Costs and constraints: open Minimal supports",
                     icon=":material/join_inner:")


def show_details(view) -> None:
    """Lattice, equivalence classes, collisions and the heat map of the support.

    Up to MAX_LISTED_COLLISIONS classes, mixtures or collisions are text in one element with their
    caption (not one per row nor a table: every element is re-sent and redrawn on a toggle); more
    go into a table (:func:`listed`)."""
    ident = view.identification
    left, right = st.columns([1.5, 1])
    with left:
        nonce = st.session_state.get("lattice_nonce", 0)
        chart_key = f"lattice_{nonce}"
        if view.lattice_chart is None:
            st.info(_shared.plain(view.lattice_note), icon=":material/info:")
        else:
            # The spec is the same for every support (only the nodes' rows change), so the
            # browser swaps the rows in place instead of drawing the chart again.
            # Only the Hasse diagram has nodes to click: Streamlit refuses on_select on a chart
            # without a selection (the level-by-level chart of 6-12 components).
            _shared.show_chart(view.lattice_chart, key=chart_key, stored=True,
                               on_select=(lambda: on_lattice_pick(chart_key, component_names))
                               if view.lattice_clickable else None)
    with right:
        listed("Equivalence classes", "Policies in one class answer every observed cell alike. A class "
               "holding both τ values is where the collisions are.", view.class_table, view.class_text,
               ("**Mixtures** occupy these classes (weights are not identifiable):", view.mixture_table,
                view.mixture_text) if ident.mixture_signatures else None)

    if not ident.collisions:
        listed("Collisions", "None: the support separates every pair with different τ.", (), "")
    else:  # the cell lists are long; as wrapped text they stay readable on a projector
        listed("Collisions", "Each pair answers alike on the support; adding any one listed full-support "
               "cell would separate it.", view.collision_table, view.collision_text)

    # The heat map is the heaviest chart: drawn on request, so it stays out of the toggle's path.
    if st.toggle("Show the policy × cell responses", key=_shared.kept("explorer_heatmap")):
        _shared.show_chart(view.heatmap_chart, stored=True)
    _shared.register_section(view.section)


def listed(heading: str, caption: str, table, text: str, more: tuple | None = None) -> None:
    """A list under its heading: up to MAX_LISTED_COLLISIONS rows as one Markdown element (the
    heading, the caption in small grey type, the list's paragraphs, then ``more``: a heading, table
    and text of its own), more rows as a table below the heading and caption. One element, not a
    heading, a caption and a text each: every element is re-sent on a toggle (see support_view)."""
    blocks = [f"### {heading}", f":small[:gray[{caption}]]"]
    if len(table) > MAX_LISTED_COLLISIONS:
        st.markdown("\n\n".join(blocks))
        _shared.show_table(table)
        blocks = []
    else:
        blocks += map(_shared.plain, text.split("\n\n")) if text else []
    if more is not None:
        more_heading, more_table, more_text = more
        if len(more_table) > MAX_LISTED_COLLISIONS:
            st.markdown("\n\n".join([*blocks, more_heading]))
            _shared.show_table(more_table)
            return
        blocks.append("  \n".join([more_heading, *map(_shared.plain, more_text.splitlines())]))
    if blocks:
        st.markdown("\n\n".join(blocks))


def leave_one_out() -> None:
    """Leave-one-out rows: from the full support, so the same whatever the toggles (outside the
    fragment; no rows when the class has too many components for a lattice)."""
    st.subheader("Leave one component out (from the full support)")
    st.caption("Collisions that appear when one component is dropped; a witness is a colliding pair, "
               "exclusive when no other removal produces it. The corollary is generated from the data.")
    try:
        lattice = _cache.support_lattice(policy, estimand)
    except InputError:
        lattice = None
    loo = leave_one_out_table(lattice)
    _shared.show_table(loo.drop(columns=["corollary"]),
                       column_config={"removed": st.column_config.TextColumn(width="small"),
                                      "collisions": st.column_config.NumberColumn(width="small")})
    if len(loo):
        st.text("\n\n".join(f"Without {r.removed}: {r.corollary}" for r in loo.itertuples()))


_shared.show_source(policy)  # outside the toggles' fragment: a toggle does not change it
st.markdown("**Support components** (each widens one axis of the observed cells)")


def mount_instant_numbers() -> None:
    """The four numbers of every support, for the browser to show as a toggle flips (outside the
    fragment: they change with the class and the estimand, not with a toggle)."""
    try:
        lattice = _cache.support_lattice(policy, estimand)
    except InputError:   # too many components for a lattice: the numbers come with the rerun
        return
    _shared.instant_numbers(component_names, support_metrics_by_key(lattice), EXPLORER_PATHS)


# AUDIT_FULL_RERUN=1 turns the fragment and the instant numbers off (the baseline of
# bench/bench_browser_toggle.py).
if os.environ.get("AUDIT_FULL_RERUN") == "1":
    support_view()
else:
    mount_instant_numbers()
    st.fragment(_runs.counting(support_view))()  # a toggle's rerun also holds off the warm-up
leave_one_out()
_cache.warm_supports(policy, estimand)  # after this page is drawn: every support of a bundled class, shared
