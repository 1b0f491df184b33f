"""Roles (issue 23): one test per rule, on the pure functions and on the engine that enforces them."""

import getpass
import json
import time
import urllib.error
import urllib.parse
import urllib.request
from datetime import timedelta

import pytest

from audit_core.errors import InputError
from audit_core.live import LiveAudit, connect, store
from audit_core.live.roles import (
    ACTIONS,
    Identity,
    PermissionDenied,
    SignInExpired,
    allows,
    as_identity,
    declared,
    expired,
    load_role_policy,
    may,
    os_user,
    parse_role_policy,
    reachable_by_others,
    require,
    require_undo,
    role_for,
    signed_in,
    verified_email,
)
from audit_core.sequential import AuditParams

GPQA = AuditParams.gpqa(n_init=2)
ISS = "http://localhost:9999"


def person(name: str, role: str) -> Identity:
    return Identity(name, role, True, "signed-in", ISS)


# -- the table of rules ----------------------------------------------------------------------------

def test_a_viewer_may_only_view():
    assert [a for a in ACTIONS if allows("viewer", a)] == ["view"]


def test_an_annotator_may_claim_label_skip_and_undo_but_not_create_export_read_the_log_or_undo_others():
    assert {a for a in ACTIONS if allows("annotator", a)} == {"view", "claim", "label", "skip", "undo"}


def test_an_owner_may_do_everything():
    assert all(allows("owner", a) for a in ACTIONS)


def test_an_unknown_role_or_action_is_refused_with_one_message():
    with pytest.raises(InputError, match="role 'admin': expected one of viewer, annotator, adjudicator, owner"):
        allows("admin", "label")
    with pytest.raises(InputError, match="action 'delete'"):
        allows("owner", "delete")


def test_require_names_who_what_and_the_role_needed():
    with pytest.raises(PermissionDenied, match="vi@x.org is a viewer: a viewer may not label cases "
                                               r"\(that needs the annotator role"):
        require(person("vi@x.org", "viewer"), "label")
    assert require(person("an@x.org", "annotator"), "label").name == "an@x.org"
    assert issubclass(PermissionDenied, InputError)           # pages and the CLI show it as one message


def test_an_annotator_undoes_only_their_own_label():
    ann = person("ann@x.org", "annotator")
    assert require_undo(ann, "ann@x.org") is ann
    with pytest.raises(PermissionDenied, match="may undo only their own labels; the last one is bob@x.org's"):
        require_undo(ann, "bob@x.org")


def test_an_owner_undoes_anyones_label_and_a_viewer_nobodys():
    assert require_undo(person("own@x.org", "owner"), "bob@x.org").role == "owner"
    with pytest.raises(PermissionDenied, match="viewer may not undo labels"):
        require_undo(person("vi@x.org", "viewer"), "vi@x.org")


def test_a_plain_name_acts_as_a_self_declared_owner():
    who = as_identity("  Ada  Lovelace ")
    assert (who.name, who.role, who.verified, who.source) == ("Ada Lovelace", "owner", False, "declared")
    with pytest.raises(InputError, match="a name is required"):
        as_identity("   ")


def test_only_a_sign_in_is_verified_and_the_cli_default_is_the_os_user():
    with pytest.raises(InputError, match="only a sign-in is verified"):
        Identity("x", "owner", True, "declared")
    me = os_user()
    assert (me.name, me.source, me.verified) == (getpass.getuser(), "os-user", False)
    assert declared("kim").source == "declared"


# -- the operator's role policy --------------------------------------------------------------------

def test_a_listed_verified_email_or_subject_gets_its_role_case_insensitive_email():
    policy = parse_role_policy({"users": {"Ann@X.org": "annotator"}, "owners": ["sub-42"]})
    assert role_for({"sub": "s1", "email": "ann@x.ORG", "email_verified": True}, policy) == "annotator"
    assert role_for({"sub": "sub-42"}, policy) == "owner"


def test_an_unlisted_signed_in_person_gets_the_default_viewer_unless_the_operator_says_otherwise():
    assert role_for({"sub": "stranger", "email": "s@y.org"}, parse_role_policy({})) == "viewer"
    assert role_for({"sub": "stranger"}, parse_role_policy({"default": "annotator"})) == "annotator"


