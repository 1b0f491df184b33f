"""tests/load.py: the factor runaway-guard time caps scale by."""

import os

from tests.load import busy_factor


def test_busy_factor_is_load_over_cores_and_never_below_one(monkeypatch):
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.setattr(os, "getloadavg", lambda: (8.0, 1.0, 1.0))
    assert busy_factor() == 4.0
    monkeypatch.setattr(os, "getloadavg", lambda: (0.5, 9.0, 9.0))
    assert busy_factor() == 1.0

    def unavailable():
        raise OSError("no load average here")
    monkeypatch.setattr(os, "getloadavg", unavailable)
    assert busy_factor() == 1.0
