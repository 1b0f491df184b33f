"""Every chart a use case builds is a valid Vega-Lite spec.

The pages build charts without checking them against the Vega-Lite JSON schema (a third of a
chart's build time; audit_core/views/charts.py: VALIDATE_SPECS), so the check happens here: each
use case below runs with validation on, and Altair raises on any spec that breaks the schema.
The bundled class's charts kept on disk (audit_core/results_cache.py) and the explorer's cached
templates would skip Altair altogether, so the fixture turns both off and counts the validating
builds: a test whose charts were never built through Altair fails instead of passing unchecked.
The kept specs themselves are validated against the Vega-Lite schema directly.
"""

from __future__ import annotations

import altair as alt
import pytest

from audit_core import analyses
from audit_core.views import charts


@pytest.fixture
def validating(monkeypatch):
    from audit_core.views import identify
    monkeypatch.setattr(charts, "VALIDATE_SPECS", True)
    monkeypatch.setenv("AUDIT_CACHE_DIR", "off")   # build every chart, none kept on disk
    monkeypatch.setattr(identify, "_TEMPLATES", type(identify._TEMPLATES)())  # and no cached template
    builds = []

    def counting(to_dict):
        def counted(self, *args, **kwargs):
            builds.append(kwargs.get("validate", args[0] if args else True))
            return to_dict(self, *args, **kwargs)
        return counted

    for cls in (alt.TopLevelMixin, alt.Chart, alt.LayerChart, alt.VConcatChart, alt.HConcatChart, alt.ConcatChart,
                alt.FacetChart, alt.RepeatChart):
        if "to_dict" in vars(cls):
            monkeypatch.setattr(cls, "to_dict", counting(vars(cls)["to_dict"]))
    return builds


@pytest.fixture
def checked(validating):
    """Validation on, and at least one chart of the test built through Altair with it."""
    yield validating
    assert True in validating, "no chart was built through Altair with the schema check on"


def test_the_kept_specs_are_valid_vega_lite(monkeypatch, tmp_path):
    import json

    from altair.utils.schemapi import validate_jsonschema
    from altair.vegalite.v5.schema.core import load_schema

    from audit_core.views import identify
    monkeypatch.setenv("AUDIT_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(identify, "_TEMPLATES", type(identify._TEMPLATES)())
    analyses.explore_support(analyses.policy_source(), None, "tau_full")
    specs = [json.loads(p.read_text(encoding="utf-8"))["value"] for p in (tmp_path / "chart").glob("*.json")]
    assert len(specs) == 2
    schema = load_schema()
    for spec in specs:
        validate_jsonschema(spec, schema)


def _specs(*specs):
    found = [s for s in specs if s is not None]
    assert found and all(isinstance(s, dict) and ("mark" in s or "layer" in s or "vconcat" in s or "hconcat" in s
                                                  or "concat" in s) for s in found)
    return found


def test_validation_is_off_in_the_pages_and_catches_a_broken_spec(validating):
    assert charts.VALIDATE_SPECS is True
    with pytest.raises(Exception, match="(?i)valid"):
        charts.chart_spec(alt.Chart({"values": [{"x": 1}]}).mark_point(size="big").encode(x="x:Q"))


def test_explorer_charts(checked):
    policy = analyses.policy_source(None)
    view = analyses.explore_support(policy, ("target",), "tau_full")
    _specs(view.lattice_chart, view.heatmap_chart)


def test_replay_charts(checked):
    view = analyses.replay_run(analyses.run_source(analyses.DEFAULT_RUN)).with_views()
    _specs(view.trajectory_chart, view.subgroup_chart, view.frequency_chart)


def test_measure_charts(checked):
    view = analyses.measure_log(analyses.response_log_source(None), bootstrap=50)
    assert view.section.charts
    _specs(*(c.spec for c in view.section.charts))


def test_simulation_charts(checked):
    pool = analyses.pool_source("gpqa:small")
    view = analyses.simulate_study(pool, (("adaptive", "SR-LR-UI"),), 2, analyses.paper_params("gpqa"), jobs=1)
    assert view.section.charts
    _specs(*(c.spec for c in view.section.charts))
