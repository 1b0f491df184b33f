"""Study runner: seeding, parallel == serial, summaries; the paper's qualitative claims."""

import math

import numpy as np
import pandas as pd
import pytest

from audit_core.auditing import (
    PAPER_ROWS,
    AuditorConfig,
    load_pool,
    paper_params,
    replicate_seeds,
    run_paper_studies,
    run_study,
    sampling_frequency_vs_accuracy,
)
from audit_core.errors import InputError
from audit_core.sequential import AuditParams, wilson_interval

GPQA = AuditParams.gpqa(n_init=2)


@pytest.fixture(scope="module")
def pools():
    return {key: load_pool(key) for key in ("gpqa:large", "gpqa:medium", "gpqa:small", "gpqa:none", "sdoh")}


def _row(study, strategy, process):
    s = study.summary
    return s[(s["strategy"] == strategy) & (s["process"] == process)].iloc[0]


def test_seeds_are_fixed_per_replicate_and_row():
    a, b = replicate_seeds(5, 3, ("adaptive", "SR-LR-UI"))
    assert a.spawn_key == (3, 0) and b.spawn_key[:2] == (3, 1)
    again = replicate_seeds(5, 3, ("adaptive", "SR-LR-UI"))[1]
    assert np.random.default_rng(again).random() == np.random.default_rng(b).random()
    other = replicate_seeds(5, 3, ("adaptive", "LR-UI"))[1]
    assert other.spawn_key != b.spawn_key


def test_a_row_alone_equals_the_same_row_inside_the_paper_rows(pools):
    """The strategy seed follows the row's name, not its position in the study."""
    params = GPQA.replace(budget=60)
    alone = run_study(pools["gpqa:medium"], [("adaptive", "SR-LR-UI")], 4, params, seed=3, jobs=1)
    inside = run_study(pools["gpqa:medium"], list(PAPER_ROWS), 4, params, seed=3, jobs=1)
    cols = ["replicate", "decision", "n_annotated", "cases"]
    a = alone.results[cols].reset_index(drop=True)
    b = inside.results[(inside.results["strategy"] == "adaptive") & (inside.results["process"] == "SR-LR-UI")]
    pd.testing.assert_frame_equal(a, b[cols].reset_index(drop=True))


def test_parallel_equals_serial_and_same_seed_same_table(pools):
    rows = (("stratified", "LR"), ("adaptive", "SR-LR-UI"), ("pre-learned", "LR"))
    calls = []
    serial = run_study(pools["gpqa:small"], rows, 6, GPQA.replace(budget=60), seed=7, jobs=1,
                       progress=lambda d, t: calls.append((d, t)))
    parallel = run_study(pools["gpqa:small"], rows, 6, GPQA.replace(budget=60), seed=7, jobs=2)
    again = run_study(pools["gpqa:small"], rows, 6, GPQA.replace(budget=60), seed=7, jobs=1)
    cols = ["row", "replicate", "decision", "stop", "n_annotated"]
    assert serial.results[cols].equals(parallel.results[cols]) and serial.results[cols].equals(again.results[cols])
    assert all(a.tolist() == b.tolist() for a, b in zip(serial.results["cases"], parallel.results["cases"], strict=False))
    assert serial.summary.drop(columns="seconds_per_audit").equals(parallel.summary.drop(columns="seconds_per_audit"))
    assert calls[-1] == (18, 18) and len(calls) == 18
    other = run_study(pools["gpqa:small"], rows, 6, GPQA.replace(budget=60), seed=8, jobs=1)
    assert not other.results[cols].equals(serial.results[cols])


def test_summary_rates_intervals_and_json(pools):
    study = run_study(pools["gpqa:large"], PAPER_ROWS, 5, GPQA, seed=1, jobs=1)
    s = study.summary
    np.testing.assert_allclose(s["failure_found"] + s["passed"] + s["inconclusive"], 1.0)
    for _, r in s.iterrows():
        k = round(r["failure_found"] * r["replicates"])
        assert (r["failure_found_low"], r["failure_found_high"]) == pytest.approx(wilson_interval(k, 5))
        assert r["stop_q25"] <= r["stop_median"] <= r["stop_q75"]
    payload = study.to_dict()
    keys = {"strategy", "process", "failure_found", "passed", "inconclusive", "stop_median", "stop_q25",
            "stop_q75", "replicates"}
    assert len(payload["rows"]) == 7 and all(keys <= set(r) for r in payload["rows"])
    assert len(study.results) == 35 and set(study.results["replicate"]) == set(range(5))


