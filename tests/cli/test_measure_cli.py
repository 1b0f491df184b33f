"""`python -m audit_core measure`: JSON shape, readable text, exit 2 on bad input."""

import json

import pytest

import audit_core.cli as cli
from audit_core.measure import COMPOSITION, ESTIMATES

LOG = "data/example_response_log.csv"


@pytest.fixture(autouse=True)
def measure_command(monkeypatch):
    # Until the lead adds the module to COMMAND_MODULES, register it for these tests.
    if "audit_core.cli.measure_cmd" not in cli.COMMAND_MODULES:
        monkeypatch.setattr(cli, "COMMAND_MODULES", cli.COMMAND_MODULES + ("audit_core.cli.measure_cmd",))


def test_json_shape(capsys):
    code = cli.main(["measure", LOG, "--json", "--bootstrap", "100", "--seed", "2"])
    d = json.loads(capsys.readouterr().out)
    assert code == 0
    assert {"source", "n_cells", "n_contexts", "bootstrap", "confidence", "models", "pooled", "units", "notes"} <= set(d)
    assert d["n_cells"] == 36 and d["n_contexts"] == 12 and d["bootstrap"] == {"replicates": 100, "seed": 2, "unit": "cluster"}
    assert [m["model"] for m in d["models"]] == ["synthetic-model-A", "synthetic-model-B"]
    assert d["pooled"]["model"] == "all models" and len(d["units"]) == 48
    names = [e["name"] for e in d["pooled"]["estimates"]]
    assert names[:len(ESTIMATES)] == list(ESTIMATES) and "validity:generated" in names
    est = d["pooled"]["estimates"][0]
    assert set(est) == {"name", "label", "level", "successes", "n", "rate", "wilson_low", "wilson_high",
                        "boot_low", "boot_high"}
    assert list(d["pooled"]["composition"]) == list(COMPOSITION)
    assert sum(d["pooled"]["composition"].values()) == d["pooled"]["n_complete_paired"] == 576
    unit = d["units"][0]
    assert {"model", "cluster", "oracle", "tau_full", "local_response", "composition"} <= set(unit)


def test_text_table(capsys):
    assert cli.main(["measure", LOG, "--bootstrap", "50"]) == 0
    out = capsys.readouterr().out
    assert "synthetic-model-A" in out and "all models" in out and "target-follow | base-correct" in out
    assert "cluster bootstrap" in out and "note: ignored column(s): generating_policy" in out


def test_bad_input_exits_2_with_one_line(capsys, tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("model,cluster,cell,response,oracle\nm,c,base:ABC:nowhere,A,TRUE\n")
    assert cli.main(["measure", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "'nowhere' is not a value of axis 'readout'" in err
    assert cli.main(["measure", str(tmp_path / "missing.csv")]) == 2
    assert "file not found" in capsys.readouterr().err
    assert cli.main(["measure", LOG, "--bootstrap", "-5"]) == 2


def test_units_listing_and_policy_class_layout(capsys):
    assert cli.main(["measure", LOG, "--bootstrap", "0", "--units"]) == 0
    out = capsys.readouterr().out
    assert out.count("synthetic-model-B ") >= 24 and "local/paired" in out
    cli.main(["measure", LOG, "--bootstrap", "0", "--json"])
    default = json.loads(capsys.readouterr().out)
    cli.main(["measure", LOG, "--bootstrap", "0", "--json", "--policies", "data/frozen_policies.json"])
    explicit = json.loads(capsys.readouterr().out)
    assert explicit["pooled"] == default["pooled"] and explicit["units"] == default["units"]


def test_invariance_in_json_and_text(capsys):
    assert cli.main(["measure", LOG, "--json", "--bootstrap", "100"]) == 0
    inv = json.loads(capsys.readouterr().out)["invariance"]
    names = [e["name"] for e in inv["pooled"]["estimates"]]
    assert names[:3] == ["equivariance", "equivariance_valid", "fixed_label"]
    assert "readout_agreement:target" in names and inv["bootstrap"]["replicates"] == 100
    assert len(inv["pooled"]["balanced_transitions"]["directions"]) == 6
    assert {e["name"] for e in inv["pooled"]["asymmetry"]["by_base"]} == {
        "selective_after:TRUE", "selective_after:FALSE", "selective_after:UNKNOWN"}
    assert cli.main(["measure", LOG, "--bootstrap", "50"]) == 0
    out = capsys.readouterr().out
    assert "semantic equivariance" in out and "P(Δ > 0)" in out and "by base oracle" in out


# ---------------------------------------------------------------- logs of the testbed's tasks (issue 20)

TESTBED_LOGS = "tests/fixtures/testbed"


def test_measure_reads_an_inspect_log_and_states_identification(capsys):
    code = cli.main(["measure", f"{TESTBED_LOGS}/inspect_mixture.eval", "--bootstrap", "0", "--json"])
    d = json.loads(capsys.readouterr().out)
    assert code == 0 and [m["model"] for m in d["models"]] == ["mockllm/mixture"]
    assert d["support"]["identified"] is True and d["support"]["cells_covered"] == 36
    assert d["support"]["text"].startswith("measured τ_full = ")


def test_measure_reads_inspect_and_lmeval_logs_together(capsys):
    code = cli.main(["measure", f"{TESTBED_LOGS}/inspect_ideal.eval", f"{TESTBED_LOGS}/lmeval_mixture",
                     "--bootstrap", "0"])
    out = capsys.readouterr().out
    assert code == 0
    assert "mockllm/ideal:" in out and "policy-lm/mixture:" in out and "Support: measured τ_full" in out


def test_measure_refuses_an_ordinary_inspect_log(capsys):
    code = cli.main(["measure", "tests/fixtures/inspect/run.eval"])
    err = capsys.readouterr().err
    assert code == 2 and "not a log of testbed items" in err and "Traceback" not in err


def test_report_measure_reads_a_log(tmp_path, capsys):
    out = tmp_path / "r.md"
    code = cli.main(["report", "--out", str(out), "--measure", f"{TESTBED_LOGS}/inspect_mixture.eval",
                     "--bootstrap", "0"])
    assert code == 0
    text = out.read_text()
    assert "inspect\\_mixture\\.eval" in text or "inspect_mixture.eval" in text
    assert "on a support that identifies it" in text
