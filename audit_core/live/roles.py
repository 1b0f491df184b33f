"""Who may do what on a live audit (issue 23): identities, roles and the rules, as plain functions.

Roles, from least to most:

* ``viewer``: sees every page and every audit; labels nothing;
* ``annotator``: also claims, labels and skips cases, and undoes **their own** last label or skip;
* ``adjudicator`` (issue 34): also settles disagreements between labellers of double-labelled cases;
* ``owner``: also creates audits, undoes anyone's label, exports, and reads the audit trail.

An :class:`Identity` is who acts: ``name`` (what every event records as its annotator), ``role``,
``verified`` (True only for a sign-in through the operator's OpenID Connect provider) and
``source``: ``signed-in`` (the provider vouches for it), ``os-user`` (the operating-system account
running the command line) or ``declared`` (a name typed in: ``--annotator``, or the name box of a
dashboard without sign-in). A caller that passes a plain name instead of an Identity acts as a
self-declared owner: the command line and a single-user dashboard keep every right, because
whoever runs them can read and write the workspace file anyway.

The role of a signed-in person comes from the operator's role policy (:func:`parse_role_policy`):
an entry for their provider's subject (``iss`` + ``sub``), else for their **verified** e-mail
address, else the highest role named in an ID-token claim the policy points to, else the policy's
``default`` (``viewer`` unless the operator says otherwise: least privilege, so signing in alone
never lets a stranger label).

What a sign-in proves (issue 27 item 1). The provider signs the ID token, but some of its claims are
typed by the account's owner: an ``email`` address is theirs only when the provider says it checked
it, and it says so only with the JSON boolean ``email_verified: true``. The string ``"true"`` or
``"false"``, ``1``, ``0``, ``null`` or no claim at all verify nothing (Microsoft Entra ID sends no
``email_verified`` and lets a tenant put any address in ``email``: "nOAuth"); there is no
per-provider exception, so people of such a provider are listed by subject. The subject (``sub``) is
assigned by the provider and is unique for its issuer, so it is the stable key; the issuer must be
the provider the operator configured (:func:`signed_in`'s ``issuer``). A person without a verified
address is recorded under their subject, never under the address.

How long a sign-in lasts (issue 27 item 2): until the ID token's ``exp``, and never more than the
policy's ``sign_in_minutes`` (default 60) after its ``iat``. After that the identity may still look
but every write (claim, label, skip, undo, create, export, audit trail) is refused until the person
signs in again, which asks the provider afresh: with the provider down, nobody starts writing again,
and a revoked account writes for at most that long.
"""

from __future__ import annotations

import getpass
import json
import math
import os
import time
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from audit_core.errors import InputError

ROLES = ("viewer", "annotator", "adjudicator", "owner")  # each may do what the ones before it may
DEFAULT_ROLE = "viewer"
SOURCES = ("signed-in", "os-user", "declared")
ROLES_FILE_ENV = "AUDIT_ROLES_FILE"
# How long a sign-in may write without asking the provider again (minutes after the token's iat);
# an hour is the usual ID-token lifetime (Google, Okta, Entra ID), so this rarely cuts one short.
SIGN_IN_MINUTES = 60

# The least role each action needs. "undo" is an annotator's own last label; undoing someone
# else's needs "undo others".
ACTIONS = {
    "view": "viewer",
    "claim": "annotator",
    "label": "annotator",
    "skip": "annotator",
    "undo": "annotator",
    "adjudicate": "adjudicator",
    "undo others": "owner",
    "create": "owner",
    "export": "owner",
    "audit trail": "owner",
}
_WHAT = {"claim": "take cases to label", "label": "label cases", "skip": "skip cases",
         "undo": "undo labels", "adjudicate": "settle disagreements between labellers", "undo others": "undo someone else's label", "create": "create audits",
         "export": "export audits", "audit trail": "read the audit trail", "view": "view audits"}


class PermissionDenied(InputError):
    """The acting identity's role does not allow the action (one line: who, role, what, why)."""


class SignInExpired(PermissionDenied):
    """The acting identity's sign-in has ended: it may look, not write, until it signs in again."""


def check_role(role: str) -> str:
    text = str(role or "").strip().lower()
    if text not in ROLES:
        raise InputError(f"role {role!r}: expected one of {', '.join(ROLES)}")
    return text


