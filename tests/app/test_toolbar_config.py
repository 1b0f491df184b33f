"""Issue 29 item 14: the served dashboard shows no Deploy button (client.toolbarMode = viewer), in a
checkout and in the installed copy (the same file, .streamlit/config.toml beside app.py)."""

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_toolbar_shows_viewer_options_only():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["client"]["toolbarMode"] == "viewer"
