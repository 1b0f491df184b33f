"""Offline chart rendering: a Vega-Lite spec becomes inline SVG or PNG with vl-convert.

vl-convert bundles Vega, Vega-Lite and a JavaScript engine, so no browser and no network are
needed and the report never references an external script, font or style sheet. Results are
memoised on the spec text because the same chart is often exported to several formats.
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any, Mapping

import vl_convert

_SCRIPT = re.compile(r"<\s*script|\son[a-z]+\s*=|javascript:", re.IGNORECASE)
_TAG = re.compile(r"<[^>]*>")
_JS_URL = re.compile(r"(?:href|src)\s*=\s*[\"']?\s*javascript:", re.IGNORECASE)
_QUOTED = re.compile(r'"[^"]*"|\'[^\']*\'')


def _unsafe_markup(svg: str) -> bool:
    """A script element, an event-handler attribute or a javascript: URL anywhere in the tags.

    Text content and quoted attribute values are left out: Vega escapes them, so a label such as
    '"><img onerror=...>' is shown as text (and read out as an aria-label), never run; it must
    not stop the report. A javascript: URL can only hide in a link value, so href / src values are checked for it.
    """
    for tag in _TAG.findall(svg):
        if _SCRIPT.search(_QUOTED.sub('""', tag)) or _JS_URL.search(tag):
            return True
    return False


STATIC_WIDTH = 860  # pixels used for a spec whose width is "container" (there is no container offline)


def spec_json(spec: Mapping[str, Any]) -> str:
    """Canonical JSON text of a Vega-Lite spec (sorted keys; used as the memo key)."""
    return json.dumps(spec, sort_keys=True, allow_nan=False, default=str)


def static_spec(spec: Mapping[str, Any]) -> dict:
    """The spec with a responsive ("container") width replaced by a fixed one."""
    fixed = dict(spec)
    if fixed.get("width") == "container":
        fixed["width"] = STATIC_WIDTH
    return fixed


@functools.lru_cache(maxsize=128)
def _svg_from_text(text: str) -> str:
    svg = vl_convert.vegalite_to_svg(json.loads(text))
    # Vega's SVG renderer escapes text content; check the markup anyway (it is inlined into HTML).
    if _unsafe_markup(svg):
        raise ValueError("rendered SVG contains script content; refusing to inline it")
    return svg


@functools.lru_cache(maxsize=64)
def _png_from_text(text: str, scale: float) -> bytes:
    return bytes(vl_convert.vegalite_to_png(json.loads(text), scale=scale))


def chart_svg(spec: Mapping[str, Any]) -> str:
    """Inline ``<svg>`` markup of a Vega-Lite spec (data must be inline)."""
    return _svg_from_text(spec_json(static_spec(spec)))


def chart_png(spec: Mapping[str, Any], scale: float = 1.5) -> bytes:
    """PNG bytes of a Vega-Lite spec, for Markdown images."""
    return _png_from_text(spec_json(static_spec(spec)), float(scale))
