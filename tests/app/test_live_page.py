"""AppTest of the Live audit page: start, label with buttons, undo, next, resume in a new session."""

import math
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from audit_core.live import LiveAudit, connect, default_db_path

APP = str(Path(__file__).resolve().parents[2] / "app.py")
PAGE = "pages/live-audit.py"


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("AUDIT_HOME", str(tmp_path))
    return tmp_path


def _page() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.switch_page(PAGE)
    return at.run()


def _button(at: AppTest, label: str):
    matches = [b for b in at.button if b.label == label]
    assert matches, [b.label for b in at.button]
    return matches[0]


def _engine(audit_id: int = 1) -> LiveAudit:
    return LiveAudit(connect(default_db_path()), audit_id)


def test_label_undo_and_resume_through_the_page(home):
    at = _page()
    assert not at.exception and at.title[0].value == "Live audit"
    at.selectbox(key="live_new_pool").set_value("gpqa:small")
    at = _button(at, "Start audit").click().run()
    at.text_input(key="live_annotator_input").input("Ada")
    at = at.run()
    assert not at.exception, [e.value for e in at.exception]
    (claimed,) = _engine().pending("Ada")
    assert at.subheader[0].value == f"Case {claimed.case_id}" and claimed.phase == "init"
    at = _button(at, "correct").click().run()
    engine = _engine()
    assert engine.status().n == 1 and engine.labels()[0].score == 1.0 and engine.labels()[0].annotator == "Ada"
    assert [m.value for m in at.metric if m.label == "Labelled"] == ["1"]
    at = _button(at, "Undo this label").click().run()
    assert _engine().status().n == 0 and _engine().status().pending == (claimed.case_id,)
    assert at.subheader[0].value == f"Case {claimed.case_id}"          # the same case is offered again
    for name in ("incorrect", "partial", "correct"):
        at = _button(at, name).click().run()
        at = _button(at, "Next case").click().run()
    engine = _engine()
    assert [r.score for r in engine.labels()] == [0.0, 0.5, 1.0]
    status = engine.status()
    # One log base for people (issue 19 item 10): log₁₀ E, as on the chart.
    assert [m.value for m in at.metric if m.label == f"log₁₀ E {status.auditor_process}"] == [
        f"{status.log_e_auditor / math.log(10):.3f}"]
    assert [m.value for m in at.metric if m.label == "Labelled"] == ["3"]
    assert at.get("vega_lite_chart") or at.get("arrow_vega_lite_chart")
    pending = engine.pending("Ada")
    # a new browser session resumes the audit: same labels, the same claimed case for Ada
    again = _page()
    again = _button(again, "Resume").click().run()
    again.text_input(key="live_annotator_input").input("Ada")
    again = again.run()
    assert not again.exception
    assert again.subheader[0].value == f"Case {pending[0].case_id}"
    assert [m.value for m in again.metric if m.label == "Labelled"] == ["3"]
    # another annotator in that session gets a different case
    again.text_input(key="live_annotator_input").input("Bo")
    again = again.run()
    assert again.subheader[0].value != f"Case {pending[0].case_id}"
    assert {p.annotator for p in _engine().pending()} == {"Ada", "Bo"}


