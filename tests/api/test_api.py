"""The Python API (``audit_core.<call>``): the same documents as the command line's ``--json``,
the same messages, rich displays, pandas and Altair access, and docstrings with examples."""

from __future__ import annotations

import doctest
import json
import math
import re

import numpy as np
import pandas as pd
import pytest

import audit_core
from audit_core import api
from audit_core.analyses.display import column_id
from audit_core.cli import main
from audit_core.errors import InputError

INSPECT_LOG = "tests/fixtures/inspect/run.eval"


def cli_json(capsys, *argv) -> dict:
    capsys.readouterr()
    status = main([*argv, "--json"])
    out = capsys.readouterr().out
    assert status in (0, 1), out
    return json.loads(out)


WALL_CLOCK = ("seconds",)  # how long a call took: the only field two equal computations may differ in


def same(a, b) -> bool:
    """Equal as JSON documents, wall-clock time apart (floats compared exactly: one computation)."""
    a, b = ({k: v for k, v in d.items() if k not in WALL_CLOCK} for d in (a, b))
    return json.dumps(a, sort_keys=True, default=str) == json.dumps(b, sort_keys=True, default=str)


def _runs(tmp_path, accuracies=(0.55, 0.6, 0.9), n=150, seed=11):
    rng = np.random.default_rng(seed)
    paths = []
    for k, accuracy in enumerate(accuracies):
        frame = pd.DataFrame({"case_id": [f"c{i}" for i in range(n)],
                              "domain": rng.choice(["Chemistry", "Physics"], n),
                              "correct": (rng.random(n) < accuracy).astype(int)})
        path = tmp_path / f"model_{k}.csv"
        frame.to_csv(path, index=False)
        paths.append(path)
    return paths


# ----------------------------------------------------------------------------- same as --json

def test_identify_lattice_synthesize_equal_the_cli(capsys):
    assert same(audit_core.identify_support("target,sham", suggest=False).to_dict(),
                cli_json(capsys, "identify", "--components", "target,sham"))
    assert same(audit_core.support_lattice().to_dict(), cli_json(capsys, "lattice"))
    assert same(audit_core.synthesize(cost={"generated": 1, "scoring": 3}).to_dict(),
                cli_json(capsys, "synthesize", "--cost", "generated=1,scoring=3"))


def test_replay_equals_the_cli_for_a_csv_a_bundled_run_and_an_inspect_log(capsys):
    assert same(audit_core.replay("recorded_run").to_dict(), cli_json(capsys, "replay", "recorded_run"))
    assert same(audit_core.replay("data/recorded_run.csv", style="sdoh", name="data/recorded_run.csv").to_dict(),
                cli_json(capsys, "replay", "data/recorded_run.csv", "--style", "sdoh"))
    assert same(audit_core.replay(INSPECT_LOG, score="match", subgroup="subject", name=INSPECT_LOG).to_dict(),
                cli_json(capsys, "replay", INSPECT_LOG, "--score", "match", "--subgroup", "subject"))


def test_measure_plan_compare_combine_testbed_equal_the_cli(capsys, tmp_path):
    assert same(audit_core.measure_log("data/example_response_log.csv", bootstrap=200, seed=3).to_dict(),
                cli_json(capsys, "measure", "data/example_response_log.csv", "--bootstrap", "200", "--seed", "3"))
    planned = audit_core.plan(subgroups=[60, 80], failing_accuracy=0.5, replicates=20, seed=4, jobs=1)
    cli = cli_json(capsys, "plan", "--subgroups", "60,80", "--failing-accuracy", "0.5", "--replicates", "20",
                   "--seed", "4", "--jobs", "1")
    assert same(planned.to_dict(), cli)
    a, b, c = _runs(tmp_path)
    assert same(audit_core.compare(a, b).to_dict(), cli_json(capsys, "compare", str(a), str(b)))
    assert same(audit_core.combine([a, b, c]).to_dict(), cli_json(capsys, "combine", str(a), str(b), str(c)))
    items = tmp_path / "items.jsonl"
    generated = audit_core.generate_testbed(3, seed=5, out=items)
    cli = cli_json(capsys, "testbed", "generate", "--clusters", "3", "--seed", "5", "--out", str(tmp_path / "x.jsonl"))
    assert same({**generated.to_dict(), "out": str(tmp_path / "x.jsonl"), "inspect": None, "inspect_task": None,
                 "lmeval_task": None, "task_files": []}, cli)
    assert items.read_text() == (tmp_path / "x.jsonl").read_text()
    assert same(audit_core.check_testbed(str(items)).to_dict(), cli_json(capsys, "testbed", "check", str(items)))