@dataclass(frozen=True)
class Identity:
    """Who acts: ``name`` recorded on events, ``role``, ``verified`` (signed in), ``source``
    (``signed-in`` / ``os-user`` / ``declared``), ``issuer`` (the provider's, when signed in) and
    ``expires`` (POSIX seconds after which a sign-in may no longer write; None: never)."""

    name: str
    role: str = "owner"
    verified: bool = False
    source: str = "declared"
    issuer: str | None = None
    expires: float | None = None

    def __post_init__(self) -> None:
        name = " ".join(str(self.name or "").split())
        if not name:
            raise InputError("annotator: a name is required")
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "role", check_role(self.role))
        if self.source not in SOURCES:
            raise InputError(f"identity source {self.source!r}: expected one of {', '.join(SOURCES)}")
        if self.verified != (self.source == "signed-in"):
            raise InputError("identity: only a sign-in is verified")
        if self.expires is not None and not self.verified:
            raise InputError("identity: only a sign-in expires")

    def __repr__(self) -> str:
        return f"Identity({self.name!r}, {self.role}, {self.source})"


def as_identity(who: Identity | str) -> Identity:
    """``who`` as an Identity: a plain name acts as a self-declared owner (see the module doc)."""
    return who if isinstance(who, Identity) else Identity(str(who or ""), "owner", False, "declared")


def declared(name: str, role: str = "owner") -> Identity:
    """A typed-in name (``--annotator``, the name box of a dashboard without sign-in)."""
    return Identity(name, role, False, "declared")


def os_user(role: str = "owner") -> Identity:
    """The operating-system account running this process (the command line's default)."""
    return Identity(getpass.getuser(), role, False, "os-user")


def allows(role: str, action: str) -> bool:
    """Whether ``role`` may do ``action`` (a key of :data:`ACTIONS`)."""
    if action not in ACTIONS:
        raise InputError(f"action {action!r}: expected one of {', '.join(ACTIONS)}")
    return ROLES.index(check_role(role)) >= ROLES.index(ACTIONS[action])


def expired(who: Identity | str, now: float | None = None) -> bool:
    """Whether ``who`` is a sign-in that has ended (at ``now``, POSIX seconds; default: the clock)."""
    who = as_identity(who)
    return who.expires is not None and (time.time() if now is None else now) >= who.expires


def may(who: Identity | str | None, action: str, now: float | None = None) -> bool:
    """Whether ``who`` may do ``action`` now: its role allows it and, unless it only looks, its
    sign-in has not ended (False for nobody)."""
    if who is None:
        return False
    who = as_identity(who)
    return allows(who.role, action) and (ACTIONS[action] == "viewer" or not expired(who, now))


def require(who: Identity | str, action: str, now: float | None = None) -> Identity:
    """``who`` as an Identity, or PermissionDenied when its role does not allow ``action``, or
    SignInExpired when it would write after its sign-in ended."""
    who = as_identity(who)
    if not allows(who.role, action):
        raise PermissionDenied(f"{who.name} is {_a(who.role)}: {_a(who.role)} may not {_WHAT[action]} "
                               f"(that needs the {ACTIONS[action]} role; the operator assigns roles)")
    if ACTIONS[action] != "viewer" and expired(who, now):
        raise SignInExpired(f"{who.name}: the sign-in ended at {utc_time(who.expires)}; sign in again to "
                            f"{_WHAT[action]} (a sign-in lasts until the provider's token expires, at most "
                            f"the operator's limit)")
    return who


def utc_time(seconds: float) -> str:
    """``seconds`` (POSIX) as ``HH:MM:SS UTC`` (with the date when it is not today)."""
    stamp = time.gmtime(seconds)
    day = time.strftime("%Y-%m-%d ", stamp) if stamp[:3] != time.gmtime()[:3] else ""
    return f"{day}{time.strftime('%H:%M:%S', stamp)} UTC"


def _a(role: str) -> str:
    return f"{'an' if role[0] in 'aeiou' else 'a'} {role}"


def require_undo(who: Identity | str, labeller: str) -> Identity:
    """Undo of a label or skip recorded by ``labeller``: an annotator undoes only their own, an
    owner anyone's, a viewer nothing."""
    who = require(who, "undo")
    if labeller != who.name and not allows(who.role, "undo others"):
        raise PermissionDenied(f"{who.name} is an annotator and may undo only their own labels; the last "
                               f"one is {labeller}'s (an owner can undo it)")
    return who


