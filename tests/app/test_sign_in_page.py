"""AppTest of sign-in and roles on the Live audit page (issue 23): one test per role's page rules.

``at.secrets`` holds an ``[auth]`` section (so the page is in sign-in mode) and ``at.user`` the
signed-in person's claims, as Streamlit's ``st.user`` gives them after an OpenID Connect sign-in;
the roles file is named by ``$AUDIT_ROLES_FILE``. The real sign-in is in test_sign_in_browser.py.
"""

import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from audit_core.analyses import live
from audit_core.live import LiveAudit, connect, default_db_path, store

APP = str(Path(__file__).resolve().parents[2] / "app.py")
PAGE = "pages/live-audit.py"
ISS = "https://id.example.org"
AUTH = {"redirect_uri": "http://localhost:8501/oauth2callback", "cookie_secret": "x" * 32, "client_id": "c",
        "client_secret": "s", "server_metadata_url": f"{ISS}/.well-known/openid-configuration"}


@pytest.fixture
def roles(tmp_path, monkeypatch):
    path = tmp_path / "roles.toml"
    path.write_text('owners = ["own@x.org"]\nannotators = ["ann@x.org", "bob@x.org"]\n', encoding="utf-8")
    monkeypatch.setenv("AUDIT_ROLES_FILE", str(path))
    return path


def claims(email: str, **more) -> dict:
    """st.user after a sign-in with ISS: a verified address, a token issued now for an hour."""
    now = time.time()
    return {"is_logged_in": True, "email": email, "email_verified": True, "sub": f"sub-{email}", "iss": ISS,
            "iat": now, "exp": now + 3600, "provider": "default", **more}


def _page(email: str | None, audit: bool = True, user: dict | None = None, auth: dict = AUTH) -> AppTest:
    if audit and not default_db_path().exists():
        live.start_live_audit("gpqa:small", "stratified", "LR", n_init=2)
    at = AppTest.from_file(APP, default_timeout=120)
    at.secrets["auth"] = auth
    at.user = user or (claims(email) if email else {"is_logged_in": False})
    at.switch_page(PAGE)
    at = at.run()
    if audit:
        at = _button(at, "Resume").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _labels(at: AppTest) -> list[str]:
    return [b.label for b in at.button]


def _button(at: AppTest, label: str):
    matches = [b for b in at.button if b.label == label]
    assert matches, _labels(at)
    return matches[0]


def _texts(at: AppTest) -> str:
    """The captions, errors and Markdown, Markdown escapes removed."""
    return " ".join(str(c.value) for c in (*at.caption, *at.error, *at.markdown)).replace("\\", "")


def _sidebar_box() -> None:
    from pages import _auth

    _auth.sidebar_box()


def _sidebar(email: str | None, auth: bool | dict = True, user: dict | None = None) -> AppTest:
    at = AppTest.from_function(_sidebar_box, default_timeout=30)
    if auth:
        at.secrets["auth"] = AUTH if auth is True else auth
    at.user = user or (claims(email) if email else {"is_logged_in": False})
    return at.run()


def _engine() -> LiveAudit:
    return LiveAudit(connect(default_db_path()), 1)


def test_an_annotator_labels_under_their_signed_in_identity_and_cannot_start_or_export(roles):
    at = _page("ann@x.org")
    assert "Only an owner can start an audit" in _texts(at)
    assert "Signed in as **ann@x.org** (annotator): every label records this identity." in _texts(at)
    at = _button(at, "correct").click().run()
    (label,) = _engine().labels()
    assert (label.annotator, label.verified) == ("ann@x.org", True)
    event = store.read_events(_engine().conn, 1)[-1]
    assert (event.kind, event.source, event.issuer) == ("labelled", "signed-in", ISS)
    assert not any("Export" in b for b in _labels(at)) and "Open in Replay" not in _labels(at)
    assert "Audit trail (owners)" not in [e.label for e in at.expander]
    assert "Who labelled how many cases (1)" in [e.label for e in at.expander]