def test_a_claim_can_name_the_role_the_highest_wins_and_the_file_entry_comes_first():
    policy = parse_role_policy({"claim": "groups", "viewers": ["boss@x.org"]})
    assert role_for({"sub": "a", "groups": ["staff", "annotator", "owner"]}, policy) == "owner"
    assert role_for({"sub": "a", "groups": "annotator"}, policy) == "annotator"
    assert role_for({"sub": "a", "groups": ["staff"]}, policy) == "viewer"
    assert role_for({"sub": "b", "email": "boss@x.org", "email_verified": True, "groups": ["owner"]}, policy) == "viewer"


def token(**claims) -> dict:
    """An ID token's claims as st.user gives them: issued now by ISS, valid for an hour."""
    now = time.time()
    return {"iss": ISS, "iat": now, "exp": now + 3600, **claims}


def test_the_recorded_name_is_the_verified_email_else_the_subject():
    policy = parse_role_policy({})
    who = signed_in(token(sub="u-1", email="a@x.org", email_verified=True), policy, ISS)
    assert (who.name, who.verified, who.source, who.issuer) == ("a@x.org", True, "signed-in", ISS)
    assert signed_in(token(sub="u-1", email="a@x.org", email_verified=False), policy, ISS).name == "u-1"


# -- issue 27 item 1: only the JSON boolean true verifies an e-mail address --------------------------

UNVERIFIED = {"the string false": "false", "the string true": "true", "the string True": "True", "0": 0, "1": 1,
              "null": None, "the string yes": "yes", "a list": [True]}


@pytest.mark.parametrize("spelling", [*UNVERIFIED, "missing"])
def test_an_owners_address_without_email_verified_true_is_neither_their_name_nor_their_role(spelling):
    # The attack: a provider account whose (self-typed) address is the owner's. Before issue 27,
    # every spelling but the boolean false signed the visitor in as the owner.
    policy = parse_role_policy({"owners": ["own@x.org"], "default": "annotator"})
    claims = token(sub="mallory", email="own@x.org")
    if spelling != "missing":
        claims["email_verified"] = UNVERIFIED[spelling]
    assert verified_email(claims) is None
    who = signed_in(claims, policy, ISS)
    assert (who.name, who.role) == ("mallory", "annotator")
    assert not allows(who.role, "create")


def test_the_json_boolean_true_verifies_and_the_policy_then_applies():
    policy = parse_role_policy({"owners": ["own@x.org"]})
    who = signed_in(token(sub="own-1", email="Own@X.org", email_verified=True), policy, ISS)
    assert (who.name, who.role) == ("Own@X.org", "owner")


def test_an_email_shaped_subject_never_matches_an_email_entry():
    # The mock provider (and a careless one) lets a subject look like someone's address.
    policy = parse_role_policy({"owners": ["own@x.org"]})
    assert role_for(token(sub="own@x.org", email="own@x.org"), policy) == "viewer"


def test_roles_keyed_by_issuer_and_subject_apply_only_to_that_issuer():
    policy = parse_role_policy({"subjects": {ISS + "/": {"AAA-1": "owner"}, "https://other.example": {"BBB": "owner"}}})
    assert policy.subjects == {(ISS, "AAA-1"): "owner", ("https://other.example", "BBB"): "owner"}
    assert role_for(token(sub="AAA-1"), policy) == "owner"
    assert role_for(token(sub="BBB"), policy) == "viewer"                 # BBB is someone at another issuer
    assert role_for({**token(sub="AAA-1"), "iss": "https://other.example"}, policy) == "viewer"
    with pytest.raises(InputError, match="subjects.x.y: role 'boss'"):
        parse_role_policy({"subjects": {"x": {"y": "boss"}}})
    with pytest.raises(InputError, match="subjects: expected tables"):
        parse_role_policy({"subjects": {"x": "owner"}})


def test_a_token_from_another_issuer_or_without_one_is_refused():
    policy = parse_role_policy({"owners": ["own@x.org"]})
    claims = token(sub="s", email="own@x.org", email_verified=True)
    for iss in ("https://evil.example", "", None):
        with pytest.raises(InputError, match="not by the configured provider 'http://localhost:9999'"):
            signed_in({**claims, "iss": iss}, policy, ISS)
    with pytest.raises(InputError, match="no issuer to check"):
        signed_in(claims, policy, None)
    assert signed_in({**claims, "iss": ISS + "/"}, policy, ISS).role == "owner"     # Auth0 writes a trailing slash
    explicit = parse_role_policy({"owners": ["own@x.org"], "issuer": "https://evil.example"})
    assert signed_in({**claims, "iss": "https://evil.example"}, explicit, ISS).role == "owner"


