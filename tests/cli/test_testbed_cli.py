"""`python -m audit_core testbed generate|check`: files, exit 0/1/2, JSON shape."""

import json

from audit_core import cli


def test_generate_then_check_passes(tmp_path, capsys):
    out, samples = tmp_path / "items.jsonl", tmp_path / "inspect.jsonl"
    code = cli.main(["testbed", "generate", "--clusters", "12", "--seed", "5", "--out", str(out),
                     "--inspect", str(samples), "--json"])
    payload = json.loads(capsys.readouterr().out)
    assert code == 0 and payload["items"] == 432 and payload["clusters"] == 12
    assert set(payload["directions"].values()) == {2}  # six directions, two clusters each
    assert len(out.read_text().splitlines()) == 432 == len(samples.read_text().splitlines())
    assert json.loads(samples.read_text().splitlines()[0])["metadata"]["cell"] == "base:ABC:generated"
    assert cli.main(["testbed", "check", str(out), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] and report["n_items"] == 432 and report["mismatches"] == []
    assert cli.main(["testbed", "check", str(out)]) == 0
    assert "every label and edit re-derived" in capsys.readouterr().out


def test_same_seed_same_file(tmp_path, capsys):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    for path in (a, b):
        assert cli.main(["testbed", "generate", "--clusters", "3", "--seed", "9", "--directions", "T-U,U-F",
                         "--depth", "2", "--distractors", "3", "--out", str(path)]) == 0
    assert a.read_bytes() == b.read_bytes()
    assert "TRUE→UNKNOWN 2, UNKNOWN→FALSE 1" in capsys.readouterr().out


def test_flipped_label_exits_1(tmp_path, capsys):
    out = tmp_path / "items.jsonl"
    assert cli.main(["testbed", "generate", "--clusters", "2", "--out", str(out)]) == 0
    lines = out.read_text().splitlines()
    record = json.loads(lines[7])
    record["oracle"] = "UNKNOWN" if record["oracle"] != "UNKNOWN" else "TRUE"
    lines[7] = json.dumps(record)
    out.write_text("\n".join(lines) + "\n")
    capsys.readouterr()
    assert cli.main(["testbed", "check", str(out)]) == 1
    text = capsys.readouterr().out
    assert "1 mismatch(es)" in text and "but the solver derives" in text


def test_bad_input_exits_2_with_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"cell": "base:ABC:nowhere"}\n')
    assert cli.main(["testbed", "check", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "line 1" in err and "'nowhere'" in err
    assert cli.main(["testbed", "generate", "--clusters", "2", "--directions", "T-T", "--out", str(bad)]) == 2
    assert capsys.readouterr().err.startswith("error: --directions:")
    assert cli.main(["testbed", "generate", "--clusters", "2", "--depth", "0", "--out", str(bad)]) == 2
    assert capsys.readouterr().err.startswith("error: --depth: generator depth")
    assert cli.main(["testbed", "generate", "--clusters", "0", "--out", str(bad)]) == 2
    assert cli.main(["testbed"]) == 2
    assert "choose an action" in capsys.readouterr().err
