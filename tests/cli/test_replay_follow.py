"""``replay FILE --follow`` and :func:`audit_core.analyses.follow_run`: a run read again while it
is written, each version replayed, ending when an Inspect log records its end or the file stays
unchanged; a half-written version is reported and the last good replay kept."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest

from audit_core import analyses, api
from audit_core.cli import main
from audit_core.errors import InputError

ROOT = Path(__file__).resolve().parents[2]
RUN_CSV = ROOT / "data" / "recorded_run.csv"
LOG = ROOT / "tests" / "fixtures" / "inspect" / "run.eval"


class _Clock:
    """A clock the fake sleep moves, so that idle time passes without waiting."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_growing_csv_is_replayed_at_each_change_and_ends_when_idle(tmp_path):
    lines = RUN_CSV.read_text().splitlines(keepends=True)
    path = tmp_path / "run.csv"
    path.write_text("".join(lines[:21]))  # header and the first 20 labels
    clock = _Clock()
    # what the annotators write between two checks: 15 more labels, a half-written line, its end
    writes = [lines[21:36], ["1,broken"], None, lines[36:], None, None]

    def sleep(seconds: float) -> None:
        clock.now += seconds
        step = writes.pop(0) if writes else None
        if step == ["1,broken"]:
            with path.open("a") as f:
                f.write("999,X99-99,X99,Somewhere,half,\n")  # a line cut short: this version is refused
        elif step is not None:
            text = path.read_text()
            path.write_text("".join(line for line in text.splitlines(keepends=True) if not line.startswith("999,"))
                            + "".join(step))

    readings = list(analyses.follow_run(path, api.replay, every=1.0, idle=3.0, sleep=sleep, clock=clock))
    good = [r for r in readings if r.error is None]
    assert [r.view.result.n for r in good] == [20, 35, len(lines) - 1]
    assert len(readings) == 4 and readings[2].error is not None and "field(s)" in readings[2].error
    assert all(r.status is None and not r.finished for r in readings)  # a CSV cannot say it ended
    final = api.replay(str(RUN_CSV))
    assert good[-1].view.result.dual.decision == final.result.dual.decision
    assert good[-1].view.result.dual.stop == final.result.dual.stop
    assert clock.now >= 3.0  # it ended by the idle time, after the last change


def _with_status(status: str) -> bytes:
    """The fixture log with another run status in its header (as Inspect writes it while running)."""
    raw = LOG.read_bytes()
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(raw)) as zin, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zout:
        from audit_core.data.inspect_log import _zip_member
        for info in zin.infolist():
            data = _zip_member(zin, raw, info)
            if info.filename == "header.json":
                header = json.loads(data)
                header["status"] = status
                data = json.dumps(header).encode()
            zout.writestr(info.filename, data)
    return out.getvalue()


def test_an_inspect_log_is_followed_until_it_records_its_end(tmp_path):
    path = tmp_path / "run.eval"
    path.write_bytes(_with_status("started"))
    versions = [_with_status("success")]
    clock = _Clock()

    def sleep(seconds: float) -> None:
        clock.now += seconds
        if versions:
            path.write_bytes(versions.pop(0))

    readings = list(analyses.follow_run(path, lambda s: api.replay(s, score="match"), every=0.5, idle=1_000.0,
                                        sleep=sleep, clock=clock))
    assert [r.status for r in readings] == ["started", "success"]
    assert [r.finished for r in readings] == [False, True]
    assert clock.now < 1_000.0  # ended by the log's status, not the idle time


def test_the_command_line_follows_and_prints_the_plain_replay_at_the_end(capsys):
    assert main(["replay", str(LOG), "--score", "match", "--follow", "--every", "0.1", "--idle", "0.3", "--json"]) == 0
    captured = capsys.readouterr()
    assert "reading 1: 23 scores" in captured.err and "run success" in captured.err
    assert main(["replay", str(LOG), "--score", "match", "--json"]) == 0
    assert json.loads(captured.out) == json.loads(capsys.readouterr().out)


@pytest.mark.parametrize(("args", "message"), [
    (["--every", "0"], "positive seconds"),
    (["--idle", "-1"], "positive seconds"),
])
def test_bad_follow_input_is_one_message(args, message, capsys):
    assert main(["replay", str(LOG), "--score", "match", "--follow", *args]) == 2
    assert message in capsys.readouterr().err


def test_follow_refuses_a_folder(tmp_path):
    with pytest.raises(InputError, match="not a file"):
        next(analyses.follow_run(tmp_path, api.replay))
