"""Hostile uploads of issue 18 (item 2): each ends in one clear message naming what is wrong (exit
2 on the CLI, one st.error on a page with the last good data kept), with memory bounded. The
small files are committed in tests/corpus/files; these are written at test time
(tests/corpus/generate.py HOSTILE)."""

from __future__ import annotations

import time
import tracemalloc

import pytest

from audit_core import analyses
from audit_core.cli import main
from audit_core.errors import InputError
from tests.corpus.generate import HOSTILE, many_runs, replay_document
from tests.corpus.test_corpus import FILES

# (file, command, words the one error line must contain)
CASES = [
    ("run_lmeval_deep.jsonl", ["replay"], "nested too deeply"),
    ("run_lmeval_deep.jsonl", ["combine", "{good}"], "nested too deeply"),
    ("run_lmeval_list_metric.jsonl", ["replay", "--score", "acc"], "value is a JSON list, not a number"),
    ("run_lmeval_list_metric.jsonl", ["combine", "{good}", "--score", "acc"], "value is a JSON list, not a number"),
    ("run_lmeval_400_digits.jsonl", ["replay"], "a whole number of 400 digits"),
    ("run_inspect_400_digit_epoch.json", ["replay"], "a whole number of 400 digits"),
    ("run_inspect_5000_digit_score.json", ["replay"], "a whole number of 5,000 digits"),
    ("run_eval_zstd_bomb.eval", ["replay"], "member 'samples/1_epoch_1.json' of the Inspect log expands to more than 64 MB"),
    ("policy_5001_digit_tau.json", ["identify", "--policies"], "a whole number of 5,001 digits"),
    ("policy_5001_digit_tau.json", ["lattice", "--policies"], "a whole number of 5,001 digits"),
    ("policy_5001_digit_tau.json", ["synthesize", "--policies"], "a whole number of 5,001 digits"),
    ("combine_deep.json", ["combine", "{good}"], "nested too deeply"),
    ("combine_5001_digits.json", ["combine", "{good}"], "digits (at most 30)"),
    ("combine_top_list.json", ["combine", "{good}"], "expected the JSON of `replay --json`"),
    ("testbed_deep.jsonl", ["testbed", "check"], "nested too deeply"),
    ("run_iso_mixed_zones.csv", ["replay"], "mixes times with a time zone (Z or an offset, data rows 1, 2) "
                                            "and without one (data row 3)"),
    ("run_feb_30.csv", ["replay"], "data row 2: impossible date (day 30 of month 2 of 2024 does not exist)"),
]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    folder = tmp_path_factory.mktemp("hostile")
    paths = {p.name: p for p in FILES.iterdir()}
    for name, make in HOSTILE.items():
        paths[name] = folder / name
        paths[name].write_bytes(make())
    paths["good"] = folder / "good_replay.json"
    paths["good"].write_bytes(replay_document())
    return paths


def _argv(command: list[str], path, good) -> list[str]:
    head, *rest = command
    if head in ("identify", "lattice", "synthesize"):
        return [head, *rest, str(path)]
    if head == "testbed":
        return ["testbed", "check", str(path)]
    return [head, str(path), *[str(good) if a == "{good}" else a for a in rest]]


@pytest.mark.parametrize("name, command, needle", CASES, ids=[f"{c[0]}-{c[1][0]}" for c in CASES])
def test_cli_refuses_with_one_line_and_exit_2(name, command, needle, corpus, capsys):
    tracemalloc.start()
    try:
        code = main(_argv(command, corpus[name], corpus["good"]))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and needle in err[0], err
    assert peak < 200 * 2**20, f"peak {peak / 2**20:.0f} MiB"


def test_the_zstd_bomb_is_refused_in_streaming_with_bounded_memory(corpus):
    tracemalloc.start()
    try:
        with pytest.raises(InputError, match="expands to more than 64 MB"):
            analyses.run_source(corpus["run_eval_zstd_bomb.eval"])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 150 * 2**20, f"peak {peak / 2**20:.0f} MiB (the member expands to 1 GiB)"


def test_combine_refuses_a_repeated_run_before_replaying_any(tmp_path, monkeypatch, capsys):
    paths = many_runs(tmp_path, n=300)
    copy = tmp_path / "copy_of_run007.csv"
    copy.write_bytes(paths[7].read_bytes())
    replayed = []
    import audit_core.analyses.combine as combine_module
    real = combine_module.replay
    monkeypatch.setattr(combine_module, "replay", lambda *a, **k: replayed.append(1) or real(*a, **k))
    assert main(["combine", *map(str, paths), str(copy)]) == 2
    err = capsys.readouterr().err
    assert "run007.csv and" in err and "copy_of_run007.csv are the same run" in err
    assert replayed == []  # found before the first replay


def test_combine_of_300_runs_builds_no_chart_and_finishes(tmp_path, monkeypatch, capsys):
    paths = many_runs(tmp_path, n=300)
    import audit_core.views.sequential as sequential_views

    def no_charts(*args, **kwargs):
        raise AssertionError("combine built a replay chart")
    monkeypatch.setattr(sequential_views, "replay_specs", no_charts)
    started = time.process_time()
    assert main(["combine", *map(str, paths), "--json"]) == 0
    cpu = time.process_time() - started
    assert '"n_hypotheses": 300' in capsys.readouterr().out
    assert cpu < 60, f"{cpu:.0f} s of CPU"  # about 4 s alone; was > 120 s wall with charts


# ------------------------------------------------------------------------------- on the pages

from tests.app.test_pages import app, metric  # noqa: E402

GOOD_RUN = "case,grp,correct\n" + "".join(f"c{i},{'a' if i % 2 else 'b'},{int(i % 5 != 0)}\n" for i in range(30))
PAGE_RUNS = ["run_lmeval_deep.jsonl", "run_lmeval_list_metric.jsonl", "run_lmeval_400_digits.jsonl",
             "run_inspect_5000_digit_score.json", "run_eval_zstd_bomb.eval", "run_iso_mixed_zones.csv",
             "run_feb_30.csv"]


def test_replay_page_keeps_the_last_good_run_through_every_hostile_upload(corpus):
    at = app("pages/replay-run.py")
    at.selectbox(key="replay_source").set_value("upload").run()
    at.file_uploader(key="replay_upload__widget").upload("good.csv", GOOD_RUN.encode(), "text/csv").run()
    assert not at.error and int(metric(at, "Cases replayed")) == 30
    for name in PAGE_RUNS:
        at.file_uploader(key="replay_upload__widget").upload(name, corpus[name].read_bytes(),
                                                             "application/octet-stream").run()
        assert not at.exception, (name, [e.value for e in at.exception])
        assert len(at.error) == 1, (name, [e.value for e in at.error])
        assert int(metric(at, "Cases replayed")) == 30, name


def test_explorer_page_refuses_a_5001_digit_policy_class(corpus):
    at = app()
    at.radio(key="policy_source").set_value("upload").run()
    at.file_uploader(key="policy_upload__widget").upload("p.json", corpus["policy_5001_digit_tau.json"].read_bytes(),
                                                         "application/json").run()
    assert not at.exception and len(at.error) == 1 and "5,001 digits" in at.error[0].value
