"""AppTest: every page runs, toggles give the engine's numbers, uploads, report download."""

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from audit_core.identify import frozen_policy_class, identify

PAGES = ["pages/protocol-explorer.py", "pages/minimal-supports.py", "pages/testbed-items.py", "pages/measure-logs.py", "pages/replay-run.py", "pages/simulation.py",
         "pages/audit-planner.py", "pages/compare-runs.py", "pages/live-audit.py", "pages/audit-report.py"]
COMPONENTS = ("target", "sham", "readout", "mapping")
TIMEOUT = 90
APP = str(Path(__file__).resolve().parents[2] / "app.py")


def app(page: str | None = None, *, timeout: float = TIMEOUT, **query) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=timeout)
    at.query_params.update(query)
    if page:
        at.switch_page(page)
    return at.run()


def metric(at: AppTest, label: str) -> str:
    values = [m.value for m in at.metric if m.label == label]
    assert len(values) == 1, f"metric {label!r} not found once in {[m.label for m in at.metric]}"
    return values[0]


@pytest.mark.parametrize("page", PAGES)
def test_every_page_runs_without_exception(page):
    at = app(page)
    assert not at.exception, [e.value for e in at.exception]
    assert at.title and at.title[0].value


def _set_support(at: AppTest, chosen) -> AppTest:
    for name in COMPONENTS:
        at.toggle(key=f"cmp_{name}").set_value(name in chosen)
    return at.run()


@pytest.mark.parametrize("chosen, classes, collisions", [
    ((), 1, 6), (("target",), 2, 3), (("target", "sham"), 3, 2),
    (("target", "sham", "readout"), 5, 1), (COMPONENTS, 7, 0)])
def test_toggles_give_the_engine_numbers(chosen, classes, collisions):
    engine = identify(frozen_policy_class(), components=list(chosen))
    assert (engine.n_classes, engine.n_collisions) == (classes, collisions)  # docs/identification.md table
    at = app()
    at = _set_support(at, chosen)
    assert not at.exception
    assert int(metric(at, "Equivalence classes")) == engine.n_classes
    assert int(metric(at, "Collisions")) == engine.n_collisions
    assert int(metric(at, "Cells in support")) == len(engine.cells)
    assert metric(at, "τ identified") == ("yes" if engine.identified else "no")
    assert at.query_params["components"] in (",".join(chosen) or "none", [",".join(chosen) or "none"])


def test_toggle_changes_verdict_from_full_support():
    at = app()
    assert metric(at, "τ identified") == "yes" and int(metric(at, "Collisions")) == 0
    at.toggle(key="cmp_target").set_value(False).run()
    assert metric(at, "τ identified") == "no"
    assert int(metric(at, "Collisions")) == identify(
        frozen_policy_class(), components=["sham", "readout", "mapping"]).n_collisions
    assert any("not identified" in w.value for w in at.warning)  # the verdict box


def test_url_reproduces_the_view():
    at = app(components="target,sham", estimand="tau_full")
    assert [t.value for t in at.toggle if t.key.startswith("cmp_")] == [True, True, False, False]
    assert int(metric(at, "Collisions")) == 2


def test_custom_cells_from_link():
    cells = "target:ABC:generated,sham:ABC:scoring"
    at = app(components="none", cells=cells)
    assert not at.exception
    assert int(metric(at, "Cells in support")) == 2
    assert int(metric(at, "Collisions")) == identify(frozen_policy_class(), cells=cells.split(",")).n_collisions


GOOD_CSV = b"case,grp,correct\n" + b"".join(
    f"c{i},{'a' if i % 2 else 'b'},{int(i % 5 != 0)}\n".encode() for i in range(60))
BROKEN_CSV = b"case,grp,correct\nc1,a,1\nc2,b,maybe\n"


