"""Shared UI bits for every page: page setup, sidebar, cached engine calls, uploads, charts, report.

Pages stay thin: they pick inputs with widgets, call the cached wrappers below (which call
``audit_core``), and draw the results. No statistic is computed here or in the pages.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Callable

import pandas as pd
import streamlit as st

from audit_core.errors import InputError
from audit_core.report import ReportSection, safe_csv_bytes

APP_TITLE = "Evaluation Audit Workbench"
SECTIONS_KEY = "report_sections"


# ------------------------------------------------------------------------------ page & sidebar

def configure_page() -> None:
    """Wide layout and the app's title; called once by ``app.py`` before the router."""
    st.set_page_config(page_title=APP_TITLE, page_icon=":material/fact_check:", layout="wide",
                       initial_sidebar_state="expanded")


def sidebar() -> None:
    """Sidebar shared by every page: what the app does and what this session has computed."""
    with st.sidebar:
        st.markdown(f"### {APP_TITLE}")
        st.caption("Check that an evaluation protocol identifies what it claims to measure, then "
                   "audit a model with anytime-valid e-processes. Bundled example data load by "
                   "default; nothing leaves this machine.")
        sections = computed_sections()
        if sections:
            st.markdown("**Computed in this session** (available on *Report*):")
            st.markdown("\n".join(f"- {s.title}" for s in sections.values()))
        else:
            st.caption("Results you compute appear on the *Report* page.")


def page_header(title: str, intro: str) -> None:
    st.title(title)
    st.caption(intro)


# ------------------------------------------------------------------------------------- errors

def show_input_error(exc: InputError, what: str) -> None:
    """The one error box for bad input; the caller keeps using its previous data."""
    st.error(f"Could not use {what}: {exc}. The page keeps the previous data.", icon=":material/error:")


@dataclass(frozen=True)
class Upload:
    """An accepted upload: its display name, its bytes and a content key for caching."""

    name: str
    data: bytes
    key: str


def accept_upload(label: str, state_key: str, types: list[str], validate: Callable[[bytes, str], Any],
                  help: str | None = None) -> Upload | None:
    """File uploader that only replaces the stored upload when ``validate`` accepts the new file.

    ``validate(data, name)`` raises :class:`InputError` for a bad file: the error is shown once
    and the previously accepted upload (kept in session state under ``state_key``) stays active.
    Returns the accepted upload, or None when nothing has been accepted (or the user cleared it).
    """
    file = st.file_uploader(label, type=types, key=f"{state_key}__widget", help=help)
    if file is None:
        st.session_state.pop(state_key, None)
        return None
    data = file.getvalue()
    key = hashlib.sha256(data).hexdigest()[:16]
    accepted: Upload | None = st.session_state.get(state_key)
    if accepted is None or accepted.key != key:
        try:
            validate(data, file.name)
        except InputError as exc:
            show_input_error(exc, f"`{file.name}`")
            return accepted
        accepted = Upload(file.name, data, key)
        st.session_state[state_key] = accepted
    return accepted


# ------------------------------------------------------------------------------------- charts

def show_chart(spec: dict, *, key: str | None = None, on_select: Any = "ignore") -> Any:
    """Draw a Vega-Lite spec full width without Streamlit's theme (report and app look alike)."""
    return st.vega_lite_chart(spec, width="stretch", theme=None, key=key, on_select=on_select)


def csv_download(frame: pd.DataFrame, file_name: str, label: str = "Download CSV", key: str | None = None) -> None:
    """CSV export with formula-looking text cells neutralised."""
    st.download_button(label, safe_csv_bytes(frame), file_name=file_name, mime="text/csv",
                       key=key or f"csv_{file_name}", icon=":material/download:")


# ------------------------------------------------------------------------------------- report

def register_section(section: ReportSection) -> None:
    """Offer a computed result to the Report page (latest result per key wins)."""
    st.session_state.setdefault(SECTIONS_KEY, {})[section.key] = section


def computed_sections() -> dict[str, ReportSection]:
    return st.session_state.get(SECTIONS_KEY, {})




# --------------------------------------------------------------- identifiability engine (cached)
# cache_resource returns the engine's frozen result objects without copying; arguments starting
# with "_" are not hashed, so each wrapper is keyed by the policy-class key plus plain values.

FROZEN_KEY = "frozen"
POLICY_UPLOAD_KEY = "policy_upload"


@st.cache_resource(show_spinner=False)
def frozen_class():
    from audit_core.identify import frozen_policy_class
    return frozen_policy_class()


@st.cache_resource(show_spinner=False, max_entries=16)
def uploaded_class(key: str, _data: bytes, name: str):
    from audit_core.identify import load_policy_class
    return load_policy_class(_data, name=name)


def validate_policy_upload(data: bytes, name: str) -> None:
    """Raise InputError for a policy-class file the engine cannot load."""
    uploaded_class(hashlib.sha256(data).hexdigest()[:16], data, name)


def current_policy_class():
    """``(key, PolicyClass, description)`` of the class chosen on the explorer (frozen by default)."""
    upload: Upload | None = st.session_state.get(POLICY_UPLOAD_KEY)
    if upload is not None and st.session_state.get("policy_source", "frozen") == "upload":
        return upload.key, uploaded_class(upload.key, upload.data, upload.name), f"uploaded file {upload.name}"
    return FROZEN_KEY, frozen_class(), "frozen seven-policy class (data/frozen_policies.json)"


@st.cache_resource(show_spinner=False, max_entries=512)
def identification(pc_key: str, components: tuple[str, ...], estimand: str,
                   cells: tuple[str, ...] | None, _pc):
    from audit_core.identify import identify
    if cells is not None:  # an explicit cell list replaces the component support
        return identify(_pc, estimand=estimand, cells=list(cells))
    return identify(_pc, components=list(components), estimand=estimand)


@st.cache_resource(show_spinner=False, max_entries=32)
def lattice_of(pc_key: str, estimand: str, _pc):
    from audit_core.identify import lattice
    return lattice(_pc, estimand=estimand)


@st.cache_resource(show_spinner=False, max_entries=64)
def synthesis(pc_key: str, estimand: str, cost: tuple[tuple[str, float], ...],
              must_include: tuple[str, ...], exclude: tuple[str, ...], _pc):
    from audit_core.identify import minimum_supports
    return minimum_supports(_pc, estimand=estimand, cost=dict(cost) or None,
                            must_include=must_include, exclude=exclude, enumerate_all=True)
