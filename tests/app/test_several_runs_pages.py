"""Issue 29 items 5-7 on the pages: several runs uploaded at once (Replay, Measure), the warning of
an errored sample, and the checkbox that leaves rows without a score out."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
TESTBED = ROOT / "tests" / "fixtures" / "testbed"


def app(page: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.switch_page(page)
    return at.run()


def metric(at: AppTest, label: str) -> str:
    (value,) = [m.value for m in at.metric if m.label == label]
    return value


def test_replay_takes_several_runs_with_a_run_column():
    at = app("pages/replay-run.py")
    at.selectbox(key="replay_source").set_value("several").run()
    widget = at.file_uploader(key="runs_upload__widget")
    assert widget.accept_multiple_files
    widget.set_value([("a.csv", b"case,correct\n" + b"".join(f"a{i},{i % 2}\n".encode() for i in range(40)), "text/csv"),
                      ("b.csv", b"case,correct\n" + b"".join(f"b{i},1\n".encode() for i in range(30)), "text/csv")]).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert metric(at, "Cases replayed") == "70"
    (groups,) = [w for w in at.multiselect if w.label.startswith("Subgroups")]
    assert groups.value == ["run"]


def test_measure_takes_several_logs_and_shows_the_errored_sample():
    at = app("pages/measure-logs.py")
    at.radio(key="measure_source").set_value("several").run()
    at.file_uploader(key="response_logs_upload__widget").set_value(
        [(name, (TESTBED / name).read_bytes(), "application/zip") for name in ("inspect_ideal.eval", "inspect_partial.eval")]).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert metric(at, "Models") == "2"
    assert any("errored or hold no response" in i.value and "left out of every rate" in i.value for i in at.info)


def test_replay_offers_to_leave_out_rows_without_a_score():
    at = app("pages/replay-run.py")
    at.selectbox(key="replay_source").set_value("upload").run()
    rows = b"".join(f"c{i},{'' if i % 25 == 0 else i % 2}\n".encode() for i in range(100))
    at.file_uploader(key="replay_upload__widget").upload("gaps.csv", b"case,correct\n" + rows, "text/csv").run()
    assert not at.exception
    assert len(at.error) == 1 and "4 of 100 rows (4.0%) have no score" in at.error[0].value
    (box,) = [c for c in at.checkbox if "rows without a score" in c.label]
    assert box.label.startswith("Leave out the 4 rows")
    box.check().run()
    assert not at.exception and not at.error
    assert metric(at, "Cases replayed") == "96"
    assert any("4 of 100 rows" in w.value and "left out" in w.value for w in at.warning)


def test_first_page_points_a_log_to_replay():
    at = AppTest.from_file(APP, default_timeout=120).run()
    assert not at.exception
    markdown = " ".join(m.value for m in at.markdown)
    assert "Inspect AI or lm-eval log" in markdown
    links = {link.proto.page: link.proto.label for link in at.get("page_link")}
    assert any(page.endswith("replay-run") or "replay" in page for page in links), links


def test_after_start_audit_the_form_folds_and_the_case_comes_first(tmp_path, monkeypatch):
    monkeypatch.setenv("AUDIT_HOME", str(tmp_path))
    at = AppTest.from_file(APP, default_timeout=120)
    at.session_state["live_annotator"] = "Ada"
    at.switch_page("pages/live-audit.py")
    at.run()
    at.selectbox(key="live_new_pool").set_value("gpqa:small")
    at = [b for b in at.button if b.label == "Start audit"][0].click().run()
    assert not at.exception, [e.value for e in at.exception]
    # the start form is inside the folded expander once the audit is open
    assert [e.label for e in at.expander][:1] == ["Start or resume another audit (audit 1 is open)"]


def test_compare_runs_shows_each_task_and_the_pooled_comparison(tmp_path):
    """Issue 32 on the page: a long CSV with a ``task`` column uploaded to Compare runs gives the
    per-task and pooled table, the same rows as ``audit_core.compare`` (m2 far ahead on 'code', tied
    on 'facts')."""
    import numpy as np
    import pandas as pd

    import audit_core

    rng = np.random.default_rng(8)
    rows = []
    for task, accuracies in (("code", {"m1": 0.3, "m2": 0.9}), ("facts", {"m1": 0.7, "m2": 0.7})):
        u = rng.random(300)
        for name, p in accuracies.items():
            y = (np.where(rng.random(300) < 0.7, u, rng.random(300)) < p).astype(int)
            rows.append(pd.DataFrame({"case_id": [f"{task}/{i}" for i in range(300)], "task": task, "run": name,
                                      "correct": y}))
    path = tmp_path / "long.csv"
    pd.concat(rows).to_csv(path, index=False)
    at = app("pages/compare-runs.py")
    at.file_uploader(key="compare_set_upload__widget").upload("long.csv", path.read_bytes(), "text/csv").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert "Per task (2) and pooled" in [s.value for s in at.subheader]
    expected = audit_core.compare(str(path)).task_table
    (table,) = [d.value for d in at.dataframe if list(d.value.columns) == list(expected.columns)]
    pd.testing.assert_frame_equal(table.reset_index(drop=True), expected.reset_index(drop=True), check_dtype=False)
    assert len(expected) >= 3     # both tasks and the pooled row(s)