def test_replay_upload_good_then_broken_keeps_previous_data():
    at = app("pages/replay-run.py")
    at.selectbox(key="replay_source").set_value("upload").run()
    at.file_uploader(key="replay_upload__widget").upload("good.csv", GOOD_CSV, "text/csv").run()
    assert not at.exception and not at.error
    assert int(metric(at, "Cases replayed")) == 60
    at.file_uploader(key="replay_upload__widget").upload("broken.csv", BROKEN_CSV, "text/csv").run()
    assert not at.exception
    message = at.error[0].value
    # One error naming the file and where; never the file's content (a shared server's visitor
    # must not read a file through its messages).
    assert len(at.error) == 1 and "broken.csv" in message and "data row 2" in message and "maybe" not in message
    assert int(metric(at, "Cases replayed")) == 60  # previous data kept
    at.file_uploader(key="replay_upload__widget").upload("empty.csv", b"", "text/csv").run()
    assert not at.exception
    assert len(at.error) == 1 and "empty.csv" in at.error[0].value
    assert int(metric(at, "Cases replayed")) == 60


def test_policy_upload_broken_file_shows_one_error():
    at = app()
    at.radio(key="policy_source").set_value("upload").run()
    at.file_uploader(key="policy_upload__widget").upload("bad.json", b"{not json", "application/json").run()
    assert not at.exception
    assert len(at.error) == 1 and "bad.json" in at.error[0].value
    assert int(metric(at, "Collisions")) == 0  # still the frozen class at full support


def test_policy_upload_csv_is_used_on_its_full_support():
    from audit_core.identify import load_policy_class
    data = Path("data/example_policies.csv").read_bytes()
    uploaded = load_policy_class(data, name="example_policies.csv")
    at = app()
    at.radio(key="policy_source").set_value("upload").run()
    at.file_uploader(key="policy_upload__widget").upload("example_policies.csv", data, "text/csv").run()
    assert not at.exception and not at.error
    assert [t.label for t in at.toggle if t.key.startswith("cmp_")] == list(uploaded.component_names)
    assert all(t.value for t in at.toggle if t.key.startswith("cmp_"))
    engine = identify(uploaded, components=list(uploaded.component_names))
    assert int(metric(at, "Cells in support")) == len(engine.cells)
    assert int(metric(at, "Collisions")) == engine.n_collisions


def test_report_download_after_explorer():
    at = app()
    at.switch_page("pages/audit-report.py").run()
    assert not at.exception
    labels = [b.label for b in at.get("download_button")]
    assert "HTML report" in labels and "JSON (every number)" in labels
    button = next(b for b in at.get("download_button") if b.label == "HTML report")
    assert button.proto.deferred_file_id  # built when clicked, not on every rerun
    report = at.session_state["report_document"][1]
    at.run()  # another rerun keeps the same document and timestamp (one rendering per selection)
    assert at.session_state["report_document"][1] is report
    from audit_core.report import render_html
    assert "Identifiability of tau_full" in render_html(report)


def test_report_editing_orders_sections_and_carries_commentary_and_author():
    at = app()
    at.switch_page("pages/measure-logs.py").run()
    at.switch_page("pages/audit-report.py").run()
    keys = list(at.session_state["report_sections"])
    assert keys[:2] == ["explorer", "measure"]
    at.number_input(key="report_pos_measure").set_value(1).run()
    at.number_input(key="report_pos_explorer").set_value(2).run()
    at.text_input(key="report_author").input("A. Auditor <script>").run()
    at.text_area(key="report_note_measure").input("Base accuracy is high; *local response* is not.").run()
    assert not at.exception
    report = at.session_state["report_document"][1]
    assert [s.key for s in report.sections] == ["measure", "explorer"]
    assert report.sections[0].commentary.startswith("Base accuracy is high")
    from audit_core.report import render_html, render_markdown
    html = render_html(report)
    assert "A. Auditor &lt;script&gt;" in html and "<script>" not in html.split("</style>")[1].split("vega-lite")[0]
    assert "\\*local response\\*" in render_markdown(report)