def test_configured_issuer_is_the_metadata_url_without_the_well_known_path():
    from audit_core.live.sign_in import configured_issuer

    url = f"{ISS}/.well-known/openid-configuration"
    assert configured_issuer({"server_metadata_url": url}) == ISS
    assert configured_issuer({"google": {"server_metadata_url": url}}, "google") == ISS
    assert configured_issuer({"server_metadata_url": "https://x.example/metadata"}) is None
    assert configured_issuer(None) is None


# -- issue 27 item 2: a sign-in writes until its token expires, at most sign_in_minutes ----------------

def test_a_sign_in_expires_with_its_token_and_then_may_look_but_not_write():
    policy = parse_role_policy({"annotators": ["ann@x.org"]})
    now = time.time()
    who = signed_in(token(sub="a", email="ann@x.org", email_verified=True, exp=now + 30), policy, ISS)
    assert who.expires == pytest.approx(now + 30) and may(who, "label", now) and not expired(who, now)
    assert expired(who, now + 30) and not may(who, "label", now + 30) and may(who, "view", now + 30)
    with pytest.raises(SignInExpired, match=r"ann@x.org: the sign-in ended at .* UTC; sign in again to label cases"):
        require(who, "label", now + 31)
    assert issubclass(SignInExpired, PermissionDenied)
    assert require(who, "view", now + 31) is who


def test_a_long_lived_token_still_ends_after_sign_in_minutes():
    now = time.time()
    claims = token(sub="a", iat=now, exp=now + 86400)
    assert signed_in(claims, parse_role_policy({}), ISS).expires == pytest.approx(now + 3600)
    assert signed_in(claims, parse_role_policy({"sign_in_minutes": 5}), ISS).expires == pytest.approx(now + 300)
    with pytest.raises(InputError, match="sign_in_minutes: expected a number of minutes"):
        parse_role_policy({"sign_in_minutes": 0})
    with pytest.raises(InputError, match="no expiry time"):
        signed_in({k: v for k, v in claims.items() if k != "exp"}, parse_role_policy({}), ISS)


def test_the_engine_refuses_an_expired_sign_ins_label_and_writes_nothing(db):
    audit = LiveAudit.create(connect(db), "gpqa:large", "stratified", "LR", seed=0, params=GPQA)
    ann = Identity("ann@x.org", "annotator", True, "signed-in", ISS, time.time() + 3600)
    (case,) = audit.next(ann)
    gone = Identity("ann@x.org", "annotator", True, "signed-in", ISS, time.time() - 1)
    for write in (lambda: audit.label(case.case_id, 1, gone), lambda: audit.skip(case.case_id, "x", gone),
                  lambda: audit.next(gone)):
        with pytest.raises(SignInExpired, match="sign in again"):
            write()
    audit.label(case.case_id, 1, ann)
    with pytest.raises(SignInExpired, match="sign in again to undo labels"):
        audit.undo(gone)
    assert [e.kind for e in store.read_events(audit.conn, audit.audit_id)] == ["proposed", "labelled"]
    with pytest.raises(InputError, match="only a sign-in expires"):
        Identity("x", "owner", False, "declared", None, 1.0)


def test_a_bad_policy_is_one_message_naming_the_file_and_key(tmp_path):
    with pytest.raises(InputError, match="users.bob: role 'boss'"):
        parse_role_policy({"users": {"bob": "boss"}})
    with pytest.raises(InputError, match="unknown key"):
        parse_role_policy({"admins": ["x"]})
    bad = tmp_path / "roles.toml"
    bad.write_text("owners = [", encoding="utf-8")
    with pytest.raises(InputError, match="roles file .*roles.toml: not valid TOML"):
        load_role_policy(bad)
    with pytest.raises(InputError, match="roles file .*missing.json"):
        load_role_policy(tmp_path / "missing.json")


def test_a_roles_file_in_toml_or_json(tmp_path):
    (tmp_path / "roles.toml").write_text('default = "viewer"\nowners = ["o@x.org"]\n[users]\n"a@x.org" = "annotator"\n',
                                         encoding="utf-8")
    (tmp_path / "roles.json").write_text('{"annotators": ["a@x.org"], "claim": "roles"}', encoding="utf-8")
    toml, json = load_role_policy(tmp_path / "roles.toml"), load_role_policy(tmp_path / "roles.json")
    assert toml.users == {"o@x.org": "owner", "a@x.org": "annotator"} and toml.default == "viewer"
    assert json.users == {"a@x.org": "annotator"} and json.claim == "roles"


