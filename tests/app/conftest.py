"""Page tests never touch the real home folder: live audits go to a temporary workspace.

Browser tests share one Streamlit server and one Chromium per pytest process (starting them is
most of a browser test's time); under pytest-xdist they all run in one worker (xdist_group
"browser", with the configured ``--dist loadgroup``), so that server is started once.
"""

import pytest


@pytest.fixture(autouse=True)
def audit_home(tmp_path, monkeypatch):
    monkeypatch.setenv("AUDIT_HOME", str(tmp_path / "audit_home"))
    return tmp_path / "audit_home"


@pytest.fixture(scope="session")
def app_server(tmp_path_factory):
    """``(url, AUDIT_HOME)`` of one `streamlit run app.py` shared by the browser tests."""
    from tests.app.test_browser import streamlit_server

    home = tmp_path_factory.mktemp("shared_audit_home")
    with streamlit_server({"AUDIT_HOME": str(home)}) as url:
        yield url, home


@pytest.fixture(scope="session")
def chromium():
    """One headless Chromium shared by the browser tests (each test opens its own page)."""
    from tests.app.test_browser import launch_chromium

    with launch_chromium() as instance:
        yield instance


def pytest_collection_modifyitems(config, items):
    # Every browser test, whoever adds it, runs in the worker that holds the shared server.
    for item in items:
        if item.get_closest_marker("browser"):
            item.add_marker(pytest.mark.xdist_group("browser"))
