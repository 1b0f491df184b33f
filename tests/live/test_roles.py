"""Roles (issue 23): one test per rule, on the pure functions and on the engine that enforces them."""

import getpass

import pytest

from audit_core.errors import InputError
from audit_core.live import LiveAudit, connect, store
from audit_core.live.roles import (
    ACTIONS,
    Identity,
    PermissionDenied,
    allows,
    as_identity,
    declared,
    load_role_policy,
    os_user,
    parse_role_policy,
    reachable_by_others,
    require,
    require_undo,
    role_for,
    signed_in,
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
    with pytest.raises(InputError, match="role 'admin': expected one of viewer, annotator, owner"):
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

def test_a_listed_email_or_subject_gets_its_role_case_insensitive_email():
    policy = parse_role_policy({"users": {"Ann@X.org": "annotator"}, "owners": ["sub-42"]})
    assert role_for({"sub": "s1", "email": "ann@x.ORG"}, policy) == "annotator"
    assert role_for({"sub": "sub-42"}, policy) == "owner"


def test_an_unlisted_signed_in_person_gets_the_default_viewer_unless_the_operator_says_otherwise():
    assert role_for({"sub": "stranger", "email": "s@y.org"}, parse_role_policy({})) == "viewer"
    assert role_for({"sub": "stranger"}, parse_role_policy({"default": "annotator"})) == "annotator"


def test_a_claim_can_name_the_role_the_highest_wins_and_the_file_entry_comes_first():
    policy = parse_role_policy({"claim": "groups", "viewers": ["boss@x.org"]})
    assert role_for({"sub": "a", "groups": ["staff", "annotator", "owner"]}, policy) == "owner"
    assert role_for({"sub": "a", "groups": "annotator"}, policy) == "annotator"
    assert role_for({"sub": "a", "groups": ["staff"]}, policy) == "viewer"
    assert role_for({"sub": "b", "email": "boss@x.org", "groups": ["owner"]}, policy) == "viewer"


def test_the_recorded_name_is_the_email_unless_unverified_then_the_subject():
    policy = parse_role_policy({})
    who = signed_in({"sub": "u-1", "email": "a@x.org", "iss": ISS}, policy)
    assert (who.name, who.verified, who.source, who.issuer) == ("a@x.org", True, "signed-in", ISS)
    assert signed_in({"sub": "u-1", "email": "a@x.org", "email_verified": False}, policy).name == "u-1"


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
def audit(tmp_path):
    return LiveAudit.create(connect(tmp_path / "w.sqlite"), "gpqa:large", "stratified", "LR", seed=0, params=GPQA,
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


def test_only_an_owner_creates_an_audit(tmp_path):
    conn = connect(tmp_path / "w.sqlite")
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

def test_export_replay_handoff_and_event_log_are_owners_only(tmp_path):
    from audit_core.analyses import live

    db = tmp_path / "w.sqlite"
    audit_id = live.start_live_audit("gpqa:large", "stratified", "LR", db=db, n_init=2,
                                     who=person("o@x.org", "owner")).audit["audit_id"]
    ann = person("ann@x.org", "annotator")
    (case,) = live.claim_cases(audit_id, ann, db=db).cases
    live.record_label(audit_id, case.case_id, 1, ann, db=db)
    for call in (lambda who: live.export_live_csv(audit_id, db=db, who=who),
                 lambda who: live.replay_handoff(audit_id, db=db, who=who),
                 lambda who: live.export_live_file(audit_id, tmp_path / "x.csv", db=db, who=who),
                 lambda who: live.live_event_log(audit_id, who, db=db)):
        with pytest.raises(PermissionDenied, match="annotator may not"):
            call(ann)
        assert call(person("o@x.org", "owner")) is not None
    log = live.live_event_log(audit_id, person("o@x.org", "owner"), db=db)
    assert log[["kind", "annotator", "signed in", "identity", "issuer"]].values.tolist() == [
        ["proposed", "ann@x.org", True, "signed-in", ISS], ["labelled", "ann@x.org", True, "signed-in", ISS]]
    csv = live.export_live_csv(audit_id, db=db, who=person("o@x.org", "owner")).decode().splitlines()
    assert csv[0].endswith(",annotator,annotator_verified") and csv[1].endswith(",ann@x.org,true")


def test_a_viewers_view_claims_nothing_and_who_labelled_counts_people(tmp_path):
    from audit_core.analyses import live

    db = tmp_path / "w.sqlite"
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


def test_the_who_labelled_table_renders_in_the_report_with_names_escaped(tmp_path):
    from audit_core.analyses import live
    from audit_core.report.document import table_html, table_markdown
    from audit_core.report.pdf import table_typst

    db = tmp_path / "w.sqlite"
    audit_id = live.start_live_audit("gpqa:large", "stratified", "LR", db=db, n_init=2).audit["audit_id"]
    name = "<b>*Eve*</b> #x"
    (case,) = live.claim_cases(audit_id, name, db=db).cases
    live.record_label(audit_id, case.case_id, 1, name, db=db)
    (table,) = [t for t in live.live_audit_view(audit_id, db=db).section.tables if t.caption.startswith("Who")]
    assert "<b>" not in table_html(table.frame) and "&lt;b&gt;" in table_html(table.frame)
    assert "*Eve*" not in table_markdown(table.frame) and "Eve" in table_typst(table.frame)
