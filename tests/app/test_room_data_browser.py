# ruff: noqa: F811  (pytest fixtures imported from test_browser are test arguments by name)
"""Issue 19, items 1-8 in headless Chromium at 1280 px: nothing a user uploaded is silently
replaced or lost, every documented URL opens clean, the explorer survives any class, and the files
people really have (semicolon CSVs, pass/fail columns, logs with several scorers) read.

Screenshots go to a temporary folder (printed at the end of each test).
"""

from __future__ import annotations

import tempfile
import urllib.parse
from pathlib import Path

import numpy as np
import pytest

from tests.app.test_browser import (  # noqa: F401  (browser and server are fixtures)
    ROOT,
    _choose,
    _upload,
    assert_no_page_not_found,
    browser,
    metric_value,
    nav,
    open_page,
    server,
    streamlit_server,
    wait_idle,
    wait_metric,
)

pytestmark = pytest.mark.browser
WIDTH = 1280


def good_run_csv(n: int = 150) -> str:
    """150 labelled cases whose replay is inconclusive (accuracy near q = 0.85)."""
    rng = np.random.default_rng(1)
    return "case,grp,correct\n" + "".join(f"c{i},{'abc'[i % 3]},{int(rng.random() < 0.85)}\n" for i in range(n))


PASS_FAIL_CSV = "case,grp,result\n" + "".join(f"c{i},{'ab'[i % 2]},{'pass' if i % 4 else 'fail'}\n" for i in range(40))
TASK_JSONL = ROOT / "tests" / "fixtures" / "lmeval_task" / "mini_arith.jsonl"   # a task's data, not lm-eval output


def shots_dir() -> Path:
    return Path(tempfile.mkdtemp(prefix="room-data-screens-"))


def alert_texts(page) -> list[str]:
    alerts = page.locator('[data-testid="stAlert"]')
    return [alerts.nth(i).inner_text() for i in range(alerts.count())]


def test_replay_keeps_the_last_good_upload_whatever_came_before(server, browser, tmp_path):
    """Item 1: good -> pass/fail -> good -> JSON lines that are not lm-eval output: the good file
    stays, and so does its report section."""
    shots = shots_dir()
    good, pass_fail = tmp_path / "good.csv", tmp_path / "passfail.csv"
    good.write_text(good_run_csv())
    pass_fail.write_text(PASS_FAIL_CSV)
    context = browser.new_context(viewport={"width": WIDTH, "height": 900})
    page = context.new_page()
    try:
        open_page(page, f"{server}/replay-run")
        _choose(page, "Data", "Upload a labelled CSV or evaluation log")
        for step, path in enumerate((good, pass_fail, good, TASK_JSONL)):
            _upload(page, path)
            page.screenshot(path=str(shots / f"replay-{step}-{path.name}.png"), full_page=True)
        page.get_by_text("JSON lines, but not lm-eval samples").first.wait_for(timeout=30_000)
        assert page.get_by_text("Still showing your earlier file good.csv").count() >= 1
        assert page.get_by_text("No accepted upload").count() == 0
        wait_metric(page, "Cases replayed", "150", timeout=60)
        page.get_by_text("Active data: file good.csv").first.wait_for(timeout=30_000)
        assert not any("Failure mode found at case 53" in a for a in alert_texts(page))
        nav(page, "Report")
        page.get_by_text("Replay of good.csv").first.wait_for(timeout=90_000)
        assert page.get_by_text("Replay of recorded_run.csv").count() == 0
    finally:
        context.close()
        print(f"screenshots in {shots}")


def test_measure_keeps_the_last_good_log_whatever_came_before(server, browser, tmp_path):
    """Item 1 on Measure: good log -> bad log -> good log -> bad file: the good log stays."""
    good = ROOT / "data" / "example_response_log.csv"
    bad = tmp_path / "bad_log.csv"
    bad.write_text("model,cluster,cell,response\nm,c1,nonsense,A\n")
    other_bad = tmp_path / "task.csv"
    other_bad.write_text("question,choices,answer\n1 + 1 = ?,2|3,0\n")
    mine = tmp_path / "my_log.csv"
    mine.write_bytes(good.read_bytes())
    _last_good_stays(browser, f"{server}/measure-logs", "Upload a log", (mine, bad, mine, other_bad),
                     "response log my_log.csv", "No valid log uploaded yet")


def test_explorer_keeps_the_last_good_class_whatever_came_before(server, browser, tmp_path):
    """Item 1 on the explorer's policy-class upload."""
    mine = tmp_path / "my_class.csv"
    mine.write_bytes((ROOT / "data" / "example_policies.csv").read_bytes())
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    other_bad = tmp_path / "task.json"
    other_bad.write_text('{"question": "1 + 1 = ?", "choices": ["2", "3"]}')
    _last_good_stays(browser, server, "Uploaded JSON / CSV", (mine, bad, mine, other_bad),
                     "policy-class file my_class.csv", "No valid file yet")


