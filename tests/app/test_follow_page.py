"""Replay's *Follow a file on this machine* on a shared server (issue 18, item 1): offered only with
a data folder (or on a loopback-bound server), reads nothing outside it, and a refused file's
content never reaches the page."""

import os

import pytest

from tests.app.test_pages import app, metric

GOOD = "case,grp,correct\n" + "".join(f"c{i},{'a' if i % 2 else 'b'},{int(i % 5 != 0)}\n" for i in range(30))


def follow(at, path):
    at.selectbox(key="replay_source").set_value("follow").run()
    at.text_input(key="replay_follow_path").input(str(path)).run()
    return at.button(key="replay_reread").click().run()


def test_without_a_data_folder_a_shared_server_does_not_offer_it(monkeypatch):
    monkeypatch.delenv("AUDIT_DATA_DIR", raising=False)
    at = app("pages/replay-run.py")
    assert not any(o.startswith("Follow a file") for o in at.selectbox(key="replay_source").options)
    assert not at.exception


@pytest.fixture
def served(tmp_path, monkeypatch):
    folder = tmp_path / "data"
    folder.mkdir()
    (folder / "run.csv").write_text(GOOD)
    monkeypatch.setenv("AUDIT_DATA_DIR", str(folder))
    monkeypatch.setenv("SECRET_TOKEN_FOR_TEST", "hunter2-do-not-show")
    return folder


def shown_text(at) -> str:
    parts = [e.value for e in at.error] + [c.value for c in at.caption] + [m.value for m in at.markdown]
    return "\n".join(map(str, parts))


def test_a_file_in_the_folder_is_followed_and_attacks_keep_it_on_screen(served, tmp_path):
    at = follow(app("pages/replay-run.py"), "run.csv")
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert int(metric(at, "Cases replayed")) == 30
    (tmp_path / "other_team.csv").write_text(GOOD.replace("grp", "secret_subgroup") * 1)
    (served / "link.csv").symlink_to(tmp_path / "other_team.csv")
    os.mkfifo(served / "pipe.csv")
    attacks = {"/proc/self/environ": "outside", "/etc/passwd": "outside", "../other_team.csv": "outside",
               "link.csv": "outside", "pipe.csv": "not a regular file",
               str(tmp_path / "audit_home" / "workspace.sqlite"): "outside"}
    for path, needle in attacks.items():
        at.text_input(key="replay_follow_path").input(path).run()
        at.button(key="replay_reread").click().run()
        assert not at.exception
        assert len(at.error) == 1 and needle in at.error[0].value, (path, [e.value for e in at.error])
        text = shown_text(at)
        assert "hunter2" not in text and "root:x:0" not in text and "secret_subgroup" not in text
        assert int(metric(at, "Cases replayed")) == 30  # the last good reading stays


def test_a_3_gb_sparse_file_in_the_folder_is_refused_from_its_size(served):
    with open(served / "huge.csv", "wb") as out:
        out.write(GOOD.encode())
    os.truncate(served / "huge.csv", 3 * 2**30)
    at = follow(app("pages/replay-run.py"), "huge.csv")
    assert not at.exception and len(at.error) == 1
    assert "larger than the limit of 50 MB" in at.error[0].value


@pytest.mark.parametrize("headers, offered", [
    ({"Host": "127.0.0.1:8501"}, True),                                     # a browser on this machine
    ({"Host": "audit.example.org"}, False),                                 # a proxy passing its name on
    ({"Host": "127.0.0.1:8501", "X-Forwarded-For": "203.0.113.9"}, False),  # a proxy rewriting Host
])
def test_a_loopback_server_behind_a_reverse_proxy_does_not_offer_any_path(headers, offered, monkeypatch):
    """Issue 27 item 5: bound to 127.0.0.1 but reached through a proxy under a host name, the
    page offered *Follow a file* on any path; "local" is now the bound address and the request."""
    from streamlit import config

    from pages import _shared
    monkeypatch.delenv("AUDIT_DATA_DIR", raising=False)
    monkeypatch.setattr(_shared, "request_headers", lambda: headers)
    before = config.get_option("server.address")
    config.set_option("server.address", "127.0.0.1")
    try:
        at = app("pages/replay-run.py")
    finally:
        config.set_option("server.address", before)
    assert not at.exception
    options = at.selectbox(key="replay_source").options
    assert any(o.startswith("Follow a file") for o in options) is offered, options
