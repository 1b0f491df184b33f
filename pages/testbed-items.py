"""Testbed: the solver-grounded items a protocol designer sends to models (paper 000).

Each cluster is an open-world signed-Horn theory and a query whose three-valued oracle (TRUE,
FALSE, UNKNOWN) a linear-time solver fixes, with a target edit that changes the oracle and a sham
edit that keeps it; each item is one cell (world × mapping × readout). Generate, download (JSONL
or Inspect AI samples), or re-check a file. All of it comes from ``audit_core.analyses``.
"""

from __future__ import annotations

from pages._first_run import through_router

through_router()  # a deep link as a fresh server's first request runs this file itself (pages/_first_run.py)

import streamlit as st

from audit_core.analyses import ALL_DIRECTIONS, content_key, testbed_manifest_text
from audit_core.errors import InputError
from audit_core.report import format as fmt
from pages import _cache, _shared
from pages._first_views import TESTBED as FIRST

_shared.page_header(
    "Testbed items",
    "Generate the items to send to models before any model call: every item carries its theory as "
    "JSON, its oracle and the correct letter under its answer mapping, so anyone can re-check the label.")

LINK = [_shared.LinkField("clusters", "tb_clusters", "int", low=1, high=2000),
        _shared.LinkField("seed", "tb_seed", "int", low=0),
        _shared.LinkField("depth", "tb_depth", "int", low=1, high=40),
        _shared.LinkField("distractors", "tb_distractors", "int", low=0, high=200),
        _shared.LinkField("directions", "tb_directions", "list", options=ALL_DIRECTIONS),
        # The support the items are made for: cell ids or "cheapest" (Minimal supports' "Run these cells").
        _shared.LinkField("support", "tb_support")]
_shared.link_settings(LINK)

c1, c2, c3, c4 = st.columns(4)
n_clusters = int(c1.number_input("Clusters", 1, 2000, FIRST.n_clusters, 6, key=_shared.kept("tb_clusters"),
                                 help="Each cluster gives 36 items (one per cell)."))
seed = int(c2.number_input("Seed", 0, 2**31 - 1, FIRST.seed, 1, key=_shared.kept("tb_seed")))
depth = int(c3.number_input("Derivation depth", 1, 40, FIRST.depth, 1, key=_shared.kept("tb_depth")))
distractors = int(c4.number_input("Distractor rules", 0, 200, FIRST.distractors, 1, key=_shared.kept("tb_distractors")))
directions = st.multiselect("Oracle directions (base → target), assigned to clusters in turn", ALL_DIRECTIONS,
                            default=list(ALL_DIRECTIONS), key=_shared.kept("tb_directions"))
support = st.text_input("Support (cells to make items for)", key=_shared.kept("tb_support"),
                        placeholder="all 36 cells", help="Comma-separated cell ids (world:mapping:readout), or "
                        "'cheapest' for the cheapest support that identifies τ_full on the frozen class. Measure "
                        "then gives τ_full through identification from the logs of these cells only.").strip()
_shared.write_link(LINK)

try:
    with st.spinner("Generating and re-checking items…"):
        view = _cache.generate_testbed(n_clusters, seed, tuple(directions), depth, distractors, support or None)
except InputError as exc:
    _shared.show_input_error(exc, "these settings", "Change them above.")
    _shared.stop_page()

_shared.show_verdict(view.verdict)
m1, m2, m3, m4 = st.columns(4)
m1.metric("Clusters", fmt.count(len(view.clusters)))
m2.metric("Items", fmt.count(len(view.items)))
m3.metric("Directions", fmt.count(len(view.summary_table)))
m4.metric("Cells per cluster", f"{len(view.support)} / 36",
          help="The cells of the support the items are made for; each is one model call per cluster.")
if view.support_origin != "full":
    manifest = view.manifest
    st.info(_shared.plain(
        f"Items for the support {', '.join(view.support)} ({view.support_origin}, {manifest['class']}): "
        f"{manifest['model_calls_per_model']:,} model calls per model instead of "
        f"{manifest['model_calls_per_model_full']:,}. Run them with the task files of `python -m audit_core "
        f"testbed generate --support {','.join(view.support)}`, then measure the log: τ_full through "
        "identification."), icon=":material/savings:")
d1, d2 = st.columns(2)
d1.download_button("Items (JSONL)", view.jsonl.encode("utf-8"), f"testbed-items-seed{seed}.jsonl",
                   "application/jsonl", key="tb_items", icon=":material/download:", type="primary")
d2.download_button("Inspect AI samples (JSONL)", view.inspect_jsonl.encode("utf-8"),
                   f"testbed-inspect-seed{seed}.jsonl", "application/jsonl", key="tb_inspect",
                   icon=":material/download:")
st.download_button("Manifest (support and class, JSON)", testbed_manifest_text(view).encode("utf-8"),
                   f"testbed-manifest-seed{seed}.json", "application/json", key="tb_manifest",
                   icon=":material/download:")
st.page_link("pages/measure-logs.py", label="Ran them? Measure the logs", icon=":material/analytics:")
left, right = st.columns([1, 3])
with left:
    st.subheader("Clusters per direction")
    _shared.show_table(view.summary_table)
with right:
    st.subheader(f"Items (first {len(view.preview_table)})")
    _shared.show_table(view.preview_table, height=320)
with st.expander("One item in full (the first)"):
    st.json(view.items[0].to_dict())

st.subheader("Re-check an items file")
st.caption("Re-derives every label, letter, option and prompt, and every edit's effect (target changes the "
           "oracle, sham keeps it), as `python -m audit_core testbed check` does.")
file = st.file_uploader("Items file (JSONL)", type=["jsonl", "json", "txt"], key="tb_check_upload")
if file is not None:
    data = file.getvalue()
    try:
        checked = _cache.check_testbed(content_key(data), data, file.name)
    except InputError as exc:
        _shared.show_input_error(exc, "this file")
    else:
        _shared.show_verdict(checked.verdict)
        if not checked.report.ok:
            _shared.show_table(checked.mismatch_table)
_shared.register_section(view.section)