def _last_good_stays(browser, url: str, upload_option: str, files, active: str, empty_text: str) -> None:
    """Upload ``files`` in turn on the page at ``url`` (after clicking ``upload_option``): the first
    file (accepted) stays active after the rejected ones, and the page never says it has none."""
    context = browser.new_context(viewport={"width": WIDTH, "height": 900})
    page = context.new_page()
    try:
        open_page(page, url)
        page.get_by_text(upload_option).click()
        wait_idle(page)
        for path in files:
            _upload(page, path)
        page.get_by_text(f"Still showing your earlier file {files[0].name}").first.wait_for(timeout=30_000)
        page.get_by_text(f"Active data: {active}").first.wait_for(timeout=30_000)
        assert page.get_by_text(empty_text).count() == 0
    finally:
        context.close()


def documented_url_paths() -> list[str]:
    """Every URL path the dashboard's docs name in their page table (and the root)."""
    import re
    text = (ROOT / "docs" / "dashboard.md").read_text(encoding="utf-8")
    found = re.findall(r"^\|[^|]*\|[^|]*\| `/([a-z0-9-]*)`", text, re.M)
    return ["", *dict.fromkeys(found)]


def _opens_clean(page, url: str, path: str) -> None:
    page.goto(f"{url}/{path}", timeout=60_000)
    page.wait_for_selector("h1", timeout=60_000)
    wait_idle(page)
    page.wait_for_timeout(500)
    assert_no_page_not_found(page)
    assert page.locator('[data-testid="stException"]').count() == 0, path
    expected = path.split("?")[0] or "protocol-explorer"   # the root hands over to the explorer's own URL
    assert urllib.parse.urlparse(page.url).path == f"/{expected}", (path, page.url)


# One fresh server per kind of first request (a server's first run is the one that goes through
# Streamlit's own pages/ handling, see pages/_first_run.py): the root (app.py runs, and its hidden
# default page hands over to the explorer), the explorer's own URL (the hand-over's target, a page
# file run by Streamlit itself, which runs the router first) and a hyphenated URL of the same kind.
# Every other deep link is the same kind of page file (tests/app/test_deep_links.py checks each of
# them statically, and test_browser's fresh-server test opens /minimal-supports first); each still
# opens below on a warm server. One fresh server per URL cost 11 server starts.
FRESH_SERVER_KINDS = ["", "protocol-explorer", "live-audit"]


def test_the_documented_urls_are_read_from_the_docs_and_include_the_fresh_server_kinds():
    paths = documented_url_paths()
    assert "protocol-explorer" in paths and len(paths) >= 10
    assert set(FRESH_SERVER_KINDS) <= set(paths)


@pytest.mark.parametrize("path", FRESH_SERVER_KINDS)
def test_a_documented_url_opens_clean_as_a_fresh_servers_first_request(browser, path):
    """Item 4: a url_path of docs/dashboard.md as the first request of a fresh server, then again
    (and with ?present=1) on the same, now warm, server."""
    shots = shots_dir()
    with streamlit_server() as url:
        context = browser.new_context(viewport={"width": WIDTH, "height": 800})
        page = context.new_page()
        try:
            _opens_clean(page, url, path)                          # fresh server
            page.screenshot(path=str(shots / f"fresh-{path or 'root'}.png"))
            _opens_clean(page, url, path)                          # warm server, new session
            _opens_clean(page, url, f"{path}?present=1")           # and in presentation mode
            assert "present=1" in page.url
        finally:
            context.close()
            print(f"screenshots in {shots}")


@pytest.mark.parametrize("path", documented_url_paths())
def test_every_documented_url_opens_clean_on_a_warm_server(server, browser, path):
    """Item 4: each url_path of docs/dashboard.md (and the root), in a new session on the shared,
    warm server, then with ?present=1."""
    context = browser.new_context(viewport={"width": WIDTH, "height": 800})
    page = context.new_page()
    try:
        _opens_clean(page, server, path)
        _opens_clean(page, server, f"{path}?present=1")
        assert "present=1" in page.url
    finally:
        context.close()


def test_explorer_survives_an_estimand_link_the_uploaded_class_cannot_evaluate(server, browser):
    """Item 2: /?estimand=local_response, then the example class (no oracle) is uploaded."""
    shots = shots_dir()
    context = browser.new_context(viewport={"width": WIDTH, "height": 900})
    page = context.new_page()
    try:
        open_page(page, f"{server}/?estimand=local_response")
        page.get_by_text("Uploaded JSON / CSV").click()
        wait_idle(page)
        _upload(page, ROOT / "data" / "example_policies.csv")
        page.get_by_text("Not offered for this class").first.wait_for(timeout=30_000)
        page.screenshot(path=str(shots / "estimand-not-offered.png"), full_page=True)
        assert page.locator('[data-testid="stException"]').count() == 0
        assert page.get_by_role("switch", name="axis1").is_checked()
        assert metric_value(page, "Collisions").isdigit()
        nav(page, "Minimal supports")
        nav(page, "Protocol explorer")
        assert page.locator('[data-testid="stException"]').count() == 0
        assert metric_value(page, "Collisions").isdigit()
    finally:
        context.close()
        print(f"screenshots in {shots}")


