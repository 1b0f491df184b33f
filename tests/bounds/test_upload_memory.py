"""Issue 18, item 5: what a shared server keeps per upload is small, and the numbers do not change.

A run's table and a cached replay's typed table keep their text columns compact (categorical or
Arrow strings) and give back the identical table; replays are shared objects; the replay page's
session keeps how to rebuild its report section, not the section's per-step arrays.
"""

import functools
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from audit_core import analyses
from audit_core.data.csvio import COMPACTED, DECIMAL_COMMA_COLUMNS, compact_frame, expand_frame, read_csv_frame
from audit_core.report.document import json_safe

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def _run_csv(rows: int) -> bytes:
    return ("case,grp,correct,note\n" + "".join(
        f"c{i},g{i % 7},{int(i % 5 != 0)},{'x' if i % 3 else ''}\n" for i in range(rows))).encode()


def test_compact_frame_gives_back_the_identical_table():
    frame = read_csv_frame(b"id;grp;score;n\nc1;a;0,5;1\nc2;b;1;2\nc3;a;0;3\nc4;a;0;4\n", "x.csv",
                           decimal_comma=True)
    frame["n"] = frame["n"].astype(int)  # a typed column is kept as it is
    compact = compact_frame(frame)
    assert set(compact.attrs[COMPACTED]) == {"id", "grp", "score"}
    assert isinstance(compact["grp"].dtype, pd.CategoricalDtype)  # few distinct values: codes
    assert not isinstance(compact["id"].dtype, pd.CategoricalDtype) and compact["id"].dtype != object  # Arrow
    assert compact["n"].dtype == int
    back = expand_frame(compact)
    pd.testing.assert_frame_equal(back, frame)
    assert back.attrs == frame.attrs and frame.attrs[DECIMAL_COMMA_COLUMNS] == ("score",)
    assert all(type(v) is str for v in back["id"]) and all(type(v) is str for v in back["grp"])
    assert expand_frame(frame) is frame  # nothing compacted: nothing to do


def test_a_run_table_is_kept_compact_and_read_as_before():
    raw = _run_csv(60_000)
    source = analyses.run_source(raw, "run.csv")
    table = source.value
    as_read = read_csv_frame(raw, "run.csv", decimal_comma=True)
    pd.testing.assert_frame_equal(table.frame, as_read)
    pd.testing.assert_series_equal(table.column("grp"), as_read["grp"])
    held = table.stored.memory_usage(deep=True).sum()
    # Python strings: ~60-80 bytes a cell; compact: ~the characters plus 4 bytes per id.
    assert held < 0.25 * as_read.memory_usage(deep=True).sum()


def _run_source(run: str):
    """A bundled run by name, a 3,000-row uploaded CSV ("upload") or the Inspect fixture log ("inspect")."""
    if run == "upload":
        return analyses.run_source(_run_csv(3_000), "run.csv")
    if run == "inspect":
        path = FIXTURES / "inspect" / "run.eval"
        return analyses.run_source(path.read_bytes(), path.name)
    return analyses.run_source(run)


@pytest.mark.parametrize("run", ["recorded_run", "sdoh", "upload", "inspect"])
def test_compacted_replays_give_the_same_numbers(run):
    source = _run_source(run)
    score = "match" if run == "inspect" else None  # the log has two scorers
    plain = analyses.replay_run(source, score=score)
    kept = analyses.replay_run(source, score=score).with_views().compacted()
    assert json.dumps(json_safe(kept.to_dict())) == json.dumps(json_safe(plain.to_dict()))
    assert json.dumps(json_safe(kept.section.to_dict())) == json.dumps(json_safe(plain.section.to_dict()))
    assert kept.data.frame.attrs[COMPACTED] or run == "inspect"
    pd.testing.assert_frame_equal(expand_frame(kept.data.frame), plain.data.frame)


def test_replay_numbers_as_arrays_are_the_same_numbers():
    result = analyses.replay_run(analyses.run_source("recorded_run")).result
    arrays, lists = result.to_dict(arrays=True), result.to_dict()
    for name, process in arrays["processes"].items():
        assert isinstance(process["log_e"], np.ndarray)
        assert process["log_e"].tolist() == lists["processes"][name]["log_e"]
    assert json.dumps(json_safe(arrays)) == json.dumps(json_safe(lists))