def test_reachable_by_others_from_the_bound_address_or_the_request_host():
    assert not reachable_by_others("127.0.0.1", "localhost:8501")
    assert not reachable_by_others(None, "127.0.0.1:8501")
    assert not reachable_by_others("localhost", None)
    assert reachable_by_others("0.0.0.0", "localhost:8501")
    assert reachable_by_others("192.168.1.5", None)
    assert reachable_by_others(None, "audit.example.org")
    assert not reachable_by_others("::1", "[::1]:8501")


# -- the engine enforces the rules -----------------------------------------------------------------

@pytest.fixture
def audit(db):
    return LiveAudit.create(connect(db), "gpqa:large", "stratified", "LR", seed=0, params=GPQA,
                            truth="correct")


def test_the_engine_refuses_a_viewers_claim_label_skip_and_undo(audit):
    viewer, ann = person("vi@x.org", "viewer"), person("ann@x.org", "annotator")
    with pytest.raises(PermissionDenied, match="viewer may not take cases"):
        audit.next(viewer)
    (case,) = audit.next(ann)
    with pytest.raises(PermissionDenied, match="viewer may not label"):
        audit.label(case.case_id, 1, viewer)
    with pytest.raises(PermissionDenied, match="viewer may not skip"):
        audit.skip(case.case_id, "unreadable", viewer)
    audit.label(case.case_id, 1, ann)
    with pytest.raises(PermissionDenied, match="viewer may not undo"):
        audit.undo(viewer)
    assert audit.status().n == 1 and [e.kind for e in store.read_events(audit.conn, audit.audit_id)] == [
        "proposed", "labelled"]                              # nothing a refused action wrote


def test_the_engine_lets_an_annotator_undo_their_own_not_anothers_and_an_owner_anyones(audit):
    ann, bob, own = person("ann@x.org", "annotator"), person("bob@x.org", "annotator"), person("o@x.org", "owner")
    (case,) = audit.next(ann)
    audit.label(case.case_id, 1, ann)
    with pytest.raises(PermissionDenied, match="the last one is ann@x.org's"):
        audit.undo(bob)
    assert audit.status().n == 1
    assert audit.undo(ann).case_id == case.case_id and audit.status().n == 0
    audit.label(case.case_id, 0, ann)
    assert audit.undo(own).annotator == "ann@x.org" and audit.status().n == 0
    events = store.read_events(audit.conn, audit.audit_id)
    assert [(e.kind, e.annotator, e.verified, e.source, e.issuer) for e in events] == [
        ("proposed", "ann@x.org", True, "signed-in", ISS), ("labelled", "ann@x.org", True, "signed-in", ISS),
        ("undone", "ann@x.org", True, "signed-in", ISS), ("labelled", "ann@x.org", True, "signed-in", ISS),
        ("undone", "o@x.org", True, "signed-in", ISS)]


def test_only_an_owner_creates_an_audit(db):
    conn = connect(db)
    with pytest.raises(PermissionDenied, match="annotator may not create audits"):
        LiveAudit.create(conn, "gpqa:large", "stratified", "LR", params=GPQA, who=person("a@x.org", "annotator"))
    assert store.list_audits(conn) == []
    made = LiveAudit.create(conn, "gpqa:large", "stratified", "LR", params=GPQA, who=person("o@x.org", "owner"))
    assert made.audit_id == 1


def test_labels_record_verified_for_a_sign_in_and_self_declared_for_a_name(audit):
    (first,) = audit.next("typed name")
    audit.label(first.case_id, 1, "typed name")
    ann = person("ann@x.org", "annotator")
    (second,) = audit.next(ann)
    audit.label(second.case_id, 0, ann)
    assert [(r.annotator, r.verified) for r in audit.labels()] == [("typed name", False), ("ann@x.org", True)]


# -- the use-case layer (what the page and the command line call) ----------------------------------

