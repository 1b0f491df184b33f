"""The bounds of issue 27 (items 6 and 7): each hostile input of tests/corpus/generate.py BOUNDS,
through the command line and the Replay page, ends in a result or one message naming the limit
(and how to raise it), never a traceback, within TIME_CAP seconds and MEMORY_CAP bytes.

Before: a 6.9 MB header of 10^6 columns took the page past 100 s and 2.9 GB, 49 MB of distinct
subgroups 60.6 s and 1.94 GB, a 200 KB first line raised `_csv.Error`, a lone surrogate in JSON
and 45 emoji in a subgroup name ended `report` in a traceback, `plan --budget 10^30` in a numpy
casting error, and `simulate --pool` of 50,000 subgroups ran past 120 s."""

from __future__ import annotations

import time

import pytest

from audit_core.cli import main
from tests.corpus.generate import BOUNDS
from tests.corpus.test_corpus import TIME_CAP, _bounded
from tests.load import busy_factor

LIMIT_ADVICE = "to raise"  # every limit's message says how to change it

# (file, command, exit code, words of the one error line or of the output)
CASES = [
    ("run_million_columns.csv", ["replay"], 2, "1,000,000 columns, more than the limit of 10,000 columns"),
    ("run_49mb_distinct_subgroups.csv", ["replay"], 2, "cells, more than the limit of 5,000,000 cells"),
    ("run_25000_subgroups.csv", ["replay"], 2, "25,000 distinct subgroups in column(s) 'subgroup', more than the limit"),
    ("run_200kb_first_line.csv", ["replay", "--json"], 0, "\"n\": 2,"),
    ("run_200kb_quoted_cell.csv", ["replay", "--json"], 0, "\"n\": 3,"),
    ("run_lone_surrogate.jsonl", ["replay"], 2, "lone surrogate"),
    ("run_lone_surrogate.jsonl", ["report", "--out", "{tmp}/r.html", "--replay"], 2, "lone surrogate"),
    ("run_emoji_subgroup.csv", ["report", "--out", "{tmp}/r.html", "--replay"], 0, "wrote"),
    ("testbed_100000_items.jsonl", ["testbed", "check"], 2, "more than the limit of 36,000 items per file"),
    ("pool_50000_subgroups.csv", ["simulate", "--replicates", "2", "--pool"], 2,
     "50,000 distinct subgroups in column(s) 'subgroup', more than the limit of 20,000"),
]


@pytest.fixture(scope="module")
def bounds_corpus(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bounds")
    paths = {}
    for name, make in BOUNDS.items():
        paths[name] = folder / name
        paths[name].write_bytes(make())
    return paths


def _argv(command: list[str], path, tmp) -> list[str]:
    command = [a.format(tmp=tmp) for a in command]
    if command[0] == "replay":
        return ["replay", str(path), *command[1:]]
    return [*command, str(path)]


@pytest.mark.parametrize("name, command, code, needle", CASES, ids=[f"{c[0]}-{c[1][0]}" for c in CASES])
def test_cli_ends_in_a_result_or_one_message_naming_the_limit(name, command, code, needle, bounds_corpus,
                                                               tmp_path, capsys):
    got = _bounded(lambda: main(_argv(command, bounds_corpus[name], tmp_path)))
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    assert got == code, captured.err[-2000:]
    if code == 2:
        lines = captured.err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: ") and needle in lines[0], lines
        if "limit" in needle:
            assert "docs/limits.md" in lines[0], lines[0]
            if "cells" in needle or "columns" in needle or "subgroups" in needle:
                assert LIMIT_ADVICE in lines[0], lines[0]  # the environment variable that raises it
    else:
        assert needle in captured.out, captured.out[:500]


@pytest.mark.parametrize("budget", ["1e30", "1" + "0" * 30, "100000000000"])
def test_plan_with_an_absurd_budget_is_one_message(budget, capsys):
    code = _bounded(lambda: main(["plan", "--subgroups", "120,160", "--budget", budget, "--replicates", "5"]))
    lines = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and "budget" in lines[0] and "Traceback" not in lines[0], lines


# ------------------------------------------------------------------------------- on the page

from tests.app.test_pages import app, metric  # noqa: E402
from tests.corpus.test_corpus_hostile import GOOD_RUN  # noqa: E402

PAGE_REFUSED = {"run_million_columns.csv": "10,000 columns", "run_49mb_distinct_subgroups.csv": "5,000,000 cells",
                "run_25000_subgroups.csv": "distinct subgroups", "run_lone_surrogate.jsonl": "lone surrogate"}


def test_replay_page_refuses_each_bound_in_time_and_keeps_the_last_good_run(bounds_corpus):
    at = app("pages/replay-run.py")
    at.selectbox(key="replay_source").set_value("upload").run()
    at.file_uploader(key="replay_upload__widget").upload("good.csv", GOOD_RUN.encode(), "text/csv").run()
    assert not at.error and int(metric(at, "Cases replayed")) == 30
    cap = TIME_CAP * busy_factor()
    for name, needle in PAGE_REFUSED.items():
        started = time.perf_counter()
        at.file_uploader(key="replay_upload__widget").upload(name, bounds_corpus[name].read_bytes(),
                                                             "application/octet-stream").run(timeout=cap)
        elapsed = time.perf_counter() - started
        assert not at.exception, (name, [e.value for e in at.exception])
        assert len(at.error) == 1 and needle in at.error[0].value, (name, [e.value for e in at.error])
        assert int(metric(at, "Cases replayed")) == 30, name
        assert elapsed < cap, f"{name}: {elapsed:.0f} s"


def test_replay_page_draws_a_subgroup_of_45_emoji_and_a_200kb_cell(bounds_corpus):
    at = app("pages/replay-run.py")
    at.selectbox(key="replay_source").set_value("upload").run()
    for name, cases in (("run_emoji_subgroup.csv", 40), ("run_200kb_quoted_cell.csv", 3)):
        at.file_uploader(key="replay_upload__widget").upload(name, bounds_corpus[name].read_bytes(), "text/csv").run()
        assert not at.exception and not at.error, (name, [e.value for e in at.error])
        assert int(metric(at, "Cases replayed")) == cases
