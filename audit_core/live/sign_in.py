"""The operator's sign-in settings and provider (issue 27 items 1 and 3), as plain functions.

The dashboard's sign-in is Streamlit's (``st.login``, OpenID Connect) configured by the ``[auth]``
table of the secrets file. Before it sends a visitor to the provider, the page asks here whether
the settings are complete (:func:`settings_problem`) and whether the provider answers
(:func:`provider_problem`): Streamlit itself answers a missing ``cookie_secret`` with an
exception and a provider that is down with a bare "Authentication error" page and no way back, so
both become one sentence on the app's own page, saying what is wrong and how to retry.

The issuer the ID token must carry is the one the operator configured: by OpenID Connect
Discovery 1.0, section 4, the provider's ``server_metadata_url`` is its issuer followed by
``/.well-known/openid-configuration``, and the issuer in the metadata is that same URL
(:func:`configured_issuer`).
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Mapping

WELL_KNOWN = "/.well-known/openid-configuration"
# Streamlit's required keys: these two in [auth], the provider's three in [auth] or [auth.<name>].
AUTH_KEYS = ("redirect_uri", "cookie_secret")
PROVIDER_KEYS = ("client_id", "client_secret", "server_metadata_url")
DEFAULT_PROVIDER = "default"
PROBE_SECONDS = 5.0
RETRY = "try Sign in again in a minute; until then every page can be looked at, and nobody labels"


def provider_settings(auth: Mapping, provider: str = DEFAULT_PROVIDER) -> Mapping:
    """The settings of ``provider``: ``[auth.<provider>]``, else (the default one) ``[auth]`` itself."""
    section = auth.get(provider)
    if isinstance(section, Mapping):
        return section
    return auth if provider == DEFAULT_PROVIDER else {}


def settings_problem(auth: Mapping | None, provider: str = DEFAULT_PROVIDER) -> str | None:
    """What is missing from ``[auth]`` for a sign-in with ``provider`` (one sentence), or None."""
    if not isinstance(auth, Mapping):
        return None
    missing = [k for k in AUTH_KEYS if not str(auth.get(k) or "").strip()]
    settings = provider_settings(auth, provider)
    missing += [k for k in PROVIDER_KEYS if not str(settings.get(k) or "").strip()]
    if not missing:
        return None
    where = "[auth]" if provider == DEFAULT_PROVIDER else f"[auth] / [auth.{provider}]"
    return (f"Sign-in is not set up: {where} in the secrets file has no {' and no '.join(missing)}. The operator "
            "adds it (docs/deploy.md, “Sign-in and roles”) and restarts the server; until then every page "
            "can be looked at, and nobody labels.")


def configured_issuer(auth: Mapping | None, provider: str = DEFAULT_PROVIDER) -> str | None:
    """The issuer the operator configured for ``provider``: its ``server_metadata_url`` without
    ``/.well-known/openid-configuration`` (None when the URL does not end so)."""
    if not isinstance(auth, Mapping):
        return None
    url = str(provider_settings(auth, provider).get("server_metadata_url") or "").strip()
    if not url.endswith(WELL_KNOWN):
        return None
    return url[: -len(WELL_KNOWN)].rstrip("/") or None


def provider_problem(metadata_url: str, timeout: float = PROBE_SECONDS) -> str | None:
    """Whether the provider answers: its metadata at ``metadata_url`` read within ``timeout``
    seconds, as JSON naming an issuer and an authorization endpoint. One sentence, or None."""
    where = f"the sign-in provider ({metadata_url})"
    try:
        with urllib.request.urlopen(metadata_url, timeout=timeout) as response:   # noqa: S310 (the operator's URL)
            body = response.read(1 << 20)
    except urllib.error.HTTPError as exc:
        return f"Sign-in is unavailable: {where} answered HTTP {exc.code}; {RETRY}."
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", None) or exc
        return f"Sign-in is unavailable: {where} does not answer ({reason}); {RETRY}."
    try:
        metadata = json.loads(body)
    except ValueError:
        metadata = None
    if not isinstance(metadata, dict) or not metadata.get("issuer") or not metadata.get("authorization_endpoint"):
        return f"Sign-in is unavailable: {where} did not send OpenID Connect settings; {RETRY}."
    return None


__all__ = ["AUTH_KEYS", "DEFAULT_PROVIDER", "PROVIDER_KEYS", "WELL_KNOWN", "configured_issuer", "provider_problem",
           "provider_settings", "settings_problem"]
