"""The fast paths compute the same numbers, bit for bit, as the plain definitions they replace:
the blocked vectorised processes against whole-array reference code (the implementation before
blocking), and EProcessSet (one update for several processes) against one EProcess per name."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from audit_core.sequential import PROCESS_NAMES, AuditParams, EProcessSet, log_evalues, make_process
from audit_core.sequential.checks import clip_bounds
from audit_core.sequential.likelihood import log_lr_coefficients
from audit_core.sequential.processes import PROCESS_SPECS, _fixed_alternative, _grid
from audit_core.sequential.weights import changepoint_log_weights


def reference_ewaf(y, grid, q, side, eta):
    """The whole-array forecaster (before blocking)."""
    successes = np.cumsum(y, axis=-1) - y
    failures = np.arange(y.shape[-1], dtype=float) - successes
    log_w = [eta * (successes * a + failures * c) for a, c in (log_lr_coefficients(g, q, side) for g in grid)]
    top = log_w[0].copy()
    for lw in log_w[1:]:
        np.maximum(top, lw, out=top)
    numerator, denominator = np.zeros_like(y), np.zeros_like(y)
    for g, lw in zip(grid, log_w, strict=True):
        w = np.exp(lw - top)
        numerator += w * g
        denominator += w
    return np.clip(numerator / denominator, *clip_bounds(q, side))


def reference_log_evalues(y, params, alternatives=None):
    """All six from the definitions, whole arrays (before blocking and the uniform-weight shortcut)."""
    out = {}
    for name, spec in PROCESS_SPECS.items():
        if spec.adaptive:
            gamma = reference_ewaf(y, _grid(spec, params), params.q, spec.side, params.eta)
            if alternatives is not None:
                gamma = np.where(np.isnan(alternatives), gamma, np.clip(alternatives, *clip_bounds(params.q, spec.side)))
            a, c = np.log(gamma / params.q), np.log((1 - gamma) / (1 - params.q))
        else:
            a, c = log_lr_coefficients(_fixed_alternative(spec, params), params.q, spec.side)
        log_l = y * a + (1.0 - y) * c
        if spec.starts_at_m:
            log_l = log_l.copy()
            log_l[..., : params.m - 1] = 0.0
            out[name] = np.cumsum(log_l, axis=-1)
            continue
        cumulative = np.cumsum(log_l, axis=-1)
        if spec.changepoint:
            log_w = changepoint_log_weights(log_l.shape[-1], params.weights, params.m)
            cumulative = cumulative + np.logaddexp.accumulate(log_w - (cumulative - log_l), axis=-1)
        out[name] = cumulative
    return out


@pytest.mark.parametrize("weights", ["uniform", "harmonic"])
@pytest.mark.parametrize("shape,kind", [((20_000,), "binary"), ((7, 3_001), "graded"), ((3,), "binary")])
def test_blocked_vectorised_processes_equal_the_whole_array_definitions(weights, shape, kind):
    params = replace(AuditParams.gpqa(), weights=weights)
    rng = np.random.default_rng(11)
    y = (rng.random(shape) < 0.8).astype(float) if kind == "binary" else rng.beta(5, 1, shape)
    alternatives = np.where(rng.random(shape) < 0.2, rng.random(shape), np.nan)
    for alt in (None, alternatives):
        fast, slow = log_evalues(y, params, alt), reference_log_evalues(y, params, alt)
        for name in PROCESS_NAMES:
            assert np.array_equal(fast[name], slow[name]), name


@pytest.mark.parametrize("kind,weights", [("binary", "uniform"), ("graded", "uniform"), ("binary", "harmonic"),
                                          ("graded", "harmonic")])
def test_process_set_equals_one_process_per_name(kind, weights):
    """EProcessSet's update (forecaster step, weighted mean and each process's advance written out
    in one loop) gives exactly the numbers of one EProcess per name, forecasts included."""
    params = AuditParams.sdoh(budget=10_000, weights=weights)
    rng = np.random.default_rng(5)
    y = (rng.random(3_000) < 0.75).astype(float) if kind == "binary" else rng.beta(3, 1, 3_000)
    alternatives = [float(v) if rng.random() < 0.3 else None for v in rng.random(3_000)]
    together = EProcessSet(params)
    alone = {name: make_process(name, params) for name in PROCESS_NAMES}
    for value, alt in zip(y, alternatives, strict=True):
        together.update(float(value), alt)
        for process in alone.values():
            process.update(float(value), alt)
        for name, process in alone.items():
            mine = together.processes[name]
            assert (mine.log_e, mine.stop, mine.t, mine.last_alternative, mine.next_alternative()) == (
                process.log_e, process.stop, process.t, process.last_alternative, process.next_alternative()), name
    assert together.t == 3_000 and math.isfinite(together.processes["SR-LR-UI"].log_e)
    subset = EProcessSet(params, names=("LR-UI", "AUD-LR"))
    subset.update(1)
    assert set(subset.processes) == {"LR-UI", "AUD-LR"} and "t=1" in repr(subset)


def test_subgroup_table_equals_one_proportion_per_subgroup():
    """subgroup_table computes each distinct score sequence (and level) once; every row must equal
    proportion() of that subgroup's own scores at its family-wise level: α/K over a declared
    family, its share by order of first appearance without one; every subgroup with the column's
    score type (graded here, so a subgroup of 0/1 scores is PrPl-EB too: issue 28 item 5)."""
    from audit_core.sequential.replay import proportion, spending_share, subgroup_table

    rng = np.random.default_rng(11)
    groups = rng.choice([f"g{i}" for i in range(300)], 900)
    scores = np.where(rng.random(900) < 0.3, rng.integers(0, 2, 900), rng.random(900).round(1))
    declared = sorted(set(groups)) + ["never labelled"]
    table = subgroup_table(scores, {"group": groups}, confidence=0.9, family_level=0.05, family=declared)
    k = len(declared)
    assert len(table) == k - 1
    for row in table.itertuples(index=False):
        direct = proportion(scores[groups == row.group], (row.group,), 0.9, 0.05 / k, "graded").to_dict()
        assert {c: getattr(row, c) for c in direct} == direct
    spent = subgroup_table(scores, {"group": groups}, confidence=0.9, family_level=0.05)
    rank = {g: j for j, g in enumerate(dict.fromkeys(groups), start=1)}  # order of first appearance
    for row in spent.itertuples(index=False):
        share = 0.05 * spending_share(rank[row.group])
        direct = proportion(scores[groups == row.group], (row.group,), 0.9, share, "graded").to_dict()
        assert {c: getattr(row, c) for c in direct} == direct