def test_export_replay_handoff_and_audit_trail_are_owners_only(db, tmp_path):
    from audit_core.analyses import live

    audit_id = live.start_live_audit("gpqa:large", "stratified", "LR", db=db, n_init=2,
                                     who=person("o@x.org", "owner")).audit["audit_id"]
    ann = person("ann@x.org", "annotator")
    (case,) = live.claim_cases(audit_id, ann, db=db).cases
    live.record_label(audit_id, case.case_id, 1, ann, db=db)
    for call in (lambda who: live.export_live_csv(audit_id, db=db, who=who),
                 lambda who: live.replay_handoff(audit_id, db=db, who=who),
                 lambda who: live.export_live_file(audit_id, tmp_path / "x.csv", db=db, who=who),
                 lambda who: live.audit_trail(audit_id, who, db=db)):
        with pytest.raises(PermissionDenied, match="annotator may not"):
            call(ann)
        assert call(person("o@x.org", "owner")) is not None
    log = live.audit_trail(audit_id, person("o@x.org", "owner"), db=db)
    assert log[["kind", "annotator", "signed in", "identity", "issuer"]].values.tolist() == [
        ["started", "", False, "", ""], ["proposed", "ann@x.org", True, "signed-in", ISS],
        ["labelled", "ann@x.org", True, "signed-in", ISS]]
    csv = live.export_live_csv(audit_id, db=db, who=person("o@x.org", "owner")).decode().splitlines()
    assert csv[0].endswith(",annotator,annotator_verified") and csv[1].endswith(",ann@x.org,true")


def test_a_viewers_view_claims_nothing_and_who_labelled_counts_people(db):
    from audit_core.analyses import live

    audit_id = live.start_live_audit("gpqa:large", "stratified", "LR", db=db, n_init=2).audit["audit_id"]
    view = live.live_audit_view(audit_id, person("v@x.org", "viewer"), claim=True, db=db)
    assert view.current == () and view.status.pending == ()
    for who in (person("ann@x.org", "annotator"), person("ann@x.org", "annotator"), "typed"):
        (case,) = live.claim_cases(audit_id, who, db=db).cases
        live.record_label(audit_id, case.case_id, 1, who, db=db)
    view = live.live_audit_view(audit_id, db=db)
    assert view.by_annotator.values.tolist() == [["ann@x.org", True, 2, 0], ["typed", False, 1, 0]]
    assert "2 people labelled or skipped cases: 1 signed in, the other names self-declared." in view.section.summary
    assert [t.caption for t in view.section.tables][:2] == ["Labels in the order received", "Who labelled how many cases"]


def test_the_who_labelled_table_renders_in_the_report_with_names_escaped(db):
    from audit_core.analyses import live
    from audit_core.report.document import table_html, table_markdown
    from audit_core.report.pdf import table_typst

    audit_id = live.start_live_audit("gpqa:large", "stratified", "LR", db=db, n_init=2).audit["audit_id"]
    name = "<b>*Eve*</b> #x"
    (case,) = live.claim_cases(audit_id, name, db=db).cases
    live.record_label(audit_id, case.case_id, 1, name, db=db)
    (table,) = [t for t in live.live_audit_view(audit_id, db=db).section.tables if t.caption.startswith("Who")]
    assert "<b>" not in table_html(table.frame) and "&lt;b&gt;" in table_html(table.frame)
    assert "*Eve*" not in table_markdown(table.frame) and "Eve" in table_typst(table.frame)


# -- issue 27 item 3: the settings and the provider, checked before a visitor is sent there ----------

def test_a_missing_auth_key_is_named():
    from audit_core.live.sign_in import settings_problem

    auth = {"redirect_uri": "http://localhost:8501/oauth2callback", "cookie_secret": "x" * 32, "client_id": "c",
            "client_secret": "s", "server_metadata_url": f"{ISS}/.well-known/openid-configuration"}
    assert settings_problem(auth) is None and settings_problem(None) is None
    assert "has no cookie_secret." in settings_problem({**auth, "cookie_secret": ""})
    problem = settings_problem({k: v for k, v in auth.items() if k not in ("cookie_secret", "client_id")})
    assert "has no cookie_secret and no client_id" in problem and "restarts the server" in problem


@pytest.mark.filterwarnings("ignore::DeprecationWarning")   # the provider package's and Authlib's own
def test_the_provider_probe_against_the_real_provider_up_and_down():
    mock = pytest.importorskip("oidc_provider_mock")
    from audit_core.live.sign_in import provider_problem

    with mock.run_server_in_thread() as server:
        url = f"http://localhost:{server.server_port}"
        assert provider_problem(f"{url}/.well-known/openid-configuration") is None
        assert "answered HTTP 404" in provider_problem(f"{url}/nowhere/.well-known/openid-configuration")
        assert "did not send OpenID Connect settings" in provider_problem(f"{url}/jwks")
    down = provider_problem(f"{url}/.well-known/openid-configuration", timeout=2)
    assert down.startswith(f"Sign-in is unavailable: the sign-in provider ({url}/.well-known/openid-configuration) "
                           "does not answer (") and "try Sign in again in a minute" in down


