"""Issue 19 items 1-8 in AppTest (the page scripts run in-process): uploads that survive any
sequence of files, an explorer that survives any class and estimand link, class edits that keep
the toggles, and the files people really have."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from audit_core.identify import identify, lattice, load_policy_class
from audit_core.report import markdown_literal
from tests.app.test_pages import app as pages_app
from tests.app.test_pages import metric

TIMEOUT = 120
ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
EXAMPLE_POLICIES = (ROOT / "data" / "example_policies.csv").read_bytes()


def app(page: str | None = None, **query) -> AppTest:
    return pages_app(page, timeout=TIMEOUT, **query)


def upload_class(at: AppTest, name: str, data: bytes) -> AppTest:
    at.radio(key="policy_source").set_value("upload").run()
    return at.file_uploader(key="policy_upload__widget").upload(name, data, "application/json").run()


def class_with_components(k: int) -> bytes:
    """A valid class with ``k`` components and 4 policies (one axis, k + 1 values)."""
    values = [f"v{i}" for i in range(k + 1)]
    last = values[-1]
    policies = [
        {"name": "ideal", "tau": 1, "responses": {v: "A" for v in values}},
        {"name": "inert", "tau": 0, "responses": {v: ("B" if v == last else "A") for v in values}},
        {"name": "flip", "tau": 0, "responses": {v: ("A" if v == "v0" else "B") for v in values}},
        {"name": "twin", "tau": 1, "responses": {v: ("A" if v != "v1" or k < 2 else "C") for v in values}},
    ]
    return json.dumps({"axes": {"x": values}, "base": {"x": ["v0"]},
                       "components": {f"c{i}": {"x": [values[i]]} for i in range(1, k + 1)},
                       "policies": policies}).encode()


# ------------------------------------------------------------------------------- item 2

@pytest.mark.parametrize("estimand", ["local_response", "static_correctness"])
def test_an_estimand_the_uploaded_class_cannot_evaluate_is_named_once_and_the_page_works(estimand):
    at = app(estimand=estimand)
    assert at.selectbox(key="estimand").value == estimand   # the frozen class evaluates it
    at = upload_class(at, "example_policies.csv", EXAMPLE_POLICIES)
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error
    notes = [i.value for i in at.info if "Not offered for this class" in i.value]
    assert len(notes) == 1 and estimand in notes[0] and "oracle" in notes[0]
    uploaded = load_policy_class(EXAMPLE_POLICIES, name="example_policies.csv")
    assert estimand not in at.selectbox(key="estimand").options
    assert [t.label for t in at.toggle if t.key.startswith("cmp_")] == list(uploaded.component_names)
    engine = identify(uploaded, components=list(uploaded.component_names), estimand=at.selectbox(key="estimand").value)
    assert int(metric(at, "Collisions")) == engine.n_collisions
    # and it stays fine on another page and back
    at.switch_page("pages/minimal-supports.py").run()
    assert not at.exception, [e.value for e in at.exception]
    at.switch_page("pages/protocol-explorer.py").run()
    assert not at.exception and int(metric(at, "Collisions")) == engine.n_collisions


# ------------------------------------------------------------------------------- item 3

@pytest.mark.parametrize("k", range(1, 13))
def test_classes_with_1_to_12_components_draw_their_lattice(k):
    data = class_with_components(k)
    at = upload_class(app(), f"c{k}.json", data)
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    pc = load_policy_class(data, name=f"c{k}.json")
    assert len(pc.component_names) == k
    assert [t.label for t in at.toggle if t.key.startswith("cmp_")] == list(pc.component_names)
    engine = identify(pc, components=list(pc.component_names))
    assert int(metric(at, "Collisions")) == engine.n_collisions
    assert len(lattice(pc, "tau_full").supports) == 2 ** k
    # toggling a component off reruns the support view without an exception
    at.toggle(key=f"cmp_c{k}").set_value(False).run()
    assert not at.exception, [e.value for e in at.exception]
    assert int(metric(at, "Collisions")) == identify(pc, components=list(pc.component_names[:-1])).n_collisions


# ------------------------------------------------------------------------------- items 6 and 7

def upload_run(name: str, data: bytes) -> AppTest:
    at = app("pages/replay-run.py")
    at.selectbox(key="replay_source").set_value("upload").run()
    return at.file_uploader(key="replay_upload__widget").upload(name, data, "text/csv").run()


def subgroup_accuracies(at: AppTest, column: str) -> dict[str, float]:
    for frame in (d.value for d in at.dataframe):
        if column in frame.columns and "accuracy" in frame.columns:
            return dict(zip(frame[column].astype(str), frame["accuracy"].astype(float), strict=True))
    raise AssertionError("no subgroup table")


def test_replay_page_reads_a_semicolon_bom_decimal_comma_file():
    from tests.data.test_room_data_files import pandas_truth, semicolon_run
    data = semicolon_run()
    at = upload_run("agreement.csv", data)
    assert not at.exception and not at.error, [e.value for e in at.error]
    truth = pandas_truth(data)
    assert int(metric(at, "Cases replayed")) == len(truth)
    assert metric(at, "Overall accuracy") == f"{truth['agreement'].mean():.3f}"
    shown = subgroup_accuracies(at, "group")
    expected = truth.groupby("group")["agreement"].mean()
    assert shown.keys() == set(expected.index)
    for group, mean in expected.items():
        assert shown[group] == pytest.approx(mean, abs=1e-9)


def test_an_auto_detected_pass_fail_column_is_offered_the_value_mapping():
    from tests.data.test_room_data_files import PASS_FAIL
    at = upload_run("passfail.csv", PASS_FAIL.encode())
    assert not at.exception and not at.error, [e.value for e in at.error]
    key = at.session_state["_accepted_uploads"]["run"].key
    assert at.selectbox(key=f"score_upload:{key}").value == "result"    # detected, not refused
    mapping = at.session_state[f"mapping_upload:{key}_result"]
    assert mapping == {"pass": 1.0, "fail": 0.0, "PASS": 1.0, "partial": 0.5}   # the built-in vocabulary
    assert int(metric(at, "Cases replayed")) == 40
    labels = [("pass", "fail", "PASS", "partial")[i % 4] for i in range(40)]
    assert metric(at, "Overall accuracy") == f"{sum(mapping[v] for v in labels) / 40:.3f}"


# ------------------------------------------------------------------------------- item 5

def test_editing_the_class_keeps_the_toggles_and_names_the_class_truthfully():
    at = app(components="target,readout")
    assert [t.value for t in at.toggle if t.key.startswith("cmp_")] == [True, False, True, False]
    at.radio(key="ed_action").set_value("duplicate").run()
    at.selectbox(key="ed_pick").set_value(at.selectbox(key="ed_pick").options[0]).run()
    at.text_input(key="ed_name").input("twin of the first").run()
    at = at.button(key="ed_apply").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert [t.value for t in at.toggle if t.key.startswith("cmp_")] == [True, False, True, False]
    captions = [c.value for c in at.caption if c.value.startswith("Active data")]
    assert captions == ["Active data: edited class (8 policies, made here from the frozen seven-policy class) "
                        "(edited here; it stays until you replace or remove it)"]
    assert not any("uploaded" in c or "edited class.json" in c for c in captions)
    from audit_core import analyses
    link = at.query_params["class"]
    edited = analyses.class_from_link(link[0] if isinstance(link, list) else link)
    engine = identify(edited.value, components=["target", "readout"])
    assert int(metric(at, "Collisions")) == engine.n_collisions
    # a second edit still names the class the edits started from, and keeps the toggles
    at.selectbox(key="ed_pick").set_value("twin of the first").run()
    at = at.text_input(key="ed_name").input("third").run()
    at = at.button(key="ed_apply").click().run()
    assert [t.value for t in at.toggle if t.key.startswith("cmp_")] == [True, False, True, False]
    assert any("edited class (9 policies, made here from the frozen seven-policy class)" in c.value for c in at.caption)


# ------------------------------------------------------------------------------- item 8

def test_a_log_with_several_scorers_offers_lists_and_a_subgroup_picker_with_the_cli_default(capsys):
    from audit_core import analyses
    from audit_core.cli import main
    path = ROOT / "tests" / "fixtures" / "inspect" / "run.eval"
    at = upload_run("run.eval", path.read_bytes())
    assert not at.exception and not at.error, [e.value for e in at.error]
    key = at.session_state["_accepted_uploads"]["run"].key
    scorer = at.selectbox(key=f"score_upload:{key}")
    assert scorer.options == ["match", "graded"] and scorer.value is None     # a list, nothing guessed
    at = scorer.set_value("match").run()
    picker = at.multiselect(key=f"groups_upload:{key}")
    assert picker.options == ["subject", "level"]
    # the default is the command line's (no --subgroup), and the page says so
    assert main(["replay", str(path), "--score", "match", "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    # one natural key, not every key crossed (issue 29 item 12); the page and the command line agree
    assert picker.value == cli["subgroup_columns"] == ["subject"]
    assert any("Default (as the command line without --subgroup): subject." in c.value for c in at.caption)
    for chosen in (["subject"], ["subject", "level"], []):
        at = at.multiselect(key=f"groups_upload:{key}").set_value(chosen).run()
        assert not at.exception and not at.error, [e.value for e in at.error]
        engine = analyses.replay_run(analyses.run_source(str(path)), score="match", subgroups=chosen)
        section = at.session_state["report_sections"]["replay"]
        assert section.numbers["subgroup_columns"] == chosen == list(engine.data.subgroups)
        argv = ["replay", str(path), "--score", "match", "--json"]
        argv += [a for g in chosen for a in ("--subgroup", g)] if chosen else ["--no-subgroups"]
        assert main(argv) == 0
        cli = json.loads(capsys.readouterr().out)
        assert cli["subgroup_columns"] == chosen
        assert [r["n"] for r in cli["subgroups"]] == [s.n for s in engine.result.subgroups]


# ------------------------------------------------------------------------------- item 1

def test_remove_forgets_the_accepted_upload_and_the_same_file_can_come_back():
    from tests.app.test_room_data_browser import good_run_csv
    good = good_run_csv().encode()
    at = upload_run("good.csv", good)
    assert int(metric(at, "Cases replayed")) == 150
    at = at.button(key="run_upload__remove").click().run()
    assert not at.exception and at.session_state["_accepted_uploads"].get("run") is None
    assert any("No accepted upload" in c.value for c in at.caption)   # the bundled run, said so
    at = at.run()                                                      # the file still in the widget stays out
    assert at.session_state["_accepted_uploads"].get("run") is None
    at.file_uploader(key="replay_upload__widget").clear().run()
    at = at.file_uploader(key="replay_upload__widget").upload("good.csv", good, "text/csv").run()
    assert int(metric(at, "Cases replayed")) == 150


def test_compare_picks_the_score_and_subgroups_from_the_runs_lists():
    from audit_core import analyses
    at = app("pages/compare-runs.py").radio(key="compare_mode").set_value("runs").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    score = at.selectbox(key="compare_score")
    columns = list(analyses.run_source("gpqa:large").value.columns)
    assert score.options[0] == "(each run's own)" and set(score.options[1:]) == set(columns)
    groups = at.multiselect(key="compare_groups")
    assert set(groups.options) == set(columns) and groups.value == []
    subgroup = "domain"
    at = groups.set_value([subgroup]).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    engine = analyses.compare_runs(analyses.run_source("gpqa:large"), analyses.run_source("gpqa:medium"),
                                   subgroups=(subgroup,)).comparison
    assert int(metric(at, "Paired cases")) == engine.n_common
    assert at.query_params["subgroups"] in (subgroup, [subgroup])   # links keep their comma format


# ------------------------------------------------------------------------------- the lists as Markdown

def test_the_explorer_lists_show_an_uploaded_classs_policy_names_literally():
    # The class, mixture and collision lists are Markdown elements (one per list: fewer messages a
    # toggle, issue 27 item 10); names from an uploaded file must not become an image, bold or HTML.
    hostile = {"inert": "![x](http://example.invalid/x.png)", "flip": "**bold** <b>html</b>"}
    data = json.loads(class_with_components(2))
    for policy in data["policies"]:
        policy["name"] = hostile.get(policy["name"], policy["name"])
    at = upload_class(app(), "hostile.json", json.dumps(data).encode())
    for name in ("cmp_c1", "cmp_c2"):
        at = at.toggle(key=name).set_value(False).run()   # the base support: every pair collides
    assert not at.exception and int(metric(at, "Collisions")) > 0
    lists = {m.value.split("\n", 1)[0]: m.value for m in at.markdown if m.value.startswith("### ")}
    assert set(lists) >= {"### Equivalence classes", "### Collisions"}
    for body in (lists["### Equivalence classes"], lists["### Collisions"]):
        assert "![" not in body and "**bold**" not in body and "<b>" not in body and "://" not in body
        for name in hostile.values():
            assert markdown_literal(name) in body
