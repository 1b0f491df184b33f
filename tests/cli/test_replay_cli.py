"""``python -m audit_core replay``: JSON contract of docs/cli.md, text summary, exit codes."""

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from audit_core.cli import main
from audit_core.sequential import PROCESS_NAMES, AuditParams, first_crossing, log_evalues


@pytest.fixture
def run_csv(tmp_path):
    rng = np.random.default_rng(4)
    n = 120
    domain = rng.choice(["Chemistry", "Biology", "Physics"], n)
    correct = (rng.random(n) < np.where(domain == "Chemistry", 0.5, 0.95)).astype(int)
    order = rng.permutation(n) + 1
    frame = pd.DataFrame({"case_id": [f"c{i}" for i in range(n)], "domain": domain, "correct": correct, "order": order})
    path = tmp_path / "run.csv"
    frame.to_csv(path, index=False)
    return path, frame


def _json(capsys, argv):
    code = main(argv)
    out = capsys.readouterr().out
    assert code == 0
    return json.loads(out)


def test_json_contract_and_order(capsys, run_csv):
    path, frame = run_csv
    payload = _json(capsys, ["replay", str(path), "--score", "correct", "--order", "order", "--subgroup", "domain", "--json"])
    assert payload["n"] == len(frame)
    assert set(payload["processes"]) == set(PROCESS_NAMES)
    params = AuditParams.gpqa()
    ordered = frame.sort_values("order")["correct"].to_numpy(dtype=float)
    expected = log_evalues(ordered, params)
    for name in PROCESS_NAMES:
        process = payload["processes"][name]
        assert np.allclose(process["log_e"], expected[name], atol=1e-12)
        assert process["stop"] == first_crossing(expected[name], params.log_threshold)
    decision = payload["decision"]
    assert decision["decision"] in ("failure mode found", "audit passed", "inconclusive")
    assert decision["model_process"] == "SR-LR-UI" and decision["auditor_process"] == "AUD-LR-UI"
    assert {row["domain"] for row in payload["subgroups"]} == {"Chemistry", "Biology", "Physics"}
    assert sum(row["n"] for row in payload["subgroups"]) == len(frame)
    # --file-order replays the rows as listed: different trajectories.
    listed = _json(capsys, ["replay", str(path), "--score", "correct", "--file-order", "--json"])
    assert listed["columns"]["order"] is None
    assert np.allclose(listed["processes"]["LR"]["log_e"], log_evalues(frame["correct"].to_numpy(float), params)["LR"])


def test_parameter_overrides(capsys, run_csv):
    path, _ = run_csv
    payload = _json(capsys, ["replay", str(path), "--score", "correct", "--style", "sdoh", "--q", "0.9", "--alpha", "0.1",
                             "--m", "10", "--delta", "0.05", "--delta-aud", "0.04", "--eta", "0.3", "--weights", "harmonic",
                             "--grid-mod", "0.6,0.8", "--grid-aud", "0.95", "--model-process", "LR",
                             "--auditor-process", "AUD-LR", "--json"])
    params = payload["params"]
    assert (params["q"], params["alpha"], params["m"], params["eta"], params["weights"]) == (0.9, 0.1, 10, 0.3, "harmonic")
    assert params["grid_mod"] == [0.6, 0.8] and params["grid_aud"] == [0.95] and params["budget"] == 400
    assert payload["decision"]["model_process"] == "LR"
    assert payload["decision"]["log_threshold"] == pytest.approx(np.log(10))


def test_text_summary(capsys, run_csv):
    path, _ = run_csv
    assert main(["replay", str(path), "--subgroup", "domain"]) == 0
    out = capsys.readouterr().out
    assert "Decision (SR-LR-UI vs AUD-LR-UI):" in out
    for name in PROCESS_NAMES:
        assert f"\n{name} " in out
    assert "Subgroups by domain" in out and "Chemistry" in out
    assert "score column auto-detected: 'correct'" in out


@pytest.mark.parametrize("argv_tail,content,pattern", [
    (["--score", "nope"], None, "score column 'nope' not found"),
    (["--q", "1.5"], None, "parameter q"),
    (["--q", "0.95"], None, "give --delta and --delta-aud"),
    (["--q", "0.99", "--delta-aud", "0.005"], None, "leave no point on one side of it; choose q further from "
                                                    "0 and 1; with --q 0.99 give --grid-mod and --grid-aud"),
    (["--order", "order", "--file-order"], None, "not both"),
    ([], "id,correct\n1,1\n2,7\n", "'correct', data row 2: score 7 is outside"),
    ([], "id,correct,order\n1,1,1\n2,0,1\n", "the same value at data rows 1, 2"),
    (["--weights", "cubic"], None, "invalid choice"),
])
def test_bad_input_exit_2_one_line(capsys, run_csv, tmp_path, argv_tail, content, pattern):
    path, _ = run_csv
    if content is not None:
        path = tmp_path / "bad.csv"
        path.write_text(content)
    assert main(["replay", str(path)] + argv_tail) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and pattern in err, err


