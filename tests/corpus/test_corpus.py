"""The hostile-input corpus (issue 13): every file, through the CLI and through the analyses
functions, ends in a result or exactly one clear message; none raises anything else, runs past
TIME_CAP seconds or (in process) allocates more than MEMORY_CAP bytes at peak.

Small files are committed in tests/corpus/files; large ones come from tests/corpus/generate.py.
"""

from __future__ import annotations

import time
import tracemalloc
from pathlib import Path

import pytest

from audit_core import analyses
from audit_core.cli import main
from audit_core.errors import InputError
from tests.corpus.generate import write_all
from tests.load import busy_factor

FILES = Path(__file__).parent / "files"
TIME_CAP = 60.0           # seconds per input and path, under tracemalloc (which slows Python 2-3 x)
MEMORY_CAP = 600 * 2**20  # bytes of Python allocations at peak (tracemalloc)


def _kind(name: str) -> str:
    return name.split("_", 1)[0]


# A good run to combine a corpus file with (combine needs two).
PARTNER = Path(analyses.BUNDLED["recorded_run"].path)


def _cli_argv(kind: str, path: Path) -> list[str]:
    return {"run": ["replay", str(path), "--json"],
            "policy": ["identify", "--policies", str(path), "--json"],
            "log": ["measure", str(path), "--bootstrap", "20", "--json"],
            "combine": ["combine", str(path), str(PARTNER), "--json"],
            "testbed": ["testbed", "check", str(path)]}[kind]


def _analyses(kind: str, path: Path):
    if kind == "combine":
        return analyses.combine_files([str(path), str(PARTNER)])
    if kind == "testbed":
        return analyses.check_testbed(path.read_bytes(), path.name)
    if kind == "run":
        return analyses.replay_run(analyses.run_source(path, check=False))
    if kind == "policy":
        return analyses.explore_support(analyses.policy_source(path), suggest=False)
    return analyses.measure_log(analyses.response_log_source(path), bootstrap=20)


@pytest.fixture(scope="module")
def large(tmp_path_factory):
    return write_all(tmp_path_factory.mktemp("corpus"))


def _inputs():
    return sorted(p.name for p in FILES.iterdir())


def _bounded(call):
    tracemalloc.start()
    started = time.perf_counter()
    try:
        outcome = call()
    finally:
        elapsed = time.perf_counter() - started
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    cap = TIME_CAP * busy_factor()
    assert elapsed < cap, f"{elapsed:.1f} s (cap {cap:.0f} s at this machine's load)"
    assert peak < MEMORY_CAP, f"peak {peak / 2**20:.0f} MiB"
    return outcome


def _check_cli(path: Path, capsys):
    code = _bounded(lambda: main(_cli_argv(_kind(path.name), path)))
    captured = capsys.readouterr()
    assert code in (0, 1, 2)
    if code == 2:
        lines = captured.err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: ") and len(lines[0]) < 2000, captured.err[:500]
    else:
        assert captured.out.strip(), "a result is printed"
    assert "Traceback" not in captured.err


def _check_analyses(path: Path):
    try:
        result = _bounded(lambda: _analyses(_kind(path.name), path))
    except InputError as exc:
        message = str(exc)
        assert message and "\n" not in message and len(message) < 2000
        return
    assert result.verdict.text and len(result.verdict.text) < 2000
    assert all(len(note) < 2000 for note in getattr(result.section, "summary", ()))


@pytest.mark.parametrize("name", _inputs())
def test_small_file_through_cli_and_analyses(name, capsys):
    _check_cli(FILES / name, capsys)
    _check_analyses(FILES / name)


# log_own_clusters.csv (3,000 models on their own clusters) is measured by the engine in
# tests/measure/test_measure_large.py; through analyses.measure_log the per-model invariance
# bootstrap still takes minutes, so it is not in this timed corpus yet.
@pytest.mark.parametrize("name", ["run_many_subgroups.csv", "run_long.csv",
                                  "policy_139.json", "policy_13_components.json", "log_many_columns.csv"])
def test_large_file_through_cli_and_analyses(name, large, capsys):
    _check_cli(large[name], capsys)
    _check_analyses(large[name])


def test_report_of_hostile_names_in_every_format(tmp_path, capsys):
    for suffix in (".html", ".md", ".zip", ".json"):
        out = tmp_path / f"report{suffix}"
        # out=out binds this iteration's path (the lambda is called at once; the default only says so)
        code = _bounded(lambda out=out: main(["report", "--out", str(out), "--replay", str(FILES / "run_hostile_names.csv"),
                                      "--score", "score", "--subgroup", "subgroup", "--policies",
                                      str(FILES / "policy_markdown_name.csv")]))
        err = capsys.readouterr().err
        assert code == 0, err
        assert out.stat().st_size > 0