def test_simulate_equals_the_cli_apart_from_wall_clock_time(capsys):
    simulated = audit_core.simulate("gpqa:small", strategy="adaptive", process="SR-LR", replicates=3, seed=2, jobs=1)
    cli = cli_json(capsys, "simulate", "--pool", "gpqa:small", "--strategy", "adaptive", "--process", "SR-LR",
                   "--replicates", "3", "--seed", "2", "--jobs", "1")
    doc = simulated.to_dict()
    assert doc.pop("timing")["seconds"] >= 0 and cli.pop("timing")
    assert same(doc, cli)


def test_live_audit_calls_record_what_the_cli_reads(tmp_path, capsys):
    db = tmp_path / "audits.sqlite"
    started = audit_core.audit_new("sdoh", seed=7, db=db)
    audit = started.audit["audit_id"]
    case = audit_core.audit_next(audit, annotator="ana", db=db).cases[0].case_id
    labelled = audit_core.audit_label(audit, case, 1, annotator="ana", db=db)
    assert labelled.status.n == 1 and labelled.record.annotator == "ana"
    status = cli_json(capsys, "audit", "status", "--audit", str(audit), "--db", str(db))
    assert status["n"] == 1 and same(status, {**audit_core.audit_status(audit, db=db).status.to_dict(),
                                              "audit": labelled.audit})
    assert list(audit_core.audit_list(db=db)["audit_id"]) == [audit]
    out = tmp_path / "run.csv"
    audit_core.audit_export(audit, out, db=db)
    assert len(pd.read_csv(out)) == 1
    assert "Audit 1" in labelled._repr_html_()


# ----------------------------------------------------------------------------- inputs and errors

def test_a_data_frame_gives_the_result_of_its_csv(tmp_path):
    (path,) = _runs(tmp_path, accuracies=(0.7,))
    frame = pd.read_csv(path)
    from_frame = audit_core.replay(frame, score="correct", subgroup="domain", name=path.name)
    from_file = audit_core.replay(path, score="correct", subgroup="domain", name=path.name)
    assert same(from_frame.result.to_dict(), from_file.result.to_dict())
    assert audit_core.replay(frame).source.name == api.DATA_FRAME_NAME


@pytest.mark.parametrize("argv, call", [
    (["replay", "no/such/file.csv"], lambda: audit_core.replay("no/such/file.csv", name="no/such/file.csv")),
    (["identify", "--components", "target,nonsense"], lambda: audit_core.identify_support("target,nonsense")),
    (["plan", "--subgroups", "50,60", "--replicates", "0"], lambda: audit_core.plan(subgroups=[50, 60], replicates=0)),
    (["synthesize", "--time-limit", "0"], lambda: audit_core.synthesize(time_limit=0)),
])
def test_errors_carry_the_cli_message(argv, call, capsys):
    capsys.readouterr()
    assert main(argv) == 2
    cli_message = capsys.readouterr().err.strip().removeprefix("error: ")
    with pytest.raises(InputError) as caught:
        call()
    # The command line names its flags where the API names its arguments; the rest is the same.
    assert re.sub(r"--([a-z-]+)", lambda m: m.group(1).replace("-", "_"), cli_message) == str(caught.value)


# ----------------------------------------------------------------------------- displays

def test_rich_display_puts_the_verdict_first_then_the_table_and_an_offline_chart():
    replayed = audit_core.replay("recorded_run")
    html = replayed._repr_html_()
    verdict_at = html.index("Dual test: failure mode found at case 53")
    assert verdict_at < html.index("<table>") < html.index("<svg")
    assert "<script" not in html and "http" not in html.split("<svg", 1)[0]
    text = repr(replayed)
    assert text.startswith("RunReplay(recorded_run.csv, bad: 'Dual test: failure mode found at case 53")
    assert "\n" not in text and len(text) < len(replayed.verdict.text) + 60  # one line: type, data, verdict