@pytest.mark.parametrize("k", [1, 5, 6, 12])
def test_explorer_draws_the_lattice_of_a_class_with_k_components(server, browser, tmp_path, k):
    """Item 3 (every k from 1 to 12 is in the AppTest; here the Hasse diagram's last size, the
    first level-by-level size and the largest)."""
    from tests.app.test_room_data_pages import class_with_components
    path = tmp_path / f"class_{k}.json"
    path.write_bytes(class_with_components(k))
    shots = shots_dir()
    context = browser.new_context(viewport={"width": WIDTH, "height": 900})
    page = context.new_page()
    try:
        open_page(page, server)
        page.get_by_text("Uploaded JSON / CSV").click()
        wait_idle(page)
        _upload(page, path)
        page.get_by_text(f"Active data: policy-class file class_{k}.json").first.wait_for(timeout=60_000)
        wait_idle(page)
        assert page.locator('[data-testid="stException"]').count() == 0
        assert page.get_by_role("switch", name=f"c{k}").is_checked()
        chart = page.locator('[data-testid="stVegaLiteChart"]').first
        chart.scroll_into_view_if_needed()
        page.wait_for_timeout(800)
        assert chart.bounding_box()["width"] > 300
        page.screenshot(path=str(shots / f"lattice-{k}.png"), full_page=True)
        page.get_by_role("switch", name=f"c{k}").click(force=True)
        wait_idle(page)
        assert page.locator('[data-testid="stException"]').count() == 0
    finally:
        context.close()
        print(f"screenshots in {shots}")


def test_replay_reads_the_files_people_have(server, browser, tmp_path):
    """Items 6-8 walked at 1280 px: a semicolon/BOM/decimal-comma file, a detected pass/fail
    column with its mapping, and an Inspect log whose scorer and subgroups are picked from lists."""
    from tests.data.test_room_data_files import PASS_FAIL, pandas_truth, semicolon_run
    shots = shots_dir()
    semicolon = tmp_path / "agreement.csv"
    semicolon.write_bytes(semicolon_run())
    pass_fail = tmp_path / "results.csv"
    pass_fail.write_text(PASS_FAIL)
    context = browser.new_context(viewport={"width": WIDTH, "height": 900})
    page = context.new_page()
    try:
        open_page(page, f"{server}/replay-run")
        _choose(page, "Data", "Upload a labelled CSV or evaluation log")
        _upload(page, semicolon)
        truth = pandas_truth(semicolon.read_bytes())
        wait_metric(page, "Cases replayed", str(len(truth)), timeout=60)
        assert metric_value(page, "Overall accuracy") == f"{truth['agreement'].mean():.3f}"
        page.screenshot(path=str(shots / "6-semicolon.png"), full_page=True)

        _upload(page, pass_fail)
        page.get_by_text("Scores for the labels of result").first.wait_for(timeout=60_000)
        wait_metric(page, "Cases replayed", "40", timeout=60)
        assert page.locator('[data-testid="stAlert"]').filter(has_text="Could not use").count() == 0
        page.screenshot(path=str(shots / "7-pass-fail-mapping.png"), full_page=True)

        _upload(page, ROOT / "tests" / "fixtures" / "inspect" / "run.eval")
        page.get_by_text("2 scorers (match, graded)").first.wait_for(timeout=30_000)
        _choose(page, "Scorer or metric", "match")
        wait_metric(page, "Cases replayed", "23", timeout=60)
        # A log's default subgroup is one natural key, as on the command line (issue 29 item 12)
        page.get_by_text("Default (as the command line without --subgroup): subject.").first.wait_for(timeout=30_000)
        picker = page.locator('[data-testid="stMultiSelect"]').filter(has_text="Subgroups")
        assert picker.get_by_text("subject", exact=True).count() == 1
        assert picker.get_by_text("level", exact=True).count() == 0
        page.screenshot(path=str(shots / "8-scorer-and-subgroups.png"), full_page=True)
        picker.locator("input").first.click()
        page.keyboard.press("Backspace")          # drops the one key, subject: no subgroups
        page.keyboard.press("Escape")
        wait_idle(page)
        page.wait_for_timeout(500)
        wait_idle(page)
        page.screenshot(path=str(shots / "8-no-subgroup.png"), full_page=True)
        assert picker.get_by_text("subject", exact=True).count() == 0
        assert page.locator('[data-testid="stException"]').count() == 0
        wait_metric(page, "Cases replayed", "23", timeout=60)
    finally:
        context.close()
        print(f"screenshots in {shots}")