def test_an_annotator_cannot_undo_another_annotators_label(roles):
    at = _page("ann@x.org")
    at = _button(at, "correct").click().run()
    bob = live.session_identity(claims("bob@x.org"), live.resolve_role_policy(str(roles)), AUTH)
    (case,) = live.claim_cases(1, bob).cases
    live.record_label(1, case.case_id, 0, bob)
    at = _button(at, "Undo this label").click().run()
    assert [e.value.replace("\\", "") for e in at.error] == ["ann@x.org is an annotator and may undo only their own labels; the last "
                                           "one is bob@x.org's (an owner can undo it)"]
    assert [r.annotator for r in _engine().labels()] == ["ann@x.org", "bob@x.org"]


def test_a_viewer_sees_the_audit_without_label_controls(roles):
    at = _page("someone@else.org")                       # not in the roles file: the default, viewer
    assert "You are signed in as a viewer: you see the audit, you do not label." in _texts(at)
    assert not {"correct", "incorrect", "partial", "Skip"} & set(_labels(at))
    assert _engine().pending() == ()                      # viewing claimed nothing
    assert [m.value for m in at.metric if m.label == "Labelled"] == ["0"]


def test_an_owner_starts_an_audit_reads_the_event_log_and_undoes_anyones_label(roles):
    at = _page("own@x.org", audit=False)
    at.selectbox(key="live_new_pool").set_value("gpqa:small")
    at = _button(at, "Start audit").click().run()
    assert live.live_audit_list()["audit_id"].tolist() == [1]
    ann = live.session_identity(claims("ann@x.org"), live.resolve_role_policy(str(roles)), AUTH)
    (case,) = live.claim_cases(1, ann).cases
    live.record_label(1, case.case_id, 1, ann)
    at = at.run()
    assert "Audit trail (owners)" in [e.label for e in at.expander]
    assert "Export labelled CSV (recorded-run format)" in [b.label for b in at.get("download_button")]
    at = _button(at, f"Undo the last label or skip (case {case.case_id}, by ann@x.org)").click().run()
    assert _engine().labels() == () and store.read_events(_engine().conn, 1)[-1].annotator == "own@x.org"


def test_the_sidebar_says_who_is_signed_in_and_offers_sign_in_or_out(roles):
    assert "Sign in" in _labels(_sidebar(None))
    signed = _sidebar("ann@x.org")
    assert "Sign out" in _labels(signed) and "Signed in as **ann@x.org** (annotator), until " in _texts(signed)
    single = _sidebar(None, auth=False)
    assert "Single-user mode: no sign-in is configured" in _texts(single) and not single.warning


def test_without_sign_in_a_visitor_sees_a_read_only_audit(roles):
    at = _page(None)
    assert "Audit 1: sign in (sidebar) to label; until then you see it read-only." in _texts(at)
    assert "correct" not in _labels(at) and _engine().pending() == ()


def test_a_broken_roles_file_makes_everyone_a_viewer_and_says_why(roles):
    roles.write_text("owners = [", encoding="utf-8")
    at = _page("own@x.org")
    assert "Signed in as **own@x.org** (viewer)." in _texts(at) and "correct" not in _labels(at)
    assert "Only an owner can start an audit" in _texts(at)
    errors = [e.value for e in _sidebar("own@x.org").error]
    assert len(errors) == 1 and "not valid TOML" in errors[0] and "everyone signed in is a viewer" in errors[0]


def test_without_an_auth_section_the_page_is_single_user_and_names_are_self_declared(tmp_path, monkeypatch):
    live.start_live_audit("gpqa:small", "stratified", "LR", n_init=2)
    at = AppTest.from_file(APP, default_timeout=120)
    at.switch_page(PAGE)
    at = at.run()
    at = _button(at, "Resume").click().run()
    at.text_input(key="live_annotator_input").input("Ada")
    at = _button(at.run(), "correct").click().run()
    (label,) = _engine().labels()
    assert (label.annotator, label.verified) == ("Ada", False)
    assert store.read_events(_engine().conn, 1)[-1].source == "declared"


def test_without_sign_in_on_a_reachable_address_the_sidebar_says_anyone_can_label():
    from streamlit import config

    before = config.get_option("server.address")
    config.set_option("server.address", "0.0.0.0")
    try:
        at = _sidebar(None, auth=False)
    finally:
        config.set_option("server.address", before)
    assert [w.value for w in at.warning] and "anyone who can reach it can label" in at.warning[0].value
    assert "Single-user mode" not in _texts(at)


# -- issue 27 items 1-3 -------------------------------------------------------------------------------

