"""The explorer's charts of the bundled class are kept on disk at their first build (issue 30,
audit_core/results_cache.py): what is read back is what Altair built from the same inputs, it is
read only for exactly those inputs and that code, an uploaded class never reaches the disk, and a
process started with a filled cache draws the first view without Altair."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from audit_core import analyses, results_cache
from audit_core.views import charts
from audit_core.views import identify as view_module

ROOT = Path(__file__).resolve().parents[2]
FULL = ("target", "sham", "readout", "mapping")


@pytest.fixture
def cache(monkeypatch, tmp_path):
    """An empty cache folder of this test, and no chart template built in this process."""
    monkeypatch.setenv(results_cache.ENV, str(tmp_path))
    monkeypatch.setattr(view_module, "_TEMPLATES", type(view_module._TEMPLATES)())
    return tmp_path


def _refuse_altair(monkeypatch):
    def refuse(chart):
        raise AssertionError("built through Altair")
    monkeypatch.setattr(charts, "chart_spec", refuse)
    monkeypatch.setattr(view_module, "chart_spec", refuse)


def test_a_kept_chart_is_the_one_altair_builds_and_serves_every_support(cache, monkeypatch):
    bundled = analyses.policy_source()
    built = analyses.explore_support(bundled, FULL, "tau_full")      # first use: built, then kept
    kept = sorted((cache / "chart").glob("*.json"))
    assert len(kept) == 2
    view_module._TEMPLATES.clear()
    _refuse_altair(monkeypatch)
    again = analyses.explore_support(bundled, FULL, "tau_full")      # read back: no Altair
    assert again.lattice_chart == built.lattice_chart and again.heatmap_chart == built.heatmap_chart
    again.lattice_chart["title"]["text"] = "changed"                 # a copy: the kept chart is not changed
    assert analyses.explore_support(bundled, FULL, "tau_full").lattice_chart["title"]["text"] != "changed"
    other = analyses.explore_support(bundled, ("target",), "tau_full")   # another support: the class's charts
    observed = len(other.identification.cells)
    assert other.heatmap_chart["title"]["text"].startswith(f"Policy × cell responses ({observed} of 36")
    nodes = next(rows for rows in other.lattice_chart["datasets"].values() if rows and "current" in rows[0])
    assert [row["key"] for row in nodes if row["current"]] == ["target"]
    with pytest.raises(AssertionError, match="built through Altair"):   # another estimand: built
        analyses.explore_support(bundled, FULL, "static_correctness")
    view_module._TEMPLATES.clear()
    results_cache.code_stamp.cache_clear()
    monkeypatch.setattr(results_cache, "code_stamp", lambda: "other code")   # other code: built again
    with pytest.raises(AssertionError, match="built through Altair"):
        analyses.explore_support(bundled, FULL, "tau_full")


def test_an_uploaded_class_never_reaches_the_disk(cache):
    from audit_core.identify import policy_class_to_json
    data = json.dumps(policy_class_to_json(analyses.policy_source().value)).encode()
    analyses.explore_support(analyses.policy_source(data, "mine.json"), ("target",), "tau_full")
    assert not any(cache.rglob("*.json"))


def test_a_corrupt_or_foreign_entry_is_built_again(cache, monkeypatch):
    bundled = analyses.policy_source()
    first = analyses.explore_support(bundled, FULL, "tau_full")
    lattice_file, heatmap_file = sorted((cache / "chart").glob("*.json"))
    lattice_file.write_text("{not json")
    entry = json.loads(heatmap_file.read_text())
    entry["key"] = "0" * 64                                          # an entry of another key
    heatmap_file.write_text(json.dumps(entry))
    view_module._TEMPLATES.clear()
    again = analyses.explore_support(bundled, FULL, "tau_full")
    assert again.lattice_chart == first.lattice_chart and again.heatmap_chart == first.heatmap_chart
    assert all(json.loads(p.read_text())["key"] == p.stem for p in (lattice_file, heatmap_file))   # rewritten


def test_the_first_explorer_view_with_a_kept_cache_loads_no_altair_no_solver(tmp_path):
    probe = ("import sys; from audit_core import analyses; "
             "view = analyses.explore_support(analyses.policy_source(), None, 'tau_full'); "
             "assert view.lattice_chart and view.heatmap_chart and view.section.charts and view.inside; "
             "print(sorted(m for m in ('altair', 'ortools', 'scipy.optimize') if m in sys.modules))")
    env = {**os.environ, results_cache.ENV: str(tmp_path)}
    runs = [subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True,
                           check=True).stdout.strip() for _ in range(2)]
    assert runs[0] != "[]"            # first use: built and solved, then kept
    assert runs[1] == "[]"            # a new process: read back
