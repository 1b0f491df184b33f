"""A shared server shows a visitor no traceback, exception message or server path of an unexpected
error; the details go to the server's log (issue 18, item 3: client.showErrorDetails)."""

import logging
import tomllib
from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]


def test_the_project_config_hides_error_details():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["client"]["showErrorDetails"] == "none"


def test_the_project_config_runs_no_file_watcher():
    """A served dashboard never reloads its source; the watcher's registration of every imported
    module doubled a fresh server's first page (issue 24; docs/deploy.md)."""
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["server"]["fileWatcherType"] == "none" and config["server"]["runOnSave"] is False


def test_an_unexpected_error_shows_a_generic_box_and_logs_the_traceback(tmp_path, capfd, caplog, monkeypatch):
    monkeypatch.chdir(ROOT)  # Streamlit reads .streamlit/config.toml from the working folder
    script = tmp_path / "boom.py"
    script.write_text("import streamlit as st\nst.write('before')\n"
                      "raise KeyError('/srv/secret/path/token=abc123')\n")
    # Streamlit's loggers do not propagate and each writes to the stderr it found when it was made:
    # in a worker that made them during an earlier test, that stream is not this test's. A handler of
    # our own on each existing one reads the record wherever it goes (a logger made now goes to capfd).
    records: list[str] = []
    sink = logging.Handler()
    sink.emit = lambda record: records.append(record.getMessage() + "\n" + (
        logging.Formatter().formatException(record.exc_info) if record.exc_info else ""))
    made = [logging.getLogger(name) for name in list(logging.Logger.manager.loggerDict) if name.startswith("streamlit")]
    for logger in made:
        logger.addHandler(sink)
    try:
        at = AppTest.from_file(str(script)).run()
    finally:
        for logger in made:
            logger.removeHandler(sink)
    assert len(at.exception) == 1
    shown = at.exception[0]
    assert "redacted" in shown.message and shown.stack_trace == []
    assert "abc123" not in str(shown.proto) and "KeyError" not in str(shown.proto)
    assert "boom.py" not in str(shown.proto)
    # Streamlit's logger writes to stderr; under pytest the record may be captured as a log record
    logged = capfd.readouterr().err + caplog.text + "".join(records)
    assert "Uncaught app execution" in logged and "KeyError" in logged and "abc123" in logged