@pytest.mark.parametrize("verified", ["false", "true", 0, None, "missing"])
def test_the_owners_address_unverified_is_neither_owner_nor_their_name(roles, verified):
    user = claims("own@x.org", sub="mallory")
    if verified == "missing":
        del user["email_verified"]
    else:
        user["email_verified"] = verified
    at = _page(None, user=user)
    assert "Signed in as **mallory** (viewer)." in _texts(at) and "Only an owner can start an audit" in _texts(at)
    assert "Start audit" not in _labels(at) and "correct" not in _labels(at)


def test_an_expired_sign_in_sees_the_audit_but_gets_no_label_button_and_a_sign_in_again(roles):
    at = _page("ann@x.org")
    (case,) = _engine().pending()                       # claimed while the sign-in was valid
    then = time.time() - 7200
    at.user = claims("ann@x.org", iat=then, exp=then + 3600)
    at = at.run()
    assert not at.exception
    assert not {"correct", "incorrect", "partial", "Skip"} & set(_labels(at))
    warned = " ".join(w.value for w in at.warning).replace("\\", "")
    assert "Your sign-in ended at" in warned and f"case {case.case_id} stays yours meanwhile" in warned
    assert _engine().labels() == ()
    sidebar = _sidebar(None, user=claims("ann@x.org", iat=then, exp=then + 3600))
    assert "Sign in again" in _labels(sidebar) and "Sign out" not in _labels(sidebar)
    assert "Your sign-in as **ann@x.org** ended at" in " ".join(w.value for w in sidebar.warning).replace("\\", "")


def test_a_token_of_another_issuer_is_refused_with_one_message(roles):
    forged = claims("own@x.org", iss="https://evil.example")
    at = _page(None, user=forged)
    assert "correct" not in _labels(at) and "Start audit" not in _labels(at)
    assert "sign in (sidebar) to label; until then you see it read-only" in _texts(at)
    sidebar = _sidebar(None, user=forged)
    assert "Sign out" in _labels(sidebar)
    errors = [e.value.replace("\\", "") for e in sidebar.error]
    assert len(errors) == 1 and "not by the configured provider 'https://id.example.org'" in errors[0]


def test_a_missing_cookie_secret_is_one_message_naming_it_not_an_exception(roles):
    at = _sidebar(None, auth={k: v for k, v in AUTH.items() if k != "cookie_secret"})
    assert not at.exception and "Sign in" not in _labels(at)
    (error,) = [e.value.replace("\\", "") for e in at.error]
    assert "[auth] in the secrets file has no cookie_secret" in error and "restarts the server" in error


def test_a_provider_that_does_not_answer_is_one_message_with_how_to_retry(roles):
    from tests.app.test_browser import free_port

    down = {**AUTH, "server_metadata_url": f"http://127.0.0.1:{free_port()}/.well-known/openid-configuration"}
    at = _sidebar(None, auth=down)
    at = _button(at, "Sign in").click().run()
    assert not at.exception
    (error,) = [e.value.replace("\\", "") for e in at.error]
    assert "Sign-in is unavailable: the sign-in provider" in error and "does not answer" in error
    assert "try Sign in again in a minute" in error


def test_a_name_in_a_link_is_dropped_and_the_opener_labels_as_nobody(tmp_path):
    # The attack (issue 27 item 4): Dana's link carries her name; whoever opens it labelled as Dana,
    # on the case Dana had claimed.
    live.start_live_audit("gpqa:small", "stratified", "LR", n_init=2)
    (dana_case,) = live.claim_cases(1, "Dana").cases
    at = AppTest.from_file(APP, default_timeout=120)
    at.switch_page(PAGE)
    at.query_params["audit"] = "1"
    at.query_params["annotator"] = "Dana"
    at = at.run()
    assert not at.exception
    assert at.text_input(key="live_annotator_input").value == ""
    assert "Audit 1 is open: enter your name to label." in _texts(at)
    assert "correct" not in _labels(at) and f"Case {dana_case.case_id}" not in [h.value for h in at.subheader]
    assert "annotator" not in at.query_params and at.query_params["audit"] in ("1", ["1"])
    at.text_input(key="live_annotator_input").input("Eve")
    at = _button(at.run(), "correct").click().run()
    assert "annotator" not in at.query_params
    assert [(r.annotator, r.case_id != dana_case.case_id) for r in _engine().labels()] == [("Eve", True)]