def _run_small_study(at: AppTest) -> AppTest:
    at.number_input[0].set_value(3)       # replicates
    at.number_input[1].set_value(120)     # budget
    at.multiselect[0].set_value(["stratified · LR", "adaptive · SR-LR-UI"])
    at.button[0].click()                  # the form's "Run simulation"
    return at.run()


def test_simulation_runs_and_reports_rates():
    at = app("pages/simulation.py")
    at = _run_small_study(at)
    assert not at.exception, [e.value for e in at.exception]
    summary = at.dataframe[-1].value
    assert list(summary["method"]) == ["stratified · LR", "adaptive · SR-LR-UI"]
    rates = summary[["failure_found", "passed", "inconclusive"]].sum(axis=1)
    assert ((rates - 1).abs() < 1e-9).all()
    assert (summary["replicates"] == 3).all()


def test_null_validity_mode_reports_type_one_error():
    at = app("pages/simulation.py")
    at.radio(key="sim_mode").set_value("null").run()
    at = _run_small_study(at)
    assert not at.exception, [e.value for e in at.exception]
    observed = float(metric(at, "Highest observed Type-I error"))
    assert 0.0 <= observed <= 1.0
    table = at.dataframe[0].value
    assert {"observed Type-I error", "95% CI low", "95% CI high", "α"} <= set(table.columns)
    assert (table["95% CI low"] <= table["observed Type-I error"]).all()


XSS = "<script>alert(1)</script>"


def test_user_strings_are_escaped_in_the_report():
    csv = b"case,grp,correct\n" + b"".join(
        f"c{i},{XSS if i % 2 else '=HYPERLINK(1)'},{int(i % 4 != 0)}\n".encode() for i in range(40))
    at = app("pages/replay-run.py")
    at.selectbox(key="replay_source").set_value("upload").run()
    at.file_uploader(key="replay_upload__widget").upload("evil.csv", csv, "text/csv").run()
    assert not at.exception and not at.error
    at.multiselect(key="groups_upload:" + at.session_state["_accepted_uploads"]["run"].key).set_value(["grp"]).run()
    assert not at.exception
    from audit_core.report import Report, render_html, render_markdown, safe_csv_bytes
    section = at.session_state["report_sections"]["replay"]
    html = render_html(Report("r", (section,)))
    assert XSS not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert XSS not in render_markdown(Report("r", (section,)))
    exported = safe_csv_bytes(section.tables[-1].frame).decode()
    assert "\n'=HYPERLINK(1)," in exported


def test_minimal_supports_opens_the_explorer_on_a_chosen_support():
    at = app("pages/minimal-supports.py")
    assert not at.exception
    assert metric(at, "Solver status") == "OPTIMAL"
    assert int(metric(at, "Optimal supports")) == 26 and int(metric(at, "Optimal cost")) == 2
    next(b for b in at.button if b.label == "Open in protocol explorer").click().run()
    assert not at.exception
    assert int(metric(at, "Cells in support")) == 2
    assert int(metric(at, "Collisions")) == 0 and metric(at, "τ identified") == "yes"


def test_cost_ratio_changes_the_optimal_cost():
    at = app("pages/minimal-supports.py")
    at.slider[0].set_value(3.0)
    next(b for b in at.button if b.label == "Solve").click().run()
    assert not at.exception
    assert float(metric(at, "Optimal cost")) == 4  # scoring cells cost 3, generated 1 (docs/identification.md)


def test_simulation_uses_the_paper_parameters_and_gives_the_engine_summary():
    import pandas as pd

    from audit_core.auditing import load_pool, paper_params, run_study
    at = app("pages/simulation.py")
    at = _run_small_study(at)
    assert not at.exception, [e.value for e in at.exception]
    params = paper_params("gpqa", budget=120)
    assert params.n_init == 2  # the paper's GPQA study starts the adaptive auditor with 2 random cases
    assert at.session_state["sim_result"].params == params
    rows = [("stratified", "LR"), ("adaptive", "SR-LR-UI")]
    engine = run_study(load_pool("gpqa:large"), rows, 3, params, seed=0, jobs=1).summary
    shown = at.dataframe[-1].value
    columns = [c for c in engine.columns if c != "seconds_per_audit"]  # wall time differs run to run
    # The table shows whole-valued float columns (stop quantiles) as counts: same values, int dtype.
    pd.testing.assert_frame_equal(shown[columns].reset_index(drop=True), engine[columns].reset_index(drop=True),
                                  check_dtype=False)