@dataclass(frozen=True)
class RolePolicy:
    """The operator's role assignments and sign-in rules.

    ``users``: lower-cased verified e-mail address, or subject of the configured provider, → role;
    ``subjects``: (issuer, subject) → role; ``claim``: an ID-token claim whose values may name
    roles, or None; ``default``: the role of a signed-in person matched by none; ``issuer``: the
    issuer to accept (None: the one the provider's ``server_metadata_url`` names);
    ``sign_in_minutes``: the longest a sign-in may write; ``where``: the file or section it came from.
    """

    users: Mapping[str, str] = field(default_factory=dict)
    claim: str | None = None
    default: str = DEFAULT_ROLE
    where: str = "no role policy"
    subjects: Mapping[tuple[str, str], str] = field(default_factory=dict)
    issuer: str | None = None
    sign_in_minutes: float = SIGN_IN_MINUTES

    def __repr__(self) -> str:
        return (f"RolePolicy({len(self.users) + len(self.subjects)} users, claim={self.claim!r}, "
                f"default={self.default!r})")


POLICY_KEYS = ("default", "claim", "users", "owners", "annotators", "viewers", "subjects", "issuer",
               "sign_in_minutes")


def parse_role_policy(data: Mapping, where: str = "role policy") -> RolePolicy:
    """A policy from a mapping: ``default`` (role), ``claim`` (claim name), ``[users]`` (e-mail
    address or subject → role), ``owners`` / ``annotators`` / ``viewers`` (lists of them),
    ``[subjects."<issuer>"]`` (subject → role), ``issuer`` and ``sign_in_minutes``."""
    if not isinstance(data, Mapping):
        raise InputError(f"{where}: expected a table of settings")
    unknown = sorted(set(data) - set(POLICY_KEYS))
    if unknown:
        raise InputError(f"{where}: unknown key(s) {', '.join(unknown)} (expected {', '.join(POLICY_KEYS)})")
    users: dict[str, str] = {}
    for role in ROLES:
        names = data.get(f"{role}s", [])
        if isinstance(names, str) or not isinstance(names, list | tuple):
            raise InputError(f"{where}: {role}s: expected a list of e-mail addresses or subjects")
        users.update({_key(n): role for n in names})
    table = data.get("users", {})
    if not isinstance(table, Mapping):
        raise InputError(f"{where}: users: expected a table of name = role")
    for name, role in table.items():
        try:
            users[_key(name)] = check_role(role)
        except InputError as exc:
            raise InputError(f"{where}: users.{name}: {exc}") from None
    subjects: dict[tuple[str, str], str] = {}
    by_issuer = data.get("subjects", {})
    if not isinstance(by_issuer, Mapping) or not all(isinstance(t, Mapping) for t in by_issuer.values()):
        raise InputError(f'{where}: subjects: expected tables [subjects."<issuer>"] of subject = role')
    for issuer, table in by_issuer.items():
        for sub, role in table.items():
            try:
                subjects[(_issuer(issuer), str(sub))] = check_role(role)
            except InputError as exc:
                raise InputError(f"{where}: subjects.{issuer}.{sub}: {exc}") from None
    claim = data.get("claim")
    if claim is not None and (not isinstance(claim, str) or not claim.strip()):
        raise InputError(f"{where}: claim: expected the name of an ID-token claim")
    issuer = data.get("issuer")
    if issuer is not None and (not isinstance(issuer, str) or not issuer.strip()):
        raise InputError(f"{where}: issuer: expected the provider's issuer URL")
    minutes = data.get("sign_in_minutes", SIGN_IN_MINUTES)
    if isinstance(minutes, bool) or not isinstance(minutes, int | float) or not 0 < minutes <= 24 * 60:
        raise InputError(f"{where}: sign_in_minutes: expected a number of minutes in (0, 1440], got {minutes!r}")
    try:
        default = check_role(data.get("default", DEFAULT_ROLE))
    except InputError as exc:
        raise InputError(f"{where}: default: {exc}") from None
    return RolePolicy(users=users, claim=claim.strip() if claim else None, default=default, where=where,
                      subjects=subjects, issuer=_issuer(issuer) if issuer else None, sign_in_minutes=float(minutes))


def load_role_policy(path: str | os.PathLike) -> RolePolicy:
    """The policy in a TOML or JSON file (by its suffix; see :func:`parse_role_policy`)."""
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"roles file {file}: {exc.strerror or exc}") from None
    try:
        data = json.loads(text) if file.suffix.lower() == ".json" else tomllib.loads(text)
    except (ValueError, tomllib.TOMLDecodeError) as exc:
        raise InputError(f"roles file {file}: not valid {'JSON' if file.suffix.lower() == '.json' else 'TOML'} "
                         f"({exc})") from None
    return parse_role_policy(data, f"roles file {file}")


def _key(name) -> str:
    text = str(name or "").strip()
    if not text:
        raise InputError("role policy: an empty name")
    return text.lower() if "@" in text else text


def _issuer(text) -> str:
    """An issuer URL compared as the provider writes it, without a trailing slash (Auth0 adds one)."""
    return str(text or "").strip().rstrip("/")


