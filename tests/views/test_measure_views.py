"""Tables and chart specs of a Measurement; the report section renders to HTML."""

import pytest

from audit_core.measure import COMPOSITION, load_response_log, measure
from audit_core.report.document import Report, render_html
from audit_core.views import measure as views


@pytest.fixture(scope="module")
def result():
    return measure(load_response_log("data/example_response_log.csv"), bootstrap=200, seed=0)


def test_tables_carry_the_measurement_numbers(result):
    table = views.estimates_table(result)
    assert set(table["model"]) == {"synthetic-model-A", "synthetic-model-B", "all models"}
    row = table[(table["model"] == "all models") & (table["estimate"] == "local paired response")].iloc[0]
    e = result.pooled.estimate("local_paired")
    assert (row["k"], row["n"], row["bootstrap 95% low"]) == (e.successes, e.n, e.boot_low)
    comp = views.composition_table(result)
    assert list(comp.columns[1:6]) == list(COMPOSITION)
    assert (comp[list(COMPOSITION)].sum(axis=1) == comp["paired units"]).all()
    assert len(views.units_table(result)) == 48 and len(views.transitions_table(result)) == 18


@pytest.mark.parametrize("interval", ["bootstrap", "wilson"])
def test_estimates_chart_has_titles_legend_and_error_bars(result, interval):
    spec = views.estimates_spec(result, interval)
    assert spec["title"]["text"] == "Estimand-separated rates per model"
    marks = [layer["mark"]["type"] for layer in spec["layer"]]
    assert marks == ["rule", "point", "text"]
    points = spec["layer"][1]["encoding"]
    assert points["color"]["field"] == points["shape"]["field"] == "model"  # shape doubles colour
    assert "interval" in points["x"]["title"] and spec["layer"][0]["encoding"]["x2"]["field"] == "high"
    data = next(iter(spec["datasets"].values()))
    a = next(r for r in data if r["model"] == "synthetic-model-A" and r["estimate"].startswith("target-follow"))
    e = result.model("synthetic-model-A").estimate("target_follow")
    low = e.boot_low if interval == "bootstrap" else e.wilson_low
    assert a["rate"] == e.rate and a["low"] == low


def test_composition_chart_and_report_section(result):
    spec = views.composition_spec(result)
    assert spec["title"]["text"].startswith("Behavioural composition")
    section = views.measurement_section(result)
    html = render_html(Report("measure", (section,)))
    assert "Estimand-separated results" in html and "<svg" in html and "synthetic-model-A" in html