def test_replay_without_subgroup_columns_means_no_subgroups():
    from audit_core.data.bundled import BUNDLED
    from audit_core.data.loader import load_audit_csv
    from audit_core.sequential import AuditParams, replay
    at = app("pages/replay-run.py")
    assert list(at.session_state["report_sections"]["replay"].numbers["subgroup_columns"]) == ["category"]
    at.multiselect(key="groups_bundled:recorded_run").set_value([]).run()
    assert not at.exception and not at.error
    section = at.session_state["report_sections"]["replay"]
    assert list(section.numbers["subgroup_columns"]) == []
    assert not any("subgroup column(s) auto-detected" in note for note in section.summary)
    bundled = BUNDLED["recorded_run"]
    data = load_audit_csv(bundled.path, subgroups=(), order=bundled.order)
    engine = replay(data.scores, AuditParams.gpqa(), subgroups=None)
    shown = at.dataframe[-1].value
    assert len(shown) == len(engine.subgroup_table) == 1
    assert int(shown["n"].iloc[0]) == engine.n and int(metric(at, "Cases replayed")) == engine.n


def test_report_offers_the_measurement_computed_in_the_session():
    from audit_core.measure import load_response_log, measure
    from audit_core.measure.example import EXAMPLE_PATH
    from audit_core.report import Report, render_html
    at = app("pages/audit-report.py")
    assert not at.checkbox  # nothing computed before the explorer's first run
    at = app("pages/measure-logs.py")
    assert not at.exception
    at.switch_page("pages/audit-report.py").run()
    assert not at.exception
    labels = [c.label for c in at.checkbox]
    assert any(label.startswith("Estimand-separated results of example_response_log.csv (synthetic)")
               for label in labels), labels
    section = at.session_state["report_sections"]["measure"]
    engine = measure(load_response_log(EXAMPLE_PATH.read_bytes()), bootstrap=2000, seed=0)
    assert section.numbers["pooled"] == {k: v for k, v in engine.to_dict().items() if k != "units"}["pooled"]
    html = render_html(Report("r", (section,)))
    assert "Estimand-separated rates per model" in html and "Behavioural composition" in html
    assert any(b.label == "HTML report" for b in at.get("download_button"))


def test_presentation_mode_lives_in_the_url_and_hides_the_chrome():
    at = app()
    assert "present" not in at.query_params
    at.toggle(key="presentation_toggle").set_value(True).run()
    assert not at.exception
    assert at.query_params["present"] in ("1", ["1"])
    assert any("stSidebar" in h.proto.body for h in at.get("html"))
    linked = app(present="1")  # a link opens in presentation mode
    assert linked.toggle(key="presentation_toggle").value is True
    assert any(e.label == "Glossary" for e in linked.expander)


def test_uploaded_class_outlives_a_page_switch_and_is_used_by_minimal_supports():
    data = Path("data/example_policies.csv").read_bytes()
    at = app()
    at.radio(key="policy_source").set_value("upload").run()
    at.file_uploader(key="policy_upload__widget").upload("example_policies.csv", data, "text/csv").run()
    at.switch_page("pages/minimal-supports.py").run()
    assert not at.exception
    assert any("example_policies.csv" in c.value for c in at.caption)  # the active class is named
    at.switch_page("pages/protocol-explorer.py").run()
    assert at.radio(key="policy_source").value == "upload"
    assert any("example_policies.csv" in c.value for c in at.caption)


VERDICT_CSV = ("\ufeffItem;Annotator;Domain;Verdict;Annotated at\n" + "".join(
    f"q{i:04d};ann{i % 2};{'math' if i % 3 else 'bio'};{'correct' if i % 4 else 'incorrect'};"
    f"2026-01-{1 + i % 28:02d}T10:{i:02d}:00\n" for i in range(40))).encode("utf-8")