def test_module_entry_point(run_csv):
    path, _ = run_csv
    done = subprocess.run([sys.executable, "-m", "audit_core", "replay", str(path), "--json"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["n"] == 120


# ---------------------------------------------------------------------------------------------
# Inspect AI logs and lm-eval outputs (fixtures written by the tools themselves: tests/fixtures/)

FIXTURES = __import__("pathlib").Path(__file__).resolve().parents[1] / "fixtures"


def _subgroup_means(payload, column):
    return {row[column]: (row["n"], row["accuracy"]) for row in payload["subgroups"]}


@pytest.mark.parametrize("log_name", ["run.eval", "run.json"])
def test_replay_inspect_log(capsys, log_name):
    expected = json.loads((FIXTURES / "inspect" / "expected.json").read_text())[log_name]
    payload = _json(capsys, ["replay", str(FIXTURES / "inspect" / log_name), "--score", "match",
                             "--subgroup", "subject", "--json"])
    assert payload["n"] == len(expected["rows"]) and payload["subgroup_columns"] == ["subject"]
    meaning = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}
    for subject, (n, accuracy) in _subgroup_means(payload, "subject").items():
        values = [meaning[r["match"]] for r in expected["rows"] if r["subject"] == subject]
        assert n == len(values) and accuracy == pytest.approx(sum(values) / len(values))
    for row in [payload["overall"], *payload["subgroups"]]:
        assert 0.0 <= row["cs_low"] <= row["accuracy"] <= row["cs_high"] <= 1.0
    assert payload["columns"]["order"] == "annotation_time"
    # the fixture's unscored sample errored: left out, as a warning (issue 29 item 5)
    assert any(f"1 of {len(expected['rows']) + 1} sample(s) errored" in warning for warning in payload["warnings"])


def test_replay_lmeval_folder_and_files(capsys):
    expected = json.loads((FIXTURES / "lmeval" / "expected.json").read_text())["suite"]["tasks"]
    folder = _json(capsys, ["replay", str(FIXTURES / "lmeval" / "suite"), "--score", "acc",
                            "--subgroup", "subject", "--json"])
    assert folder["subgroup_columns"] == ["task", "subject"]
    assert folder["n"] == sum(t["n_samples"] for t in expected.values())
    for row in folder["subgroups"]:
        info = expected[row["task"]]["filters"]["none"]["per_subject"][row["subject"]]
        assert row["n"] == info["n"] and row["accuracy"] == pytest.approx(info["acc"])
    files = sorted(str(p) for p in (FIXTURES / "lmeval" / "suite").glob("samples_*.jsonl"))
    listed = _json(capsys, ["replay", *files, "--score", "acc", "--subgroup", "subject", "--json"])
    assert listed["subgroups"] == folder["subgroups"] and listed["n"] == folder["n"]
    gen = _json(capsys, ["replay", str(FIXTURES / "lmeval" / "gen"), "--filter", "strict-match", "--json"])
    assert gen["overall"]["accuracy"] == pytest.approx(
        json.loads((FIXTURES / "lmeval" / "expected.json").read_text())["gen"]["tasks"]["mini_gen"]["filters"]
        ["strict-match"]["results"]["exact_match"])


@pytest.mark.parametrize("argv,message", [
    (["lmeval/suite"], "several per-sample metrics could serve as the score (acc, acc_norm); choose one with --score"),
    (["lmeval/gen"], "choose one with --filter"),
    (["inspect/run.eval"], "2 scorers (match, graded); choose one with --score"),
    (["inspect/expected.json"], "neither an Inspect AI log"),
])
def test_replay_bad_log_is_one_line_exit_2(argv, message):
    done = subprocess.run([sys.executable, "-m", "audit_core", "replay", str(FIXTURES / argv[0]), *argv[1:]],
                          capture_output=True, text=True)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and message in done.stderr


def test_q_near_one_is_refused_not_passed(capsys, tmp_path):
    """Issue 8 defect 2: q > 1 - 1e-6 left the auditor an empty interval [q, 1 - 1e-6]; it bet below q
    and 'passed' a run whose accuracy is about 0.5. Now the parameters are refused (exit 2)."""
    rng = np.random.default_rng(0)
    path = tmp_path / "half.csv"
    pd.DataFrame({"case_id": [f"c{i}" for i in range(200)],
                  "correct": (rng.random(200) < 0.5).astype(int)}).to_csv(path, index=False)
    argv = ["replay", str(path), "--q", "0.9999999", "--delta", "1e-8", "--delta-aud", "5e-8", "--m", "5",
            "--grid-mod", "0.5,0.9", "--grid-aud", "0.99999995", "--model-process", "LR", "--auditor-process", "AUD-LR"]
    for tail in ([], ["--json"]):
        assert main(argv + tail) == 2
        captured = capsys.readouterr()
        assert captured.out == "" and "audit passed" not in captured.err
        assert len(captured.err.strip().splitlines()) == 1 and "parameter q" in captured.err
    # The same run at a q the engine accepts: the auditor never passes a 0.5-accuracy run.
    assert main(argv[:3] + ["0.99999", "--delta", "1e-8", "--delta-aud", "5e-6", "--m", "5", "--grid-mod", "0.5,0.9",
                            "--grid-aud", "0.999992", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert all(payload["processes"][name]["decision"] != "audit passed" for name in ("AUD-LR", "AUD-LR-UI"))
