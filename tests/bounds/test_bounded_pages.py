"""Issue 18, item 3 on the pages: a request beyond a limit ends in one st.error naming it, and the
page's last good result stays."""

from pathlib import Path

from streamlit.testing.v1 import AppTest

from audit_core.auditing.plan import MAX_PLAN_CASES

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def app(page: str, **query) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=90)
    at.query_params.update(query)
    at.switch_page(page)
    return at.run()


def test_planner_refuses_three_million_cases_with_the_limit():
    at = app("pages/audit-planner.py")
    at.selectbox(key="plan_pool").set_value("assumed").run()  # the assumed inputs show once it is chosen
    at.text_input(key="plan_sizes").set_value("3000000,5")
    next(b for b in at.button if b.label == "Plan the audit").click().run()
    assert not at.exception
    assert len(at.error) == 1 and f"{MAX_PLAN_CASES:,}" in at.error[0].value, [e.value for e in at.error]
    assert "whole numbers" not in at.error[0].value  # before: InputError fell into the ValueError branch


def test_explorer_link_of_twelve_components_by_512_policies_explains_without_the_lattice():
    from audit_core.identify import MAX_LATTICE_WORK
    from tests.bounds.bigclass import big_class, link_text
    at = app("pages/protocol-explorer.py", **{"class": link_text(big_class(12, 512))})
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any(f"{MAX_LATTICE_WORK:,}" in i.value for i in at.info), [i.value for i in at.info]
