"""The explorer's first view of the bundled class draws stored chart specs (issue 24): each is the
one Altair builds from the same inputs and code, it is served only for exactly those, and the first
view then loads no Altair."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from audit_core import analyses
from audit_core.views import charts, first_view, stored

ROOT = Path(__file__).resolve().parents[2]
FULL = ("target", "sham", "readout", "mapping")


def test_every_stored_spec_is_the_one_altair_builds():
    on_file = json.loads(stored.STORE.read_text(encoding="utf-8"))
    built = first_view.first_view_specs()          # through Altair, keyed by inputs and code
    assert set(on_file) == set(built), "the charts changed: rebuild them with python -m audit_core.views.first_view"
    for key, spec in built.items():
        assert on_file[key] == spec


@pytest.fixture
def no_altair_build(monkeypatch):
    """chart_spec, through which every Altair chart becomes a spec, refuses: a spec comes from the store."""
    def refuse(chart):
        raise AssertionError("built through Altair")
    monkeypatch.setattr(charts, "chart_spec", refuse)
    import audit_core.views.identify as view_module
    monkeypatch.setattr(view_module, "chart_spec", refuse)


def test_the_first_view_is_served_from_the_store_and_nothing_else(no_altair_build, monkeypatch):
    import audit_core.views.identify as view_module
    monkeypatch.setattr(view_module, "_TEMPLATES", type(view_module._TEMPLATES)())   # none built in this process
    bundled = analyses.policy_source()
    view = analyses.explore_support(bundled, FULL, "tau_full")
    assert view.lattice_chart["title"]["text"] == "Support lattice for tau_full"
    assert view.heatmap_chart["title"]["text"].startswith("Policy × cell responses (36 of 36")
    view.lattice_chart["title"]["text"] = "changed"          # a copy: the store is not changed
    assert analyses.explore_support(bundled, FULL, "tau_full").lattice_chart["title"]["text"] != "changed"
    # another support of the class: the stored charts of the class with its own rows
    other = analyses.explore_support(bundled, ("target",), "tau_full")
    observed = len(analyses.explore_support(bundled, ("target",), "tau_full").identification.cells)
    assert other.heatmap_chart["title"]["text"].startswith(f"Policy × cell responses ({observed} of 36")
    nodes = next(rows for rows in other.lattice_chart["datasets"].values() if rows and "current" in rows[0])
    assert [row["key"] for row in nodes if row["current"]] == ["target"]
    with pytest.raises(AssertionError, match="built through Altair"):       # another estimand: built
        analyses.explore_support(bundled, FULL, "static_correctness")
    stored.code_fingerprint.cache_clear()
    view_module._TEMPLATES.clear()
    monkeypatch.setattr(stored, "_CODE", ("charts.py",))                    # other chart code: built
    try:
        with pytest.raises(AssertionError, match="built through Altair"):
            analyses.explore_support(bundled, FULL, "tau_full")
    finally:
        stored.code_fingerprint.cache_clear()


def test_the_first_explorer_view_loads_no_altair_no_solver():
    probe = ("import sys; from audit_core import analyses; "
             "view = analyses.explore_support(analyses.policy_source(), None, 'tau_full'); "
             "assert view.lattice_chart and view.heatmap_chart and view.section.charts; "
             "print(sorted(m for m in ('altair', 'ortools', 'scipy.optimize') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
