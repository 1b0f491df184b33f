"""Agreement, adjudication and the audit trail of a live audit through the use cases, the Python API
and the command line (issue 34): one answer on every front end, blinding, the trail's files. On
both stores (the ``db`` fixture: a SQLite file and a fresh PostgreSQL database)."""

import io
import json

import pandas as pd
import pytest

import audit_core
from audit_core.analyses import live
from audit_core.analyses.live_agreement import AUDIT_TRAIL_COLUMNS
from audit_core.cli import main
from audit_core.errors import InputError
from audit_core.live.overlap import overlap_draw
from audit_core.live.roles import Identity
from audit_core.measure.interrater import agreement

ANNOTATORS = ("ann", "bob", "cat")


def _label(db, audit_id: int, rounds: int = 12, flip: float = 0.5) -> None:
    """Round-robin over three annotators; bob disagrees with the truth on cases whose hash says so
    (label-blind), so disagreements exist and do not depend on the audit's path."""
    for _ in range(rounds):
        for who in ANNOTATORS:
            action = live.claim_cases(audit_id, who, db=db)
            for case in action.cases:
                truth = float(case.case_id < "Q2")
                score = 1.0 - truth if who == "bob" and overlap_draw(7, case.case_id) < flip else truth
                live.record_label(audit_id, case.case_id, score, who, db=db, show_next=False)


@pytest.fixture
def audit(db):
    audit_id = live.start_live_audit("gpqa:large", "adaptive", "LR", seed=2, db=db, n_init=2, budget=60,
                                     overlap=0.5, labellers=2).audit["audit_id"]
    _label(db, audit_id)
    return db, audit_id


def test_the_numbers_are_the_measure_of_the_double_labels(audit):
    db, audit_id = audit
    result = live.live_agreement(audit_id, db=db)
    with live.open_audit(audit_id, db) as engine:
        labels = engine.overlap_labels()
        queue = engine.disagreements()
    direct = agreement([r["case_id"] for r in labels], [r["annotator"] for r in labels],
                       [r["score"] for r in labels], subgroups=[r["subgroup"] for r in labels])
    assert result.agreement.to_dict() == direct.to_dict()
    assert result.agreement.n_annotators == 3 and direct.overall.n_cases >= 5
    overall = result.statistics[result.statistics["subgroup"] == "(all)"].set_index("statistic")
    assert overall.loc["percent agreement", "estimate"] == direct.percent_agreement.estimate
    assert overall.loc["Krippendorff's α", "low"] == direct.krippendorff_alpha.low
    assert "Cohen's κ" not in overall.index                          # three labellers: no κ
    assert set(result.statistics["subgroup"]) == {"(all)"} | {g.subgroup for g in direct.by_subgroup}
    assert queue and len(result.disagreements) == len(queue)
    assert set(result.disagreements["state"]) == {"waits for adjudication"}
    assert result.chart is not None and "agreement" in json.dumps(result.chart)
    assert result.verdict.startswith("50% of cases are labelled by 2 people; the e-processes see the first label")


def test_an_audit_without_overlap_has_no_agreement(db):
    audit_id = live.start_live_audit("gpqa:large", "stratified", "LR", db=db, n_init=2).audit["audit_id"]
    (case,) = live.claim_cases(audit_id, "ann", db=db).cases
    live.record_label(audit_id, case.case_id, 1, "ann", db=db)
    assert live.live_audit_view(audit_id, "ann", db=db).agreement is None
    result = live.live_agreement(audit_id, db=db)
    assert result.agreement is None and result.to_dict()["n_cases"] == 0
    assert "overlap share is 0" in result.verdict


def test_no_one_sees_a_label_of_a_case_they_may_still_label(db):
    audit_id = live.start_live_audit("gpqa:large", "stratified", "LR", db=db, n_init=2, overlap=1.0,
                                     labellers=3).audit["audit_id"]
    (case,) = live.claim_cases(audit_id, "ann", db=db).cases
    live.record_label(audit_id, case.case_id, 1, "ann", db=db)
    (again,) = live.claim_cases(audit_id, "bob", db=db).cases
    assert again.case_id == case.case_id
    live.record_label(audit_id, case.case_id, 0, "bob", db=db)
    # cat is offered the case next: she sees neither label, nor the disagreement
    view = live.live_audit_view(audit_id, "cat", db=db)
    row = view.labels[view.labels["case"] == case.case_id]
    assert row["score"].isna().all() and row[live.LOG_E_MODEL].isna().all()
    assert view.agreement.hidden == 1 and view.agreement.disagreements.empty
    assert view.agreement.agreement.disagreements == ()
    assert case.case_id not in json.dumps(view.section.numbers["agreement"]["disagreements"])
    # ann has labelled it: she sees it; an adjudicator who may still label it does not, yet
    assert live.live_audit_view(audit_id, "ann", db=db).labels["score"].notna().all()
    assert live.live_agreement(audit_id, "ann", db=db).disagreements["case"].tolist() == [case.case_id]
    judge = Identity("jo@x.org", "adjudicator", True, "signed-in")
    assert live.live_agreement(audit_id, judge, db=db).hidden == 1
    # once cat has labelled, she sees it too
    (third,) = live.claim_cases(audit_id, "cat", db=db).cases
    assert third.case_id == case.case_id
    done = live.record_label(audit_id, case.case_id, 1, "cat", db=db)
    assert done.received == {"case_id": case.case_id, "score": 1.0, "annotator": "cat", "verified": False,
                             "ts": done.received["ts"], "first": False, "waits": False}
    assert done.to_dict()["labelled"]["step"] is None
    assert live.live_agreement(audit_id, "cat", db=db).hidden == 0