def test_bad_rows_and_replicates(pools):
    with pytest.raises(InputError, match="strategy"):
        run_study(pools["gpqa:large"], (("lucky", "LR"),), 2, GPQA)
    with pytest.raises(InputError, match="replicates"):
        run_study(pools["gpqa:large"], PAPER_ROWS, 0, GPQA)
    with pytest.raises(InputError, match="suspect"):
        run_study(pools["gpqa:large"], (("informed", "LR"),), 2, GPQA, config=AuditorConfig(suspects=("Nope",)))


@pytest.mark.slow
def test_none_setting_no_row_reports_a_failure_beyond_alpha(pools):
    """Model's null true (seeded, 7 rows x 40 audits). Each row: failure found <= alpha + 3 SE (a
    gross excess in one row). All 280 audits together: at most 20 false rejections, which a true
    rate of alpha = 0.05 in every row passes with probability 0.956 and the named alternative 2 alpha
    = 0.10 (on average over the rows) fails with probability 0.937 (binomial tails, asserted); the
    adaptive rows mostly pass the audit."""
    from scipy.stats import binom
    replicates, alpha, limit = 40, 0.05, 20
    audits = replicates * len(PAPER_ROWS)
    assert binom.cdf(limit, audits, alpha) > 0.95 and binom.sf(limit, audits, 2 * alpha) > 0.93
    study = run_study(pools["gpqa:none"], PAPER_ROWS, replicates, GPQA, seed=11, jobs=2)
    bound = alpha + 3 * math.sqrt(alpha * (1 - alpha) / replicates)
    assert (study.summary["failure_found"] <= bound).all()
    assert round(float(study.summary["failure_found"].sum()) * replicates) <= limit
    adaptive = study.summary[study.summary["strategy"] == "adaptive"]
    assert (adaptive["passed"] >= 0.8).all()


@pytest.mark.slow
def test_large_adaptive_sr_lr_ui_finds_the_failure_and_oracle_is_fastest(pools):
    study = run_study(pools["gpqa:large"], PAPER_ROWS, 100, GPQA, seed=12, jobs=2)
    sr = _row(study, "adaptive", "SR-LR-UI")
    assert sr["failure_found"] >= 0.95 and sr["replicates"] == 100
    oracle = _row(study, "oracle", "LR")
    assert oracle["stop_median"] == study.summary["stop_median"].min()
    assert sr["stop_median"] < _row(study, "stratified", "LR")["stop_median"]


@pytest.mark.slow
@pytest.mark.parametrize("setting", ["small", "medium"])
def test_adaptive_sr_lr_ui_power_at_least_the_fixed_strategies(pools, setting):
    rows = (("stratified", "LR"), ("pre-learned", "LR"), ("adaptive", "LR"), ("adaptive", "SR-LR-UI"))
    replicates = 30
    study = run_study(pools[f"gpqa:{setting}"], rows, replicates, GPQA, seed=13, jobs=2)
    sr = _row(study, "adaptive", "SR-LR-UI")["failure_found"]
    se = math.sqrt(0.25 / replicates)
    for strategy, process in rows[:3]:
        assert sr >= _row(study, strategy, process)["failure_found"] - 2 * se


def test_sdoh_sampling_frequency_falls_with_category_accuracy(pools):
    pool = pools["sdoh"]
    study = run_study(pool, (("adaptive", "SR-LR-UI"),), 12, AuditParams.sdoh(), seed=3, jobs=2)
    table, rho = sampling_frequency_vs_accuracy(study, pool)
    assert len(table) == 28 and table["annotated"].sum() == study.results["n_annotated"].sum()
    assert rho < -0.4
    worst = table.iloc[:5]["frequency"].mean()
    best = table.iloc[-10:]["frequency"].mean()
    assert worst > 2 * best


def test_paper_studies_over_settings_and_paper_params():
    assert paper_params("gpqa").n_init == 2 and paper_params("gpqa").budget == 250 and paper_params("gpqa").q == 0.85
    sdoh = paper_params("sdoh")
    assert (sdoh.q, sdoh.budget, sdoh.n_init, sdoh.m) == (0.83, 400, 20, 40)
    calls = []
    studies = run_paper_studies(("gpqa:large", "gpqa:none"), replicates=2, seed=3, jobs=1, budget=50,
                                progress=lambda d, t: calls.append((d, t)))
    assert list(studies) == ["gpqa:large", "gpqa:none"] and calls[-1] == (28, 28)
    assert [d for d, _ in calls] == list(range(1, 29))
    assert all(s.params.budget == 50 and len(s.summary) == 7 for s in studies.values())