def verified_email(claims: Mapping) -> str | None:
    """The e-mail address the provider vouches for: ``email`` when ``email_verified`` is the JSON
    boolean ``true``, else None (a string, a number, null or no claim verify nothing)."""
    email = claims.get("email")
    if claims.get("email_verified") is True and isinstance(email, str) and "@" in email:
        return email.strip()
    return None


def signed_in_name(claims: Mapping) -> str:
    """The name recorded for a signed-in person: their verified e-mail address, else their
    subject (never an unverified address)."""
    email = verified_email(claims)
    if email:
        return email
    sub = claims.get("sub")
    if not isinstance(sub, str) or not sub.strip():
        raise InputError("sign-in: the provider sent neither a verified e-mail address nor a subject")
    return sub.strip()


def role_for(claims: Mapping, policy: RolePolicy) -> str:
    """A signed-in person's role: the policy's entry for their issuer and subject, else for their
    subject alone (a key without "@"), else for their verified e-mail address, else the highest
    role named in the policy's claim, else the policy's default."""
    sub = claims.get("sub")
    sub = sub.strip() if isinstance(sub, str) else ""
    if sub and (_issuer(claims.get("iss")), sub) in policy.subjects:
        return policy.subjects[(_issuer(claims.get("iss")), sub)]
    if sub and "@" not in sub and sub in policy.users:
        return policy.users[sub]
    email = verified_email(claims)
    if email and email.lower() in policy.users:
        return policy.users[email.lower()]
    if policy.claim:
        value = claims.get(policy.claim)
        values = [value] if isinstance(value, str) else list(value or []) if isinstance(value, list | tuple) else []
        named = [ROLES.index(str(v).strip().lower()) for v in values if str(v).strip().lower() in ROLES]
        if named:
            return ROLES[max(named)]
    return policy.default


def _seconds(claims: Mapping, name: str) -> float | None:
    value = claims.get(name)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(value)


def signed_in(claims: Mapping, policy: RolePolicy, issuer: str | None = None) -> Identity:
    """The Identity of a person signed in with ``claims`` (the ID token's, e.g. ``st.user``).

    ``issuer``: the configured provider's (:func:`audit_core.live.sign_in.configured_issuer`);
    the policy's ``issuer`` wins over it. A token from another issuer, or one without an expiry
    (``exp``), is refused (InputError). The identity may write until ``exp``, and at most
    ``policy.sign_in_minutes`` after ``iat``.
    """
    expected = policy.issuer or (_issuer(issuer) if issuer else None)
    if not expected:
        raise InputError("sign-in: no issuer to check the provider's token against (set issuer in the roles file)")
    got = _issuer(claims.get("iss"))
    if got != expected:
        raise InputError(f"sign-in: the token was issued by {got or 'nobody'!r}, not by the configured "
                         f"provider {expected!r}; sign out and sign in again")
    expires = _seconds(claims, "exp")
    if expires is None:
        raise InputError("sign-in: the provider's token has no expiry time (exp); sign out and sign in again")
    issued = _seconds(claims, "iat")
    if issued is not None:
        expires = min(expires, issued + 60 * policy.sign_in_minutes)
    return Identity(signed_in_name(claims), role_for(claims, policy), True, "signed-in", got, expires)


LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1", "[::1]")


def _host(text: str | None) -> str:
    value = str(text or "").strip().lower()
    if value.startswith("["):                      # [::1]:8501
        return value[: value.find("]") + 1] if "]" in value else value
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


def is_loopback(host: str | None) -> bool:
    """``host`` (optionally with a port) names this computer only."""
    value = _host(host)
    return value in LOOPBACK_NAMES or value.startswith("127.") or value.endswith(".localhost")


def reachable_by_others(address: str | None, request_host: str | None) -> bool:
    """Whether a dashboard may be reached from other computers: it is bound to a non-loopback
    ``address`` (Streamlit's ``server.address``), or this request came through a non-loopback host
    name (a dashboard bound to every interface, reached by its network name)."""
    if address and not is_loopback(address):
        return True
    return bool(request_host) and not is_loopback(request_host)


__all__ = ["ACTIONS", "DEFAULT_ROLE", "POLICY_KEYS", "ROLES", "ROLES_FILE_ENV", "SIGN_IN_MINUTES", "SOURCES",
           "Identity", "PermissionDenied", "RolePolicy", "SignInExpired", "allows", "as_identity", "check_role",
           "declared", "expired", "is_loopback", "load_role_policy", "may", "os_user", "parse_role_policy",
           "reachable_by_others", "require", "require_undo", "role_for", "signed_in", "signed_in_name", "utc_time",
           "verified_email"]
