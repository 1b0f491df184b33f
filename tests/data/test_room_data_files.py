"""Issue 19 items 6-8: the files people really have read on the CLI as on the page (the page's
side is in tests/app/test_room_data_pages.py)."""

from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd
import pytest

from audit_core.cli import main
from audit_core.data.csvio import DECIMAL_COMMA_COLUMNS, read_csv_frame
from audit_core.errors import InputError
from audit_core.identify import load_policy_class


def semicolon_run(n: int = 90) -> bytes:
    """``case_id;group;agreement`` with a UTF-8 BOM and decimal commas (1, 0,5, 0)."""
    rng = np.random.default_rng(6)
    values = rng.choice(["1", "0,5", "0"], n, p=[0.7, 0.2, 0.1])
    rows = "".join(f"{i};{'north' if i % 3 else 'south'};{v}\n" for i, v in enumerate(values))
    return "\ufeffcase_id;group;agreement\n".encode() + rows.encode()


def pandas_truth(data: bytes) -> pd.DataFrame:
    return pd.read_csv(io.BytesIO(data), sep=";", decimal=",", encoding="utf-8-sig")


def cli_json(capsys, argv: list[str]) -> dict:
    code = main(argv + ["--json"])
    out = capsys.readouterr().out
    assert code == 0, out
    return json.loads(out)


# ------------------------------------------------------------------------------- item 6

def test_the_reader_reads_decimal_commas_when_asked_and_only_in_number_columns():
    data = "\ufeffid;note;score;label\n1;a,b;0,5;x\n2;c;1;1,5 kg\n3;d;;y\n".encode()
    frame = read_csv_frame(data, "f.csv", decimal_comma=True)
    assert list(frame.columns) == ["id", "note", "score", "label"]          # BOM removed
    assert list(frame["score"]) == ["0.5", "1", ""]                          # numbers only
    assert list(frame["note"]) == ["a,b", "c", "d"] and frame["label"][1] == "1,5 kg"
    assert frame.attrs[DECIMAL_COMMA_COLUMNS] == ("score",)
    assert list(read_csv_frame(data, "f.csv")["score"]) == ["0,5", "1", ""]  # not asked: as written
    comma = b'id,score\n1,"0,5"\n'
    assert list(read_csv_frame(comma, "c.csv", decimal_comma=True)["score"]) == ["0,5"]  # comma files never


def test_a_semicolon_policy_class_keeps_its_responses_as_written():
    data = ("policy;cell;response;tau\n" + "".join(f"{p};{c};{r};{t}\n" for p, t, rs in
            (("p", 1, ("1,5", "2")), ("q", 0, ("1,5", "3"))) for c, r in zip(("a", "b"), rs, strict=True))).encode()
    pc = load_policy_class(data, name="p.csv")
    assert "1,5" in pc.codebook


def test_cli_replay_reads_a_semicolon_bom_decimal_comma_run(tmp_path, capsys):
    data = semicolon_run()
    path = tmp_path / "agreement.csv"
    path.write_bytes(data)
    truth = pandas_truth(data)
    out = cli_json(capsys, ["replay", str(path)])
    assert out["n"] == len(truth) == 90
    assert out["overall"]["accuracy"] == pytest.approx(truth["agreement"].mean(), abs=1e-12)
    means = truth.groupby("group")["agreement"].mean()
    shown = {row["group"]: row for row in out["subgroups"]}
    assert set(shown) == set(means.index)
    for group, mean in means.items():
        assert shown[group]["accuracy"] == pytest.approx(mean, abs=1e-12)
        assert shown[group]["n"] == int((truth["group"] == group).sum())
    assert any("decimal commas" in note for note in out["notes"])


def test_a_column_of_decimal_commas_and_text_is_still_refused_with_one_message(tmp_path):
    path = tmp_path / "mixed.csv"
    path.write_text("case;agreement\n1;0,5\n2;maybe\n")
    with pytest.raises(InputError, match="agreement.*not a finite number"):
        from audit_core.data.sources import load_audit_source
        load_audit_source(str(path))


# ------------------------------------------------------------------------------- item 7