def test_replay_never_guesses_a_score_column_and_maps_text_labels():
    at = app("pages/replay-run.py")
    at.selectbox(key="replay_source").set_value("upload").run()
    at.file_uploader(key="replay_upload__widget").upload("verdicts.csv", VERDICT_CSV, "text/csv").run()
    assert not at.exception and not at.error
    key = at.session_state["_accepted_uploads"]["run"].key
    assert at.selectbox(key=f"score_upload:{key}").value is None  # no silent first-column default
    assert any("choose it" in i.value for i in at.info)
    assert not [m for m in at.metric if m.label == "Cases replayed"]
    at.selectbox(key=f"score_upload:{key}").set_value("Verdict").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    editor = at.session_state[f"mapping_upload:{key}_Verdict"]
    assert editor == {"incorrect": 0.0, "correct": 1.0}  # suggested, shown for confirmation
    assert int(metric(at, "Cases replayed")) == 40
    assert float(metric(at, "Overall accuracy")) == round(30 / 40, 3)


def test_every_chart_offers_png_and_svg_built_on_click():
    at = app()
    exports = [b for b in at.get("download_button") if b.label in ("PNG", "SVG (vector)")]
    assert len(exports) == 2 and all(b.proto.deferred_file_id for b in exports)  # the lattice
    at.toggle(key="explorer_heatmap").set_value(True).run()  # the heat map, drawn on request
    exports = [b for b in at.get("download_button") if b.label in ("PNG", "SVG (vector)")]
    assert len(exports) == 4 and all(b.proto.deferred_file_id for b in exports)


def test_replay_page_reads_an_inspect_log_upload():
    from audit_core.data.sources import load_audit_source
    data = Path("tests/fixtures/inspect/run.eval").read_bytes()
    engine = load_audit_source(data, "run.eval", score="match")
    at = app("pages/replay-run.py")
    at.selectbox(key="replay_source").set_value("upload").run()
    at.file_uploader(key="replay_upload__widget").upload("run.eval", data, "application/zip").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any("2 scorers (match, graded)" in i.value for i in at.info)  # the log asks which scorer
    key = at.session_state["_accepted_uploads"]["run"].key
    at.selectbox(key=f"score_upload:{key}").set_value("match").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert int(metric(at, "Cases replayed")) == engine.n
    section = at.session_state["report_sections"]["replay"]
    assert section.numbers["subgroup_columns"] == list(engine.subgroups)


def test_compare_page_gives_the_engine_comparison():
    from audit_core import analyses
    at = app("pages/compare-runs.py")
    assert not at.exception and not at.error, [e.value for e in at.error]
    view = analyses.compare_runs(analyses.run_source("compare:gpqa"))
    engine = view.comparison
    assert view.decision == "B better" and at.success[0].value.startswith("model-b is better than model-a by more")
    assert int(metric(at, "Paired cases")) == engine.sequence.n == 448
    assert metric(at, "Difference B − A") == f"{engine.sequence.difference:+.3f}"
    assert metric(at, "Decision") == engine.sequence.decision
    section = at.session_state["report_sections"]["compare"]
    assert section.numbers["sequential"]["lower"] == engine.sequence.lower
    assert section.numbers["runs"]["groups"] == view.runs.to_dict()["groups"]
    assert view.verdict.text in section.summary
    # A and B picked among the runs of the set: model-d against model-b
    at.selectbox(key="compare_pair_A").set_value("model-b").run()
    at = at.selectbox(key="compare_pair_B").set_value("model-d").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    other = analyses.compare_runs(analyses.run_source("compare:gpqa"), pair=(1, 3)).comparison.sequence
    assert metric(at, "Decision") == other.decision and metric(at, "Difference B − A") == f"{other.difference:+.3f}"
    # separate runs: the bundled GPQA pools, as before
    at = at.radio(key="compare_mode").set_value("runs").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    pair = analyses.compare_runs(analyses.run_source("gpqa:large"), analyses.run_source("gpqa:medium")).comparison
    assert int(metric(at, "Paired cases")) == pair.n_common == 448
    assert metric(at, "Difference B − A") == f"{pair.overall.difference:+.3f}"


