"""UI pieces every page shares: set-up, sidebar and glossary, verdicts, errors, report sections,
links. Uploads that outlive their page are in :mod:`pages._uploads`, widget state that outlives its
page in :mod:`pages._state`; presentation mode in :mod:`pages._presentation`, charts and downloads
in :mod:`pages._charts`, tables and instant numbers in :mod:`pages._numbers` (re-exported here, so
pages call ``_shared.show_chart``).

Pages stay thin: they pick inputs with widgets, call one ``audit_core.analyses`` use case through
:mod:`pages._cache`, and draw the fields of its result. No statistic is computed here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import NoReturn

import streamlit as st
from streamlit.runtime.scriptrunner_utils.exceptions import StopException

from audit_core.analyses import Source, Verdict
from audit_core.errors import InputError
from audit_core.report import ReportSection, markdown_literal
from pages import _auth
from pages._charts import csv_download, show_chart  # noqa: F401  (pages call them through _shared)
from pages._numbers import instant_numbers, readable, show_table  # noqa: F401
from pages._page_config import APP_TITLE
from pages._presentation import PRESENT_PARAM, presentation_switch, presenting  # noqa: F401
from pages._state import kept  # (also re-exported: pages keep widget state with _shared.kept)

SECTIONS_KEY = "report_sections"


# ------------------------------------------------------------------------------ page & sidebar

GLOSSARY = {
    "τ (estimand)": "The behavioural property a protocol should measure, one value per policy (e.g. τ_full = 1 "
                    "when a policy answers every cell as the ideal semantic updater does).",
    "support": "The set of cells (world × mapping × readout) a protocol observes; components widen it.",
    "collision": "Two policies with different τ that give the same response on every observed cell. τ is "
                 "identified exactly when there is none (paper 000, Theorem 1).",
    "LR / SR-LR": "The model's-null e-processes with a fixed alternative q − δ; SR-LR mixes over changepoints.",
    "LR-UI / SR-LR-UI": "The same with a forecast alternative learnt from past scores (predictable, so valid).",
    "AUD-LR / AUD-LR-UI": "The auditor's-null e-processes, from step m on, with alternative q + δ′ or a forecast.",
    "q": "The accuracy threshold: a subgroup below q is a failure mode.",
    "δ, δ′": "Distances of the fixed alternatives below and above q.",
    "η": "Learning rate of the forecaster of the -UI processes.",
    "m": "The auditor's budget: its null is tested from step m on.",
    "1/α": "The threshold: a process whose e-value reaches 1/α rejects its null at level α, at any "
           "stopping time and under adaptive sampling.",
}
def glossary() -> None:
    """The terms every page uses, defined once."""
    with st.expander("Glossary"):
        # One element, not one per term: the sidebar is drawn on every run of every page of every
        # session, and each element is a message the server builds and sends (issue 18 item 5).
        st.markdown("\n\n".join(f"**{term}**: {meaning}" for term, meaning in GLOSSARY.items()))


def sidebar() -> None:
    """Sidebar shared by every page: what the app does and what this session has computed."""
    with st.sidebar:
        st.markdown(f"### {APP_TITLE}")
        st.caption("Check that an evaluation protocol identifies what it claims to measure, then "
                   "audit a model with anytime-valid e-processes. Bundled example data load by "
                   "default; nothing leaves this machine.")
        _auth.sidebar_box()
        sections = computed_sections()
        if sections:
            st.markdown("**Computed in this session** (available on *Report*):")
            for s in sections.values():
                st.text(f"• {s.title}")
        else:
            st.caption("Results you compute appear on the *Report* page.")
        glossary()


def page_header(title: str, intro: str) -> None:
    head, switch = st.columns([4, 1], vertical_alignment="center")
    with head:
        st.title(title)
    with switch:
        presentation_switch()
    st.caption(intro)
    if presenting():
        glossary()  # the sidebar, which holds it otherwise, is hidden


def plain(text) -> str:
    """Text shown literally where Streamlit renders Markdown (captions, alerts, headers): a file,
    column or subgroup name such as ``![x](http://host/x.png)`` must not become an image the
    browser fetches, nor ``**x**`` bold."""
    return markdown_literal(text)


def request_headers() -> dict[str, str]:
    """This request's HTTP headers (empty when there is none, as under AppTest): whether the
    visitor is on this machine is decided from them and the bound address together."""
    try:
        return dict(st.context.headers)
    except Exception:  # no request behind this run
        return {}


def show_verdict(verdict: Verdict) -> None:
    """The one-line verdict every page opens with (plain text: user names are never Markdown)."""
    box = {"good": st.success, "bad": st.warning}.get(verdict.tone, st.info)
    icon = {"good": ":material/check_circle:", "bad": ":material/report:"}.get(verdict.tone, ":material/info:")
    box(plain(verdict.text) + (f"\n\n{plain(verdict.caveat)}" if verdict.caveat else ""), icon=icon)


def show_source(source: Source) -> None:
    """Which data this page is showing, always in view."""
    kept_note = ("" if source.bundled else " (edited here; it stays until you replace or remove it)"
                 if source.edited_from else " (uploaded; it stays until you replace or remove it)")
    st.caption(f"Active data: {plain(source.description)}{kept_note}")


# ------------------------------------------------------------------------- stopping a page

class PageStopped(StopException):
    """A page has shown what it can (a message asking for input) and ends its run here.

    ``st.stop()`` requests a stop of the whole script run: every Streamlit call after it, also the
    router's sidebar in ``app.py``'s ``finally``, is dropped, so the sidebar's text vanished while
    a page waited for input (issue 19 item 14). This ends the page only: ``app.py`` catches it and
    draws the sidebar; run without the router (AppTest of a page file) Streamlit treats it as the
    ordinary stop it derives from."""


def stop_page() -> NoReturn:
    """End this page's run without ending the app's (see :class:`PageStopped`)."""
    raise PageStopped()


# ------------------------------------------------------------------------------------- errors

def show_input_error(exc: InputError, what: str, keeps: str | None = None) -> None:
    """The one error box for bad input; ``keeps`` says what stays on screen."""
    tail = f" {keeps}" if keeps else ""
    st.error(f"Could not use {plain(what)}: {plain(exc)}.{tail}", icon=":material/error:")




# ------------------------------------------------------------------------------------- report

@dataclass(frozen=True, repr=False)
class SectionLater:
    """A section the session names (``key``, ``title``, ``source``: what the sidebar and the
    Report page list) without holding it: any other attribute is read from ``build()``, which
    gives the section again from the shared cache (or recomputes it from the session's own file,
    the same numbers). A replay's section holds every step's log E (six arrays of 8 bytes per
    case: 25 MB for a 525,000-row run), which 20 sessions would otherwise each keep."""

    key: str
    title: str
    source: str
    build: Callable[[], ReportSection]

    def __getattr__(self, name: str):
        return getattr(self.build(), name)

    def __repr__(self) -> str:
        return f"SectionLater({self.key!r}, {self.title!r})"


def register_section(section: ReportSection, rebuild: Callable[[], ReportSection] | None = None) -> None:
    """Offer a computed result to the Report page (latest result per key wins). ``rebuild``: a
    function giving the same section again, to keep a large section out of the session."""
    kept_section = section if rebuild is None else SectionLater(section.key, section.title, section.source, rebuild)
    st.session_state.setdefault(SECTIONS_KEY, {})[section.key] = kept_section


def computed_sections() -> dict[str, ReportSection]:
    return st.session_state.get(SECTIONS_KEY, {})


# --------------------------------------------------------------------------------------- links

@dataclass(frozen=True)
class LinkField:
    """One setting that travels in the page's URL: query parameter ``param`` <-> widget ``key``.

    ``kind``: "str", "int", "float", "bool" or "list" (comma-separated); ``options`` (for str and
    list) and ``low``/``high`` (for numbers) bound what a hand-edited link may set.
    """

    param: str
    key: str
    kind: str = "str"
    options: tuple = ()
    low: float | None = None
    high: float | None = None

    def decode(self, raw: str):
        if self.kind == "list":
            values = [v for v in raw.split(",") if v]
            if self.options and any(v not in self.options for v in values):
                raise ValueError(raw)
            return values
        if self.kind == "bool":
            return raw == "1"
        if self.kind in ("int", "float"):
            value = int(raw) if self.kind == "int" else float(raw)
            if (self.low is not None and value < self.low) or (self.high is not None and value > self.high):
                raise ValueError(raw)
            return value
        if self.options and raw not in self.options:
            raise ValueError(raw)
        return raw

    def encode(self, value) -> str | None:
        if value is None:
            return None
        if self.kind == "list":
            return ",".join(map(str, value)) or None
        if self.kind == "bool":
            return "1" if value else "0"
        return f"{value:g}" if self.kind == "float" else str(value)


LINK_WRITTEN = "_link_written"


def link_settings(fields: list[LinkField]) -> bool:
    """Copy into the widgets the URL settings this app did not write itself (a link was opened,
    or a hand-edited URL); a setting the page cannot use is named once and left at its value.
    True when settings were taken from the link."""
    written = st.session_state.setdefault(LINK_WRITTEN, {})
    applied, bad = False, []
    for field in fields:
        raw = st.query_params.get(field.param)
        if raw is None or written.get(field.param) == raw:
            continue
        written[field.param] = raw  # read once, whether it could be used or not
        try:
            st.session_state[field.key] = field.decode(raw)
            kept(field.key)
            applied = True
        except ValueError:
            bad.append(f"{field.param}={raw}")
    if bad:
        st.warning("Ignored settings in the link that this page cannot use: " + ", ".join(bad) + ".")
    return applied


def write_link(fields: list[LinkField], shareable: bool = True) -> None:
    """Put the widgets' settings into the URL, so a link reproduces the view on the bundled data.
    An uploaded file cannot travel in a link: then the URL carries none of them and the page says so."""
    written = st.session_state.setdefault(LINK_WRITTEN, {})
    for field in fields:
        value = field.encode(st.session_state.get(field.key)) if shareable else None
        if value is None:
            if field.param in st.query_params:
                del st.query_params[field.param]
        elif st.query_params.get(field.param) != value:
            st.query_params[field.param] = value
        written[field.param] = value
    if not shareable:
        st.caption("Links carry settings for the bundled data only: an uploaded file cannot travel in a link.")


