"""`python -m audit_core simulate`: docs/cli.md JSON shape, readable table, bad input exit 2."""

import json
import subprocess
import sys

import numpy as np

from audit_core.cli import main

ROW_KEYS = {"strategy", "process", "failure_found", "passed", "inconclusive", "stop_median", "stop_q25",
            "stop_q75", "replicates"}


def run_json(capsys, *argv):
    code = main(["simulate", *argv, "--json"])
    return code, json.loads(capsys.readouterr().out)


def test_single_row_json(capsys):
    code, d = run_json(capsys, "--pool", "gpqa:large", "--strategy", "adaptive", "--process", "SR-LR-UI",
                       "--replicates", "6", "--budget", "250", "--seed", "3", "--jobs", "1")
    assert code == 0 and len(d["rows"]) == 1
    row = d["rows"][0]
    assert ROW_KEYS <= set(row) and row["replicates"] == 6
    assert (row["strategy"], row["process"]) == ("adaptive", "SR-LR-UI")
    assert row["failure_found"] + row["passed"] + row["inconclusive"] == 1.0
    assert 0 <= row["failure_found"] <= 1 and row["stop_q25"] <= row["stop_median"] <= row["stop_q75"] <= 250
    assert d["params"]["q"] == 0.85 and d["params"]["n_init"] == 2
    code, again = run_json(capsys, "--pool", "gpqa:large", "--strategy", "adaptive", "--process", "SR-LR-UI",
                           "--replicates", "6", "--budget", "250", "--seed", "3", "--jobs", "2")
    assert [{k: r[k] for k in ROW_KEYS} for r in again["rows"]] == [{k: row[k] for k in ROW_KEYS}]


def test_paper_rows_on_sdoh_with_sampling_frequency(capsys):
    code, d = run_json(capsys, "--pool", "sdoh", "--paper", "--replicates", "2", "--budget", "60", "--seed", "1")
    assert code == 0 and [r["strategy"] for r in d["rows"]] == ["stratified", "pre-learned", "informed"] + ["adaptive"] * 4
    assert d["params"]["q"] == 0.83 and d["params"]["budget"] == 60
    freq = d["sampling_frequency"]
    assert len(freq["subgroups"]) == 28 and -1 <= freq["spearman_rho"] <= 1


def test_readable_table(capsys):
    code = main(["simulate", "--pool", "gpqa:none", "--strategy", "stratified,oracle", "--process", "LR",
                 "--replicates", "3", "--budget", "80"])
    out = capsys.readouterr().out
    assert code == 0 and "failure found" in out and "stop median" in out
    assert "stratified" in out and "oracle" in out and "Wilson" in out


def test_csv_pool(tmp_path, capsys):
    rng = np.random.default_rng(0)
    rows = ["group,f1,f2,score"]
    for i in range(200):
        g = "weak" if i % 4 == 0 else "strong"
        p = 0.3 if g == "weak" else 0.95
        rows.append(f"{g},{rng.normal(2 if g == 'weak' else 0):.3f},{rng.normal():.3f},{int(rng.random() < p)}")
    path = tmp_path / "pool.csv"
    path.write_text("\n".join(rows) + "\n")
    code, d = run_json(capsys, "--pool", str(path), "--strategy", "adaptive,stratified", "--process", "SR-LR-UI",
                       "--replicates", "4", "--budget", "100", "--q", "0.8")
    assert code == 0 and len(d["rows"]) == 2 and d["params"]["q"] == 0.8
    assert d["rows"][0]["failure_found"] == 1.0


def test_bad_input_exits_2_with_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("score,group\n1,a\nmaybe,b\n")
    cases = [
        (["--pool", str(tmp_path / "missing.csv")], "not found"),
        (["--pool", str(bad)], "score"),
        (["--pool", "gpqa:huge"], "not a bundled pool"),
        (["--pool", "gpqa:large", "--strategy", "lucky"], "--strategy"),
        (["--pool", "gpqa:large", "--process", "AUD-LR"], "--process"),
        (["--pool", "gpqa:large", "--replicates", "0"], "--replicates"),
        (["--pool", "gpqa:large", "--q", "0.99"], "q = 0.99"),
        (["--pool", "sdoh", "--strategy", "informed", "--process", "LR", "--suspect", "Astrology"], "suspect"),
    ]
    for argv, needle in cases:
        code = main(["simulate", *argv] + ([] if "--replicates" in argv else ["--replicates", "1"]))
        err = capsys.readouterr().err
        assert code == 2, (argv, err)
        assert needle in err and len(err.strip().splitlines()) == 1, (argv, err)
    proc = subprocess.run([sys.executable, "-m", "audit_core", "simulate", "--pool", "gpqa:large", "--strategy",
                           "lucky"], capture_output=True, text=True)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_all_gpqa_settings(capsys):
    code, d = run_json(capsys, "--pool", "gpqa:all", "--strategy", "oracle", "--process", "LR", "--replicates", "3",
                       "--jobs", "1")
    assert code == 0 and [r["setting"] for r in d["rows"]] == ["gpqa:large", "gpqa:medium", "gpqa:small", "gpqa:none"]
    assert [r["failure_found"] for r in d["rows"]] == [1.0, 1.0, 1.0, 0.0]


def test_json_is_byte_identical_across_runs_apart_from_timing(capsys):
    import json as _json

    from audit_core.cli import main as _main
    argv = ["simulate", "--pool", "gpqa:small", "--replicates", "2", "--jobs", "1", "--json"]
    texts = []
    for _ in range(2):
        assert _main(argv) == 0
        texts.append(capsys.readouterr().out)
    docs = [_json.loads(t) for t in texts]
    for doc in docs:
        assert set(doc["timing"]) == {"seconds", "seconds_per_audit"}
        assert len(doc["timing"]["seconds_per_audit"]) == len(doc["rows"])
        assert "seconds" not in doc and all("seconds_per_audit" not in r for r in doc["rows"])
        doc.pop("timing")
    assert _json.dumps(docs[0], indent=2) == _json.dumps(docs[1], indent=2)