def test_an_inspect_log_pool_skips_with_a_reason_and_hides_the_scorers(home):
    at = _page()
    at.selectbox(key="live_new_pool").set_value("upload a file")
    raw = (Path(__file__).resolve().parents[1] / "fixtures" / "inspect" / "run.eval").read_bytes()
    at.file_uploader(key="live_new_upload").upload("run.eval", raw, "application/zip")
    at = _button(at, "Start audit").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    at.text_input(key="live_annotator_input").input("Ada")
    at = at.run()
    (claimed,) = _engine().pending("Ada")
    tables = [d.value for d in at.dataframe]
    (case_table,) = [t for t in tables if "output" in set(map(str, t.iloc[:, 0]))]
    columns = list(case_table.iloc[:, 0])
    assert {"input", "target", "output"} <= set(columns) and not any(c.startswith("scorer.") for c in columns)
    at.selectbox(key="live_skip_reason").set_value("another reason (write it below)").run()
    at.text_input(key="live_skip_note").input("the question is cut off")
    at = _button(at, "Skip").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    (skip,) = _engine().skips()
    assert (skip.case_id, skip.reason, skip.annotator) == (claimed.case_id, "the question is cut off", "Ada")
    assert any("skipped without a label" in c.value for c in at.caption)
    at = _button(at, "Undo this skip").click().run()
    assert _engine().skips() == () and _engine().status().pending == (claimed.case_id,)
    at.selectbox(key="live_skip_reason").set_value("the item is outside the audit's scope").run()
    at = _button(at, "Skip").click().run()
    at = _button(at, "Next case").click().run()
    assert _engine().skips()[0].reason == "the item is outside the audit's scope"
    (following,) = _engine().pending("Ada")
    assert following.case_id != claimed.case_id and at.subheader[0].value == f"Case {following.case_id}"
    at.selectbox(key="live_skip_reason").set_value("another reason (write it below)").run()
    at = _button(at, "Skip").click().run()         # no reason written: refused, nothing recorded
    assert [e.value for e in at.error] and "say why" in at.error[0].value
    assert len(_engine().skips()) == 1 and _engine().status().pending == (following.case_id,)


def test_open_in_replay_replays_the_export_to_the_live_decision(home):
    # sdoh with the pool's own labels as the annotator is the recorded run: failure found at case 53.
    engine = LiveAudit.create(connect(default_db_path()), "sdoh", "adaptive", "SR-LR-UI", seed=7, truth="correct")
    while (proposals := engine.next("Ada")):
        for p in proposals:
            engine.label(p.case_id, engine.truth(p.case_id), "Ada")
    status = engine.status()
    assert (status.decision, status.stop) == ("failure mode found", 53)
    at = _page()
    at = _button(at, "Resume").click().run()
    at.text_input(key="live_annotator_input").input("Ada")
    at = at.run()
    at = _button(at, "Open in Replay").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.title[0].value == "Replay"
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Cases replayed"] == "53" and metrics["Stopped at case"] == "53"
    assert any("failure mode found" in s.value.lower() for s in [*at.success, *at.warning, *at.info, *at.error])
    # The audit's budget was declared before its first label: Replay tunes the overall interval to it.
    assert at.number_input(key="replay_planned_n").value == engine.params.budget > 0
    (accuracy,) = [m for m in at.metric if m.label == "Overall accuracy"]
    assert f"tuned to {engine.params.budget} planned cases" in accuracy.proto.help


def test_hostile_case_ids_and_subgroups_are_shown_as_text(home):
    hostile = "![x](http://127.0.0.1:9/x.png)"
    rows = "".join(f"c{i}{'*b*' if i % 2 else ''},{hostile if i % 3 == 0 else 'plain'},{i % 2}\n" for i in range(30))
    at = _page()
    at.selectbox(key="live_new_pool").set_value("upload a file")
    at.file_uploader(key="live_new_upload").upload("pool.csv", ("case_id,subgroup,correct\n" + rows).encode(),
                                                   "text/csv")
    at = _button(at, "Start audit").click().run()
    at.text_input(key="live_annotator_input").input("Ada")
    at = at.run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    shown = [str(e.value) for kind in ("markdown", "caption", "subheader", "info", "success", "warning")
             for e in getattr(at, kind)]
    assert not any("![x](" in text or "*b*" in text for text in shown)
    assert any("Case c" in text for text in shown)


def _all_text(at: AppTest) -> str:
    kinds = ("markdown", "caption", "success", "warning", "info", "error", "subheader", "title", "text", "code")
    return "\n".join(str(getattr(e, "value", "")) for kind in kinds for e in getattr(at, kind))


