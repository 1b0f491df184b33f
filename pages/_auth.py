"""Sign-in and roles on the dashboard (issue 23): who is using this session, and what they may do.

With an ``[auth]`` section in ``.streamlit/secrets.toml`` people sign in through the operator's
OpenID Connect provider (Streamlit's ``st.login``); their identity and role come from the sign-in
and the operator's role policy (the file named by ``$AUDIT_ROLES_FILE``, else ``[roles]`` in the
secrets file), never from a text box. Without ``[auth]`` the dashboard is for one person: the
Live audit page asks for a name, recorded as self-declared, with every right. The rules themselves
are engine functions (``audit_core.live.roles`` through ``audit_core.analyses.live``), which also
refuse any action a role does not allow; this module only reads the session and says where it stands.

Issue 27: a sign-in counts only for the configured provider's issuer and until its token expires
(then the person may look, and the sidebar offers *Sign in again*); a Sign in click first checks the
settings and that the provider answers, and says what is wrong and how to retry when not; after
signing in, the visitor is back on the page they signed in from.
"""

from __future__ import annotations

import json
import os

import streamlit as st

from audit_core.analyses import live
from audit_core.errors import InputError
from audit_core.report import markdown_literal

SIGN_IN_PROBLEM_KEY = "auth_sign_in_problem"   # why the last Sign in click did not leave the page
# After a sign-in Streamlit lands the browser on the app's root. The page a visitor signs in from
# is kept in the tab's sessionStorage while they are not signed in (every second, as the page's URL
# changes without a reload when they move between pages), and the first page after the sign-in
# goes back to it: a path of this origin only, and not the root or its hand-over to the explorer,
# which are where the sign-in lands anyway (there the explorer's own link settings are not worth a
# second load). The stored page is forgotten on arrival, not on departure: a navigation can be
# cancelled after it started (the landing page's own URL update racing it on a loaded machine;
# CI lost one), so the landing page asks again after 2, 4 and 8 s, and gives up after four tries
# in all (a page that is not there never loops).
_REMEMBER_PAGE = ("<script>if (!window.__auditRemember) {const keep = () => {try{sessionStorage.setItem("
                  "'audit_return_to', location.pathname + location.search);"
                  "sessionStorage.removeItem('audit_return_tries')}catch(e){}};"
                  "keep(); window.__auditRemember = setInterval(keep, 1000)}</script>")
_RETURN_TO_PAGE = ("<script>try{const p = sessionStorage.getItem('audit_return_to');"
                   "const path = p ? p.split('?')[0] : '';"
                   "const forget = () => {sessionStorage.removeItem('audit_return_to');"
                   "sessionStorage.removeItem('audit_return_tries')};"
                   "if (!path.startsWith('/') || path.startsWith('//') || %s.includes(path)"
                   " || path === location.pathname) {if (p !== null) {forget()}}"
                   " else if (!window.__auditReturn) {let wait = 2000; const go = () => {"
                   "const tries = Number(sessionStorage.getItem('audit_return_tries') || 0) + 1;"
                   "if (tries > 4) {forget(); return}"
                   "sessionStorage.setItem('audit_return_tries', String(tries)); location.replace(p);"
                   "window.__auditReturn = setTimeout(go, wait); wait *= 2}; go()}}catch(e){}</script>")


def _landing_paths() -> list[str]:
    base = "/" + str(st.get_option("server.baseUrlPath") or "").strip("/")
    base = base.rstrip("/")
    return [base or "/", f"{base}/", f"{base}/protocol-explorer"]


def auth_section() -> dict | None:
    """The secrets file's ``[auth]`` table (None without one, or without a secrets file)."""
    try:
        section = st.secrets.get("auth")
    except Exception:   # no secrets file at all (Streamlit raises its own error types for that)
        return None
    return section.to_dict() if hasattr(section, "to_dict") else (dict(section) if section else None)


def sign_in_configured() -> bool:
    """The operator configured a provider: ``[auth]`` in the secrets file."""
    return auth_section() is not None


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


