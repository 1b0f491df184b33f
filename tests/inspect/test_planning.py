"""Planning an Inspect run that stops itself (issue 31, "Plan the saving"): the samples it needs,
equal to the simulated runs by definition, with quantile intervals that hold, on every front end."""

import json

import numpy as np
import pytest

import audit_core
from audit_core import analyses
from audit_core.analyses.plan import _quantile_interval
from audit_core.cli import main
from audit_core.errors import InputError
from audit_core.inspect import early_stopping
from audit_core.inspect.simulation import simulate_run

SIZES = [100, 100, 100]


def _assumed(seed=0):
    return analyses.assumed_pool_source(SIZES, 0.3, 0.95, 1, seed=seed, style="gpqa")


def test_the_plan_is_the_simulated_runs_one_by_one():
    source = _assumed()
    planned = analyses.plan_inspect_run(source, per_subgroup=True, precision=0.15, runs=12, seed=4)
    pool = source.value
    names = [{"subgroup": str(pool.stratum_names[s])} for s in pool.strata]
    for r in range(12):   # run r by hand: its own generator, a fresh order, a fresh manager
        rng = np.random.default_rng([4, r])
        order = rng.permutation(pool.n)
        record = simulate_run(early_stopping(subgroups="subgroup", precision=0.15, style="gpqa"),
                              pool.accuracy[order], rng, metadata=[names[i] for i in order])
        assert planned.samples_run[r] == record["run"] and planned.samples_used[r] == record["used"]
    table = planned.summary_table.set_index("quantity")
    assert table.loc["samples run, median", "value"] == np.quantile(planned.samples_run, 0.5, method="inverted_cdf")
    assert table.loc["samples run, 90th percentile", "value"] == np.quantile(planned.samples_run, 0.9,
                                                                              method="inverted_cdf")
    assert planned.stopped_early == sum(r < pool.n for r in planned.samples_run)
    # a subgroup at 0.3 next to two at 0.95 is answered long before 100 samples each
    assert planned.stopped_early == 12 and table.loc["samples run, median", "value"] < pool.n
    assert "9 in 10 runs end by themselves" in planned.verdict.text


def test_a_question_the_run_cannot_answer_runs_every_sample():
    """The whole run's dual test at accuracy near q: few runs decide, and the plan says a budget
    would cut them short."""
    source = analyses.assumed_pool_source([100, 100], 0.78, 0.9, 1, seed=0, style="gpqa")
    planned = analyses.plan_inspect_run(source, runs=10, seed=1)
    assert np.median(planned.samples_run) == 200
    assert "fewer than 9 in 10 end by themselves" in planned.verdict.text
    assert sum(planned.decisions.values()) == 10


def test_the_quantile_interval_covers_the_true_quantile():
    """Seeded Monte Carlo of the distribution-free interval on a skewed distribution with a known
    quantile (geometric, p = 0.02: median 34, 90th percentile 114): 2,000 samples of 100 runs each;
    coverage must be at least 0.95 up to its binomial error. Against a named alternative: an
    interval of only the middle half of the ranks would cover about 0.68 of the time, far below."""
    from scipy.stats import binom, geom

    rng = np.random.default_rng(7)
    trials = 2000
    for level in (0.5, 0.9):
        truth = geom.ppf(level, 0.02)
        hits = 0
        for _ in range(trials):
            _, low, high = _quantile_interval(rng.geometric(0.02, 100), level)
            hits += low <= truth <= high
        floor = binom.ppf(0.001, trials, 0.95) / trials     # what a true 0.95 falls below once in 1,000
        assert hits / trials >= floor, (level, hits / trials)


def test_every_front_end_gives_the_same_plan(capsys):
    from tests.app.test_pages import app, metric

    assert main(["plan", "--early-stopping", "--pool", "gpqa:large", "--replicates", "20", "--json"]) == 0
    from_cli = json.loads(capsys.readouterr().out)
    from_api = audit_core.plan_early_stopping("gpqa:large", replicates=20).to_dict()
    assert from_cli == from_api
    at = app("pages/audit-planner.py")
    at = at.radio(key="plan_mode").set_value("inspect-run").run()
    at.number_input(key="plan_run_runs").set_value(20)
    next(b for b in at.button if b.label == "Plan the run").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    page = at.session_state["plan_run_result"].to_dict()
    assert page == from_api
    median = from_api["quantities"][0]["value"]
    assert metric(at, "Samples run, median") == f"{median:,.0f}"
    assert main(["plan", "--early-stopping", "--pool", "gpqa:large", "--replicates", "20"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if "samples run, median" in x)
    assert line.split()[3] == f"{median:,.0f}"


@pytest.mark.parametrize("argv, message", [
    (["--budget", "40"], "--budget: only for a labelling audit"),
    (["--precision", "2"], "precision must be a number strictly between 0 and 1"),
    (["--no-dual"], "no rule"),
])
def test_bad_settings_are_one_message(capsys, argv, message):
    assert main(["plan", "--early-stopping", "--pool", "sdoh", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_python_checks_its_arguments():
    with pytest.raises(InputError, match="either a pool or assumed subgroup sizes"):
        audit_core.plan_early_stopping()
    with pytest.raises(InputError, match="concurrency"):
        audit_core.plan_early_stopping("sdoh", concurrency=0)
