"""The workbench in Python: one call per thing a user does, in the command line's vocabulary.

Each call takes what the matching command takes (file paths, bundled names such as ``"sdoh"`` or
``"gpqa:small"``, and here also pandas data frames and bytes), calls the use case of
:mod:`audit_core.analyses` that the dashboard page and the command call, and returns its frozen
result. A result shows itself in a notebook (verdict, key table, chart), has ``.tables`` and
``.to_frame()`` for pandas, ``.chart()`` for Altair and ``.to_dict()``, the document the command
prints with ``--json``. Bad input raises :class:`~audit_core.errors.InputError` with one message
naming the argument.

=====================  ==========================================  ====================
command                 Python                                      result
=====================  ==========================================  ====================
identify                :func:`identify_support`                    SupportExploration
lattice                 :func:`support_lattice`                     LatticeOverview
synthesize              :func:`synthesize`                          SupportSearch
testbed generate/check  :func:`generate_testbed`, :func:`check_testbed`  TestbedItems, TestbedCheck
measure                 :func:`measure_log`                         LogMeasurement
replay                  :func:`replay`                              RunReplay
(none)                  :func:`confidence_sequence`                 SubgroupSequences
simulate                :func:`simulate`                            StudySimulation
plan                    :func:`plan`                                PlannedAudit
plan --early-stopping   :func:`plan_early_stopping`                 PlannedRun
compare                 :func:`compare`                             RunsComparison
combine                 :func:`combine`                             CombinedAudits
audit new/next/...      :func:`audit_new`, :func:`audit_next`, ...  LiveAction
audit agreement         :func:`audit_agreement`                     LiveAgreement
audit adjudicate        :func:`audit_adjudicate`                    Adjudicated
audit trail             :func:`audit_trail`                         DataFrame
report                  :func:`write_report`                        WrittenReport
=====================  ==========================================  ====================

Nothing heavy is imported until a call needs it, so ``import audit_core`` stays instant.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from audit_core.data.files import writable_target, write_file
from audit_core.errors import InputError

if TYPE_CHECKING:  # the result types, for readers and type checkers only
    import pandas as pd

    from audit_core.analyses import (
        CombinedAudits,
        LogMeasurement,
        PlannedAudit,
        PlannedRun,
        RunReplay,
        RunsComparison,
        Source,
        StudySimulation,
        SubgroupSequences,
        SupportSearch,
        TestbedCheck,
        TestbedItems,
    )
    from audit_core.analyses.identify import LatticeOverview, SupportExploration
    from audit_core.analyses.live_agreement import Adjudicated, LiveAgreement
    from audit_core.analyses.live_status import LiveAction

__all__ = [
    "identify_support", "support_lattice", "synthesize", "generate_testbed", "check_testbed", "measure_log",
    "replay", "confidence_sequence", "simulate", "plan", "plan_early_stopping", "compare", "combine", "audit_new", "audit_next", "audit_label", "audit_skip",
    "audit_undo", "audit_status", "audit_list", "audit_export", "audit_copy", "audit_agreement", "audit_adjudicate",
    "audit_trail", "write_report", "WrittenReport",
]

DATA_FRAME_NAME = "data frame.csv"  # the name a data frame's results show (give ``name=`` to change it)


# ------------------------------------------------------------------------------ argument types

_WHOLE, _REAL, _TEXT = ("int", "int | None"), ("float", "float | None"), ("str", "str | None")
_WHOLE_LISTS = ("Sequence[int] | None",)
_REAL_LISTS = ("Sequence[float] | None",)


def _type_error(name: str, expected: str, value: Any) -> InputError:
    return InputError(f"{name}: expected {expected}, got {type(value).__name__} {value!r}"[:200])


def _check_argument(name: str, annotation: str, value: Any) -> None:
    """Refuse a value of the wrong kind for a simple annotation (whole number, real number, text,
    a list of numbers) with an :class:`InputError` naming the argument; ranges are checked by the
    call itself."""
    import math
    import numbers
    if value is None:
        return
    if annotation in _WHOLE:
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise _type_error(name, "a whole number", value)
        if name == "seed" and value < 0:
            raise InputError(f"seed: must be 0 or more, got {value}")
    elif annotation in _REAL:
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
            raise _type_error(name, "a finite number", value)
    elif annotation in _TEXT:
        if not isinstance(value, str):
            raise _type_error(name, "text", value)
    elif annotation in _WHOLE_LISTS + _REAL_LISTS:
        kind = numbers.Integral if annotation in _WHOLE_LISTS else numbers.Real
        if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable) or any(
                isinstance(v, bool) or not isinstance(v, kind) for v in value):
            raise _type_error(name, "a list of whole numbers" if kind is numbers.Integral else "a list of numbers",
                              value)


def _checked(call: Callable) -> Callable:
    """Check the simple arguments of a public call against its annotations before it runs."""
    import functools
    import inspect
    signature = inspect.signature(call)

    @functools.wraps(call)
    def checked(*args, **kwargs):
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise InputError(f"{call.__name__}: {exc}") from None
        for name, value in bound.arguments.items():
            annotation = signature.parameters[name].annotation
            if isinstance(annotation, str) and name != "case_id":  # a case id may be given as a number
                _check_argument(name, annotation, value)
        return call(*args, **kwargs)
    return checked


# ------------------------------------------------------------------------------ inputs

def _names(value: str | Iterable[str] | None, what: str = "names") -> list[str] | None:
    """``"a,b"`` or ``["a", "b"]`` -> ``["a", "b"]``; ``"none"``/``"base"``/``""`` -> ``[]``.
    Anything else (a number, a mapping) is refused naming the argument ``what``."""
    if value is None:
        return None
    if isinstance(value, str):
        if value.strip().lower() in ("", "none", "base"):
            return []
        value = value.split(",")
    if isinstance(value, (Mapping, bytes)) or not isinstance(value, Iterable):
        raise InputError(f"{what}: expected a name, names separated by commas or a list of names, got "
                         f"{type(value).__name__} {value!r}"[:200])
    names = []
    for v in value:
        if not isinstance(v, str):
            raise InputError(f"{what}: expected names (text), got {type(v).__name__} {v!r}"[:200])
        if v.strip():
            names.append(v.strip())
    return names


def _cost(cost: Mapping[str, float] | str | None) -> dict[str, float] | None:
    """``{"generated": 1, "scoring": 3}`` or ``"generated=1,scoring=3"`` (as the command line's
    ``--cost``) -> a dict of numbers."""
    if cost is None or (isinstance(cost, str) and not cost.strip()):
        return None
    if isinstance(cost, str):
        pairs = []
        for part in cost.split(","):
            key, sep, value = part.partition("=")
            if not sep or not key.strip():
                raise InputError(f"cost: expected KEY=NUMBER pairs separated by commas, got {part.strip()!r}")
            pairs.append((key.strip(), value.strip()))
    elif isinstance(cost, Mapping):
        pairs = list(cost.items())
    else:
        raise InputError(f"cost: expected a mapping such as {{'scoring': 3}} or 'scoring=3', got {type(cost).__name__}")
    out: dict[str, float] = {}
    for key, value in pairs:
        try:
            if isinstance(value, bool):
                raise TypeError
            out[str(key)] = float(value)
        except (TypeError, ValueError):
            raise InputError(f"cost: {key}={value!r} is not a number") from None
    return out


def _data(value: Any, name: str | None) -> tuple[Any, str | None]:
    """A data frame becomes CSV bytes (named ``name`` or :data:`DATA_FRAME_NAME`); paths, bytes and
    bundled names pass as they are."""
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - pandas is a dependency
        return value, name
    if isinstance(value, pd.DataFrame):
        buffer = io.StringIO()
        value.to_csv(buffer, index=False)
        return buffer.getvalue().encode("utf-8"), name or DATA_FRAME_NAME
    if isinstance(value, Path):
        return str(value), name
    return value, name


def _is_source(value: Any) -> bool:
    from audit_core.analyses import Source
    return isinstance(value, Source)


def _policy(policies: Any) -> Source:
    from audit_core import analyses
    if policies is None or _is_source(policies):
        return policies if policies is not None else analyses.policy_source(None)
    data, name = _data(policies, None)
    return analyses.policy_source(data, name)


def _run(run: Any, name: str | None = None, check: bool = False, labels: Sequence[str] | None = None) -> Source:
    from audit_core import analyses
    if _is_source(run):
        if labels is not None:
            raise InputError("labels: give them with the files (run_source), not with a source already read")
        return run
    if isinstance(run, (list, tuple)):
        return analyses.run_source([str(p) for p in run], name=name, check=check, labels=labels)
    if labels is not None:
        raise InputError("labels: several runs need several files; one file is one run")
    data, name = _data(run, name)
    if not isinstance(data, (str, bytes)):
        raise InputError(f"run: expected a file path, a bundled name ({', '.join(_bundled())}), bytes or a data "
                         f"frame, got {type(run).__name__}")
    return analyses.run_source(data, name=name, check=check)


def _bundled() -> tuple[str, ...]:
    from audit_core.data.bundled import BUNDLED
    return tuple(BUNDLED)


def _at_least_one(name: str, value: int) -> None:
    if value < 1:
        raise InputError(f"{name}: must be at least 1, got {value}")


def _params(style: str | None, own: str | None, **overrides):
    """The parameters of a call: :func:`audit_core.presets.resolve_style` (the user's style, else
    the data's own, else the default) with the overrides, as every front end builds them."""
    from audit_core.presets import resolve_style
    from audit_core.sequential.params import audit_params
    return audit_params(resolve_style(style, own), **overrides)


# ------------------------------------------------------------------------------ identifiability

@_checked
def identify_support(components: str | Sequence[str] | None = None, *, cells: str | Sequence[str] | None = None,
                     estimand: str = "tau_full", policies: Any = None, suggest: bool = True) -> SupportExploration:
    """Is the estimand τ point-identified on a support? (paper 000, Theorem 1)

    τ is identified on a support exactly when no two policies of the class with different τ answer
    every observed cell alike (a cross-estimand collision).

    Parameters
    ----------
    components : support components, e.g. ``"target,sham"`` or ``["target", "sham"]``; None means
        all; ``"none"`` or ``[]`` the base cells only.
    cells : explicit cell ids instead of components.
    estimand : ``tau_full`` (default) or another of :data:`audit_core.analyses.ESTIMANDS`.
    policies : policy-class file (JSON or long CSV) as a path, bytes or data frame; default the
        frozen seven-policy class.
    suggest : also find the cheapest identifying support inside the support, or the cheapest cells
        to add when τ is not identified (CP-SAT, a few seconds at most).

    Returns
    -------
    SupportExploration : ``verdict``, ``identification`` (classes, collisions), ``class_table``,
        ``collision_table``, ``lattice_chart``; ``to_dict()`` is ``identify --json``.

    Example
    -------
    >>> import audit_core
    >>> result = audit_core.identify_support("target,sham")
    >>> result.identification.identified
    False
    """
    from audit_core import analyses
    return analyses.explore_support(_policy(policies), _names(components, "components"), estimand,
                                    cells=_names(cells, "cells") if cells is not None else None, suggest=suggest)


@_checked
def support_lattice(policies: Any = None, *, estimand: str = "tau_full") -> LatticeOverview:
    """Every subset of the class's components with its classes and collisions, and the leave-one-out
    witnesses from the full support (paper 000, section 4).

    Returns a ``LatticeOverview``: ``supports_table``, ``leave_one_out_table``, ``lattice_chart``
    (Hasse diagram), ``verdict``; ``to_dict()`` is ``lattice --json``.

    Example
    -------
    >>> import audit_core
    >>> len(audit_core.support_lattice().supports_table)
    16
    """
    from audit_core import analyses
    return analyses.lattice_overview(_policy(policies), estimand)


@_checked
def synthesize(policies: Any = None, *, estimand: str = "tau_full", cost: Mapping[str, float] | str | None = None,
               include: str | Sequence[str] = (), exclude: str | Sequence[str] = (), all: bool = False,
               time_limit: float = 10.0) -> SupportSearch:
    """The cheapest sets of cells that identify τ: a weighted minimum hitting set over the pairs of
    policies with different τ, solved with OR-Tools CP-SAT; every optimum is re-checked with
    ``identify``.

    Parameters
    ----------
    cost : cost per axis value or per cell id, e.g. ``{"generated": 1, "scoring": 3}`` or, as the
        command line's ``--cost``, ``"generated=1,scoring=3"`` (default 1 per cell).
    include, exclude : cells the support must contain / must not contain.
    all : list every optimal support, not only one.
    time_limit : seconds for the whole search.

    Returns a ``SupportSearch``: ``synthesis`` (status, cost, lower bound, supports), ``optima_table``,
    ``frequency_chart``, ``verdict``; ``to_dict()`` is ``synthesize --json``.

    Example
    -------
    >>> import audit_core
    >>> audit_core.synthesize(cost={"generated": 1, "scoring": 3}).synthesis.status
    'OPTIMAL'
    """
    from audit_core import analyses
    if not time_limit > 0:  # also refuses nan
        raise InputError("time_limit: must be a positive number of seconds")
    return analyses.check_supports(_policy(policies), estimand, cost=_cost(cost),
                                   must_include=_names(include, "include") or (),
                                   exclude=_names(exclude, "exclude") or (),
                                   enumerate_all=all, time_limit=time_limit)


@_checked
def generate_testbed(clusters: int, *, seed: int = 0, directions: str | Sequence[str] | None = None,
                     depth: int | None = None, distractors: int | None = None,
                     vocabulary: str | Sequence[str] | None = None, out: str | Path | None = None,
                     inspect: str | Path | None = None, inspect_task: str | Path | None = None,
                     lmeval_task: str | Path | None = None, support: str | Sequence[str] | None = None,
                     cost: Mapping[str, float] | str | None = None) -> TestbedItems:
    """Solver-grounded testbed items: ``clusters`` seeded signed-Horn clusters, one item per cell (36
    per cluster), each label re-derived by the three-valued solver.

    ``out`` writes the items (JSON lines), ``inspect`` the same items as Inspect AI samples;
    ``inspect_task`` (a ``.py`` file) an Inspect AI task runnable as ``inspect eval task.py --model ...``
    with its samples beside it, ``lmeval_task`` (a folder) an lm-eval task folder for
    ``lm_eval --tasks testbed --include_path DIR --log_samples``; ``measure_log`` reads the logs they write.
    ``support``: the cells to make items for (cell ids, ``"cheapest"``: the synthesis's cheapest
    identifying support of the frozen class under ``cost``, default all 36); ``manifest.json``
    beside the task files (and ``<out>.manifest.json`` beside the items) records it.
    Returns ``TestbedItems`` (``items``, ``jsonl``, ``inspect_jsonl``, ``summary_table``, ``verdict``,
    ``task_files`` written).

    Example
    -------
    >>> import audit_core
    >>> len(audit_core.generate_testbed(2, seed=0).items)
    72
    """
    from audit_core import analyses
    from audit_core.testbed import GeneratorParams
    view = analyses.generate_testbed(clusters, seed, _names(directions, "directions"),
                                     GeneratorParams.depth if depth is None else depth,
                                     GeneratorParams.distractors if distractors is None else distractors,
                                     _names(vocabulary, "vocabulary"), support=support, cost=_cost(cost))
    manifest = analyses.testbed_manifest_text(view)
    outputs = [(out, view.jsonl, "items file"), (inspect, view.inspect_jsonl, "samples file")]
    if out is not None:
        outputs.append((Path(out).with_suffix(".manifest.json"), manifest, "manifest file"))
    for path, text, what in outputs:
        if path is not None:  # whole or not at all, also on Ctrl-C
            write_file(path, text.encode("utf-8"), what)
    from dataclasses import replace

    from audit_core.testbed.tasks import write_files
    if inspect_task is not None and not str(inspect_task).endswith(".py"):
        raise InputError(f"inspect_task: give a Python file name ending in .py, got {str(inspect_task)!r}")
    written: list[str] = []
    for name, target, folder, files in (
            ("inspect_task", inspect_task, Path(str(inspect_task or ".")).parent, view.inspect_task),
            ("lmeval_task", lmeval_task, Path(str(lmeval_task or ".")), view.lmeval_task)):
        if target is None:
            continue
        try:
            written += [str(p) for p in write_files(files(str(target)), folder)]
        except OSError as exc:
            raise InputError(f"{name}: cannot write ({exc.strerror or exc})") from None
    return replace(view, task_files=tuple(written)) if written else view


@_checked
def check_testbed(items: str | Path | bytes) -> TestbedCheck:
    """Re-derive every label and every edit's effect of an items file (path, bytes or JSONL text).
    Returns ``TestbedCheck`` (``report.ok``, ``mismatch_table``, ``verdict``); ``to_dict()`` is
    ``testbed check --json``.

    Example
    -------
    >>> import audit_core
    >>> audit_core.check_testbed(audit_core.generate_testbed(1).jsonl).report.ok
    True
    """
    from audit_core import analyses
    if isinstance(items, str) and "\n" not in items:
        items = Path(items)
    return analyses.check_testbed(items)


# ------------------------------------------------------------------------------ measurement

@_checked
def measure_log(log: Any = "example", *, policies: Any = None, bootstrap: int = 2000, seed: int = 0,
                confidence: float = 0.95, name: str | None = None,
                labels: Sequence[str] | None = None) -> LogMeasurement:
    """Estimand-separated rates of a response log (paper 000, section 6): base accuracy,
    target-follow and sham-stay given base-correct, local response, τ_full, readout validity, the
    behavioural composition and the invariance results, with Wilson and cluster-bootstrap intervals.

    Parameters
    ----------
    log : a response-log CSV (path, bytes or data frame with ``model, cluster, cell, response`` and
        ``oracle``) or ``"example"``, the bundled synthetic log.
    policies : the policy class whose axes define the cells (default the frozen 36 cells).
    bootstrap, seed : cluster-bootstrap replicates (0: Wilson intervals only) and seed; confidence : interval level.
    labels : with several evaluation logs (a list, or a folder of Inspect logs), one model name per log
        (default each log's model; two logs naming the same model get their file names added).

    Returns ``LogMeasurement``: ``estimates_table``, ``composition_table``, ``estimates_chart``,
    ``verdict``; ``to_dict()`` is ``measure --json``.

    Example
    -------
    >>> import audit_core
    >>> audit_core.measure_log("example", bootstrap=200).verdict.tone
    'neutral'
    """
    from audit_core import analyses
    if not 0.0 < confidence < 1.0:
        raise InputError(f"confidence: must lie strictly between 0 and 1, got {confidence}")
    layout = _policy(policies) if policies is not None else None
    if _is_source(log):
        source = log
    else:
        data, name = _data(log, name)
        source = analyses.response_log_source(None if data == "example" else data, name, policy=layout,
                                              labels=None if labels is None else list(labels))
    return analyses.measure_log(source, bootstrap=bootstrap, seed=seed, confidence=confidence)


# ------------------------------------------------------------------------------ adaptive audits

@_checked
def replay(run: Any, *, score: str | None = None, subgroup: str | Sequence[str] | None = None,
           order: str | None = None, file_order: bool = False, filter: str | None = None,
           score_mapping: Mapping[str, float] | None = None, style: str | None = None, q: float | None = None,
           alpha: float | None = None, m: int | None = None, delta: float | None = None,
           delta_aud: float | None = None, eta: float | None = None, weights: str | None = None,
           grid_mod: Sequence[float] | None = None, grid_aud: Sequence[float] | None = None,
           model_process: str | None = None, auditor_process: str | None = None,
           name: str | None = None, drop_missing: bool = False, labels: Sequence[str] | None = None,
           planned_n: int | None = None) -> RunReplay:
    """Replay a recorded annotation run through the six e-processes and the dual test (paper 001).

    The model's null (every subgroup at or above q) is rejected when the model's e-process reaches
    1/α (failure mode found); the auditor's null (its strategy would find a subgroup below q by
    step m) when the auditor's does (audit passed). Type-I error is at most α under adaptive
    sampling and optional stopping.

    Parameters
    ----------
    run : a labelled CSV, an Inspect AI log (``.eval``/``.json``), lm-eval samples file(s) or output
        folder, a bundled run (``"recorded_run"``, ``"sdoh"``, ``"gpqa:small"``, ...), bytes or a data frame.
    score : score column, Inspect scorer or lm-eval metric (detected when unambiguous).
    subgroup : subgroup column(s) or metadata key(s), ``"a,b"`` or a list; ``[]`` for none.
    order : annotation-order column (detected: ``order``, ``step``, ...); ``file_order=True`` ignores it.
    filter : the lm-eval filter when the samples have several.
    score_mapping : text labels of the score column to scores, e.g. ``{"pass": 1, "fail": 0}``.
    style : ``"gpqa"`` or ``"sdoh"`` parameter defaults (default the run's, else gpqa); ``q``,
        ``alpha``, ``m``, ``delta``, ``delta_aud``, ``eta``, ``weights``, ``grid_mod``, ``grid_aud``
        override them.
    model_process, auditor_process : the pair of the dual test (default SR-LR-UI and AUD-LR-UI).
    drop_missing : leave out the rows without a score (``warnings`` says how many); without it such
        rows are refused with one message saying how many.
    labels : with several runs (a list of files, or a folder of Inspect logs), one name per run for
        the ``run`` column (default the model and task of each log, or the file name).
    planned_n : the number of cases the audit planned, declared before the data (its budget): the
        overall anytime-valid interval of 0/1 scores is tuned to it, narrower up to it and valid
        at every n (docs/confidence_sequence.md, Widths). Default: untuned.

    Returns
    -------
    RunReplay : ``verdict``, ``result`` (every process's log E, stops, per-subgroup accuracy with
        Wilson and anytime-valid intervals), ``decision_table``, ``subgroup_table``,
        ``trajectory_chart``; ``to_dict()`` is ``replay --json``.

    Example
    -------
    >>> import audit_core
    >>> run = audit_core.replay("recorded_run")
    >>> run.result.dual.decision, run.result.dual.stop
    ('failure mode found', 53)
    """
    from audit_core import analyses
    from audit_core.presets import DEFAULT_AUDITOR_PROCESS, DEFAULT_MODEL_PROCESS
    if file_order and order:
        raise InputError("order: give either an order column or file_order=True, not both")
    if score_mapping is not None and (not isinstance(score_mapping, Mapping) or not all(
            isinstance(k, str) and isinstance(v, (int, float)) and not isinstance(v, bool)
            for k, v in score_mapping.items())):
        raise _type_error("score_mapping", "a mapping of labels to scores, e.g. {'pass': 1, 'fail': 0}", score_mapping)
    source = _run(run, name, labels=labels)
    params = _params(style, source.value.style, q=q, alpha=alpha, m=m, delta=delta, delta_aud=delta_aud, eta=eta,
                     weights=weights, grid_mod=None if grid_mod is None else tuple(grid_mod),
                     grid_aud=None if grid_aud is None else tuple(grid_aud))
    return analyses.replay_run(source, score=score, subgroups=_names(subgroup, "subgroup") if subgroup is not None else None,
                               order=False if file_order else order, params=params,
                               model_process=model_process or DEFAULT_MODEL_PROCESS,
                               auditor_process=auditor_process or DEFAULT_AUDITOR_PROCESS,
                               score_mapping=score_mapping, filter=filter, drop_missing=drop_missing,
                               planned_n=planned_n)


@_checked
def confidence_sequence(scores: Any, *, score: str | None = None, subgroup: str | Sequence[str] | None = None,
                        groups: Sequence[Any] | None = None, confidence: float = 0.95, method: str = "auto",
                        score_type: str | None = None, planned_n: int | None = None,
                        name: str | None = None) -> SubgroupSequences:
    """Anytime-valid confidence sequences of the mean score, overall and per subgroup: after every
    score t an interval [L_t, U_t] with P(mean in [L_t, U_t] for all t) ≥ ``confidence`` (Ville's
    inequality; the hedged beta mixture for 0/1 scores, PrPl-EB for graded ones, Waudby-Smith and
    Ramdas 2024; docs/confidence_sequence.md).

    Parameters
    ----------
    scores : scores in [0, 1] in the order they were collected (a list, array or Series), or a
        data frame with a ``score`` column (detected when unambiguous, as by :func:`replay`).
    subgroup : the frame's subgroup column(s) (several are crossed); groups : for scores given
        directly, one subgroup label per score.
    confidence : 1 − α of every interval (each subgroup's on its own); method : ``"auto"`` or one
        of :data:`audit_core.sequential.confseq.METHODS`.
    score_type : ``"binary"`` or ``"graded"``, declared before the data: what ``"auto"`` chooses by
        (None: the type of all the scores given, right for a recorded run; declare it for a stream).
    planned_n : the number of scores the audit plans (its budget), declared before the data: the
        overall interval is tuned to it, narrower up to planned_n and still valid after it.

    Returns ``SubgroupSequences``: ``table`` (``group, n, mean, cs_low, cs_high, method,
    empty_from``), ``sequences`` (every group's bounds after every score), ``trajectory_chart``,
    ``verdict``; ``to_dict()``, ``to_frame()``.

    Example
    -------
    >>> import audit_core
    >>> cs = audit_core.confidence_sequence([1, 1, 0, 1] * 50, groups=["a", "b"] * 100)
    >>> cs.to_frame()[["group", "n", "mean"]].values.tolist()
    [['(all)', 200, 0.75], ['a', 100, 0.5], ['b', 100, 1.0]]
    >>> bool(cs.to_frame()["cs_low"].iloc[0] < 0.75 < cs.to_frame()["cs_high"].iloc[0])
    True
    """
    import pandas as pd

    from audit_core import analyses
    if isinstance(scores, pd.DataFrame):
        if groups is not None:
            raise InputError("groups: give subgroup columns of the frame with subgroup=, not groups=")
        from audit_core.data.loader import detect_columns
        column = score or detect_columns(scores).score
        if column is None or column not in scores.columns:
            raise InputError(f"score: {'column ' + repr(column) + ' not found; ' if column else ''}name the score "
                             f"column (the frame has {', '.join(map(str, scores.columns[:10]))})")
        columns = _names(subgroup, "subgroup") or []
        missing = [c for c in columns if c not in scores.columns]
        if missing:
            raise InputError(f"subgroup: column {missing[0]!r} not found")
        return analyses.subgroup_sequences(scores[column].to_numpy(), scores[columns] if columns else None, confidence,
                                  method, name or str(column), score_type, planned_n)
    if score is not None or subgroup is not None:
        raise InputError("score, subgroup: name columns of a data frame; for scores given directly use groups=")
    if isinstance(scores, (str, bytes, Mapping)) or not isinstance(scores, Iterable):
        raise _type_error("scores", "a list of scores in [0, 1] or a data frame", scores)
    scores = list(scores) if not hasattr(scores, "__array__") else scores
    frame = None
    if groups is not None:
        if isinstance(groups, (str, bytes)) or not isinstance(groups, Iterable):
            raise _type_error("groups", "one subgroup label per score", groups)
        frame = pd.DataFrame({"group": list(groups)})
    return analyses.subgroup_sequences(scores, frame, confidence, method, name or "scores", score_type, planned_n)


def _pool(pool: Any, score=None, subgroup=None, features=None, suspect=None) -> Source:
    from audit_core import analyses
    if _is_source(pool):
        return pool
    data, _ = _data(pool, None)
    if not isinstance(data, (str, bytes)):
        raise InputError(f"pool: expected a bundled key ({', '.join(_bundled()[:5])}) or a file path, got "
                         f"{type(pool).__name__}")
    if isinstance(data, bytes):
        raise InputError("pool: give a bundled key (gpqa:large, ..., sdoh) or a file path")
    return analyses.pool_source(data, score=score, subgroups=_names(subgroup, "subgroup") if subgroup is not None else None,
                                features=_names(features, "features"), suspects=tuple(_names(suspect, "suspect") or ()) or None)


@_checked
def simulate(pool: Any, *, strategy: str | Sequence[str] | None = None, process: str | Sequence[str] | None = None,
             paper: bool = False, replicates: int = 20, seed: int = 0, mode: str = "power",
             style: str | None = None, q: float | None = None, alpha: float | None = None, m: int | None = None,
             budget: int | None = None, n_init: int | None = None, scenario: str = "pool",
             suspect: str | Sequence[str] | None = None, score: str | None = None,
             subgroup: str | Sequence[str] | None = None, features: str | Sequence[str] | None = None,
             jobs: int = 2, backend: str = "local", address: str | None = None,
             progress: Callable[[int, int], None] | None = None) -> StudySimulation:
    """Replicated audits of a pool (paper 001, section 5): for each (strategy, process) row, the share
    of audits that found the failure mode, passed or stayed inconclusive, and the stopping times.

    Parameters
    ----------
    pool : a bundled pool (``gpqa:large``, ``gpqa:medium``, ``gpqa:small``, ``gpqa:none``, ``sdoh``)
        or a labelled CSV path.
    strategy, process : one or several names (every combination); ``paper=True`` (or neither given)
        runs the paper's seven rows.
    mode : ``"power"`` or ``"null"`` (failing subgroups lifted to q: the observed Type-I error).
    replicates, seed : audits per row and the study seed (results are identical for one seed).
    jobs, backend, address : a local process pool, or Dask (``backend="dask"``; ``address`` of a cluster).

    Returns ``StudySimulation``: ``summary_table``, ``outcome_chart``, ``stop_chart``, ``verdict``;
    ``to_dict()`` is ``simulate --json``.

    Example
    -------
    >>> import audit_core
    >>> study = audit_core.simulate("gpqa:large", strategy="adaptive", process="SR-LR-UI", replicates=2, jobs=1)
    >>> study.summary_table[["method", "failure_found"]].values.tolist()
    [['adaptive · SR-LR-UI', 1.0]]
    """
    from audit_core import analyses
    from audit_core.auditing import STRATEGY_NAMES, AuditorConfig
    from audit_core.presets import DEFAULT_MODEL_PROCESS, paper_rows, resolve_style
    from audit_core.sequential import MODEL_PROCESSES
    from audit_core.sequential.params import paper_params
    strategies, processes = _choices(strategy, STRATEGY_NAMES, "strategy"), _choices(process, MODEL_PROCESSES, "process")
    _at_least_one("replicates", replicates)
    _at_least_one("jobs", jobs)
    suspects = tuple(_names(suspect, "suspect") or ()) or None
    source = _pool(pool, score, subgroup, features, suspect)
    chosen = resolve_style(style, source.value.style)
    if paper or (strategies is None and processes is None):
        rows = paper_rows(chosen)
    else:
        rows = tuple((s, p) for s in strategies or ["adaptive"] for p in processes or [DEFAULT_MODEL_PROCESS])
    params = paper_params(chosen, q=q, alpha=alpha, m=m, budget=budget, n_init=n_init)
    return analyses.simulate_study(source, rows, replicates, params, seed=seed, mode=mode, progress=progress,
                                   jobs=jobs, config=AuditorConfig(scenario=scenario, suspects=suspects),
                                   backend="dask" if address else backend, address=address)


def _choices(value: str | Sequence[str] | None, allowed: Sequence[str], what: str) -> list[str] | None:
    names = _names(value, what)
    if names is None:
        return None
    for name in names:
        if name not in allowed:
            raise InputError(f"{what}: expected one of {', '.join(allowed)}, got {name!r}")
    if not names:
        raise InputError(f"{what}: no name given")
    return names


@_checked
def plan(pool: Any = None, *, subgroups: Sequence[int] | None = None, failing: int = 1,
         failing_accuracy: float = 0.6, base_accuracy: float = 0.92, strategy: str = "adaptive",
         process: str | None = None, style: str | None = None, q: float | None = None, alpha: float | None = None,
         m: int | None = None, budget: int | None = None, n_init: int | None = None,
         budgets: Sequence[int] | None = None, no_failure_accuracy: float | None = None,
         suspect: str | Sequence[str] | None = None, replicates: int = 200, seed: int = 0, jobs: int = 2,
         backend: str = "local", address: str | None = None,
         progress: Callable[[int, int], None] | None = None) -> PlannedAudit:
    """Before any label: the chance of each decision by n labels, the median and 90th-percentile
    labels needed and P(pass) when nothing fails, each with its Monte Carlo interval, from audits
    simulated with and without the failure.

    Give either ``pool`` (a bundled key or a labelled CSV) or an assumed structure: ``subgroups``
    (sizes), ``failing`` subgroups (the first ones) at ``failing_accuracy``, the others at
    ``base_accuracy``.

    Returns ``PlannedAudit``: ``budget_table``, ``labels_table``, ``decisions_chart``, ``verdict``;
    ``to_dict()`` is ``plan --json``.

    Example
    -------
    >>> import audit_core
    >>> planned = audit_core.plan(subgroups=[120, 160, 168], failing_accuracy=0.6, replicates=50)
    >>> planned.verdict.tone, planned.plan.replicates
    ('neutral', 50)
    """
    from audit_core import analyses
    from audit_core.auditing import AuditorConfig
    from audit_core.presets import DEFAULT_MODEL_PROCESS, resolve_style
    from audit_core.sequential.params import paper_params
    if (pool is None) == (subgroups is None):
        raise InputError("plan: give either a pool or assumed subgroup sizes")
    _at_least_one("replicates", replicates)
    _at_least_one("jobs", jobs)
    suspects = tuple(_names(suspect, "suspect") or ()) or None
    if pool is not None:
        source = _pool(pool, suspect=suspect)
    else:
        source = analyses.assumed_pool_source(list(subgroups), failing_accuracy, base_accuracy, failing, seed=seed,
                                              style=resolve_style(style))
    chosen = resolve_style(style, source.value.style)
    params = paper_params(chosen, q=q, alpha=alpha, m=m, budget=budget, n_init=n_init)
    return analyses.plan_study(source, strategy, process or DEFAULT_MODEL_PROCESS, params, replicates, seed,
                               budgets, no_failure_accuracy, progress, jobs, AuditorConfig(suspects=suspects),
                               "dask" if address else backend, address)


@_checked
def plan_early_stopping(pool: Any = None, *, subgroups: Sequence[int] | None = None, failing: int = 1,
                        failing_accuracy: float = 0.6, base_accuracy: float = 0.92, per_subgroup: bool = False,
                        dual: bool | None = None, precision: float | None = None, threshold: float | None = None,
                        style: str | None = None, q: float | None = None, alpha: float | None = None,
                        replicates: int = 200, seed: int = 0, concurrency: int = 8,
                        progress: Callable[[int, int], None] | None = None) -> PlannedRun:
    """Before an Inspect run that stops itself (:func:`audit_core.inspect.early_stopping` with these
    rules): how many samples will it run? The median and 90th percentile over ``replicates``
    simulated runs (each case a sample, right with its accuracy, in a random order, ``concurrency``
    at once), with distribution-free intervals, the share of runs that end early and their decisions.

    Give either ``pool`` (a bundled key or a labelled CSV: its own scores, only the order varies) or
    an assumed structure (``subgroups`` sizes, ``failing`` of them at ``failing_accuracy``, the others
    at ``base_accuracy``). ``per_subgroup``: the rules per subgroup (metadata key ``subgroup``).

    Returns ``PlannedRun``: ``summary_table``, ``used_chart``, ``verdict``; ``to_dict()`` is
    ``plan --early-stopping --json``.

    Example
    -------
    >>> import audit_core
    >>> planned = audit_core.plan_early_stopping(subgroups=[100, 100], failing_accuracy=0.3, replicates=20)
    >>> planned.n_samples, planned.runs
    (200, 20)
    """
    from audit_core import analyses
    from audit_core.presets import resolve_style
    if (pool is None) == (subgroups is None):
        raise InputError("plan: give either a pool or assumed subgroup sizes")
    _at_least_one("replicates", replicates)
    _at_least_one("concurrency", concurrency)
    if pool is not None:
        source = _pool(pool)
    else:
        source = analyses.assumed_pool_source(list(subgroups), failing_accuracy, base_accuracy, failing, seed=seed,
                                              style=resolve_style(style))
    return analyses.plan_inspect_run(source, per_subgroup=per_subgroup, dual=dual, precision=precision,
                                     threshold=threshold, style=style, q=q, alpha=alpha, runs=replicates, seed=seed,
                                     concurrency=concurrency, progress=progress)


@_checked
def compare(*runs: Any, score: str | None = None, subgroup: str | Sequence[str] | None = None,
            id_column: str | None = None, names: Sequence[str] | None = None, confidence: float = 0.95,
            margin: float | None = None, budget: int | None = None, run_column: str | None = None,
            style: str | None = None, q: float | None = None, alpha: float | None = None, m: int | None = None,
            model_process: str | None = None, auditor_process: str | None = None) -> RunsComparison:
    """Runs of the same cases, case by case: is B better than A, or the same within a margin, and
    which of several runs are statistically tied? (docs/confidence_sequence.md, Comparing runs)

    Parameters
    ----------
    runs : A (the baseline), B, and any further runs: files (labelled CSVs, Inspect AI logs,
        lm-eval samples), data frames, bundled names; one long table with a ``run`` column
        (``run_column``) names each row's run; one folder of Inspect ``.eval`` logs is one run per log.
    margin : the pre-registered margin δ of B − A (default 0.02). budget : the planned number of
        paired cases (undecided at the budget is "inconclusive at the budget", before it "continue").
    confidence : 1 − α of every bound (the anytime-valid sequence, the fixed-n interval, the ranks).
    style : (and ``q``, ``alpha``, ``m``) the dual test run on each run alone: by default run A's
        own style (:func:`audit_core.presets.resolve_style`).

    Returns ``RunsComparison``: ``verdict`` (the decision sentence), ``decision``, ``tie_table``,
    ``pairs_table``, ``subgroup_table``, ``decisions_table``, ``changes_table``, ``trajectory_chart``,
    ``ranks_chart``, ``difference_chart``, ``fails(fail_on)``; ``to_dict()`` is ``compare --json``.

    Example
    -------
    >>> import audit_core
    >>> compared = audit_core.compare("gpqa:large", "gpqa:medium")
    >>> compared.decision, compared.comparison.n_common, compared.comparison.overall.regressions
    ('B better', 448, 36)
    """
    from audit_core import analyses
    from audit_core.presets import COMPARE_MARGIN, DEFAULT_AUDITOR_PROCESS, DEFAULT_MODEL_PROCESS, RUN_COLUMN
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not 0.0 < confidence < 1.0:
        raise InputError(f"confidence: must lie strictly between 0 and 1, got {confidence}")
    if not runs:
        raise InputError("runs: give two or more runs, or one table with a run column")
    runs = _expanded_log_folder(runs)
    sources = [_run(r) for r in runs]
    if names is not None and (isinstance(names, str) or not isinstance(names, Sequence)
                              or not all(isinstance(n, str) for n in names)):
        raise _type_error("names", "a list of labels, one per run", names)
    if names is None:
        names = [Path(str(r)).name if isinstance(r, (str, Path)) and not s.bundled else s.name
                 for r, s in zip(runs, sources, strict=True)] if len(sources) > 1 else None
    return analyses.compare_runs(sources[0], sources[1] if len(sources) > 1 else None, score=score,
                                 subgroups=_names(subgroup, "subgroup") if subgroup is not None else None,
                                 id=id_column, params=_params(style, sources[0].value.style, q=q, alpha=alpha, m=m),
                                 names=tuple(names) if names is not None else None, confidence=confidence,
                                 model_process=model_process or DEFAULT_MODEL_PROCESS,
                                 auditor_process=auditor_process or DEFAULT_AUDITOR_PROCESS,
                                 margin=COMPARE_MARGIN if margin is None else margin, budget=budget,
                                 others=tuple(sources[2:]), run_column=run_column or RUN_COLUMN)


def _expanded_log_folder(runs: Sequence[Any]) -> tuple[Any, ...]:
    """One folder holding Inspect ``.eval`` logs is one run per log (sorted by name); anything
    else is as given (an lm-eval output folder is one run)."""
    if len(runs) == 1 and isinstance(runs[0], (str, Path)) and Path(runs[0]).is_dir():
        logs = sorted(Path(runs[0]).glob("*.eval"))
        if logs:
            return tuple(str(p) for p in logs)
    return tuple(runs)


COMBINE_METHODS = ("both", "e-bh", "e-bonferroni")


@_checked
def combine(runs: Sequence[Any], *, level: float = 0.05, side: str = "model", at: str = "end", method: str = "both",
            score: str | None = None, style: str | None = None, q: float | None = None, alpha: float | None = None,
            m: int | None = None, model_process: str | None = None,
            auditor_process: str | None = None) -> CombinedAudits:
    """Several audits at once: e-BH (false discovery rate at ``level``) and e-Bonferroni (family-wise
    error at ``level``) over each audit's e-value (Wang & Ramdas 2022).

    Parameters
    ----------
    runs : files (``replay --json`` documents as ``.json``, labelled CSVs, logs or bundled runs,
        replayed here with the parameters of ``style``, else of each run's own style, overridden by
        ``q``/``alpha``/``m``; every file is read and checked for a run given twice before any
        replay), or results of :func:`replay` and their ``to_dict()``.
    side : ``"model"`` (a rejection is a failure mode found) or ``"auditor"`` (an audit passed).
    at : the e-value after the last case (``"end"``) or at the dual stop (``"stop"``).
    method : ``"both"``, ``"e-bh"`` or ``"e-bonferroni"``.

    Returns ``CombinedAudits`` (``table``, ``results``, ``verdict``); ``to_dict()`` is ``combine --json``.

    Example
    -------
    >>> import audit_core
    >>> audit_core.combine(["gpqa:large", "gpqa:none"]).to_dict()["methods"]["e-BH"]["n_rejected"]
    1
    """
    from audit_core import analyses
    from audit_core.presets import DEFAULT_AUDITOR_PROCESS, DEFAULT_MODEL_PROCESS
    from audit_core.sequential.multiple import E_BH, E_BONFERRONI, METHODS
    methods = {"both": METHODS, "e-bh": (E_BH,), "e-bonferroni": (E_BONFERRONI,)}
    if method not in methods:
        raise InputError(f"method: expected one of {', '.join(COMBINE_METHODS)}, got {method!r}")
    from audit_core.presets import MULTIPLE_SIDES, MULTIPLE_TIMES
    for argument, value, allowed in (("side", side, MULTIPLE_SIDES), ("at", at, MULTIPLE_TIMES)):
        if value not in allowed:
            raise InputError(f"{argument}: expected one of {', '.join(allowed)}, got {value!r}")
    if isinstance(runs, (str, bytes, Mapping)) or not isinstance(runs, Iterable):
        raise _type_error("runs", "a list of runs", runs)
    runs = list(runs)
    if all(isinstance(run, (str, Path)) for run in runs):
        return analyses.combine_files([str(r) for r in runs], level, side, at, methods[method], style=style, q=q,
                                      alpha=alpha, m=m, score=score,
                                      model_process=model_process or DEFAULT_MODEL_PROCESS,
                                      auditor_process=auditor_process or DEFAULT_AUDITOR_PROCESS)
    if len(runs) < 2:
        raise InputError("combine: give at least two runs")
    if not 0.0 < level < 1.0:
        raise InputError(f"level: must lie strictly between 0 and 1, got {level}")
    loaded: list[tuple[str, Any]] = []
    for index, run in enumerate(runs):
        if isinstance(run, dict):
            loaded.append((f"run {index + 1}", run))
        elif hasattr(run, "result") and hasattr(run, "source"):  # a replay result
            loaded.append((run.source.name, run.result))
        else:
            raise InputError(f"run {index + 1}: give files, replay results or their to_dict(), not a mix with "
                             f"{type(run).__name__}")
    if len({n for n, _ in loaded}) < len(loaded):
        raise InputError("combine: a run is given twice")
    try:
        return analyses.combine_audits(loaded, level, side, at, methods[method])
    except InputError as exc:
        raise InputError(f"combine: {exc}") from None


# ------------------------------------------------------------------------------ live audits

def _annotator(annotator: Any) -> Any:
    """Who acts, as the command line records it: a name given here is self-declared, none means the
    operating-system user; a signed-in identity (``live.Identity``) passes as it is."""
    from audit_core.analyses import live
    if annotator is None:
        return live.os_user()
    return live.declared(annotator) if isinstance(annotator, str) else annotator


@_checked
def audit_new(pool: Any, *, strategy: str = "adaptive", process: str = "SR-LR-UI", seed: int = 0,
              db: str | Path | None = None, style: str | None = None, score: str | None = None,
              subgroup: str | Sequence[str] | None = None, features: str | Sequence[str] | None = None,
              id: str | None = None, text: str | None = None, truth_column: str | None = None,
              suspect: str | Sequence[str] | None = None, q: float | None = None, alpha: float | None = None,
              m: int | None = None, budget: int | None = None, n_init: int | None = None, overlap: float = 0.0,
              labellers: int = 2, label_choice: str = "first") -> LiveAction:
    """Start a live audit in the workspace database ``db`` (default ``$AUDIT_HOME/audits.sqlite``)
    on a bundled pool key, a CSV or an Inspect AI log path. Every event (proposal, label, skip,
    undo) is stored in SQLite as it happens, so nothing is lost.

    Double labelling: a share ``overlap`` of cases (0-1, fixed by each case id before any label) is
    labelled by ``labellers`` distinct people; ``label_choice`` says which label the e-processes see:
    ``"first"`` (at once) or ``"adjudicated"`` (a case waits until its labels agree or an adjudicator
    settles it). See :func:`audit_agreement` and :func:`audit_adjudicate`.

    Returns a ``LiveAction``; ``.audit["audit_id"]`` names the audit for the other ``audit_*`` calls.

    Example
    -------
    >>> import audit_core, tempfile, pathlib
    >>> db = pathlib.Path(tempfile.mkdtemp()) / "audits.sqlite"
    >>> audit = audit_core.audit_new("sdoh", seed=7, db=db).audit["audit_id"]
    >>> case = audit_core.audit_next(audit, annotator="ana", db=db).cases[0].case_id
    >>> audit_core.audit_label(audit, case, 1, annotator="ana", db=db).status.n
    1
    """
    from audit_core.analyses import live
    from audit_core.auditing import AuditorConfig
    suspects = _names(suspect, "suspect")
    roles = {"score": score, "subgroups": _names(subgroup, "subgroup") or None, "features": _names(features, "features") or None,
             "id": id, "text": text, "suspects": suspects or None}
    data, name = _data(pool, None)
    content = None
    if isinstance(data, bytes):  # a data frame: stored in the workspace like an uploaded pool
        data, content = name, data
    return live.start_live_audit(data, strategy, process, seed, content=content, db=db, style=style,
                                 config=AuditorConfig(suspects=tuple(suspects)) if suspects else None, roles=roles,
                                 truth=truth_column, q=q, alpha=alpha, m=m, budget=budget, n_init=n_init,
                                 overlap=overlap, labellers=labellers, label_choice=label_choice)


@_checked
def audit_next(audit: int, *, batch: int = 1, annotator: Any = None, db: str | Path | None = None) -> LiveAction:
    """The annotator's pending cases, else ``batch`` new ones chosen by the audit's strategy.

    Returns a ``LiveAction`` whose ``cases`` are the claimed cases (``case_id``, subgroup, text,
    why it was chosen) and ``status`` where the audit stands; ``to_dict()`` is ``audit next --json``.

    Example
    -------
    >>> import audit_core, tempfile, pathlib
    >>> db = pathlib.Path(tempfile.mkdtemp()) / "audits.sqlite"
    >>> audit = audit_core.audit_new("sdoh", seed=7, db=db).audit["audit_id"]
    >>> len(audit_core.audit_next(audit, batch=2, annotator="ana", db=db).cases)
    2
    """
    from audit_core.analyses import live
    _at_least_one("batch", batch)
    return live.claim_cases(audit, _annotator(annotator), batch=batch, db=db)


@_checked
def audit_label(audit: int, case_id: str, score: float | str, *, annotator: Any = None,
                db: str | Path | None = None) -> LiveAction:
    """Record a label of a claimed case (1 correct, 0 incorrect, or a graded score in [0, 1]); both
    e-processes update at once and the label is in the database before this returns.

    Returns a ``LiveAction`` (``record`` the label, ``status`` after it, ``upcoming`` the next case);
    ``to_dict()`` is ``audit label --json``.

    Example
    -------
    >>> import audit_core, tempfile, pathlib
    >>> db = pathlib.Path(tempfile.mkdtemp()) / "audits.sqlite"
    >>> audit = audit_core.audit_new("sdoh", seed=7, db=db).audit["audit_id"]
    >>> case = audit_core.audit_next(audit, annotator="ana", db=db).cases[0].case_id
    >>> audit_core.audit_label(audit, case, 0, annotator="ana", db=db).status.n
    1
    """
    from audit_core.analyses import live
    return live.record_label(audit, str(case_id), score, _annotator(annotator), db=db)


@_checked
def audit_skip(audit: int, case_id: str, reason: str, *, annotator: Any = None,
               db: str | Path | None = None) -> LiveAction:
    """Skip a proposed case with a reason: no label, nothing learned by the strategy, nothing counted
    by the e-processes (the guarantee covers the pool only if skips do not depend on the answer).

    Returns a ``LiveAction``; ``to_dict()`` is ``audit skip --json``.

    Example
    -------
    >>> import audit_core, tempfile, pathlib
    >>> db = pathlib.Path(tempfile.mkdtemp()) / "audits.sqlite"
    >>> audit = audit_core.audit_new("sdoh", seed=7, db=db).audit["audit_id"]
    >>> case = audit_core.audit_next(audit, annotator="ana", db=db).cases[0].case_id
    >>> skipped = audit_core.audit_skip(audit, case, "unreadable", annotator="ana", db=db)
    >>> skipped.status.n, skipped.status.n_skipped
    (0, 1)
    """
    from audit_core.analyses import live
    return live.skip_case(audit, str(case_id), reason, _annotator(annotator), db=db)


@_checked
def audit_undo(audit: int, *, annotator: Any = None, db: str | Path | None = None) -> LiveAction:
    """Undo the last label or skip (only before the next case is proposed); the case is pending again.

    Returns a ``LiveAction`` whose ``record`` is what was undone; ``to_dict()`` is ``audit undo --json``.

    Example
    -------
    >>> import audit_core, tempfile, pathlib
    >>> db = pathlib.Path(tempfile.mkdtemp()) / "audits.sqlite"
    >>> audit = audit_core.audit_new("sdoh", seed=7, db=db).audit["audit_id"]
    >>> case = audit_core.audit_next(audit, annotator="ana", db=db).cases[0].case_id
    >>> _ = audit_core.audit_label(audit, case, 1, annotator="ana", db=db)
    >>> audit_core.audit_undo(audit, annotator="ana", db=db).status.n
    0
    """
    from audit_core.analyses import live
    return live.undo_last_label(audit, _annotator(annotator), db=db)


@_checked
def audit_status(audit: int, *, db: str | Path | None = None, verify: bool = False) -> LiveAction:
    """Where the audit stands: ``status`` has n, log E of both processes, the decision and its step.

    Read from the event log alone (no pool, no pandas: fast); ``verify=True`` replays the log through
    the strategy instead, checking every recorded proposal (as every label and ``next`` does).
    Returns a ``LiveAction``; ``{**status.to_dict(), "audit": audit}`` is ``audit status --json``.

    Example
    -------
    >>> import audit_core, tempfile, pathlib
    >>> db = pathlib.Path(tempfile.mkdtemp()) / "audits.sqlite"
    >>> audit = audit_core.audit_new("sdoh", seed=7, db=db).audit["audit_id"]
    >>> status = audit_core.audit_status(audit, db=db).status
    >>> status.decision, status.n
    ('inconclusive', 0)
    """
    from audit_core import analyses
    return analyses.live_audit_status(audit, db=db, verify=verify)


@_checked
def audit_list(*, db: str | Path | None = None) -> pd.DataFrame:
    """The audits of the workspace ``db``: returns a data frame with one row per audit (id, pool,
    strategy, process, seed, labels, skipped, created); ``audit list --json`` lists the same rows.

    Example
    -------
    >>> import audit_core, tempfile, pathlib
    >>> db = pathlib.Path(tempfile.mkdtemp()) / "audits.sqlite"
    >>> audit = audit_core.audit_new("sdoh", seed=7, db=db).audit["audit_id"]
    >>> audit_core.audit_list(db=db)["audit_id"].tolist()
    [1]
    """
    from audit_core.analyses import live
    return live.live_audit_list(db)


@_checked
def audit_export(audit: int, out: str | Path, *, db: str | Path | None = None):
    """Write the labelled cases of audit ``audit`` to ``out`` as a recorded-run CSV (what
    :func:`replay` reads); returns the export's summary (path, number of cases).

    Example
    -------
    >>> import audit_core, tempfile, pathlib
    >>> db = pathlib.Path(tempfile.mkdtemp()) / "audits.sqlite"
    >>> audit = audit_core.audit_new("sdoh", seed=7, db=db).audit["audit_id"]
    >>> case = audit_core.audit_next(audit, annotator="ana", db=db).cases[0].case_id
    >>> _ = audit_core.audit_label(audit, case, 1, annotator="ana", db=db)
    >>> out = db.parent / "run.csv"
    >>> _ = audit_core.audit_export(audit, out, db=db)
    >>> audit_core.replay(out).result.n
    1
    """
    from audit_core.analyses import live
    return live.export_live_file(audit, out, db=db)


@_checked
def audit_agreement(audit: int, *, db: str | Path | None = None, bootstrap: int = 1000, seed: int = 0,
                    confidence: float = 0.95) -> LiveAgreement:
    """How far the labellers of a double-labelled audit agree: percent agreement, Cohen's κ (two
    labellers) and Krippendorff's α (nominal for 0/1 labels, interval for graded ones), each with a
    bootstrap interval over cases (``bootstrap`` resamples from ``seed`` at ``confidence``), per audit and
    per subgroup; each labeller against the others; the disagreements and their settlements.

    Returns a ``LiveAgreement``; ``to_dict()`` is ``audit agreement --json``.

    Example
    -------
    >>> import audit_core, tempfile, pathlib
    >>> db = pathlib.Path(tempfile.mkdtemp()) / "audits.sqlite"
    >>> audit = audit_core.audit_new("sdoh", seed=7, db=db, overlap=1.0).audit["audit_id"]
    >>> case = audit_core.audit_next(audit, annotator="ana", db=db).cases[0].case_id
    >>> _ = audit_core.audit_label(audit, case, 1, annotator="ana", db=db)
    >>> audit_core.audit_next(audit, annotator="bo", db=db).cases[0].case_id == case
    True
    >>> _ = audit_core.audit_label(audit, case, 0, annotator="bo", db=db)
    >>> audit_core.audit_agreement(audit, db=db).to_dict()["disagreements"][0]["case_id"] == case
    True
    """
    from audit_core.analyses import live
    if bootstrap < 0:
        raise InputError(f"bootstrap: expected a whole number >= 0, got {bootstrap!r}")
    return live.live_agreement(audit, db=db, bootstrap=bootstrap, confidence=confidence, seed=seed)


@_checked
def audit_adjudicate(audit: int, case_id: str, score: float | str, reason: str, *, annotator: Any = None,
                     db: str | Path | None = None) -> Adjudicated:
    """Settle a disagreement: the label ``score`` of a double-labelled case whose labels differ, with
    ``reason``, recorded (append-only) under ``annotator`` (default the operating-system user). Under
    the label choice ``"adjudicated"`` it is the label the e-processes see.

    Returns an ``Adjudicated``; ``to_dict()`` is ``audit adjudicate --json``.

    Example
    -------
    >>> import audit_core, tempfile, pathlib
    >>> db = pathlib.Path(tempfile.mkdtemp()) / "audits.sqlite"
    >>> audit = audit_core.audit_new("sdoh", seed=7, db=db, overlap=1.0).audit["audit_id"]
    >>> case = audit_core.audit_next(audit, annotator="ana", db=db).cases[0].case_id
    >>> _ = audit_core.audit_label(audit, case, 1, annotator="ana", db=db)
    >>> _ = audit_core.audit_next(audit, annotator="bo", db=db)
    >>> _ = audit_core.audit_label(audit, case, 0, annotator="bo", db=db)
    >>> audit_core.audit_adjudicate(audit, case, 1, "the note says so", annotator="cy", db=db).score
    1.0
    """
    from audit_core.analyses import live
    return live.adjudicate_case(audit, str(case_id), score, reason, _annotator(annotator), db=db)


@_checked
def audit_trail(audit: int, *, db: str | Path | None = None) -> pd.DataFrame:
    """Every event of audit ``audit`` in order, undone ones included: started, proposed, labelled,
    further labels, skipped, undone, adjudicated (and where the dual test stopped), each with who
    (and whether they had signed in), when, the score and the reason. ``audit trail --out FILE``
    writes it as CSV or JSON.

    Example
    -------
    >>> import audit_core, tempfile, pathlib
    >>> db = pathlib.Path(tempfile.mkdtemp()) / "audits.sqlite"
    >>> audit = audit_core.audit_new("sdoh", seed=7, db=db).audit["audit_id"]
    >>> case = audit_core.audit_next(audit, annotator="ana", db=db).cases[0].case_id
    >>> _ = audit_core.audit_label(audit, case, 1, annotator="ana", db=db)
    >>> audit_core.audit_trail(audit, db=db)["kind"].tolist()
    ['started', 'proposed', 'labelled']
    """
    from audit_core.analyses import live
    return live.audit_trail(audit, db=db)


@_checked
def audit_copy(source: str | Path, target: str | Path, *, audits: Sequence[int] | None = None) -> list[dict]:
    """Copy audits (all, or the ids in ``audits``) with every event and their pools (checked
    against their SHA-256) from workspace ``source`` to ``target``: each a file path (SQLite) or a
    ``postgresql://`` URL. One row per audit: ``source_id``, ``target_id``, ``events`` and the
    ``decision`` of the copy's replay (the same as the source's).

    Example
    -------
    >>> import audit_core, tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> audit = audit_core.audit_new("sdoh", seed=7, db=folder / "a.sqlite").audit["audit_id"]
    >>> [row["events"] for row in audit_core.audit_copy(folder / "a.sqlite", folder / "b.sqlite")]
    [0]
    """
    from audit_core.analyses import live
    return live.copy_live_audits(source, target, None if audits is None else list(audits))


# ------------------------------------------------------------------------------ reports

REPORT_FORMATS = {".html": "html", ".htm": "html", ".md": "md", ".zip": "zip", ".json": "json", ".pdf": "pdf"}


@dataclass(frozen=True)
class WrittenReport:
    """A report written to ``out``: its ``format``, size in ``bytes``, section titles and creation time."""

    out: str
    format: str
    bytes: int
    sections: tuple[str, ...]
    created_utc: str

    def to_dict(self) -> dict:
        """The document ``report --json`` prints."""
        return {"out": self.out, "format": self.format, "bytes": self.bytes, "sections": list(self.sections),
                "created_utc": self.created_utc}

    def _repr_html_(self) -> str:
        from audit_core.report.safety import escape_html
        return (f"<p>Report written to <code>{escape_html(self.out)}</code> ({escape_html(self.format)}, "
                f"{self.bytes:,} bytes): {escape_html('; '.join(self.sections))}</p>")


def report_target(out: str | Path, format: str | None = None) -> tuple[Path, str]:
    """The report's path and format (from the suffix unless ``format`` is given), checked before any
    work: a known format, an existing folder, and a place a file may be written (not a folder, a
    device, a pipe or a system path)."""
    out = Path(out)
    fmt = format or REPORT_FORMATS.get(out.suffix.lower())
    if fmt not in set(REPORT_FORMATS.values()):
        raise InputError(f"out: {out}: unknown suffix {out.suffix!r}; use .html, .md, .zip, .json or .pdf "
                         "(or give the format)")
    if out.parent and not out.parent.exists():
        raise InputError(f"out: {out}: the folder {out.parent} does not exist")
    return writable_target(out, "out:"), fmt


@_checked
def write_report(out: str | Path, *results: Any, title: str = "Evaluation audit report",
                 format: str | None = None) -> WrittenReport:
    """Write the report sections of ``results`` (any results of this module, in order) to ``out``:
    PDF (typst), self-contained HTML, Markdown (``.md``, or ``.zip`` with chart images) or JSON,
    chosen by the suffix unless ``format`` is given. The file is written whole or not at all (a full
    disk leaves no truncated report).

    Returns a ``WrittenReport`` (path, format, size, section titles, creation time); ``to_dict()``
    is ``report --json``.

    Example
    -------
    >>> import audit_core
    >>> audit_core.write_report("report.html", audit_core.replay("recorded_run")).format
    'html'
    """
    from audit_core.report import Report, markdown_zip, render_html, render_json, render_markdown
    out, fmt = report_target(out, format)
    sections = []
    for result in results:
        section = getattr(result, "section", None)
        if section is None:
            raise InputError(f"write_report: {type(result).__name__} has no report section")
        sections.append(section)
    report = Report(title, tuple(sections))
    if fmt == "html":
        data = render_html(report).encode("utf-8")
    elif fmt == "md":
        data = render_markdown(report).encode("utf-8")
    elif fmt == "zip":
        data = markdown_zip(report)
    elif fmt == "pdf":
        from audit_core.report.pdf import render_pdf
        data = render_pdf(report)
    else:
        data = render_json(report).encode("utf-8")
    write_file(out, data, "out:")
    return WrittenReport(out=str(out), format=fmt, bytes=len(data), sections=tuple(s.title for s in sections),
                         created_utc=report.created.isoformat())
