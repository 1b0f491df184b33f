"""The example notebook (docs/examples/workbench_tour.ipynb) runs headless on a fresh install, without
errors, and shows the engine's numbers."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import audit_core

nbformat = pytest.importorskip("nbformat", reason="nbformat is not installed (pip install -r requirements.txt)")
nbclient = pytest.importorskip("nbclient", reason="nbclient is not installed (pip install -r requirements.txt)")

NOTEBOOK = Path(__file__).resolve().parents[2] / "docs" / "examples" / "workbench_tour.ipynb"
INSPECT_LOG = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "inspect" / "run.eval"
# One xdist worker runs this module's tests, so the notebook (a kernel, every import: the module's
# whole cost) executes once per run, not once in each worker that gets one of them.
pytestmark = pytest.mark.xdist_group("notebook")


@pytest.fixture(scope="module")
def executed():
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(notebook, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(NOTEBOOK.parent)}})
    # The kernel imports the audit_core this test imports (a checkout may differ from the installed one).
    root = str(Path(audit_core.__file__).resolve().parents[1])
    saved = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = root if not saved else os.pathsep.join((root, saved))
    try:
        client.execute()  # raises CellExecutionError on any error, with the cell and its traceback
    finally:
        if saved is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = saved
    return notebook


def _outputs(cell) -> dict:
    merged: dict = {}
    for output in cell.get("outputs", []):
        merged.update(output.get("data", {}))
        if output.get("output_type") == "stream":
            merged["text/plain"] = merged.get("text/plain", "") + output["text"]
    return merged


def _cell(notebook, source_start: str):
    return next(c for c in notebook.cells if c.cell_type == "code" and c.source.startswith(source_start))


def test_notebook_runs_without_errors(executed):
    for cell in executed.cells:
        if cell.cell_type == "code":
            assert not [o for o in cell.outputs if o.get("output_type") == "error"], cell.source


def test_replay_cell_shows_the_engines_verdict_and_table(executed):
    expected = audit_core.replay(INSPECT_LOG, score="match", subgroup="subject")
    html = _outputs(_cell(executed, "run = audit_core.replay"))["text/html"]
    assert expected.verdict.text.split(" (")[0] in html
    assert "<table>" in html and "<svg" in html
    for subject in expected.to_frame()["subject"]:
        assert subject in html


def test_chart_cell_draws_the_subgroup_chart(executed):
    # The notebook draws Altair charts offline (its "svg" renderer, vl-convert): an SVG image whose
    # text is the subgroup chart's axis and subgroup names.
    svg = _outputs(_cell(executed, 'run.chart("subgroup_chart")')).get("image/svg+xml", "")
    assert svg.lstrip().startswith("<svg") and "accuracy" in svg.lower()
    for subject in ("algebra", "biology", "chemistry"):
        assert subject in svg


def test_plan_and_identify_cells_show_the_engines_numbers(executed):
    planned = audit_core.plan(subgroups=[120, 160, 168], failing_accuracy=0.6, replicates=60, seed=0, jobs=1)
    assert planned.verdict.text in _outputs(_cell(executed, "planned = audit_core.plan"))["text/html"] \
        .replace("&#x27;", "'").replace("&quot;", '"')
    protocol_html = _outputs(_cell(executed, "protocol = audit_core.identify_support"))["text/html"]
    assert "tau_full is not identified on target + sham: 2 colliding pairs" in protocol_html
    status = _outputs(_cell(executed, "cheapest = audit_core.synthesize"))["text/plain"]
    assert status.startswith("('OPTIMAL', 4.0") or status.startswith("('OPTIMAL', 4,")
