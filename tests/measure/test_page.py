"""AppTest of pages/measure-logs.py: renders the bundled log, survives a bad upload with one error."""

from pathlib import Path

from streamlit.testing.v1 import AppTest

from audit_core.measure import load_response_log, measure
from audit_core.measure.example import EXAMPLE_PATH

PAGE = str(Path(__file__).resolve().parents[2] / "pages" / "measure-logs.py")
TIMEOUT = 90


def test_page_renders_the_bundled_synthetic_log():
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT).run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.title[0].value == "Measure response logs"
    assert any("SYNTHETIC" in c.value for c in at.caption)
    expected = measure(load_response_log(Path(EXAMPLE_PATH).read_bytes()), bootstrap=2000, seed=0)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Complete paired units"] == f"{expected.pooled.n_complete_paired} / {expected.pooled.n_paired}"
    table = at.dataframe[0].value
    row = table[(table["model"] == "all models") & (table["estimate"] == "local response | base-correct")].iloc[0]
    e = expected.pooled.estimate("local_given_base")
    assert (row["k"], row["n"]) == (e.successes, e.n) and abs(row["rate"] - e.rate) < 1e-12
    assert not at.error


def test_bad_upload_shows_one_error_and_the_page_keeps_working():
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT).run()
    at.radio(key="measure_source").set_value("upload").run()
    bad = b"model,cluster,cell,response,oracle\nm,c,base:ABC:nowhere,A,TRUE\n"
    at.file_uploader(key="measure_upload__widget").upload("bad.csv", bad, "text/csv").run()
    assert not at.exception, [e.value for e in at.exception]
    assert len(at.error) == 1 and "nowhere" in at.error[0].value
    assert at.dataframe, "the page still draws the bundled results"
    good = Path(EXAMPLE_PATH).read_bytes().replace(b"synthetic-model-B", b"uploaded-model")
    at.file_uploader(key="measure_upload__widget").upload("good.csv", good, "text/csv").run()
    assert not at.exception and not at.error
    assert "uploaded-model" in set(at.dataframe[0].value["model"])
