"""Issue 29 item 5: errored samples and unfinished runs are not the model's answers.

An errored Inspect sample (a provider outage, a limit) is left out of every rate, scored or not, in
replay, measure and pools; the run's status is stated wherever a log is read, and a run that did not
end in success is a warning shown before the rates (text, JSON, page, report). lm-eval samples
without a response are left out the same way. The logs here are the project's fixtures written by
inspect-ai and lm-eval, edited as an errored run would leave them.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from audit_core import analyses, api
from audit_core.cli import replay_cmd
from audit_core.data.csvio import read_csv_frame
from audit_core.data.inspect_log import read_eval_archive
from audit_core.data.sources import load_audit_source, read_pool_table
from audit_core.errors import InputError
from audit_core.measure import measure

ROOT = Path(__file__).resolve().parents[2]
INSPECT = ROOT / "tests" / "fixtures" / "inspect"
TESTBED = ROOT / "tests" / "fixtures" / "testbed"
LMEVAL = ROOT / "tests" / "fixtures" / "lmeval"
OUTAGE = {"message": "RateLimitError: Error code: 429 - provider overloaded", "traceback": "Traceback ..."}


def _as_json_log(header: dict, samples: list[dict]) -> bytes:
    return json.dumps({**header, "samples": samples}).encode()


def _errored_run(path: Path, errored: range, status: str = "error", keep_scores: bool = True) -> tuple[bytes, list]:
    """The log with the samples at positions ``errored`` errored, and the run's status set."""
    header, samples = read_eval_archive(path.read_bytes(), path.name)
    header, samples = copy.deepcopy(header), copy.deepcopy(samples)
    header["status"] = status
    if status == "error":
        header["error"] = OUTAGE
    for i in errored:
        samples[i]["error"] = OUTAGE
        if not keep_scores:
            samples[i]["scores"], samples[i]["output"] = {}, {"completion": ""}
    return _as_json_log(header, samples), samples


def test_errored_samples_are_left_out_of_a_replay_even_when_scored():
    raw, samples = _errored_run(INSPECT / "run.eval", range(0, 3))   # q00-q02 errored, their scores kept
    scored = [s for s in samples if s.get("scores", {}).get("match")]
    data = load_audit_source(raw, name="run.json", score="match")
    assert data.n == len(scored) - 3
    assert not {"q00", "q01", "q02"} & set(data.frame["id"])
    assert any("4 of 24 sample(s) errored" in w and "429" in w for w in data.warnings)   # q07 errored already
    assert any("status 'error'" in w for w in data.warnings)
    view = api.replay(raw, score="match", subgroup=[])
    payload = view.to_dict()
    assert payload["n"] == data.n and len(payload["warnings"]) == 2
    assert "status 'error'" in payload["warnings"][0] and "4 of 24 sample(s) errored" in payload["warnings"][1]
    text = replay_cmd.render_text(payload)
    assert text.count("Warning: ") == 2 and "not the model's answer" in text
    assert [s for s in view.section.summary if s.startswith("Warning: ")] == [f"Warning: {w}" for w in payload["warnings"]]


def test_a_finished_run_states_its_status_and_warns_of_nothing():
    data = load_audit_source((INSPECT / "run.eval").read_bytes(), name="run.eval", score="match")
    assert any("status success" in n for n in data.notes)
    assert len(data.warnings) == 1 and "1 of 24 sample(s) errored" in data.warnings[0]   # q07, no status warning


@pytest.mark.parametrize("status, words", [("cancelled", "was cancelled"), ("started", "had not finished")])
def test_unfinished_runs_are_warned_of(status, words):
    raw, _ = _errored_run(INSPECT / "run.eval", range(0), status=status)
    data = load_audit_source(raw, name="run.json", score="match")
    assert any(words in w and f"status {status!r}" in w for w in data.warnings)


def test_measure_leaves_errored_samples_out_of_every_rate():
    """27 of the 864 samples errored (no answer): the rates are of the other 837, not 27 INVALIDs."""
    # spread over the log, as an outage's retries run out here and there (a cluster keeps its base world)
    raw, _ = _errored_run(TESTBED / "inspect_ideal.eval", range(0, 864, 32), keep_scores=False)
    log = analyses.response_log_source(raw).value
    result = measure(log, bootstrap=0)
    validity = next(e for e in result.pooled.estimates if e.name == "validity")
    assert (validity.successes, validity.n) == (864 - 27, 864 - 27)   # the ideal policy: every answer valid
    notes = " | ".join(result.notes)
    assert "27 sample(s) errored or hold no response" in notes and "429" in notes and "INVALID" not in notes
    assert "status 'error'" in notes and "status error" in notes


def test_a_log_whose_every_sample_errored_is_refused():
    """The issue's run: status error, 27 samples written, each an infrastructure error."""
    header, samples = read_eval_archive((TESTBED / "inspect_ideal.eval").read_bytes(), "x")
    samples = copy.deepcopy(samples[:27])
    for s in samples:
        s.update(error=OUTAGE, scores={}, output={"completion": ""})
    raw = _as_json_log({**header, "status": "error", "error": OUTAGE}, samples)
    with pytest.raises(InputError, match="every sample of the Inspect log errored"):
        analyses.response_log_source(raw)


def test_a_pool_leaves_out_errored_samples_with_an_output_and_states_the_status():
    raw, samples = _errored_run(INSPECT / "run.eval", range(0, 2))   # errored, yet with an output
    table = read_pool_table(raw, "run.json")
    ids = set(read_csv_frame(table.content, name="pool")["id"])
    assert not {"q00", "q01", "q07"} & ids and len(ids) == 24 - 3
    notes = " | ".join(table.notes)
    assert "status error" in notes and "3 of 24 sample(s) errored" in notes


def test_lmeval_samples_without_a_response_are_left_out():
    path = next((LMEVAL / "gen").glob("samples_*.jsonl"))
    lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    full = load_audit_source(path.read_bytes(), name=path.name, filter="strict-match")
    for line in lines[:2]:
        line["resps"], line["filtered_resps"] = [[]], []
    edited = "\n".join(json.dumps(line) for line in lines).encode()
    data = load_audit_source(edited, name=path.name, filter="strict-match")
    blanked = sum(line.get("filter") == "strict-match" for line in lines[:2])
    assert blanked >= 1 and data.n == full.n - blanked
    assert any(f"{blanked} of {full.n}" in w and "no response" in w for w in data.warnings)
