"""One answer wherever it is asked (issue 29 item 1): every front end called with its defaults only
(no style, no parameters passed by hand), for every bundled run and pool, gives the same numbers:
the command line's ``--json``, the Python call's ``to_dict()``, the page (AppTest) and the report's
JSON. The parameter style comes from one resolver, :func:`audit_core.presets.resolve_style`."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

import audit_core
from audit_core.cli import main
from audit_core.data.bundled import BUNDLED
from audit_core.presets import BUNDLED_POOLS, resolve_style
from audit_core.report import format as fmt
from audit_core.sequential.params import audit_params, paper_params
from tests.api.test_api import cli_json, same
from tests.app.test_pages import APP, metric

RUNS = tuple(BUNDLED)  # every bundled run: sdoh, the four GPQA settings, the recorded run


def _report_section(capsys, tmp_path, *argv) -> dict:
    out = tmp_path / "report.json"
    capsys.readouterr()
    assert main(["report", "--out", str(out), *argv]) == 0
    return json.loads(out.read_text())["sections"][-1]


def test_the_resolver_takes_the_users_style_then_the_datas_then_the_default():
    assert resolve_style("gpqa", "sdoh") == "gpqa"
    assert resolve_style(None, "sdoh") == "sdoh"
    assert resolve_style(None, None) == "gpqa"
    with pytest.raises(audit_core.InputError, match="style: expected one of gpqa, sdoh, got 'sdho'"):
        resolve_style("sdho")
    # The user's choice wins over a pool's own style (simulate let the pool override it).
    simulated = audit_core.simulate("sdoh", style="gpqa", strategy="stratified", process="LR", replicates=1, jobs=1)
    assert simulated.params.q == audit_params("gpqa").q


@pytest.mark.parametrize("run", RUNS)
def test_replay_cli_python_and_report_agree_on_defaults(run, capsys, tmp_path):
    python = audit_core.replay(run)
    cli = cli_json(capsys, "replay", run)
    assert same(python.to_dict(), cli)
    assert cli["params"] == audit_params(BUNDLED[run].style).to_dict()  # the run's own style
    numbers = _report_section(capsys, tmp_path, "--replay", run)["numbers"]
    common = set(numbers) & set(cli)
    assert {"n", "processes", "decision", "overall", "subgroups", "params"} <= common
    assert same({k: numbers[k] for k in common}, {k: cli[k] for k in common})


def test_the_replay_page_shows_the_python_numbers_for_every_bundled_run():
    at = AppTest.from_file(APP, default_timeout=90)
    at.switch_page("pages/replay-run.py")
    at.run()
    for run in RUNS:
        at.selectbox(key="replay_source").set_value(run).run()
        assert not at.exception and not at.error, run
        result = audit_core.replay(run).result
        assert metric(at, "Stopped at case") == fmt.count(result.dual.stop), run
        assert metric(at, "Cases replayed") == fmt.count(result.n), run


def test_a_planned_number_of_cases_gives_one_interval_in_python_cli_page_and_report(capsys, tmp_path):
    # recorded_run's overall interval is [0.738, 0.889] untuned and [0.756, 0.875] tuned to 60 cases.
    python = audit_core.replay("recorded_run", planned_n=60)
    untuned = audit_core.replay("recorded_run")
    low, high = python.result.overall.cs_low, python.result.overall.cs_high
    assert untuned.result.overall.cs_low < low < high < untuned.result.overall.cs_high
    cli = cli_json(capsys, "replay", "recorded_run", "--planned-n", "60")
    assert same(python.to_dict(), cli) and cli["intervals"]["planned_n"] == 60
    numbers = _report_section(capsys, tmp_path, "--replay", "recorded_run", "--planned-n", "60")["numbers"]
    assert same(numbers["overall"], cli["overall"])
    at = AppTest.from_file(APP, default_timeout=90)
    at.query_params.update({"planned_n": "60"})
    at.switch_page("pages/replay-run.py")
    at.run()
    at.selectbox(key="replay_source").set_value("recorded_run").run()
    assert not at.exception and not at.error
    assert at.number_input(key="replay_planned_n").value == 60
    (accuracy,) = [m for m in at.metric if m.label == "Overall accuracy"]
    assert f"tuned to 60 planned cases {fmt.anytime_interval(low, high)}" in accuracy.proto.help


@pytest.mark.parametrize("a, b", [("gpqa:large", "gpqa:medium"), ("sdoh", "recorded_run")])
def test_compare_cli_python_and_page_agree_on_defaults(a, b, capsys):
    python = audit_core.compare(a, b)
    cli = cli_json(capsys, "compare", a, b)
    assert same(python.to_dict(), cli)
    assert [d["stop"] for d in cli["decisions"]] == [audit_core.replay(r).result.dual.stop for r in (a, b)]
    if "recorded_run" in (a, b):
        return  # the Compare page offers the bundled pools' runs, not the recorded run
    at = AppTest.from_file(APP, default_timeout=90)
    at.switch_page("pages/compare-runs.py")
    at.run()
    at.radio(key="compare_mode").set_value("runs").run()  # separate runs A and B, as the command line
    at.selectbox(key="compare_A").set_value(a)
    at.selectbox(key="compare_B").set_value(b).run()
    assert not at.exception and not at.error
    assert metric(at, "Paired cases") == fmt.count(cli["n_common"])
    assert metric(at, "Difference B − A") == f"{cli['sequential']['difference']:+.3f}"
    decisions = next(d.value for d in at.dataframe if "stop (case)" in d.value.columns)
    shown = [str(v) for v in decisions["stop (case)"]]
    assert shown == [str(d["stop"]) if d["stop"] else "never" for d in cli["decisions"]]


def test_combine_cli_python_and_report_agree_on_defaults(capsys, tmp_path):
    python = audit_core.combine(list(RUNS))
    cli = cli_json(capsys, "combine", *RUNS)
    assert same(python.to_dict(), cli)
    # Each run replayed with its own style: the same e-value as its own replay.
    for run, row in zip(RUNS, cli["runs"], strict=True):
        assert row["log_e"] == audit_core.replay(run, subgroup=[]).to_dict()["processes"]["SR-LR-UI"]["final_log_e"]
    numbers = _report_section(capsys, tmp_path, "--combine", *RUNS)["numbers"]
    for method in ("e-BH", "e-Bonferroni"):
        assert [h["log_e"] for h in numbers[method]["hypotheses"]] == [r["log_e"] for r in cli["runs"]]
        assert numbers[method]["n_rejected"] == cli["methods"][method]["n_rejected"]


@pytest.mark.parametrize("pool", BUNDLED_POOLS)
def test_simulate_cli_and_python_agree_on_defaults(pool, capsys):
    python = audit_core.simulate(pool, strategy="adaptive", replicates=2, jobs=1).to_dict()
    cli = cli_json(capsys, "simulate", "--pool", pool, "--strategy", "adaptive", "--replicates", "2", "--jobs", "1")
    python.pop("timing"), cli.pop("timing")
    assert same(python, cli)
    assert cli["params"] == paper_params(BUNDLED[pool].style).to_dict()


@pytest.mark.slow
@pytest.mark.parametrize("pool", ["sdoh", "gpqa:small"])
def test_simulate_and_plan_pages_agree_with_python_on_defaults(pool):
    simulated = audit_core.simulate(pool, replicates=2, jobs=1)
    at = AppTest.from_file(APP, default_timeout=120)
    at.switch_page("pages/simulation.py")
    at.run()
    at.selectbox(key="sim_pool").set_value(pool).run()
    at.number_input(key="sim_replicates").set_value(2)
    next(b for b in at.button if "Run simulation" in str(b.label)).click().run()
    assert not at.exception and not at.error
    page = at.session_state["sim_result"].to_dict()
    expected = simulated.to_dict()
    page.pop("timing"), expected.pop("timing")
    assert same(page, expected)

    planned = audit_core.plan(pool, replicates=5, jobs=1)
    at.switch_page("pages/audit-planner.py")
    at.run()
    at.selectbox(key="plan_pool").set_value(pool).run()
    at.number_input(key="plan_replicates").set_value(5)
    next(b for b in at.button if "Plan the audit" in str(b.label)).click().run()
    assert not at.exception and not at.error
    p, _, _ = planned.plan.p_pass_no_failure
    assert metric(at, "P(audit passed | no failure)") == f"{p:.2f}"
    assert same(at.session_state["plan_result"].to_dict(), planned.to_dict())


@pytest.mark.parametrize("pool", [pytest.param(p, marks=pytest.mark.slow) if p != "gpqa:small" else p
                                  for p in BUNDLED_POOLS])
def test_plan_cli_and_python_agree_on_defaults(pool, capsys):
    assert same(audit_core.plan(pool, replicates=5, jobs=1).to_dict(),
                cli_json(capsys, "plan", "--pool", pool, "--replicates", "5", "--jobs", "1"))


@pytest.mark.parametrize("pool", BUNDLED_POOLS)
def test_live_audit_cli_and_python_start_with_the_same_parameters(pool, capsys, tmp_path):
    python = audit_core.audit_new(pool, db=tmp_path / "a.sqlite").audit
    cli = cli_json(capsys, "audit", "new", "--pool", pool, "--db", str(tmp_path / "b.sqlite"))
    assert python["params"] == cli["params"] and python["test_params"] == cli["test_params"]
    assert cli["params"] == paper_params(BUNDLED[pool].style).to_dict()
    first = [audit_core.audit_next(1, db=tmp_path / db).cases[0].case_id for db in ("a.sqlite", "b.sqlite")]
    assert first[0] == first[1]
