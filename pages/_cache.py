"""Every ``st.cache_*`` wrapper of the dashboard, keyed by one content key per source.

Sources (parsed input files), the lattice of a class, the explorer's view of a support and replays
of a run are cached with ``cache_resource``: they are frozen objects the engine never changes, and an upload is parsed
(and replayed with given choices) once however many pages and sessions use it. Other analyses (engine
result + tables + charts + report section) are cached with ``cache_data``, which hands every
session its own copy, so nothing one session holds can change what another sees. Every cache is
bounded in entries and in time, so big uploads leave memory after their sessions close.
Every input is one argument: a :class:`~audit_core.analyses.Source` or an
:class:`~audit_core.sequential.params.AuditParams` is hashed by its content hash (``HASH_FUNCS``),
so no key travels beside its object and a wrong key cannot serve another input's result. Only the
bytes an upload is read from are not hashed on every call (``_data``, 0.15 s for 50 MB): ``source``
is keyed by their content key, computed once from those bytes when the upload is accepted.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
from collections.abc import Sequence

import streamlit as st
from streamlit.runtime.scriptrunner import add_script_run_ctx

from audit_core import analyses
from audit_core.analyses import AuditParams, Source
from audit_core.errors import InputError
from pages import _runs
from pages._page_config import give_back_memory

SOURCE_ENTRIES, ANALYSIS_ENTRIES, TTL = 16, 64, 3600
# Replays are shared objects of up to ~50 MB each (a 50 MB upload: ~200 MB): a few at once. A page
# whose replay was dropped computes it again from the session's own file.
REPLAY_ENTRIES = 4
# A source or parameter set is hashed by its content (the source's content key, name and origin;
# every field of the parameters), not by pickling its engine object.
HASH_FUNCS = {Source: Source.content_hash, AuditParams: AuditParams.content_hash}


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


@st.cache_resource(show_spinner=False, max_entries=SOURCE_ENTRIES, ttl=TTL, hash_funcs=HASH_FUNCS)
def source(kind: str, key: str, _data: bytes | str | None, name: str | None, policy: Source | None = None,  # noqa: ARG001
           edited_from: str | None = None) -> Source:   # key: what Streamlit hashes in place of _data's bytes
    """The source of ``kind`` read from ``_data`` whose content key is ``key`` (bundled when
    ``_data`` is None or a bundled key). ``policy``: the policy class that lays out a response log;
    ``edited_from``: a class edited here, from the class of that name."""
    if kind == "policy_class":
        return analyses.policy_source(_data, name, edited_from=edited_from)
    if kind == "response_log":
        return analyses.response_log_source(_data, None if isinstance(_data, list) else name, policy=policy)
    if kind == "run":
        size = sum(len(d) for _, d in _data) if isinstance(_data, list) else len(_data) if isinstance(_data, bytes) else 0
        with one_large_job(size > LARGE_BYTES):
            # several uploaded runs ((name, bytes) pairs) are read with their own names
            return analyses.run_source(_data, None if isinstance(_data, list) else name)
    if kind == "pool":
        return analyses.pool_source(_data)
    raise ValueError(f"unknown source kind {kind!r}")


@st.cache_resource(show_spinner=False, max_entries=ANALYSIS_ENTRIES, ttl=TTL, hash_funcs=HASH_FUNCS)
def support_lattice(policy: Source, estimand: str):
    return analyses.support_lattice(policy, estimand)


# One shared object per support (not cache_data's copy per session and rerun: unpickling the view
# was a third of a toggle's rerun). The view is frozen and the explorer only reads it.
@st.cache_resource(show_spinner=False, max_entries=512, ttl=TTL, hash_funcs=HASH_FUNCS)
def explore_support(policy: Source, components: tuple[str, ...], estimand: str, cells: tuple[str, ...] | None):
    try:
        lattice = support_lattice(policy, estimand)
    except InputError:  # too many components for a lattice: explained without it (lattice_note)
        lattice = None
    return analyses.explore_support(policy, components, estimand, cells, lattice_result=lattice)


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
                    explore_support(policy, combo, estimand, None)
                except Exception:  # noqa: BLE001  (a warm-up never fails a page: the toggle computes it)
                    return
        # The first page needed no solver (its results kept on disk); Minimal supports does: load it now.
        _runs.wait_until_idle()
        analyses.load_solver()

    thread = threading.Thread(target=run, name="warm-supports", daemon=True)
    add_script_run_ctx(thread)  # the cache expects a script context; nothing is sent from it
    thread.start()


@st.cache_data(show_spinner=False, max_entries=ANALYSIS_ENTRIES, ttl=TTL, hash_funcs=HASH_FUNCS)
def check_supports(policy: Source, estimand: str, cost: tuple[tuple[str, float], ...],
                   must_include: tuple[str, ...], exclude: tuple[str, ...], time_limit: float):
    return analyses.check_supports(policy, estimand, dict(cost) or None, must_include, exclude,
                                   time_limit=time_limit)


@st.cache_data(show_spinner=False, max_entries=ANALYSIS_ENTRIES, ttl=TTL, hash_funcs=HASH_FUNCS)
def measure_log(log: Source, bootstrap: int, seed: int, confidence: float, interval: str):
    return analyses.measure_log(log, bootstrap=bootstrap, seed=seed, confidence=confidence, interval=interval)


@st.cache_resource(show_spinner=False, max_entries=REPLAY_ENTRIES, ttl=TTL, hash_funcs=HASH_FUNCS)
def replay_run(run: Source, score: str, subgroups: tuple[str, ...] | None, order: str | bool | None,
               model_process: str, auditor_process: str, score_mapping: tuple[tuple[str, float], ...],
               drop_missing: bool, planned_n: int | None, params: AuditParams):
    # The page names the roles: () = no subgroups (None: a log's reader detects them), False = file order (None: a log's own order).
    # One object for every session replaying the same file with the same choices (the key is the
    # file's content hash, so only a session holding those bytes reaches it): a 525,000-row replay is
    # ~40 MB, and cache_data kept a pickled copy (56 MB) plus one unpickled per session and rerun.
    # Built whole before it is shared (with_views: charts and tables are otherwise built lazily),
    # then without its typed table's rows (nothing shown needs them); nothing on a page changes it.
    with one_large_job(not run.bundled and run.value.rows > LARGE_ROWS):
        return analyses.replay_run(run, score=score, subgroups=subgroups, order=order, params=params,
                                   model_process=model_process, auditor_process=auditor_process,
                                   score_mapping=dict(score_mapping) or None,
                                   drop_missing=drop_missing, planned_n=planned_n).with_views().without_table()


def replay_section(*args):
    """The report section of :func:`replay_run` with these arguments (the Report page's way back
    to a replay the session does not keep)."""
    return replay_run(*args).section


@st.cache_data(show_spinner=False, max_entries=ANALYSIS_ENTRIES, ttl=TTL, hash_funcs=HASH_FUNCS)
def missing_score_count(run: Source, column: str) -> int:
    return analyses.missing_score_count(run, column)


@st.cache_data(show_spinner=False, max_entries=ANALYSIS_ENTRIES, ttl=TTL, hash_funcs=HASH_FUNCS)
def score_labels(run: Source, column: str):
    return analyses.score_labels(run, column)


def simulate_study(pool: Source, rows: Sequence[tuple[str, str]], replicates: int, params, seed: int,
                   mode: str, progress) -> analyses.StudySimulation:
    """Not cached: a study runs when its button is pressed and the page keeps the result."""
    return analyses.simulate_study(pool, rows, replicates, params, seed, mode=mode, progress=progress)


@st.cache_data(show_spinner=False, max_entries=ANALYSIS_ENTRIES, ttl=TTL, hash_funcs=HASH_FUNCS)
def compare_runs(sources: tuple[Source, ...], score: str | None, subgroups: tuple[str, ...] | None,
                 confidence: float, margin: float, budget: int | None, pair: tuple[int, int], params: AuditParams):
    """Runs given as one source (a long table with a run column) or two or more."""
    return analyses.compare_runs(sources[0], sources[1] if len(sources) > 1 else None, score=score,
                                 subgroups=subgroups, params=params, confidence=confidence, margin=margin,
                                 budget=budget, others=sources[2:], pair=pair)


def plan_study(pool: Source, strategy: str, process: str, params, replicates: int, seed: int, progress):
    """Not cached: a plan runs when its button is pressed and the page keeps the result."""
    return analyses.plan_study(pool, strategy, process, params, replicates, seed, progress=progress)


@st.cache_data(show_spinner=False, max_entries=ANALYSIS_ENTRIES, ttl=TTL)
def generate_testbed(n_clusters: int, seed: int, directions: tuple[str, ...], depth: int, distractors: int,
                     support: str | None = None):
    return analyses.generate_testbed(n_clusters, seed, directions or None, depth, distractors, support=support)


@st.cache_data(show_spinner=False, max_entries=ANALYSIS_ENTRIES, ttl=TTL)
def check_testbed(key: str, _data: bytes, name: str):  # noqa: ARG001 (Streamlit hashes key, the bytes' content key)
    return analyses.check_testbed(_data, name)
