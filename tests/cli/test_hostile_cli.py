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


# ------------------------------------------------- unbounded work on the command line (issue 27, item 8)

def test_a_million_replicates_is_refused_at_once_naming_the_limit(capsys):
    import time

    from tests.load import busy_factor
    started = time.perf_counter()
    line = _one_line(capsys, ["simulate", "--pool", "gpqa:small", "--replicates", "1000000"],
                     "--replicates: 1,000,000 x 7 row(s) = 7,000,000 audits, more than the limit of 100,000")
    assert "docs/limits.md" in line and "at most 14,285 replicates" in line
    assert time.perf_counter() - started < 20 * busy_factor()  # before the first audit (it ran past 90 s)


def test_100000_testbed_items_are_refused_at_once(tmp_path, capsys):
    line = _one_line(capsys, ["testbed", "generate", "--clusters", "2778", "--out", str(tmp_path / "items.jsonl")],
                     "--clusters: number of clusters: at most 1,000 (36,000 items")
    assert "docs/limits.md" in line and not (tmp_path / "items.jsonl").exists()


def test_long_work_reports_progress_on_stderr_when_it_is_not_a_terminal(monkeypatch, capsys):
    import audit_core.cli as cli
    monkeypatch.setattr(cli, "PROGRESS_EVERY", 0.0)   # every update is "long" here
    assert main(["simulate", "--pool", "gpqa:small", "--replicates", "3", "--strategy", "adaptive",
                 "--process", "SR-LR-UI", "--jobs", "1", "--json"]) == 0
    captured = capsys.readouterr()
    progress = [line for line in captured.err.splitlines() if line.startswith("progress: ")]
    assert progress and "of 3 audits" in progress[0], captured.err
    json.loads(captured.out)  # stdout stays one JSON document


def test_ctrl_c_while_an_output_is_written_leaves_neither_it_nor_a_temporary_file(tmp_path, monkeypatch):
    from audit_core.data import files

    def interrupted(fd):
        raise KeyboardInterrupt
    monkeypatch.setattr(files.os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        files.write_file(tmp_path / "items.jsonl", b"x" * 10_000)
    assert list(tmp_path.iterdir()) == []


def test_ctrl_c_during_testbed_generate_is_one_line_and_leaves_nothing_half_written(tmp_path):
    import os
    import signal
    import subprocess
    import sys
    import time
    out = tmp_path / "items.jsonl"
    from pathlib import Path
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    child = subprocess.Popen([sys.executable, "-m", "audit_core", "testbed", "generate", "--clusters", "1000",
                              "--out", str(out)], stderr=subprocess.PIPE, stdout=subprocess.PIPE, env=env,
                             text=True)
    time.sleep(4)  # the interpreter and the engine are loaded; generating 1,000 clusters takes longer
    child.send_signal(signal.SIGINT)
    _, err = child.communicate(timeout=60)
    assert "Traceback" not in err, err[-2000:]
    if child.returncode == 0:  # the machine was fast enough to finish first: then the file is whole
        assert len(out.read_text().splitlines()) == 36_000
    else:
        assert child.returncode == 130 and err.strip().splitlines() == [
            "error: interrupted; no output file was left half-written"], err
        assert not out.exists()
    assert [p.name for p in tmp_path.iterdir() if p.name != "items.jsonl"] == []  # no temporary file