@pytest.mark.parametrize("setup", ["no workspace", "home is a file", "database is a folder"])
def test_the_page_never_shows_visitors_the_server_workspace_path(setup, tmp_path, monkeypatch):
    """Issue 27 item 5: a visitor opening ``?audit=1`` (or starting an audit) on a server whose
    workspace is missing or broken saw ``audit database /srv/.../workspace.sqlite: ...``."""
    home = tmp_path / "srv_private_home_3f9"
    if setup == "home is a file":
        home.write_text("not a folder")
    elif setup == "database is a folder":
        (home / "audits.sqlite").mkdir(parents=True)
    monkeypatch.setenv("AUDIT_HOME", str(home))
    at = AppTest.from_file(APP, default_timeout=120)
    at.switch_page(PAGE)
    at.query_params["audit"] = "1"
    at.run()
    at.text_input(key="live_annotator_input").input("Ada").run()
    assert not at.exception
    assert at.error, "the missing or broken workspace is said"
    assert "srv_private_home_3f9" not in _all_text(at) and str(tmp_path) not in _all_text(at)
    if setup != "no workspace":
        at.selectbox(key="live_new_pool").set_value("gpqa:small")
        _button(at, "Start audit").click().run()
        assert not at.exception and at.error
        assert "srv_private_home_3f9" not in _all_text(at) and str(tmp_path) not in _all_text(at)


def test_double_labelling_agreement_and_adjudication_through_the_page(home):
    """Issue 34 on the page: start with every case double-labelled and the settled label, two
    labellers disagree, the owner settles it with a reason; the e-processes see the settled label."""
    at = _page()
    at.selectbox(key="live_new_pool").set_value("gpqa:small")
    at.slider(key="live_new_overlap").set_value(100)
    at.radio(key="live_new_label_choice").set_value("adjudicated")
    at = _button(at, "Start audit").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert _engine().overlap.to_dict() == {"share": 1.0, "labellers": 2, "label_choice": "adjudicated"}
    at.text_input(key="live_annotator_input").input("Ada")
    at = at.run()
    (claimed,) = _engine().pending("Ada")
    at = _button(at, "correct").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("the e-processes see it once its labels agree" in m.value for m in [*at.markdown, *at.caption])
    assert [b for b in at.button if b.label == "Undo this label"][0].disabled
    assert _engine().status().n == 0 and _engine().waiting() == (claimed.case_id,)
    at = _button(at, "Next case").click().run()
    at.text_input(key="live_annotator_input").input("Bo")
    at = at.run()
    assert at.subheader[0].value == f"Case {claimed.case_id}"        # offered to a second labeller
    # Bo does not see Ada's label: the case waits, so it is in no table yet, and no disagreement shows
    assert "Agreement between labellers" in [s.value for s in at.subheader]
    at = _button(at, "incorrect").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert "Adjudication (1 to settle)" in [s.value for s in at.subheader]
    assert any(claimed.case_id in m.value and "Ada: 1; Bo: 0" in m.value for m in [*at.markdown, *at.caption])
    assert [m.value for m in at.metric if m.label == "percent agreement"] == ["0.000"]
    at.selectbox(key="live_adjudicate_label").set_value("correct")
    at.text_input(key="live_adjudicate_reason").input("the key says B")
    at = _button(at, "Settle").click().run()
    assert not at.exception, [e.value for e in at.exception]
    engine = _engine()
    assert [(a["case_id"], a["score"], a["adjudicator"], a["reason"]) for a in engine.adjudications()] == [
        (claimed.case_id, 1.0, "Bo", "the key says B")]
    assert engine.status().n == 1 and engine.labels()[0].score == 1.0
    assert "Adjudication (0 to settle)" in [s.value for s in at.subheader]
    assert "Audit trail (owners)" in [e.label for e in at.expander]
    assert {"Download the trail (CSV)", "Download the trail (JSON)"} <= {b.label for b in at.get("download_button")}
