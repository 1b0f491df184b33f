"""Every ``st.cache_*`` wrapper of the dashboard, keyed by one content key per source.

Sources (parsed input files), the lattice of a class, the explorer's view of a support and replays
of a run are cached with ``cache_resource``: they are frozen objects the engine never changes, and an upload is parsed
(and replayed with given choices) once however many pages and sessions use it. Other analyses (engine
result + tables + charts + report section) are cached with ``cache_data``, which hands every
session its own copy, so nothing one session holds can change what another sees. Every cache is
bounded in entries and in time, so big uploads leave memory after their sessions close.
Arguments starting with ``_`` are not hashed: each wrapper is keyed by the source's content key
plus plain values.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
from collections.abc import Sequence

import streamlit as st
from streamlit.runtime.scriptrunner import add_script_run_ctx

from audit_core import analyses
from audit_core.analyses import Source
from audit_core.errors import InputError
from pages import _runs
from pages._page_config import give_back_memory

SOURCE_ENTRIES, ANALYSIS_ENTRIES, TTL = 16, 64, 3600
# Replays are shared objects of up to ~50 MB each (a 50 MB upload: ~200 MB): a few at once. A page
# whose replay was dropped computes it again from the session's own file.
REPLAY_ENTRIES = 4


# Reading or replaying a large upload holds ~30x the file while it runs (Python strings of every
# cell, the typed table, six log E arrays). Scripts run in threads that share one GIL, so two such
# jobs at once finish no sooner than one after the other, but hold twice the memory, and what
# they free interleaved is harder to give back: large jobs take turns, then return freed memory.
LARGE_BYTES, LARGE_ROWS = 2 * 2**20, 100_000
_LARGE_JOB = threading.Lock()


@contextlib.contextmanager
def one_large_job(large: bool):
    if not large:
        yield
        return
    with _LARGE_JOB:
        try:
            yield
        finally:
            give_back_memory()


@st.cache_resource(show_spinner=False, max_entries=SOURCE_ENTRIES, ttl=TTL)
def source(kind: str, key: str, _data: bytes | str | None, name: str | None, policy_key: str = "",
           _policy: Source | None = None, edited_from: str | None = None) -> Source:
    """The source of ``kind`` whose content key is ``key`` (bundled when ``_data`` is None or a
    bundled key). ``policy_key``/``_policy``: the policy class that lays out a response log;
    ``edited_from``: a class edited here, from the class of that name."""
    if kind == "policy_class":
        return analyses.policy_source(_data, name, edited_from=edited_from)
    if kind == "response_log":
        return analyses.response_log_source(_data, None if isinstance(_data, list) else name, policy=_policy)
    if kind == "run":
        size = sum(len(d) for _, d in _data) if isinstance(_data, list) else len(_data) if isinstance(_data, bytes) else 0
        with one_large_job(size > LARGE_BYTES):
            # several uploaded runs ((name, bytes) pairs) are read with their own names
            return analyses.run_source(_data, None if isinstance(_data, list) else name)
    if kind == "pool":
        return analyses.pool_source(_data)
    raise ValueError(f"unknown source kind {kind!r}")


@st.cache_resource(show_spinner=False, max_entries=ANALYSIS_ENTRIES, ttl=TTL)
def support_lattice(policy_key: str, estimand: str, _policy: Source):
    return analyses.support_lattice(_policy, estimand)


# One shared object per support (not cache_data's copy per session and rerun: unpickling the view
# was a third of a toggle's rerun). The view is frozen and the explorer only reads it.
@st.cache_resource(show_spinner=False, max_entries=512, ttl=TTL)
def explore_support(policy_key: str, components: tuple[str, ...], estimand: str,
                    cells: tuple[str, ...] | None, _policy: Source):
    try:
        lattice = support_lattice(policy_key, estimand, _policy)
    except InputError:  # too many components for a lattice: explained without it (lattice_note)
        lattice = None
    return analyses.explore_support(_policy, components, estimand, cells, lattice_result=lattice)


_WARMED: set[str] = set()
_WARM_LOCK = threading.Lock()


def warm_supports(policy: Source, estimand: str) -> None:
    """Once per server process, compute the explorer's analysis of every support of a bundled
    class in a background thread, into the shared cache above: the same for every visitor, so a
    toggle on the bundled class never waits for its charts (a miss cost ~0.3 s of CPU, more on a
    busy server). Uploaded classes are not warmed (their owner pays for what they explore)."""
    if not policy.bundled:
        return
    key = f"{policy.key}|{estimand}"
    with _WARM_LOCK:
        if key in _WARMED:
            return
        _WARMED.add(key)
    names = policy.value.component_names

    def run() -> None:
        for size in range(len(names), -1, -1):  # the supports next to the full one first
            for combo in itertools.combinations(names, size):
                _runs.wait_until_idle()  # visitors' pages first (pages/_runs.py)
                try:
                    explore_support(policy.key, combo, estimand, None, policy)
                except Exception:  # noqa: BLE001  (a warm-up never fails a page: the toggle computes it)
                    return
        # The first page needed no solver (stored suggestions); Minimal supports does: load it now.
        _runs.wait_until_idle()
        analyses.load_solver()

    thread = threading.Thread(target=run, name="warm-supports", daemon=True)
    add_script_run_ctx(thread)  # the cache expects a script context; nothing is sent from it
    thread.start()


@st.cache_data(show_spinner=False, max_entries=ANALYSIS_ENTRIES, ttl=TTL)
def check_supports(policy_key: str, estimand: str, cost: tuple[tuple[str, float], ...],
                   must_include: tuple[str, ...], exclude: tuple[str, ...], time_limit: float, _policy: Source):
    return analyses.check_supports(_policy, estimand, dict(cost) or None, must_include, exclude,
                                   time_limit=time_limit)


@st.cache_data(show_spinner=False, max_entries=ANALYSIS_ENTRIES, ttl=TTL)
def measure_log(log_key: str, n_boot: int, seed: int, confidence: float, interval: str, _log: Source):
    return analyses.measure_log(_log, n_boot=n_boot, seed=seed, confidence=confidence, interval=interval)


@st.cache_resource(show_spinner=False, max_entries=REPLAY_ENTRIES, ttl=TTL)
def replay_run(run_key: str, score: str, subgroups: tuple[str, ...] | None, order: str | bool | None, params_key: str,
               model_process: str, auditor_process: str, score_mapping: tuple[tuple[str, float], ...],
               drop_missing: bool, _run: Source, _params):
    # The page names the roles: () = no subgroups (None: a log's reader detects them), False = file order (None: a log's own order).
    # One object for every session replaying the same file with the same choices (the key is the
    # file's content key, so only a session holding those bytes reaches it): a 525,000-row replay is
    # ~40 MB, and cache_data kept a pickled copy (56 MB) plus one unpickled per session and rerun.
    # Built whole before it is shared (with_views: charts and tables are otherwise built lazily),
    # then without its typed table's rows (nothing shown needs them); nothing on a page changes it.
    with one_large_job(not _run.bundled and _run.value.rows > LARGE_ROWS):
        return analyses.replay_run(_run, score=score, subgroups=subgroups, order=order, params=_params,
                                   model_process=model_process, auditor_process=auditor_process,
                                   score_mapping=dict(score_mapping) or None,
                                   drop_missing=drop_missing).with_views().without_table()


def replay_section(*args):
    """The report section of :func:`replay_run` with these arguments (the Report page's way back
    to a replay the session does not keep)."""
    return replay_run(*args).section


@st.cache_data(show_spinner=False, max_entries=ANALYSIS_ENTRIES, ttl=TTL)
def missing_score_count(run_key: str, column: str, _run: Source) -> int:
    return analyses.missing_score_count(_run, column)


@st.cache_data(show_spinner=False, max_entries=ANALYSIS_ENTRIES, ttl=TTL)
def score_labels(run_key: str, column: str, _run: Source):
    return analyses.score_labels(_run, column)


def simulate_study(pool: Source, rows: Sequence[tuple[str, str]], replicates: int, params, seed: int,
                   mode: str, progress) -> analyses.StudySimulation:
    """Not cached: a study runs when its button is pressed and the page keeps the result."""
    return analyses.simulate_study(pool, rows, replicates, params, seed, mode=mode, progress=progress)


@st.cache_data(show_spinner=False, max_entries=ANALYSIS_ENTRIES, ttl=TTL)
def compare_runs(keys: tuple[str, ...], score: str | None, subgroups: tuple[str, ...] | None, params_key: str,
                 confidence: float, margin: float, budget: int | None, pair: tuple[int, int],
                 _sources: tuple[Source, ...], _params):
    """Runs given as one source (a long table with a run column) or two or more."""
    return analyses.compare_runs(_sources[0], _sources[1] if len(_sources) > 1 else None, score=score,
                                 subgroups=subgroups, params=_params, confidence=confidence, margin=margin,
                                 budget=budget, others=_sources[2:], pair=pair)


def plan_study(pool: Source, strategy: str, process: str, params, replicates: int, seed: int, progress):
    """Not cached: a plan runs when its button is pressed and the page keeps the result."""
    return analyses.plan_study(pool, strategy, process, params, replicates, seed, progress=progress)


@st.cache_data(show_spinner=False, max_entries=ANALYSIS_ENTRIES, ttl=TTL)
def generate_testbed(n_clusters: int, seed: int, directions: tuple[str, ...], depth: int, distractors: int):
    return analyses.generate_testbed(n_clusters, seed, directions or None, depth, distractors)


@st.cache_data(show_spinner=False, max_entries=ANALYSIS_ENTRIES, ttl=TTL)
def check_testbed(key: str, _data: bytes, name: str):
    return analyses.check_testbed(_data, name)
