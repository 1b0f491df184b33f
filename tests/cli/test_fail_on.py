"""``--fail-on`` (issue 29 item 8): ``replay``, ``audit status`` and ``combine`` exit 1 when a named
outcome holds, so a pipeline gates on the exit status; the JSON is the same with or without it."""

from __future__ import annotations

import pytest

from audit_core.cli import main


def _run(capsys, *argv) -> tuple[int, str, str]:
    capsys.readouterr()
    status = main(list(argv))
    out = capsys.readouterr()
    return status, out.out, out.err


@pytest.mark.parametrize("run, fail_on, status", [
    ("data/recorded_run.csv", "failure", 1),   # failure mode found
    ("data/recorded_run.csv", "passed,inconclusive", 0),
    ("gpqa:small", "inconclusive", 1),
    ("gpqa:small", "any-flag", 1),             # two subgroups below q, family-wise
    ("gpqa:none", "failure,any-flag", 0),
    ("gpqa:none", "passed", 1),                # no failure mode: the audit passes
])
def test_replay_exits_1_when_the_named_outcome_holds(capsys, run, fail_on, status):
    plain = _run(capsys, "replay", run, "--json")
    gated = _run(capsys, "replay", run, "--json", "--fail-on", fail_on)
    assert plain[0] == 0 and gated[0] == status
    assert gated[1] == plain[1]  # the same JSON
    assert ("exit 1: --fail-on" in gated[2]) == (status == 1)


def test_combine_exits_1_on_a_rejection_or_on_an_audit_left_standing(capsys):
    runs = ("data/recorded_run.csv", "gpqa:none")  # the first is rejected on the model side, the second not
    plain = _run(capsys, "combine", *runs, "--json")
    assert _run(capsys, "combine", *runs, "--json", "--fail-on", "failure")[:2] == (1, plain[1])
    assert _run(capsys, "combine", *runs, "--fail-on", "inconclusive")[0] == 1
    assert _run(capsys, "combine", *runs, "--fail-on", "passed")[0] == 0  # side model: nothing certified


def test_audit_status_exits_1_while_the_audit_is_inconclusive(capsys, tmp_path):
    db = str(tmp_path / "audits.sqlite")
    assert _run(capsys, "audit", "new", "--pool", "sdoh", "--db", db)[0] == 0
    assert _run(capsys, "audit", "status", "--audit", "1", "--db", db, "--fail-on", "inconclusive")[0] == 1
    assert _run(capsys, "audit", "status", "--audit", "1", "--db", db, "--fail-on", "failure,passed")[0] == 0


def test_an_unknown_condition_is_refused_with_exit_2(capsys):
    status, _, err = _run(capsys, "replay", "gpqa:none", "--fail-on", "inconclusiv")
    assert status == 2 and "--fail-on: expected one or more of failure, passed, inconclusive, any-flag" in err
    assert _run(capsys, "combine", "gpqa:small", "gpqa:none", "--fail-on", "any-flag")[0] == 2