def test_adjudication_is_an_owners_or_adjudicators_event_and_reaches_the_report(db):
    audit_id = live.start_live_audit("gpqa:large", "stratified", "LR", db=db, n_init=2, overlap=1.0,
                                     label_choice="adjudicated").audit["audit_id"]
    (case,) = live.claim_cases(audit_id, "ann", db=db).cases
    first = live.record_label(audit_id, case.case_id, 1, "ann", db=db)
    assert first.received["waits"] and first.status.n == 0
    live.claim_cases(audit_id, "bob", db=db)
    live.record_label(audit_id, case.case_id, 0, "bob", db=db)
    annotator = Identity("al@x.org", "annotator", True, "signed-in")
    with pytest.raises(InputError, match="may not"):
        live.adjudicate_case(audit_id, case.case_id, 1, "reread", annotator, db=db)
    with pytest.raises(InputError, match="reason"):
        live.adjudicate_case(audit_id, case.case_id, 1, "  ", "owner", db=db)
    judge = Identity("jo@x.org", "adjudicator", True, "signed-in")
    settled = live.adjudicate_case(audit_id, case.case_id, 1, "the key says B", judge, db=db)
    assert (settled.score, settled.adjudicator, settled.verified, settled.entered) == (1.0, "jo@x.org", True, True)
    assert settled.status.n == 1                                   # the settled label entered the e-processes
    result = live.live_agreement(audit_id, db=db)
    assert result.adjudications[["case", "score", "adjudicator", "reason"]].values.tolist() == [
        [case.case_id, 1.0, "jo@x.org", "the key says B"]]
    assert result.to_dict()["disagreements"][0]["settled"]["reason"] == "the key says B"
    view = live.live_audit_view(audit_id, "owner", db=db)
    titles = [t.caption for t in view.section.tables]
    assert {"Agreement statistics", "Disagreements and how they were settled", "Adjudications"} <= set(titles)
    assert view.section.numbers["agreement"] == result.to_dict() == result.section.numbers["agreement"]
    with pytest.raises(InputError, match="already adjudicated"):
        live.adjudicate_case(audit_id, case.case_id, 0, "again", judge, db=db)


def test_the_trail_lists_every_event_with_a_start_and_the_stop(db):
    audit_id = live.start_live_audit("gpqa:large", "stratified", "LR", db=db, n_init=2, overlap=1.0).audit["audit_id"]
    for _ in range(40):
        for who in ("ann", "bob"):
            for case in live.claim_cases(audit_id, who, db=db).cases:
                live.record_label(audit_id, case.case_id, 0, who, db=db, show_next=False)
        if live.live_audit_status(audit_id, db=db).status.stopped:
            break
    trail = live.audit_trail(audit_id, db=db)
    kinds = trail["kind"].tolist()
    assert kinds[0] == "started" and {"proposed", "labelled", "overlap_labelled", "stopped"} <= set(kinds)
    stop = kinds.index("stopped")
    assert trail["event"].iloc[stop] == trail["event"].iloc[stop - 1]      # right after the label that stopped it
    assert trail.loc[trail["kind"] == "overlap_labelled", "annotator"].isin(["ann", "bob"]).all()
    with pytest.raises(InputError, match="may not"):
        live.audit_trail(audit_id, Identity("al@x.org", "annotator", True, "signed-in"), db=db)
    csv = live.audit_trail_bytes(audit_id, trail, ".csv").decode()
    assert csv.splitlines()[0] == ",".join(AUDIT_TRAIL_COLUMNS)
    assert len(pd.read_csv(io.StringIO(csv))) == len(trail)
    document = json.loads(live.audit_trail_bytes(audit_id, trail, ".json"))
    assert [e["kind"] for e in document["events"]] == kinds and document["events"][0]["score"] is None
    with pytest.raises(InputError, match=r"\.csv or \.json"):
        live.audit_trail_bytes(audit_id, trail, ".xlsx")


def test_a_formula_in_a_reason_is_neutralised_in_the_trail_csv(db):
    audit_id = live.start_live_audit("gpqa:large", "stratified", "LR", db=db, n_init=2, overlap=1.0).audit["audit_id"]
    (case,) = live.claim_cases(audit_id, "ann", db=db).cases
    live.record_label(audit_id, case.case_id, 1, "ann", db=db)
    live.claim_cases(audit_id, "bob", db=db)
    live.record_label(audit_id, case.case_id, 0, "bob", db=db)
    live.adjudicate_case(audit_id, case.case_id, 1, "=HYPERLINK(\"http://x\")", "owner", db=db)
    csv = live.audit_trail_bytes(audit_id, live.audit_trail(audit_id, db=db), ".csv").decode()
    assert "'=HYPERLINK" in csv and ",=HYPERLINK" not in csv


