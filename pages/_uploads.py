"""Uploads that outlive their widget and their page.

The accepted file of each slot lives in ``st.session_state[UPLOADS_KEY]`` (slot -> :class:`Upload`),
never in the file-uploader widget: a single-file uploader reports "no file" for a moment while
one file replaces another, and again whenever its page is not drawn, so its value cannot say
which file the user last had accepted. A new file replaces the accepted one only when the engine
loads it; the user removes an accepted file with its own button, not the widget's x.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from audit_core.analyses import Source, content_key
from audit_core.errors import InputError
from pages import _cache, _shared
from pages._state import kept

UPLOADS_KEY = "_accepted_uploads"
DISMISSED_KEY = "_dismissed_uploads"   # slot -> content key the user removed while the widget still holds it
UPLOAD_WIDGETS = {"policy_class": "policy_upload__widget", "response_log": "measure_upload__widget",
                  "run": "replay_upload__widget"}


@dataclass(frozen=True)
class Upload:
    """An accepted upload: its display name, its bytes and its content key; ``edited_from`` for a
    policy class edited here (the class it was made from), which is not an upload."""

    name: str
    data: bytes
    key: str
    edited_from: str | None = None
    parts: tuple[tuple[str, bytes], ...] = ()  # several files read together (several runs): (name, bytes)

    def __repr__(self) -> str:
        size = sum(len(d) for _, d in self.parts) if self.parts else len(self.data)
        return f"Upload({self.name!r}, {size} bytes, key={self.key[:12]!r})"


class _Files:
    """Several uploaded files as one candidate (name, bytes of each)."""

    def __init__(self, files) -> None:
        self.parts = tuple((f.name, f.getvalue()) for f in files)
        self.name = ", ".join(name for name, _ in self.parts)
        self.key = "+".join(content_key(data, name) for name, data in self.parts)


def accepted_upload(slot: str) -> Upload | None:
    """The last file the engine accepted in ``slot`` (None: none, or removed by the user)."""
    return st.session_state.get(UPLOADS_KEY, {}).get(slot)


def accept_upload(slot: str, upload: Upload) -> None:
    """Make ``upload`` the accepted file of ``slot`` (an edited class, a followed file, a hand-over)."""
    st.session_state.setdefault(UPLOADS_KEY, {})[slot] = upload
    st.session_state.setdefault(DISMISSED_KEY, {}).pop(slot, None)


def forget_upload(slot: str) -> None:
    """The user removed the accepted file (a button callback); the file still in the widget is
    not taken again until another file is chosen."""
    upload = st.session_state.get(UPLOADS_KEY, {}).pop(slot, None)
    if upload is not None:
        st.session_state.setdefault(DISMISSED_KEY, {})[slot] = upload.key


def upload_source(kind: str, label: str, types: list[str], help: str | None = None,
                  policy: Source | None = None, slot: str | None = None, multiple: bool = False) -> Source | None:
    """File uploader whose last good file outlives the widget and the page.

    A new file replaces the accepted one only when the engine loads it; otherwise one error says
    so and the accepted file (if any) stays active, whatever files came before. ``slot`` names
    where it is kept (default: the kind; two slots of one kind let a page hold two files).
    ``multiple``: the uploader takes several files, read together as several runs (one source).
    Returns the accepted upload's source.
    """
    slot = slot or kind
    widget_key = UPLOAD_WIDGETS.get(slot, f"{slot}_upload__widget")
    file = st.file_uploader(label, type=types, key=widget_key, help=help, accept_multiple_files=multiple)
    if multiple:
        file = _Files(file) if file else None
    accepted = accepted_upload(slot)
    if file is None:   # the widget was emptied: the file removed with the button may be chosen again
        st.session_state.get(DISMISSED_KEY, {}).pop(slot, None)
    else:
        several = isinstance(file, _Files)
        data = b"" if several else file.getvalue()
        key = file.key if several else content_key(data, file.name)
        dismissed = st.session_state.get(DISMISSED_KEY, {}).get(slot)
        if (accepted is None or accepted.key != key) and key != dismissed:
            candidate = Upload(file.name, data, key, parts=file.parts if several else ())
            try:
                load_upload(kind, candidate, policy)
            except InputError as exc:
                keeps = (f"Still showing your earlier file {_shared.plain(accepted.name)}." if accepted else
                         "Nothing was replaced.")
                _shared.show_input_error(exc, "this file", keeps)
            else:
                accept_upload(slot, candidate)
                accepted = candidate
    if accepted is None:
        return None
    # A button label is Markdown: the file name is shown literally (a name may look like an image link).
    st.button(f"Remove {'the edited class' if accepted.edited_from else _shared.plain(accepted.name)}", key=f"{slot}_upload__remove", on_click=forget_upload, args=(slot,),
              icon=":material/delete:", help="Stop using this file; the page goes back to its bundled data.")
    return load_upload(kind, accepted, policy)


def load_upload(kind: str, upload: Upload, policy: Source | None = None) -> Source:
    data = list(upload.parts) if upload.parts else upload.data   # several files: (name, bytes) pairs
    return _cache.source(kind, upload.key, data, upload.name, policy, upload.edited_from)


def bundled_source(kind: str, key: str | None = None) -> Source:
    """The bundled source of a kind (``key``: which bundled dataset, for runs and pools)."""
    return _cache.source(kind, f"bundled:{key or kind}", key, None)


# ------------------------------------------------------------- hand-over of a run to Replay

def replay_data_key(upload_key: str) -> str:
    """Scope of Replay's column and style widgets for an accepted upload (each file keeps its own)."""
    return f"upload:{upload_key}"


def replay_parameter_key(name: str, style: str) -> str:
    """Replay's widget key of parameter ``name`` (``q``, ``alpha``, ``m``, ``q_mod``, ``q_aud``,
    ``eta``) under the defaults of ``style``."""
    return f"{name.replace('_', '')}_{style}"


def open_in_replay(upload: Upload, score: str, style: str, params: dict, model_process: str,
                   auditor_process: str, planned_n: int = 0) -> None:
    """Make ``upload`` Replay's accepted run with these settings, and go there (``planned_n``: the
    cases planned before the data, 0 for none)."""
    accept_upload("run", upload)
    scope = replay_data_key(upload.key)
    values = {"replay_source": "upload", f"score_{scope}": score, f"style_{scope}": style,
              "replay_model_process": model_process, "replay_auditor_process": auditor_process,
              "replay_planned_n": planned_n}
    values.update({replay_parameter_key(name, style): value for name, value in params.items()})
    for key, value in values.items():
        st.session_state[kept(key)] = value
    st.switch_page("pages/replay-run.py")
