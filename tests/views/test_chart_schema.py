"""Every chart a use case builds is a valid Vega-Lite spec.

The pages build charts without checking them against the Vega-Lite JSON schema (a third of a
chart's build time; audit_core/views/charts.py: VALIDATE_SPECS), so the check happens here: each
use case below runs with validation on, and Altair raises on any spec that breaks the schema.
"""

from __future__ import annotations

import altair as alt
import pytest

from audit_core import analyses
from audit_core.views import charts


@pytest.fixture
def validating(monkeypatch):
    monkeypatch.setattr(charts, "VALIDATE_SPECS", True)


def _specs(*specs):
    found = [s for s in specs if s is not None]
    assert found and all(isinstance(s, dict) and ("mark" in s or "layer" in s or "vconcat" in s or "hconcat" in s
                                                  or "concat" in s) for s in found)
    return found


def test_validation_is_off_in_the_pages_and_catches_a_broken_spec(validating):
    assert charts.VALIDATE_SPECS is True
    with pytest.raises(Exception, match="(?i)valid"):
        charts.chart_spec(alt.Chart({"values": [{"x": 1}]}).mark_point(size="big").encode(x="x:Q"))


def test_explorer_charts(validating):
    policy = analyses.policy_source(None)
    view = analyses.explore_support(policy, ("target",), "tau_full")
    _specs(view.lattice_chart, view.heatmap_chart)


def test_replay_charts(validating):
    view = analyses.replay_run(analyses.run_source(analyses.DEFAULT_RUN)).with_views()
    _specs(view.trajectory_chart, view.subgroup_chart, view.frequency_chart)


def test_measure_charts(validating):
    view = analyses.measure_log(analyses.response_log_source(None), n_boot=50)
    assert view.section.charts
    _specs(*(c.spec for c in view.section.charts))


def test_simulation_charts(validating):
    pool = analyses.pool_source("gpqa:small")
    view = analyses.simulate_study(pool, (("adaptive", "SR-LR-UI"),), 2, analyses.paper_params("gpqa"), n_jobs=1)
    assert view.section.charts
    _specs(*(c.spec for c in view.section.charts))
