"""``python -m audit_core plan`` and the --backend / --address options of plan and simulate."""

import json

import pytest

from audit_core.cli import main

CHEAP = ["--strategy", "stratified", "--process", "LR", "--budget", "60", "--replicates", "6", "--seed", "1"]


def _json(capsys, argv):
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_plan_assumed_structure_json_and_text(capsys):
    payload = _json(capsys, ["plan", "--subgroups", "40,80,80", "--failing-accuracy", "0.5", *CHEAP,
                             "--budgets", "20,60", "--json"])
    assert payload["replicates"] == 6 and payload["backend"] == "local"
    assert [r["budget"] for r in payload["budget_table"]] == [20, 60, 20, 60]
    assert len(payload["curves"]) == 2 * 2 * 60  # scenarios x outcomes x n
    assert {r["quantile"] for r in payload["labels_needed"]} == {"median", "90th percentile"}
    assert main(["plan", "--pool", "gpqa:small", *CHEAP]) == 0
    text = capsys.readouterr().out
    assert "P(pass | no failure)" in text and "Wilson" in text and "budget" in text


def test_plan_bad_input(capsys):
    assert main(["plan", *CHEAP]) == 2
    assert main(["plan", "--subgroups", "10,x"]) == 2
    assert main(["plan", "--pool", "gpqa:small", "--backend", "dask", "--address", "nonsense", *CHEAP]) == 2
    err = [line for line in capsys.readouterr().err.splitlines() if line]
    assert len(err) == 3 and all(line.startswith("error: ") for line in err)


def test_plan_and_simulate_on_a_dask_scheduler_equal_local(capsys):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, host="127.0.0.1",
                                  protocol="tcp://", dashboard_address=None, silence_logs=40) as cluster:
        address = cluster.scheduler_address
        argv = ["plan", "--subgroups", "40,80", *CHEAP, "--json"]
        local = _json(capsys, argv)
        remote = _json(capsys, [*argv, "--address", address])
        assert remote["backend"] == "dask"
        for key in ("curves", "budget_table", "labels_needed", "p_pass_no_failure"):
            assert local[key] == remote[key]
        sim = ["simulate", "--pool", "gpqa:small", "--strategy", "stratified,oracle", "--process", "LR",
               "--replicates", "4", "--budget", "60", "--json"]
        a, b = _json(capsys, sim), _json(capsys, [*sim, "--backend", "dask", "--address", address])
        drop = lambda rows: [{k: v for k, v in r.items() if k != "seconds_per_audit"} for r in rows]  # noqa: E731
        assert drop(a["rows"]) == drop(b["rows"])