# -- the role resolution on ID tokens the real provider signs (the flow st.login runs) ---------------

class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def provider_claims(provider: str, sub: str, claims: dict | None = None) -> dict:
    """The validated ID-token claims of ``sub`` (its account set to ``claims`` first) after the
    authorization-code flow against ``provider``, decoded with Authlib as Streamlit does."""
    from authlib.jose import JsonWebKey, jwt

    if claims is not None:
        urllib.request.urlopen(urllib.request.Request(f"{provider}/users/{sub}", data=json.dumps(claims).encode(),
                                                      method="PUT", headers={"Content-Type": "application/json"}))
    meta = json.load(urllib.request.urlopen(f"{provider}/.well-known/openid-configuration"))
    query = urllib.parse.urlencode({"response_type": "code", "client_id": "c", "redirect_uri": "http://localhost/cb",
                                    "scope": "openid email profile", "state": "s", "nonce": "n"})
    try:
        urllib.request.build_opener(_NoRedirect).open(urllib.request.Request(
            f"{meta['authorization_endpoint']}?{query}", data=urllib.parse.urlencode({"sub": sub}).encode()))
        raise AssertionError("the provider did not redirect with a code")
    except urllib.error.HTTPError as exc:
        code = urllib.parse.parse_qs(urllib.parse.urlparse(exc.headers["Location"]).query)["code"][0]
    form = {"grant_type": "authorization_code", "code": code, "redirect_uri": "http://localhost/cb", "client_id": "c",
            "client_secret": "x"}
    tokens = json.load(urllib.request.urlopen(urllib.request.Request(meta["token_endpoint"],
                                                                     data=urllib.parse.urlencode(form).encode())))
    keys = JsonWebKey.import_key_set(json.load(urllib.request.urlopen(meta["jwks_uri"])))
    decoded = jwt.decode(tokens["id_token"], keys)
    decoded.validate()
    return {**dict(decoded), "is_logged_in": True, "provider": "default"}


@pytest.fixture(scope="module")
def real_provider():
    mock = pytest.importorskip("oidc_provider_mock")
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with mock.run_server_in_thread(access_token_max_age=timedelta(seconds=2)) as server:
            yield f"http://localhost:{server.server_port}"


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.parametrize("spelling", ["false", "true", 0, 1, None, "missing"])
def test_each_spelling_from_the_real_provider_is_unverified(real_provider, spelling):
    from audit_core.analyses import live

    account = {"email": "own@x.org"} if spelling == "missing" else {"email": "own@x.org", "email_verified": spelling}
    claims = provider_claims(real_provider, f"mallory-{spelling}", account)
    assert claims["email"] == "own@x.org" and claims.get("email_verified") == account.get("email_verified")
    auth = {"server_metadata_url": f"{real_provider}/.well-known/openid-configuration"}
    who = live.session_identity(claims, parse_role_policy({"owners": ["own@x.org"], "default": "annotator"}), auth)
    assert (who.name, who.role, who.issuer) == (f"mallory-{spelling}", "annotator", real_provider)


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_the_real_providers_boolean_true_and_subject_and_short_token(real_provider):
    from audit_core.analyses import live

    auth = {"server_metadata_url": f"{real_provider}/.well-known/openid-configuration"}
    policy = parse_role_policy({"owners": ["own@x.org"], "subjects": {real_provider: {"ann-7": "annotator"}}})
    owner = live.session_identity(provider_claims(real_provider, "own-1", {"email": "own@x.org", "email_verified": True}),
                                  policy, auth)
    assert (owner.name, owner.role) == ("own@x.org", "owner")
    claims = provider_claims(real_provider, "ann-7", {"email": "ann@else.org"})
    ann = live.session_identity(claims, policy, auth)
    assert (ann.name, ann.role) == ("ann-7", "annotator")
    # The provider's token lives 2 s: the identity writes until then and not after.
    assert claims["exp"] - claims["iat"] == 2 and ann.expires == claims["exp"]
    assert require(ann, "label", now=claims["exp"] - 1) is ann
    with pytest.raises(SignInExpired, match="ann-7: the sign-in ended at"):
        require(ann, "label", now=claims["exp"])
    other = {"server_metadata_url": "https://id.example.org/.well-known/openid-configuration"}
    with pytest.raises(InputError, match="not by the configured provider 'https://id.example.org'"):
        live.session_identity(claims, policy, other)