# ------------------------------------------------------------------------- one answer

def test_cli_python_page_view_and_report_give_the_same_agreement(audit, capsys):
    db, audit_id = audit
    assert main(["audit", "agreement", "--audit", str(audit_id), "--db", str(db), "--json"]) == 0
    from_cli = json.loads(capsys.readouterr().out)
    from_api = audit_core.audit_agreement(audit_id, db=db).to_dict()
    view = live.live_audit_view(audit_id, None, db=db)
    assert from_cli == from_api == view.agreement.to_dict()
    assert view.section.numbers["agreement"] == from_api
    assert main(["audit", "agreement", "--audit", str(audit_id), "--db", str(db)]) == 0
    text = capsys.readouterr().out
    alpha = from_api["krippendorff_alpha"]
    assert f"alpha (nominal) {alpha['estimate']:.3f} [{alpha['low']:.3f}, {alpha['high']:.3f}]" in text
    assert f"{from_api['n_cases']} cases, {from_api['n_labels']} labels, 3 labellers" in text


def test_the_command_line_starts_adjudicates_and_writes_the_trail(db, tmp_path, capsys):
    db = str(db)
    assert main(["audit", "new", "--pool", "sdoh", "--seed", "7", "--db", db, "--overlap", "100%",
                 "--label-choice", "adjudicated", "--json"]) == 0
    created = json.loads(capsys.readouterr().out)
    assert created["overlap"] == {"share": 1.0, "labellers": 2, "label_choice": "adjudicated"}
    assert main(["audit", "next", "--audit", "1", "--annotator", "ana", "--db", db, "--json"]) == 0
    case = json.loads(capsys.readouterr().out)["cases"][0]["case_id"]
    assert main(["audit", "label", "--audit", "1", case, "1", "--annotator", "ana", "--db", db]) == 0
    assert "(double-labelled: waits for the other labels or an adjudication)" in capsys.readouterr().out
    assert main(["audit", "next", "--audit", "1", "--annotator", "bo", "--db", db, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["cases"][0]["case_id"] == case
    assert main(["audit", "label", "--audit", "1", case, "0", "--annotator", "bo", "--db", db, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["labelled"]["waits"] is True
    assert main(["audit", "adjudicate", "--audit", "1", case, "1", "--reason", "the note says so",
                 "--annotator", "cy", "--db", db]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"adjudicated {case} = 1 by cy; the e-processes see this label") and "n = 1 of" in out
    trail = tmp_path / "trail.csv"
    assert main(["audit", "trail", "--audit", "1", "--db", db, "--out", str(trail)]) == 0
    assert capsys.readouterr().out == f"wrote 6 events to {trail}\n"
    frame = pd.read_csv(trail)
    assert frame["kind"].tolist() == ["started", "proposed", "labelled", "offered", "overlap_labelled", "adjudicated"]
    assert frame["reason"].iloc[-1] == "the note says so" and frame["annotator"].iloc[-1] == "cy"
    assert main(["audit", "trail", "--audit", "1", "--db", db, "--json"]) == 0
    assert [e["kind"] for e in json.loads(capsys.readouterr().out)["events"]] == frame["kind"].tolist()
    assert main(["audit", "trail", "--audit", "1", "--db", db, "--out", str(tmp_path / "t.txt")]) == 2
    assert ".csv or .json" in capsys.readouterr().err


@pytest.mark.parametrize("args, message", [
    (["--overlap", "150"], "percent of cases from 0 to 100"),
    (["--overlap", "half"], "percent of cases from 0 to 100"),
    (["--overlap", "50", "--labellers", "1"], "labellers: expected a whole number >= 2"),
])
def test_bad_overlap_settings_are_one_message(tmp_path, capsys, args, message):
    code = main(["audit", "new", "--pool", "sdoh", "--db", str(tmp_path / "w.sqlite"), *args])
    err = capsys.readouterr().err
    assert code == 2 and message in err and "Traceback" not in err


def test_python_checks_the_plan_and_the_bootstrap(tmp_path):
    db = tmp_path / "w.sqlite"
    with pytest.raises(InputError, match="overlap"):
        audit_core.audit_new("sdoh", db=db, overlap=2.0)
    with pytest.raises(InputError, match="label choice"):
        audit_core.audit_new("sdoh", db=db, overlap=0.5, label_choice="majority")
    audit_id = audit_core.audit_new("sdoh", db=db, overlap=0.5).audit["audit_id"]
    with pytest.raises(InputError, match="bootstrap: expected a whole number >= 0"):
        audit_core.audit_agreement(audit_id, db=db, bootstrap=-1)
    assert live.live_agreement(audit_id, db=db).statistics.empty
