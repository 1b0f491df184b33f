"""Worker counts and solver time limits that cannot work are refused with exit 2 and one line
(issue 13, items 5 and 7)."""

import pytest

from audit_core.cli import main


@pytest.mark.parametrize("argv, needle", [
    (["simulate", "--pool", "gpqa:small", "--jobs", "0"], "--jobs"),
    (["simulate", "--pool", "gpqa:small", "--jobs", "-3"], "--jobs"),
    (["plan", "--pool", "gpqa:small", "--jobs", "0"], "--jobs"),
    (["plan", "--pool", "gpqa:small", "--jobs", "-1"], "--jobs"),
    (["synthesize", "--time-limit", "nan"], "--time-limit"),
    (["synthesize", "--time-limit", "0"], "--time-limit"),
    (["synthesize", "--time-limit", "-2"], "--time-limit"),
])
def test_refused_with_one_line(argv, needle, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and needle in err[0] and "Traceback" not in err[0]


def test_report_into_a_missing_folder_is_refused(tmp_path, capsys):
    out = tmp_path / "no" / "such" / "folder" / "r.html"
    assert main(["report", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "does not exist" in err[0]
    assert not out.parent.exists()
