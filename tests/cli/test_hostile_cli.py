"""Output paths a user can get wrong (issue 18, item 4): ``report --out`` and ``audit export``
refuse a device, a folder, an over-long name and a kernel path with one line and exit 2, and
write nothing partial."""

import json

import pytest

from audit_core.cli import main

LONG = "a" * 300 + ".html"


def _one_line(capsys, argv, needle):
    code = main(argv)
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and err[0].startswith("error: ") and needle in err[0], err
    return err[0]


@pytest.mark.parametrize("target, needle", [
    ("/dev/full", "a system path"),
    ("{tmp}", "a folder; give a file name"),
    ("{tmp}/" + LONG, "cannot be written (File name too long)"),
    ("/proc/self/report.html", "a system path"),
    ("/proc/sys/vm/report.html", "a system path"),
])
def test_report_out_is_refused_in_one_line(target, needle, tmp_path, capsys):
    out = target.format(tmp=tmp_path)
    argv = ["report", "--out", out] + (["--format", "html"] if "." not in out.rsplit("/", 1)[-1] else [])
    line = _one_line(capsys, argv, needle)
    assert len(line) < 300  # the over-long name is shortened in the message
    assert list(tmp_path.iterdir()) == []  # nothing written, not even a temporary file


def test_export_to_the_same_places_is_refused_in_one_line(tmp_path, capsys):
    db = ["--db", str(tmp_path / "w.sqlite")]
    assert main(["audit", "new", "--pool", "gpqa:small"] + db) == 0
    capsys.readouterr()
    assert main(["audit", "next", "--audit", "1", "--json"] + db) == 0
    case_id = json.loads(capsys.readouterr().out)["cases"][0]["case_id"]
    assert main(["audit", "label", "--audit", "1", case_id, "1"] + db) == 0
    capsys.readouterr()
    before = sorted(p.name for p in tmp_path.iterdir())
    for target, needle in (("/dev/full", "a system path"), (str(tmp_path), "a folder"),
                           (str(tmp_path / ("b" * 300 + ".csv")), "File name too long"),
                           ("/proc/self/x.csv", "a system path")):
        _one_line(capsys, ["audit", "export", "--audit", "1", "--out", target] + db, needle)
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing partial left behind


@pytest.mark.parametrize("argv", [["replay", "{fifo}"], ["testbed", "check", "{fifo}"],
                                  ["audit", "new", "--pool", "{fifo}", "--db", "{tmp}/w.sqlite"],
                                  ["identify", "--policies", "{fifo}"], ["measure", "{fifo}"]])
def test_a_fifo_given_as_input_is_refused_at_once(argv, tmp_path, capsys):
    import os
    import threading
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    codes = []
    worker = threading.Thread(target=lambda: codes.append(main([a.format(fifo=fifo, tmp=tmp_path) for a in argv])),
                              daemon=True)
    worker.start()
    worker.join(60)
    assert not worker.is_alive(), "reading a FIFO blocked"
    err = capsys.readouterr().err.strip().splitlines()
    assert codes == [2] and len(err) == 1 and "not a regular file" in err[0], err
