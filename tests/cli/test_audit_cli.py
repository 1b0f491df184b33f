"""``python -m audit_core audit``: new / next / label / undo / status / list / export, JSON and exit codes."""

import json
import subprocess
import sys

from audit_core.cli import main
from audit_core.live import LiveAudit, connect


def _json(capsys, argv):
    code = main(argv + ["--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return json.loads(captured.out)


def _fails(capsys, argv, match):
    code = main(argv)
    captured = capsys.readouterr()
    assert code == 2 and match in captured.err and "Traceback" not in captured.err
    assert len(captured.err.strip().splitlines()) == 1
    return captured.err


def test_a_full_audit_through_the_command_line(tmp_path, capsys):
    db = ["--db", str(tmp_path / "w.sqlite")]
    created = _json(capsys, ["audit", "new", "--pool", "sdoh", "--seed", "7", "--truth-column", "correct"] + db)
    audit_id = str(created["audit_id"])
    assert created["params"]["q"] == 0.83 and created["strategy"] == "adaptive"
    truth = LiveAudit(connect(tmp_path / "w.sqlite"), int(audit_id))
    payload = _json(capsys, ["audit", "next", "--audit", audit_id, "--annotator", "ann"] + db)
    steps = 0
    while payload.get("cases") or payload.get("next"):
        case = (payload.get("cases") or payload["next"])[0]
        if not payload.get("cases") and not payload.get("next_claimed"):
            _json(capsys, ["audit", "next", "--audit", audit_id, "--annotator", "ann"] + db)
        payload = _json(capsys, ["audit", "label", "--audit", audit_id, case["case_id"],
                                 f"{truth.truth(case['case_id']):g}", "--annotator", "ann"] + db)
        steps += 1
        assert payload["status"]["n"] == steps and payload["labelled"]["step"] == steps
    status = _json(capsys, ["audit", "status", "--audit", audit_id] + db)
    assert status["decision"] == "failure mode found" and status["stop"] == 53 == steps   # the recorded run
    listed = _json(capsys, ["audit", "list"] + db)
    assert listed["audits"][0]["labels"] == 53
    out = tmp_path / "run.csv"
    exported = _json(capsys, ["audit", "export", "--audit", audit_id, "--out", str(out)] + db)
    lines = out.read_text(encoding="utf-8").splitlines()   # the recorded run, plus who labelled
    assert exported["n"] == 53 and {line.rsplit(",", 2)[1:] == ["ann", "false"] for line in lines[1:]} == {True}
    assert "".join(line.rsplit(",", 2)[0] + "\n" for line in lines).encode() == open("data/recorded_run.csv", "rb").read()
    replayed = _json(capsys, ["replay", str(out), "--style", "sdoh"])
    assert replayed["decision"]["decision"] == status["decision"] and replayed["decision"]["stop"] == 53


def test_errors_exit_2_with_one_line(tmp_path, capsys):
    db = ["--db", str(tmp_path / "w.sqlite")]
    audit_id = str(_json(capsys, ["audit", "new", "--pool", "gpqa:large", "--seed", "1"] + db)["audit_id"])
    (case,) = _json(capsys, ["audit", "next", "--audit", audit_id] + db)["cases"]
    _fails(capsys, ["audit", "label", "--audit", audit_id, "Q999", "1"] + db, "not in the pool")
    _fails(capsys, ["audit", "label", "--audit", audit_id, case["case_id"], "2"] + db, "score")
    _fails(capsys, ["audit", "label", "--audit", audit_id, case["case_id"], "maybe"] + db, "score")
    _fails(capsys, ["audit", "undo", "--audit", audit_id] + db, "nothing to undo")
    labelled = _json(capsys, ["audit", "label", "--audit", audit_id, case["case_id"], "1"] + db)
    assert labelled["next"] and not labelled["next_claimed"]         # shown, not claimed: undo still works
    _fails(capsys, ["audit", "label", "--audit", audit_id, case["case_id"], "0"] + db, "already labelled")
    undone = _json(capsys, ["audit", "undo", "--audit", audit_id] + db)
    assert undone["undone"]["case_id"] == case["case_id"] and undone["status"]["pending"] == [case["case_id"]]
    _fails(capsys, ["audit", "next", "--audit", "9"] + db, "no such audit")
    _fails(capsys, ["audit", "next", "--audit", audit_id, "--batch", "0"] + db, "--batch")
    _fails(capsys, ["audit", "new", "--pool", "gpqa:large", "--strategy", "oracle"] + db, "--truth-column")
    _fails(capsys, ["audit", "new", "--pool", "nowhere.csv"] + db, "not a bundled pool")
    _fails(capsys, ["audit", "export", "--audit", audit_id, "--out", str(tmp_path / "x.csv")] + db, "no labels")
    _fails(capsys, ["audit"], "ACTION")


def test_batches_text_output_and_audit_home(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("AUDIT_HOME", str(tmp_path / "home"))
    assert main(["audit", "new", "--pool", "gpqa:small", "--strategy", "stratified", "--process", "LR",
                 "--budget", "30"]) == 0
    assert "audit_id 1: stratified / LR on gpqa:small" in capsys.readouterr().out
    assert (tmp_path / "home" / "audits.sqlite").is_file()
    assert main(["audit", "next", "--audit", "1", "--batch", "3", "--annotator", "kim"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("proposed to kim:") and text.count("(stratum)") == 3
    batch = _json(capsys, ["audit", "next", "--audit", "1", "--batch", "3", "--annotator", "kim"])["cases"]
    assert len({c["case_id"] for c in batch}) == 3                     # the same three, still pending
    assert f"sample ids: {','.join(c['case_id'] for c in batch)}" in text     # for inspect eval --sample-id
    other = _json(capsys, ["audit", "next", "--audit", "1", "--annotator", "lee"])["cases"]
    assert other[0]["case_id"] not in {c["case_id"] for c in batch}
    assert main(["audit", "status", "--audit", "1"]) == 0
    assert "pending:" in capsys.readouterr().out


def test_module_entry_point(tmp_path):
    db = str(tmp_path / "w.sqlite")
    done = subprocess.run([sys.executable, "-m", "audit_core", "audit", "new", "--pool", "gpqa:none", "--db", db,
                           "--json"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    audit_id = json.loads(done.stdout)["audit_id"]
    bad = subprocess.run([sys.executable, "-m", "audit_core", "audit", "label", "--audit", str(audit_id), "Q001",
                          "1", "--db", db], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and bad.stderr.startswith("error: case id 'Q001': not proposed")


def test_skip_with_a_reason_then_undo_it(tmp_path, capsys):
    db = ["--db", str(tmp_path / "w.sqlite")]
    audit_id = str(_json(capsys, ["audit", "new", "--pool", "gpqa:large", "--seed", "2"] + db)["audit_id"])
    (case,) = _json(capsys, ["audit", "next", "--audit", audit_id] + db)["cases"]
    _fails(capsys, ["audit", "skip", "--audit", audit_id, case["case_id"], "--reason", " "] + db, "say why")
    skipped = _json(capsys, ["audit", "skip", "--audit", audit_id, case["case_id"], "--reason", "broken item"] + db)
    assert skipped["skipped"]["reason"] == "broken item" and skipped["status"]["n_skipped"] == 1
    assert skipped["status"]["n"] == 0 and skipped["next"] and not skipped["next_claimed"]
    assert main(["audit", "list"] + db) == 0 and "1 skipped" in capsys.readouterr().out
    undone = _json(capsys, ["audit", "undo", "--audit", audit_id] + db)
    assert undone["undone"]["case_id"] == case["case_id"] and undone["status"]["pending"] == [case["case_id"]]
    _fails(capsys, ["audit", "undo", "--audit", audit_id] + db, "nothing to undo")


def test_an_inspect_log_is_a_pool_of_model_outputs_to_label(tmp_path, capsys):
    # run.eval was written by inspect-ai's mockllm (tests/fixtures/make_inspect_logs.py); its scorer
    # `match` plays the human here, so the export replays to the same decision.
    db = ["--db", str(tmp_path / "w.sqlite")]
    created = _json(capsys, ["audit", "new", "--pool", "tests/fixtures/inspect/run.eval", "--strategy", "stratified",
                             "--truth-column", "scorer.match", "--m", "5"] + db)
    audit_id = str(created["audit_id"])
    assert created["roles"]["subgroups"] == ["subject", "level"] and created["roles"]["text"] == "input"
    truth = LiveAudit(connect(tmp_path / "w.sqlite"), int(audit_id))
    assert truth.pool.n == 23                                # 24 samples, one errored without an output
    (case,) = _json(capsys, ["audit", "next", "--audit", audit_id, "--annotator", "ann"] + db)["cases"]
    assert case["text"].startswith("Question ")
    labelled = 0
    while case is not None:
        payload = _json(capsys, ["audit", "label", "--audit", audit_id, case["case_id"],
                                 f"{truth.truth(case['case_id']):g}", "--annotator", "ann"] + db)
        labelled += 1
        claimed = _json(capsys, ["audit", "next", "--audit", audit_id, "--annotator", "ann"] + db)["cases"]
        case = claimed[0] if claimed else None
    out = tmp_path / "labels.csv"
    _json(capsys, ["audit", "export", "--audit", audit_id, "--out", str(out)] + db)
    header = out.read_text().splitlines()[0].split(",")
    assert header[:5] == ["order", "id", "input", "target", "output"] and "correct" in header
    replayed = _json(capsys, ["replay", str(out), "--score", "correct", "--m", "5"])
    assert replayed["decision"]["decision"] == payload["status"]["decision"]
    assert replayed["n"] == labelled == payload["status"]["n"]


def test_the_cli_records_the_os_user_or_a_declared_name_never_verified(tmp_path, capsys, monkeypatch):
    """Issue 23: without --annotator (and $AUDIT_ANNOTATOR) events name the operating-system user,
    marked os-user; --annotator is marked self-declared; neither is verified."""
    import getpass

    from audit_core.live import store

    monkeypatch.delenv("AUDIT_ANNOTATOR", raising=False)
    db = ["--db", str(tmp_path / "w.sqlite")]
    _json(capsys, ["audit", "new", "--pool", "gpqa:small", "--strategy", "stratified", "--process", "LR"] + db)
    (case,) = _json(capsys, ["audit", "next", "--audit", "1"] + db)["cases"]
    labelled = _json(capsys, ["audit", "label", "--audit", "1", case["case_id"], "1"] + db)["labelled"]
    assert (labelled["annotator"], labelled["verified"]) == (getpass.getuser(), False)
    (case,) = _json(capsys, ["audit", "next", "--audit", "1", "--annotator", "kim"] + db)["cases"]
    _json(capsys, ["audit", "skip", "--audit", "1", case["case_id"], "--reason", "unreadable", "--annotator", "kim"] + db)
    events = store.read_events(connect(tmp_path / "w.sqlite"), 1)
    assert [(e.kind, e.annotator, e.source, e.verified) for e in events] == [
        ("proposed", getpass.getuser(), "os-user", False), ("labelled", getpass.getuser(), "os-user", False),
        ("proposed", "kim", "declared", False), ("skipped", "kim", "declared", False)]