def test_display_escapes_hostile_names(tmp_path):
    frame = pd.DataFrame({"case_id": range(40), "group": ["<img src=x onerror=alert(1)>"] * 20 + ["b"] * 20,
                          "correct": [1, 0] * 20})
    html = audit_core.replay(frame, subgroup="group", name="<script>alert(1)</script>.csv")._repr_html_()
    assert "<script>alert" not in html and "<img src=x" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;.csv" in html


def test_tables_frames_and_charts():
    planned = audit_core.plan(subgroups=[60, 80], failing_accuracy=0.5, replicates=10, jobs=1)
    frame = planned.to_frame()
    assert list(frame.columns) == [column_id(c) for c in planned.budget_table.columns]
    frame.iloc[0, 0] = "changed"
    assert planned.budget_table.iloc[0, 0] != "changed"  # a copy
    assert set(planned.tables) == {"budget_table", "labels_table"}
    chart = planned.chart()
    spec = chart.to_dict()
    assert spec["$schema"].startswith("https://vega.github.io/schema/vega-lite/")
    with pytest.raises(InputError, match="decisions_chart"):
        planned.chart("nonsense")
    lattice = audit_core.support_lattice()
    assert len(lattice.to_frame()) == 16 and lattice.chart() is not None
    assert "Hasse" not in repr(lattice) and "<svg" in lattice._repr_html_()


def test_every_result_shows_a_verdict_and_a_short_repr(tmp_path):
    (a, b) = _runs(tmp_path, accuracies=(0.7, 0.8))
    results = [audit_core.identify_support("target"), audit_core.support_lattice(),
               audit_core.measure_log("example", bootstrap=0), audit_core.compare(a, b),
               audit_core.combine([a, b]), audit_core.generate_testbed(1),
               audit_core.simulate("gpqa:small", strategy="adaptive", process="LR", replicates=2, jobs=1)]
    for result in results:
        html = result._repr_html_()
        assert result.verdict.text.split(" ")[0] in html, type(result).__name__
        assert "\n" not in repr(result) and type(result).__name__ in repr(result)
        assert isinstance(result.to_frame(), pd.DataFrame)
        json.dumps(result.to_dict(), allow_nan=False)


def test_write_report_from_results(tmp_path, capsys):
    out = tmp_path / "r.html"
    written = audit_core.write_report(out, audit_core.replay("recorded_run"), audit_core.identify_support("target"),
                                      title="Weekly audit")
    assert written.format == "html" and written.bytes == out.stat().st_size > 1000
    assert written.sections[0].startswith("Replay") and "Weekly audit" in out.read_text()
    with pytest.raises(InputError, match="unknown suffix"):
        audit_core.write_report(tmp_path / "r.txt", audit_core.support_lattice())
    capsys.readouterr()
    assert main(["report", "--out", str(tmp_path / "r.txt")]) == 2
    assert capsys.readouterr().err.startswith("error: --out: ")


# ----------------------------------------------------------------------------- documentation

def test_every_public_call_documents_arguments_returns_and_an_example():
    for name in audit_core.API_NAMES:
        doc = getattr(audit_core, name).__doc__ or ""
        assert len(doc) > 60, name
        if not name.startswith("audit_"):
            assert "Return" in doc or "return" in doc, name
    for name in audit_core.API_NAMES:  # every public call's help() has an example (doctested below)
        assert ">>> " in getattr(audit_core, name).__doc__, name


def test_docstring_examples_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # write_report's example writes report.html
    result = doctest.testmod(api, optionflags=doctest.ELLIPSIS, verbose=False)
    assert result.attempted >= 60 and result.failed == 0


def test_numbers_in_displays_are_the_engines():
    replayed = audit_core.replay("recorded_run")
    row = replayed.subgroup_table.iloc[0]
    html = replayed._repr_html_()
    assert f"{float(row['accuracy']):.4g}" in html or math.isnan(float(row["accuracy"]))
