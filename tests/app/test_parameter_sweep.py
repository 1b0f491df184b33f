"""A parameter a user can set never breaks a page (issue 29 item 2): the grids that depend on q
follow it, a bad combination is named in the page's words with the last good result kept, and every
exposed number, on every page, swept over its range runs without an exception."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

import audit_core
from audit_core.report import format as fmt
from tests.app.test_pages import PAGES, app, metric


def test_a_link_with_a_new_q_replays_with_the_grids_and_thresholds_moved():
    at = app("pages/replay-run.py", style="sdoh", q="0.8")
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.number_input(key="qmod_sdoh").value == pytest.approx(0.77)  # q − δ follows q (δ = 0.03 kept)
    assert at.number_input(key="qaud_sdoh").value == pytest.approx(0.83)
    python = audit_core.replay("recorded_run", q=0.8)  # the same resolver: grids moved by q − 0.83
    assert python.result.params.grid_mod == (0.57, 0.62, 0.67, 0.72, 0.77)
    assert metric(at, "Stopped at case") == fmt.count(python.result.dual.stop)


def test_changing_q_moves_the_thresholds_and_a_bad_one_keeps_the_last_good_result():
    at = app("pages/replay-run.py")
    stopped = metric(at, "Stopped at case")
    at.number_input(key="q_sdoh").set_value(0.8).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.number_input(key="qmod_sdoh").value == pytest.approx(0.77)
    moved = metric(at, "Stopped at case")
    at.number_input(key="qmod_sdoh").set_value(0.85).run()  # above q
    assert not at.exception
    assert len(at.error) == 1 and "q − δ = 0.85 must lie below q = 0.8: lower q − δ" in at.error[0].value
    assert "last good result" in at.error[0].value and "grid_mod" not in at.error[0].value
    assert metric(at, "Stopped at case") == moved  # the last good result stays on screen
    assert any("q = 0.8, q − δ = 0.77" in c.value for c in at.caption)
    at.number_input(key="q_sdoh").set_value(0.99).run()
    assert not at.exception and len(at.error) == 1
    assert stopped  # the page's first result was shown before any change


def _numbers(at: AppTest) -> list:
    return [w for w in at.number_input if w.key and not w.disabled]


# Inputs whose maximum is a bound on work (minutes at the top: 2,000 testbed clusters, 20,000
# bootstrap replicates, a 600 s solver limit), not a parameter of the statistics: swept at their
# minimum and default here.
WORK_BOUNDS = {"tb_clusters", "tb_depth", "tb_distractors", "measure_boot", "syn_time"}


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES)
def test_every_number_on_every_page_swept_over_its_range_runs(page):
    """Each number input at its minimum, its maximum and back to its default, one at a time (inputs
    inside a form are set without submitting it; the Replay page's act at once)."""
    at = app(page)
    assert not at.exception
    keys = [(w.key, w.min, w.max, w.value) for w in _numbers(at)]
    assert keys or page in ("pages/compare-runs.py", "pages/audit-report.py", "pages/live-audit.py", "pages/protocol-explorer.py")
    for key, low, high, value in keys:
        for v in (low, value) if key in WORK_BOUNDS else (low, high, value):
            if v is None:
                continue
            try:
                widget = at.number_input(key=key)
            except KeyError:  # the widget is gone after an earlier choice
                break
            widget.set_value(v).run()
            assert not at.exception, (page, key, v, [e.value for e in at.exception])
