"""A shared server (issue 18 item 5): background work waits for visitors' runs, and what is the
same for every visitor is one object across sessions."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from pages import _runs

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def test_wait_until_idle_returns_at_once_on_an_idle_server():
    start = time.monotonic()
    _runs.wait_until_idle(settle=0)
    assert time.monotonic() - start < 0.5
    assert _runs.in_progress() == 0


def test_background_work_waits_for_a_run_in_progress():
    done = threading.Event()

    def background():
        _runs.wait_until_idle(settle=0.01)
        done.set()

    with _runs.counted():
        assert _runs.in_progress() == 1
        thread = threading.Thread(target=background, daemon=True)
        thread.start()
        assert not done.wait(0.3)        # a run is in progress: the background work has not started
    assert done.wait(5)                  # the run ended: it starts
    thread.join(5)
    assert _runs.in_progress() == 0


def test_a_run_that_fails_is_still_counted_as_ended():
    with pytest.raises(ValueError, match="a page's bug"), _runs.counted():
        raise ValueError("a page's bug")
    assert _runs.in_progress() == 0


def test_the_router_counts_its_run_and_ends_it():
    seen = []
    original = _runs.counted

    def spy():
        seen.append("start")
        return original()

    _runs.counted = spy
    try:
        at = AppTest.from_file(APP, default_timeout=120).run()
    finally:
        _runs.counted = original
    assert not at.exception
    # The root URL, the explorer it hands over to, and the explorer's fragment (its toggles) in that run.
    assert seen == ["start", "start", "start"]
    assert _runs.in_progress() == 0


def test_the_glossary_is_one_element_with_every_term():
    # The sidebar is drawn on every run of every page: one element instead of one per term.
    from pages._shared import GLOSSARY

    at = AppTest.from_file(APP, default_timeout=120).run()
    glossary = [e for e in at.sidebar.expander if e.label == "Glossary"]
    assert len(glossary) == 1
    texts = [m.value for m in glossary[0].markdown]
    assert len(texts) == 1
    for term, meaning in GLOSSARY.items():
        assert f"**{term}**: {meaning}" in texts[0]


def test_a_counted_fragment_runs_as_a_run_and_keeps_its_name():
    def view(x):
        return _runs.in_progress(), x

    wrapped = _runs.counting(view)
    assert wrapped(5) == (1, 5)          # counted while it runs
    assert _runs.in_progress() == 0      # and no longer after
    # Streamlit derives a fragment's id from the function's module and qualified name.
    assert (wrapped.__module__, wrapped.__qualname__) == (view.__module__, view.__qualname__)
