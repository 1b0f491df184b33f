"""Page tests never touch the real home folder: live audits go to a temporary workspace."""

import pytest


@pytest.fixture(autouse=True)
def audit_home(tmp_path, monkeypatch):
    monkeypatch.setenv("AUDIT_HOME", str(tmp_path / "audit_home"))
    return tmp_path / "audit_home"
