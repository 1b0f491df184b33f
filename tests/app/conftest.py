"""Page tests never touch the real home folder: live audits go to a temporary workspace.

Browser tests share one Streamlit server and one Chromium per pytest process (starting them is
most of a browser test's time; the Chromium fixture is tests/conftest.py's, shared with
tests/live). Under pytest-xdist each worker that runs a browser test starts its own (a session
fixture is per process), so the browser tests spread over the workers instead of queueing behind
one server in one worker; tests/conftest.py schedules them first.
"""

import pytest


@pytest.fixture(autouse=True)
def audit_home(tmp_path, monkeypatch):
    monkeypatch.setenv("AUDIT_HOME", str(tmp_path / "audit_home"))
    return tmp_path / "audit_home"


@pytest.fixture(scope="session")
def app_server(tmp_path_factory):
    """``(url, AUDIT_HOME)`` of one `streamlit run app.py` shared by the browser tests of this
    pytest process (of this xdist worker)."""
    from tests.app.test_browser import streamlit_server

    home = tmp_path_factory.mktemp("shared_audit_home")
    with streamlit_server({"AUDIT_HOME": str(home)}) as url:
        yield url, home