def test_planner_page_runs_the_planner_and_states_its_error():
    from audit_core import analyses
    at = app("pages/audit-planner.py")
    at.number_input(key="plan_replicates").set_value(6)
    at.number_input(key="plan_budget_gpqa").set_value(80)
    next(b for b in at.button if b.label == "Plan the audit").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    plan = at.session_state["plan_result"].plan
    engine = analyses.plan_study(analyses.pool_source("gpqa:large"), params=analyses.paper_params("gpqa", budget=80),
                                 replicates=6, seed=0, jobs=1).plan
    assert plan.p_pass_no_failure == engine.p_pass_no_failure
    assert metric(at, "Monte Carlo error (largest)") == f"±{engine.mc_error:.2f}"


def test_testbed_page_generates_checks_and_flags_a_flipped_label():
    from audit_core import analyses
    at = app("pages/testbed-items.py", clusters="6", seed="3")
    assert not at.exception and not at.error
    engine = analyses.generate_testbed(6, 3)
    assert int(metric(at, "Items")) == len(engine.items) == 216
    assert any("every label re-derived" in s.value for s in at.success)
    flipped = engine.jsonl.replace('"oracle": "TRUE"', '"oracle": "FALSE"', 1).encode()
    at.file_uploader(key="tb_check_upload").upload("flipped.jsonl", flipped, "application/jsonl").run()
    assert not at.exception
    assert any("1 mismatch among 216 items" in w.value for w in at.warning)


def _add_scoring_target_inertia(at: AppTest) -> AppTest:
    """A policy ideal everywhere except inertia on target scoring cells: it answers like the ideal
    updater on every one of the 26 two-cell optima (target generated + sham scoring)."""
    at.radio(key="ed_action").set_value("compose").run()
    at.text_input(key="ed_name").input("scoring_target_inertia").run()
    at.selectbox(key="ed_base").set_value("ideal").run()
    at.selectbox(key="ed_axis_0").set_value("world").run()
    at.selectbox(key="ed_value_0").set_value("target").run()
    at.selectbox(key="ed_beh_0").set_value("inertia").run()
    at.selectbox(key="ed_axis_1").set_value("readout").run()
    at.selectbox(key="ed_value_1").set_value("generated").run()
    at.selectbox(key="ed_beh_1").set_value("ideal").run()
    at.radio(key="ed_tau").set_value(0).run()
    return at.button(key="ed_apply").click().run()


def test_policy_editor_adds_a_policy_and_the_minimal_support_grows():
    from audit_core import analyses
    at = app("pages/minimal-supports.py")
    assert int(metric(at, "Cells in an optimum")) == 2 and int(metric(at, "Optimal supports")) == 26
    at.switch_page("pages/protocol-explorer.py").run()
    at = _add_scoring_target_inertia(at)
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.radio(key="policy_source").value == "upload"
    assert any("edited class (8 policies, made here from the frozen seven-policy class) (edited here" in c.value
               for c in at.caption)
    link = at.query_params["class"]
    link = link[0] if isinstance(link, list) else link
    edited = analyses.class_from_link(link).value
    assert edited.names[-1] == "scoring_target_inertia" and len(edited.names) == 8
    engine = analyses.check_supports(analyses.class_from_link(link)).synthesis
    at.switch_page("pages/minimal-supports.py").run()
    assert not at.exception
    assert int(metric(at, "Cells in an optimum")) == engine.size == 3
    assert int(metric(at, "Optimal supports")) == engine.n_optimal
    fresh = app(**{"class": link})  # the link opens the edited class in a new session
    assert not fresh.exception and any("edited class (8 policies, made here from the class from a link)" in c.value
                                       for c in fresh.caption)


