"""``python -m audit_core report``: writes the dashboard's report from the command line."""

import json
import re

from audit_core.cli import main
from audit_core.identify import frozen_policy_class, identify


def test_html_report_with_every_section(tmp_path, capsys):
    out = tmp_path / "report.html"
    status = main(["report", "--out", str(out), "--synthesize", "--cost", "generated=1,scoring=3",
                   "--replay", "recorded_run", "--simulate", "gpqa:large", "--replicates", "2",
                   "--budget", "60", "--json"])
    assert status == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["format"] == "html" and len(printed["sections"]) == 4
    html = out.read_text(encoding="utf-8")
    assert html.count("<svg") >= 7 and 'class="vega-lite-spec"' in html
    assert not re.search(r"<script[^>]*\bsrc\s*=", html, re.I)


def test_json_report_carries_the_engine_numbers(tmp_path):
    out = tmp_path / "report.json"
    assert main(["report", "--out", str(out), "--components", "target", "--synthesize"]) == 0
    doc = json.loads(out.read_text())
    engine = identify(frozen_policy_class(), components=["target"])
    numbers = doc["sections"][0]["numbers"]["identification"]
    assert numbers["n_collisions"] == engine.n_collisions == 3
    assert numbers["n_classes"] == engine.n_classes == 2
    synthesis = doc["sections"][1]["numbers"]
    assert synthesis["n_optimal"] == 26 and synthesis["size"] == 2
    assert doc["versions"]["python"] and doc["created_utc"]


def test_bad_input_exits_2_with_one_line(tmp_path, capsys):
    assert main(["report", "--out", str(tmp_path / "r.txt")]) == 2
    assert main(["report", "--out", str(tmp_path / "r.html"), "--replay", str(tmp_path / "missing.csv")]) == 2
    lines = [line for line in capsys.readouterr().err.splitlines() if line]
    assert len(lines) == 2 and all(line.startswith("error: ") for line in lines)
    assert "missing.csv" in lines[1]


def test_measure_section_from_the_example_log_and_from_a_file(tmp_path, capsys):
    from audit_core.measure import load_response_log, measure
    from audit_core.measure.example import EXAMPLE_PATH
    out = tmp_path / "report.json"
    assert main(["report", "--out", str(out), "--measure", "example", "--bootstrap", "200", "--seed", "3"]) == 0
    doc = json.loads(out.read_text())
    section = doc["sections"][1]
    assert "synthetic" in section["title"]
    engine = measure(load_response_log(EXAMPLE_PATH.read_bytes()), bootstrap=200, seed=3).to_dict()
    assert section["numbers"]["pooled"] == json.loads(json.dumps(engine["pooled"]))
    assert section["parameters"]["bootstrap replicates"] == 200 and section["parameters"]["seed"] == 3
    log = tmp_path / "log.csv"
    log.write_bytes(EXAMPLE_PATH.read_bytes().replace(b"synthetic-model-A", b"model-from-file"))
    html = tmp_path / "report.html"
    assert main(["report", "--out", str(html), "--measure", str(log), "--bootstrap", "0"]) == 0
    text = html.read_text(encoding="utf-8")
    assert "Estimand-separated results of" in text and "model-from-file" in text
    assert text.count("<svg") >= 4  # lattice, heat map, estimates, composition
    capsys.readouterr()
    bad = tmp_path / "bad.csv"
    bad.write_text("model,cluster,cell,response,oracle\nm,c,base:ABC:nowhere,A,TRUE\n")
    assert main(["report", "--out", str(html), "--measure", str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "nowhere" in err[0]


def test_report_combines_several_audits(tmp_path):
    from audit_core import analyses
    out = tmp_path / "combined.json"
    assert main(["report", "--out", str(out), "--combine", "gpqa:large", "gpqa:none", "--level", "0.05"]) == 0
    section = next(s for s in json.loads(out.read_text())["sections"] if s["key"] == "combine")
    runs = [(k, analyses.replay_run(analyses.run_source(k), subgroups=()).result) for k in ("gpqa:large", "gpqa:none")]
    engine = analyses.combine_audits(runs, 0.05).results
    assert section["numbers"]["e-BH"]["n_rejected"] == sum(engine["e-BH"].rejected) == 1
    assert list(engine["e-BH"].rejected) == [True, False]
    assert main(["report", "--out", str(out), "--combine", "gpqa:large"]) == 2
