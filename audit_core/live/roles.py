"""Who may do what on a live audit (issue 23): identities, roles and the rules, as plain functions.

Roles, from least to most:

* ``viewer``: sees every page and every audit; labels nothing;
* ``annotator``: also claims, labels and skips cases, and undoes **their own** last label or skip;
* ``owner``: also creates audits, undoes anyone's label, exports, and reads the event log.

An :class:`Identity` is who acts: ``name`` (what every event records as its annotator), ``role``,
``verified`` (True only for a sign-in through the operator's OpenID Connect provider) and
``source``: ``signed-in`` (the provider vouches for it), ``os-user`` (the operating-system account
running the command line) or ``declared`` (a name typed in: ``--annotator``, or the name box of a
dashboard without sign-in). A caller that passes a plain name instead of an Identity acts as a
self-declared owner: the command line and a single-user dashboard keep every right, because
whoever runs them can read and write the workspace file anyway.

The role of a signed-in person comes from the operator's role policy (:func:`parse_role_policy`):
an entry for their e-mail address or subject, else the highest role named in an ID-token claim the
policy points to, else the policy's ``default`` (``viewer`` unless the operator says otherwise:
least privilege, so signing in alone never lets a stranger label).
"""

from __future__ import annotations

import getpass
import json
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from audit_core.errors import InputError

ROLES = ("viewer", "annotator", "owner")
DEFAULT_ROLE = "viewer"
SOURCES = ("signed-in", "os-user", "declared")
ROLES_FILE_ENV = "AUDIT_ROLES_FILE"

# The least role each action needs. "undo" is an annotator's own last label; undoing someone
# else's needs "undo others".
ACTIONS = {
    "view": "viewer",
    "claim": "annotator",
    "label": "annotator",
    "skip": "annotator",
    "undo": "annotator",
    "undo others": "owner",
    "create": "owner",
    "export": "owner",
    "event log": "owner",
}
_WHAT = {"claim": "take cases to label", "label": "label cases", "skip": "skip cases",
         "undo": "undo labels", "undo others": "undo someone else's label", "create": "create audits",
         "export": "export audits", "event log": "read the event log", "view": "view audits"}


class PermissionDenied(InputError):
    """The acting identity's role does not allow the action (one line: who, role, what, why)."""


def check_role(role: str) -> str:
    text = str(role or "").strip().lower()
    if text not in ROLES:
        raise InputError(f"role {role!r}: expected one of {', '.join(ROLES)}")
    return text


@dataclass(frozen=True)
class Identity:
    """Who acts: ``name`` recorded on events, ``role``, ``verified`` (signed in), ``source``
    (``signed-in`` / ``os-user`` / ``declared``), ``issuer`` (the provider's, when signed in)."""

    name: str
    role: str = "owner"
    verified: bool = False
    source: str = "declared"
    issuer: str | None = None

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


def require(who: Identity | str, action: str) -> Identity:
    """``who`` as an Identity, or PermissionDenied when its role does not allow ``action``."""
    who = as_identity(who)
    if not allows(who.role, action):
        raise PermissionDenied(f"{who.name} is {_a(who.role)}: {_a(who.role)} may not {_WHAT[action]} "
                               f"(that needs the {ACTIONS[action]} role; the operator assigns roles)")
    return who


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
    """The operator's role assignments: ``users`` (lower-cased e-mail address or exact subject →
    role), ``claim`` (an ID-token claim whose values may name roles, or None), ``default`` (the
    role of a signed-in person matched by neither) and ``where`` (the file or section it came from)."""

    users: Mapping[str, str] = field(default_factory=dict)
    claim: str | None = None
    default: str = DEFAULT_ROLE
    where: str = "no role policy"

    def __repr__(self) -> str:
        return f"RolePolicy({len(self.users)} users, claim={self.claim!r}, default={self.default!r})"


def parse_role_policy(data: Mapping, where: str = "role policy") -> RolePolicy:
    """A policy from a mapping: ``default`` (role), ``claim`` (claim name), ``[users]`` (name →
    role), and/or ``owners`` / ``annotators`` / ``viewers`` (lists of names)."""
    if not isinstance(data, Mapping):
        raise InputError(f"{where}: expected a table of settings")
    unknown = sorted(set(data) - {"default", "claim", "users", "owners", "annotators", "viewers"})
    if unknown:
        raise InputError(f"{where}: unknown key(s) {', '.join(unknown)} (expected default, claim, users, "
                         "owners, annotators, viewers)")
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
    claim = data.get("claim")
    if claim is not None and (not isinstance(claim, str) or not claim.strip()):
        raise InputError(f"{where}: claim: expected the name of an ID-token claim")
    try:
        default = check_role(data.get("default", DEFAULT_ROLE))
    except InputError as exc:
        raise InputError(f"{where}: default: {exc}") from None
    return RolePolicy(users=users, claim=claim.strip() if claim else None, default=default, where=where)


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


def signed_in_name(claims: Mapping) -> str:
    """The name recorded for a signed-in person: their e-mail address (unless the provider says it
    is unverified), else their subject."""
    email = claims.get("email")
    if email and claims.get("email_verified") is not False:
        return str(email).strip()
    sub = claims.get("sub")
    if not sub:
        raise InputError("sign-in: the provider sent neither an e-mail address nor a subject")
    return str(sub)


def role_for(claims: Mapping, policy: RolePolicy) -> str:
    """A signed-in person's role: the policy's entry for their e-mail or subject, else the highest
    role named in the policy's claim, else the policy's default."""
    for key in (signed_in_name(claims), claims.get("sub")):
        if key and _key(key) in policy.users:
            return policy.users[_key(key)]
    if policy.claim:
        value = claims.get(policy.claim)
        values = [value] if isinstance(value, str) else list(value or []) if isinstance(value, list | tuple) else []
        named = [ROLES.index(str(v).strip().lower()) for v in values if str(v).strip().lower() in ROLES]
        if named:
            return ROLES[max(named)]
    return policy.default


def signed_in(claims: Mapping, policy: RolePolicy) -> Identity:
    """The Identity of a person signed in with ``claims`` (the ID token's, e.g. ``st.user``)."""
    issuer = claims.get("iss")
    return Identity(signed_in_name(claims), role_for(claims, policy), True, "signed-in",
                    str(issuer) if issuer else None)


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


__all__ = ["ACTIONS", "DEFAULT_ROLE", "ROLES", "ROLES_FILE_ENV", "SOURCES", "Identity", "PermissionDenied",
           "RolePolicy", "allows", "as_identity", "check_role", "declared", "is_loopback", "load_role_policy",
           "os_user", "parse_role_policy", "reachable_by_others", "require", "require_undo", "role_for",
           "signed_in", "signed_in_name"]