def test_explorer_explains_a_class_with_too_many_components_for_a_lattice():
    from tests.corpus.generate import many_components
    at = app()
    at.radio(key="policy_source").set_value("upload").run()
    at.file_uploader(key="policy_upload__widget").upload("c13.json", many_components(13), "application/json").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any("12 components" in i.value for i in at.info)  # the limit is named, the support still explained
    assert int(metric(at, "Cells in support")) > 0


def _following(tmp_path, monkeypatch):
    """The Replay page following a 30-row CSV in the data folder (nothing read yet)."""
    monkeypatch.setenv("AUDIT_DATA_DIR", str(tmp_path))
    path = tmp_path / "growing.csv"
    head = "case,grp,correct\n" + "".join(f"c{i},{'a' if i % 2 else 'b'},{int(i % 5 != 0)}\n" for i in range(30))
    path.write_text(head)
    at = app("pages/replay-run.py")
    at.selectbox(key="replay_source").set_value("follow").run()
    at.text_input(key="replay_follow_path").input(str(path)).run()
    return at, path, head


def test_replay_follows_a_growing_file_and_keeps_the_prefix(tmp_path, monkeypatch):
    at, path, head = _following(tmp_path, monkeypatch)
    at.button(key="replay_reread").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert int(metric(at, "Cases replayed")) == 30
    first = at.session_state["report_sections"]["replay"].numbers["processes"]["SR-LR-UI"]["log_e"]
    path.write_text(head + "".join(f"c{i},{'a' if i % 2 else 'b'},{int(i % 3 != 0)}\n" for i in range(30, 50)))
    at.button(key="replay_reread").click().run()
    assert int(metric(at, "Cases replayed")) == 50
    grown = at.session_state["report_sections"]["replay"].numbers["processes"]["SR-LR-UI"]["log_e"]
    assert list(grown[:30]) == list(first)  # the common prefix replays identically
    path.unlink()
    at.button(key="replay_reread").click().run()
    assert any("not found" in e.value for e in at.error) and int(metric(at, "Cases replayed")) == 50


def test_the_same_bytes_under_two_names_are_two_sources():
    # Found by the browser test: analyses cached by content alone showed one session's file name
    # to another session that had uploaded the same bytes under its own name.
    titles = []
    for name in ("first.csv", "second.csv"):
        at = app("pages/replay-run.py")
        at.selectbox(key="replay_source").set_value("upload").run()
        at.file_uploader(key="replay_upload__widget").upload(name, GOOD_CSV, "text/csv").run()
        titles.append(at.session_state["report_sections"]["replay"].title)
    assert titles == ["Replay of first.csv", "Replay of second.csv"]


def test_planner_shows_the_assumed_structure_only_for_the_assumed_pool():
    # Issue 19 item 11: with a bundled pool the assumed sizes and accuracies were shown and ignored.
    at = app("pages/audit-planner.py")
    assert not at.exception
    keys = {w.key for w in (*at.text_input, *at.number_input)}
    assert "plan_sizes" not in keys and "plan_fail" not in keys and "plan_base" not in keys
    at.selectbox(key="plan_pool").set_value("assumed").run()
    keys = {w.key for w in (*at.text_input, *at.number_input)}
    assert {"plan_sizes", "plan_fail", "plan_base"} <= keys


def test_replay_rereads_a_followed_file_automatically_when_it_changes(tmp_path, monkeypatch):
    at, path, head = _following(tmp_path, monkeypatch)
    at.toggle(key="replay_follow_auto").set_value(True).run()  # no button pressed: the watcher read it
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert int(metric(at, "Cases replayed")) == 30
    path.write_text(head + "".join(f"c{i},a,1\n" for i in range(30, 45)))
    at.run()  # what the watcher's timer does: the fragment runs, sees new content, replays the page
    assert not at.exception and int(metric(at, "Cases replayed")) == 45
    at.run()  # unchanged: nothing new is read
    assert int(metric(at, "Cases replayed")) == 45 and not at.error