PASS_FAIL = "case,grp,result\n" + "".join(f"c{i},{'ab'[i % 2]},{('pass', 'fail', 'PASS', 'partial')[i % 4]}\n"
                                          for i in range(40))


@pytest.fixture
def pass_fail(tmp_path):
    path = tmp_path / "passfail.csv"
    path.write_text(PASS_FAIL)
    return path


def test_cli_maps_labels_with_the_builtin_vocabulary_or_explicit_pairs(pass_fail, capsys):
    truth = pd.read_csv(pass_fail)
    builtin = cli_json(capsys, ["replay", str(pass_fail), "--map", "builtin"])
    scores = truth["result"].map({"pass": 1.0, "PASS": 1.0, "fail": 0.0, "partial": 0.5})
    assert builtin["columns"]["score"] == "result" and builtin["n"] == 40
    assert builtin["overall"]["accuracy"] == pytest.approx(scores.mean(), abs=1e-12)
    explicit = cli_json(capsys, ["replay", str(pass_fail), "--map", "pass=1,fail=0", "--map", "PASS=1,partial=0.25"])
    assert explicit["overall"]["accuracy"] == pytest.approx(
        truth["result"].map({"pass": 1.0, "PASS": 1.0, "fail": 0.0, "partial": 0.25}).mean(), abs=1e-12)
    override = cli_json(capsys, ["replay", str(pass_fail), "--map", "builtin,partial=0"])
    assert override["overall"]["accuracy"] == pytest.approx(
        truth["result"].map({"pass": 1.0, "PASS": 1.0, "fail": 0.0, "partial": 0.0}).mean(), abs=1e-12)


def test_cli_without_a_map_names_the_labels_and_the_flag(pass_fail, capsys):
    assert main(["replay", str(pass_fail)]) == 2
    err = capsys.readouterr().err
    assert "need a mapping to scores" in err and "--map builtin" in err and "pass=1" in err
    assert "Traceback" not in err
    assert main(["replay", str(pass_fail), "--map", "pass=maybe"]) == 2
    assert "must be a number" in capsys.readouterr().err


def test_the_engine_message_names_no_flag(pass_fail):
    from audit_core import analyses
    with pytest.raises(InputError) as info:
        analyses.replay_run(analyses.run_source(str(pass_fail), check=False))
    assert "--" not in str(info.value) and "need a mapping to scores" in str(info.value)


# ------------------------------------------------------------------------------- item 8

FIXTURES = __import__("pathlib").Path(__file__).resolve().parents[1] / "fixtures"


def test_cli_choices_list_a_logs_scorers_and_subgroup_keys_with_the_default(capsys):
    inspect = cli_json(capsys, ["replay", str(FIXTURES / "inspect" / "run.eval"), "--choices"])
    assert inspect["scores"] == ["match", "graded"]
    # one natural key by default, not every key crossed (issue 29 item 12)
    assert inspect["subgroups"] == ["subject", "level"] and inspect["default_subgroups"] == ["subject"]
    replayed = cli_json(capsys, ["replay", str(FIXTURES / "inspect" / "run.eval"), "--score", "match"])
    assert replayed["subgroup_columns"] == inspect["default_subgroups"]        # the default is what is read
    suite = cli_json(capsys, ["replay", str(FIXTURES / "lmeval" / "suite"), "--choices"])
    assert suite["scores"] == ["acc", "acc_norm"] and suite["default_subgroups"][0] == "task"
    assert main(["replay", str(FIXTURES / "inspect" / "run.eval"), "--choices"]) == 0
    text = capsys.readouterr().out
    assert "--score: match, graded" in text and "subgroups without --subgroup: subject (" in text


def test_cli_no_subgroups_means_one_group_also_for_several_lm_eval_tasks(capsys):
    out = cli_json(capsys, ["replay", str(FIXTURES / "lmeval" / "suite"), "--score", "acc", "--no-subgroups"])
    assert out["subgroup_columns"] == [] and [s["subgroup"] for s in out["subgroups"]] == ["(all)"]
    assert main(["replay", str(FIXTURES / "lmeval" / "suite"), "--score", "acc", "--no-subgroups",
                 "--subgroup", "subject"]) == 2
    assert "not both" in capsys.readouterr().err
