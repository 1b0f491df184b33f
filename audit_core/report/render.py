"""Offline chart rendering: a Vega-Lite spec becomes inline SVG or PNG with vl-convert.

vl-convert bundles Vega, Vega-Lite and a JavaScript engine, so no browser and no network are
needed and the report never references an external script, font or style sheet. Results are
memoised on the spec text because the same chart is often exported to several formats.
"""

from __future__ import annotations

import functools
import json
import re
import xml.etree.ElementTree as ElementTree
from collections.abc import Mapping
from typing import Any

_LINK_ATTRIBUTES = ("href", "src", "action", "formaction", "data")
_ACTIVE_ELEMENTS = ("script", "foreignobject", "iframe", "object", "embed")


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


def _local_name(name: str) -> str:
    """``{http://www.w3.org/2000/svg}script`` -> ``script`` (lower case)."""
    return name.rsplit("}", 1)[-1].lower()


def svg_active_content(svg: str) -> str | None:
    """What in ``svg`` could run when inlined into HTML, or None when nothing can.

    A structural check on the parsed document, not a pattern over its text: text nodes and
    attribute values are data, so a label such as ``group one = baseline`` or an escaped
    ``<script>`` inside a ``<text>`` element is harmless. Refused: script-like elements
    (``script``, ``foreignObject``, ``iframe``, ``object``, ``embed``), any ``on*`` event-handler
    attribute, and ``javascript:`` / ``data:text/html`` URLs in link attributes. Markup that does
    not parse as XML is refused too, since a browser might read it differently.
    """
    try:
        root = ElementTree.fromstring(svg)
    except ElementTree.ParseError as exc:
        return f"markup that does not parse ({exc})"
    for element in root.iter():
        tag = _local_name(str(element.tag))
        if tag in _ACTIVE_ELEMENTS:
            return f"a <{tag}> element"
        for name, value in element.attrib.items():
            attribute = _local_name(name)
            if attribute.startswith("on"):
                return f"an event-handler attribute {attribute!r} on <{tag}>"
            url = "".join(value.split()).lower()
            if attribute in _LINK_ATTRIBUTES and url.startswith(("javascript:", "vbscript:", "data:text/html")):
                return f"a script URL in {attribute!r} on <{tag}>"
    return None


# Characters beyond the Basic Multilingual Plane (emoji): two UTF-16 code units in Vega's JavaScript.
_ASTRAL = re.compile("[\U00010000-\U0010FFFF]")


def _astral_replaced(node: Any) -> Any:
    """``node`` with every character beyond the BMP in its strings replaced by U+FFFD."""
    if isinstance(node, str):
        return _ASTRAL.sub("\ufffd", node)
    if isinstance(node, dict):
        return {_astral_replaced(k): _astral_replaced(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_astral_replaced(v) for v in node]
    return node


def _converted(convert, spec: dict):
    """``convert(spec)``, or, when vl-convert fails on a spec with emoji, the same spec drawn with
    each emoji as U+FFFD. Vega shortens a label too wide for its axis by UTF-16 code units, which
    can cut an emoji's surrogate pair in half, and vl-convert then refuses the half ("unexpected
    end of hex escape"): a subgroup named with 20 emoji made `report` fail. Tables keep the names."""
    try:
        return convert(spec)
    except ValueError:
        replaced = _astral_replaced(spec)
        if replaced == spec:
            raise
        return convert(replaced)


@functools.lru_cache(maxsize=128)
def _svg_from_text(text: str) -> str:
    import vl_convert  # the renderer: loaded when a static image is first drawn, not by every report import

    svg = _converted(vl_convert.vegalite_to_svg, json.loads(text))
    # Vega's SVG renderer escapes text content; check the structure anyway because the SVG is
    # inlined into HTML.
    problem = svg_active_content(svg)
    if problem is not None:
        raise ValueError(f"rendered SVG contains {problem}; refusing to inline it")
    return svg


@functools.lru_cache(maxsize=64)
def _png_from_text(text: str, scale: float) -> bytes:
    import vl_convert  # see _svg_from_text

    return bytes(_converted(lambda spec: vl_convert.vegalite_to_png(spec, scale=scale), json.loads(text)))


def chart_svg(spec: Mapping[str, Any]) -> str:
    """Inline ``<svg>`` markup of a Vega-Lite spec (data must be inline)."""
    return _svg_from_text(spec_json(static_spec(spec)))


def chart_png(spec: Mapping[str, Any], scale: float = 1.5) -> bytes:
    """PNG bytes of a Vega-Lite spec, for Markdown images."""
    return _png_from_text(spec_json(static_spec(spec)), float(scale))
