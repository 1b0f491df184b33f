"""The hostile-input corpus through the dashboard (AppTest): each file uploaded on its page ends
in a result or exactly one error, never an exception, and never Markdown from the file (a name
such as ``![x](http://host/x.png)`` must not become an image the browser fetches)."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

FILES = Path(__file__).parent / "files"
APP = str(Path(__file__).resolve().parents[2] / "app.py")
PAGE_OF = {"run": ("pages/replay-run.py", "replay_source", "upload", "replay_upload__widget"),
           "policy": ("pages/protocol-explorer.py", "policy_source", "upload", "policy_upload__widget"),
           "log": ("pages/measure-logs.py", "measure_source", "upload", "measure_upload__widget")}


@pytest.mark.parametrize("path", sorted(p for p in FILES.iterdir() if p.name.split("_", 1)[0] in PAGE_OF),
                         ids=lambda p: p.name)
def test_every_corpus_file_on_its_page_is_a_result_or_one_error(path, monkeypatch, tmp_path):
    monkeypatch.setenv("AUDIT_HOME", str(tmp_path))
    page, source_key, upload_value, widget = PAGE_OF[path.name.split("_", 1)[0]]
    at = AppTest.from_file(APP, default_timeout=120)
    at.switch_page(page)
    at.run()
    chooser = at.selectbox(key=source_key) if page == "pages/replay-run.py" else at.radio(key=source_key)
    chooser.set_value(upload_value).run()
    # The file's name is hostile too: it reaches the captions, the verdict and the error messages.
    name = f"![x](http://127.0.0.1:9/x.png) {path.name}"
    at.file_uploader(key=widget).upload(name, path.read_bytes(), "application/octet-stream").run()
    assert not at.exception, [e.value for e in at.exception]
    assert len(at.error) <= 1, [e.value for e in at.error]
    shown = [str(getattr(e, "value", "")) for kind in ("markdown", "caption", "success", "warning", "info", "error",
                                                       "subheader", "title") for e in getattr(at, kind)]
    assert not any("![x](" in text or "<img" in text for text in shown), [t for t in shown if "![x](" in t or "<img" in t]
