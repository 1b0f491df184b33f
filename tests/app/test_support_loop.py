"""AppTest: the design loop at the cheapest support on screen (issue 33): Minimal supports → "Run these
cells" → Testbed items for that support → Measure shows τ_full through identification."""

from __future__ import annotations

import io
from pathlib import Path

from streamlit.testing.v1 import AppTest

from audit_core import analyses
from audit_core.identify import frozen_policy_class, minimum_supports
from audit_core.identify.policies import LABELS
from audit_core.measure.identified import ASSUMPTION

TIMEOUT = 90
APP = str(Path(__file__).resolve().parents[2] / "app.py")
PC = frozen_policy_class()


def app(page: str, **query) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params.update(query)
    at.switch_page(page)
    return at.run()


def metric(at: AppTest, label: str) -> str:
    values = [m.value for m in at.metric if m.label == label]
    assert len(values) == 1, f"metric {label!r} not found once in {[m.label for m in at.metric]}"
    return values[0]


def test_minimal_supports_runs_the_chosen_cells_on_the_testbed_page():
    cheapest = minimum_supports(PC, enumerate_all=False).supports[0]
    at = app("pages/minimal-supports.py")
    assert not at.exception
    at.button(key="ms_run_cells").click().run()
    assert not at.exception, [e.value for e in at.exception]
    support = at.query_params["support"]
    support = support[0] if isinstance(support, list) else support
    assert [m.label for m in at.metric if m.label == "Cells per cluster"]  # the Testbed page is shown
    engine = analyses.generate_testbed(24, 0, support=support)
    assert metric(at, "Cells per cluster") == f"{len(engine.support)} / 36"
    assert int(metric(at, "Items")) == len(engine.items) == 24 * len(engine.support)
    assert set(support.split(",")) <= set(PC.cells) and len(support.split(",")) == len(cheapest) == 2


def test_testbed_page_takes_the_cheapest_support_from_a_link():
    at = app("pages/testbed-items.py", clusters="5", support="cheapest")
    assert not at.exception and not at.error
    assert int(metric(at, "Items")) == 10 and metric(at, "Cells per cluster") == "2 / 36"
    assert any("10 model calls per model instead of 180" in i.value for i in at.info)
    at = app("pages/testbed-items.py", support="world:nope")
    assert not at.exception and at.error  # one clear message, no traceback


def _cut_log(cells) -> bytes:
    """The seven frozen policies (by role) on six clusters, rows of ``cells`` only, per-world oracles."""
    out = io.StringIO()
    out.write("model,cluster,cell,response,oracle_base,oracle_target,oracle_sham\n")
    directions = [(a, b) for a in LABELS for b in LABELS if a != b]
    for policy in PC.names:
        for k, (base, target) in enumerate(directions):
            third = next(x for x in LABELS if x not in (base, target))
            for cell in cells:
                mapping = cell.split(":")[1]
                reference = LABELS[mapping.index(PC.response(policy, cell))]
                label = {"TRUE": base, "UNKNOWN": target, "FALSE": third}[reference]
                out.write(f"{policy},c{k},{cell},{mapping[LABELS.index(label)]},{base},{target},{base}\n")
    return out.getvalue().encode()


def test_measure_page_shows_tau_through_identification_and_the_calls_saved():
    cells = minimum_supports(PC, enumerate_all=False).supports[0]
    at = app("pages/measure-logs.py")
    at.radio(key="measure_source").set_value("upload").run()
    at.file_uploader(key="measure_upload__widget").upload("cut.csv", _cut_log(cells), "text/csv").run()
    assert not at.exception, [e.value for e in at.exception]
    assert metric(at, "τ_full (identified)") == f"{6 / 42:.3f}"
    assert metric(at, "Outside the class") == "0 / 42" and metric(at, "Cells per cluster") == "2 / 36"
    assert metric(at, "Model calls saved") == "1,428"
    assert any(ASSUMPTION in c.value for c in at.caption)