def sign_in_state() -> tuple[live.Identity | None, str | None]:
    """The signed-in person (None when nobody is) and why a sign-in is refused (a token of another
    issuer, or without an expiry), from the session's claims and the operator's settings."""
    if not signed_in():
        return None, None
    policy, _ = role_policy()
    try:
        return live.session_identity(_claims(), policy, auth_section()), None
    except InputError as exc:
        return None, str(exc)


def session_identity() -> live.Identity | None:
    """The signed-in person (None when sign-in is configured and nobody is signed in, or when it
    is not configured: then the page asks for a self-declared name). Its sign-in may have ended
    (``live.expired``): then it may look, not write."""
    return sign_in_state()[0]


def begin_sign_in() -> None:
    """Send the visitor to the provider, unless the settings are incomplete or the provider does
    not answer: then the reason and how to retry, kept for the sidebar (Streamlit would show an
    exception or a bare "Authentication error" page)."""
    problem = live.sign_in_problem(auth_section())
    st.session_state[SIGN_IN_PROBLEM_KEY] = problem
    if problem is None:
        st.login()


def reachable_by_others() -> bool:
    """Bound to a non-loopback address, or reached through a non-loopback host name."""
    try:
        host = st.context.headers.get("Host")
    except Exception:
        host = None
    return live.reachable_by_others(st.get_option("server.address"), host)


def _return_after_sign_in(signed: bool) -> None:
    """Remember this page while the visitor is not signed in; back to it once they are. On every
    run, not once per session: the first run after a sign-in is the root's hand-over to the
    explorer, whose sidebar is never sent; a later run finds the storage empty and does nothing."""
    # The operator's base path, as a JSON literal that cannot close the script element.
    st.html(_RETURN_TO_PAGE % json.dumps(_landing_paths()).replace("<", "\\u003c") if signed else _REMEMBER_PAGE,
            unsafe_allow_javascript=True)


def sidebar_box() -> None:
    """Who is signed in and as what, with the sign-in / sign-out button; without sign-in, whether
    this dashboard is for one person or open to anyone who can reach it."""
    if sign_in_configured():
        _sign_in_box()
    elif reachable_by_others():
        st.warning("No sign-in is configured and this dashboard can be reached from other computers: anyone "
                   "who can reach it can label, undo and export audits under any name. See docs/deploy.md, "
                   "“Sign-in and roles”.", icon=":material/warning:")
    else:
        st.caption("Single-user mode: no sign-in is configured, so this dashboard is for one person on this "
                   "computer; the names given on *Live audit* are recorded as self-declared.")


def _sign_in_box() -> None:
    setup = live.settings_problem(auth_section())
    if setup:
        st.error(markdown_literal(setup), icon=":material/error:")
        return
    who, refused = sign_in_state()
    ended = who is not None and live.expired(who)
    _return_after_sign_in(who is not None and not ended)
    if refused:
        st.error(markdown_literal(f"{refused}."), icon=":material/error:")
        if st.button("Sign out", key="auth_sign_out", icon=":material/logout:"):
            st.logout()
    elif who is None or ended:
        if ended:
            st.warning(f"Your sign-in as **{markdown_literal(who.name)}** ended at {live.utc_time(who.expires)}: "
                       "sign in again to label. Until then you can look, not label.", icon=":material/schedule:")
        else:
            st.caption("Sign in to label. Until then you can look, not label.")
        if st.button("Sign in again" if ended else "Sign in", key="auth_sign_in", icon=":material/login:"):
            begin_sign_in()
        problem = st.session_state.get(SIGN_IN_PROBLEM_KEY)
        if problem:
            st.error(markdown_literal(problem), icon=":material/error:")
    else:
        st.session_state.pop(SIGN_IN_PROBLEM_KEY, None)
        st.caption(f"Signed in as **{markdown_literal(who.name)}** ({who.role}), until "
                   f"{live.utc_time(who.expires)}.")
        if st.button("Sign out", key="auth_sign_out", icon=":material/logout:"):
            st.logout()
    _, problem = role_policy()
    if problem:
        st.error(f"Roles: {markdown_literal(problem)}. Until it is fixed everyone signed in is a viewer.",
                 icon=":material/error:")