def _replay_page_with_an_upload():
    """The Replay page (AppTest) after uploading the 60-case good.csv of tests/app/test_pages.py."""
    from streamlit.testing.v1 import AppTest

    from tests.app.test_pages import APP, GOOD_CSV, metric

    at = AppTest.from_file(APP, default_timeout=90)
    at.switch_page("pages/replay-run.py").run()
    at.selectbox(key="replay_source").set_value("upload").run()
    at.file_uploader(key="replay_upload__widget").upload("good.csv", GOOD_CSV, "text/csv").run()
    assert not at.exception and int(metric(at, "Cases replayed")) == 60
    return at


def test_the_replay_page_keeps_how_to_rebuild_its_section_not_its_arrays():
    from pages._shared import SectionLater
    from tests.app.test_pages import GOOD_CSV

    at = _replay_page_with_an_upload()
    kept = at.session_state["report_sections"]["replay"]
    assert isinstance(kept, SectionLater) and kept.title == "Replay of good.csv"
    assert isinstance(kept.build, functools.partial)  # not a closure over the page run's globals
    assert not any(isinstance(a, (analyses.RunReplay, np.ndarray)) for a in kept.build.args)
    _, score, groups, order, model, auditor, _, _, planned_n, params = kept.build.args  # the page's choices
    assert planned_n is None  # 0 on the page: untuned
    fresh = analyses.replay_run(analyses.run_source(GOOD_CSV, "good.csv"), score=score, subgroups=groups,
                                order=order, params=params, model_process=model, auditor_process=auditor).section
    assert score == "correct" and kept.numbers["n"] == 60
    assert json.dumps(json_safe(kept.to_dict())) == json.dumps(json_safe(fresh.to_dict()))
    at.switch_page("pages/audit-report.py").run()  # the Report page builds it again and offers it
    assert not at.exception and any("Replay of good.csv" in c.label for c in at.checkbox)


def test_the_allocator_is_tuned_once_on_glibc():
    import platform

    from pages._page_config import tune_allocator
    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        pytest.skip("glibc only")
    assert tune_allocator() is True and tune_allocator() is True


@pytest.mark.parametrize("run", ["recorded_run", "upload", "inspect"])
def test_a_shared_replay_keeps_no_typed_rows_and_gives_the_same_numbers(run):
    source = _run_source(run)
    score = "match" if run == "inspect" else None
    plain = analyses.replay_run(source, score=score)
    shared = analyses.replay_run(source, score=score).with_views().without_table()
    assert len(plain.data.frame) == plain.result.n > 0
    assert len(shared.data.frame) == 0 and list(shared.data.frame.columns) == list(plain.data.frame.columns)
    assert shared.result.n == plain.result.n and shared.data.notes == plain.data.notes
    assert json.dumps(json_safe(shared.to_dict())) == json.dumps(json_safe(plain.to_dict()))
    assert json.dumps(json_safe(shared.section.to_dict())) == json.dumps(json_safe(plain.section.to_dict()))
    pd.testing.assert_frame_equal(shared.subgroup_table, plain.subgroup_table)
    pd.testing.assert_frame_equal(shared.decision_table, plain.decision_table)
    assert shared.trajectory_chart == plain.trajectory_chart


def test_the_replay_the_server_shares_holds_no_typed_rows():
    from pages import _cache

    _cache.replay_run.clear()
    at = _replay_page_with_an_upload()
    kept = at.session_state["report_sections"]["replay"]
    shared = _cache.replay_run(*kept.build.args)   # the cached object the page drew (the same arguments)
    assert shared is _cache.replay_run(*kept.build.args)
    assert shared.result.n == 60 and len(shared.data.frame) == 0


def test_giving_back_memory_frees_what_reference_cycles_hold():
    import gc
    import threading
    import weakref

    from pages._page_config import give_back_memory

    class Holder:
        """An object that can refer to itself (a reference cycle)."""

    for thread in threading.enumerate():   # an earlier page's warm-up ends by freezing the heap it saw
        if thread.name in ("warm-supports", "warm-pages"):
            thread.join(timeout=300)
    enabled = gc.isenabled()
    gc.disable()   # no automatic collection in between: only give_back_memory may free it
    try:
        holder = Holder()
        holder.itself, holder.table = holder, np.zeros(1_000_000)
        freed = weakref.ref(holder)
        del holder
        assert freed() is not None           # a cycle: reference counting alone keeps it
        give_back_memory()
        assert freed() is None
    finally:
        if enabled:
            gc.enable()
