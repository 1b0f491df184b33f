"""Sign-in and roles on the dashboard (issue 23): who is using this session, and what they may do.

With an ``[auth]`` section in ``.streamlit/secrets.toml`` people sign in through the operator's
OpenID Connect provider (Streamlit's ``st.login``); their identity and role come from the sign-in
and the operator's role policy (the file named by ``$AUDIT_ROLES_FILE``, else ``[roles]`` in the
secrets file), never from a text box. Without ``[auth]`` the dashboard is for one person: the
Live audit page asks for a name, recorded as self-declared, with every right. The rules themselves
are engine functions (``audit_core.live.roles`` through ``audit_core.analyses.live``), which also
refuse any action a role does not allow; this module only reads the session and says where it stands.
"""

from __future__ import annotations

import os

import streamlit as st

from audit_core.analyses import live
from audit_core.errors import InputError
from audit_core.report import markdown_literal


def sign_in_configured() -> bool:
    """The operator configured a provider: ``[auth]`` in the secrets file."""
    try:
        return "auth" in st.secrets
    except Exception:   # no secrets file at all (Streamlit raises its own error types for that)
        return False


def _claims() -> dict:
    try:
        return dict(st.user.to_dict())
    except Exception:   # an older session object, or no sign-in machinery
        return {}


def signed_in() -> bool:
    return sign_in_configured() and bool(_claims().get("is_logged_in"))


def role_policy() -> tuple[live.RolePolicy, str | None]:
    """The operator's policy and the message of a broken one (then nobody gets more than viewer)."""
    try:
        section = st.secrets.get("roles") if sign_in_configured() else None
    except Exception:
        section = None
    try:
        return live.resolve_role_policy(os.environ.get(live.ROLES_FILE_ENV), section), None
    except InputError as exc:
        return live.RolePolicy(), str(exc)


def session_identity() -> live.Identity | None:
    """The signed-in person (None when sign-in is configured and nobody is signed in, or when it
    is not configured: then the page asks for a self-declared name)."""
    if not signed_in():
        return None
    policy, _ = role_policy()
    try:
        return live.session_identity(_claims(), policy)
    except InputError:
        return None


def reachable_by_others() -> bool:
    """Bound to a non-loopback address, or reached through a non-loopback host name."""
    try:
        host = st.context.headers.get("Host")
    except Exception:
        host = None
    return live.reachable_by_others(st.get_option("server.address"), host)


def sidebar_box() -> None:
    """Who is signed in and as what, with the sign-in / sign-out button; without sign-in, whether
    this dashboard is for one person or open to anyone who can reach it."""
    if sign_in_configured():
        who = session_identity()
        if who is None:
            st.caption("Sign in to label. Until then you can look, not label.")
            if st.button("Sign in", key="auth_sign_in", icon=":material/login:"):
                st.login()
        else:
            st.caption(f"Signed in as **{markdown_literal(who.name)}** ({who.role}).")
            if st.button("Sign out", key="auth_sign_out", icon=":material/logout:"):
                st.logout()
        _, problem = role_policy()
        if problem:
            st.error(f"Roles: {markdown_literal(problem)}. Until it is fixed everyone signed in is a viewer.",
                     icon=":material/error:")
    elif reachable_by_others():
        st.warning("No sign-in is configured and this dashboard can be reached from other computers: anyone "
                   "who can reach it can label, undo and export audits under any name. See docs/deploy.md, "
                   "“Sign-in and roles”.", icon=":material/warning:")
    else:
        st.caption("Single-user mode: no sign-in is configured, so this dashboard is for one person on this "
                   "computer; the names given on *Live audit* are recorded as self-declared.")
