"""Issue 18, item 3: a 200 MB CSV replay took 6.1 GB (about 30x the file). The server accepts at
most 50 MB per upload, and docs/limits.md says so."""

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_upload_size_is_bounded_and_documented():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    limit = config["server"]["maxUploadSize"]
    assert limit == 50  # Streamlit's default (200 MB) let one replay take 6 GB
    limits = (ROOT / "docs" / "limits.md").read_text()
    assert f"| {limit} MB |" in limits and "server.maxUploadSize" in limits
