"""The one JSON parser for user files (policy classes, Inspect logs, lm-eval samples, testbed
items, replay documents given to ``combine``, links).

``json.loads`` alone lets a small hostile file through to code that cannot take it: a document
nested 100,000 levels deep raises RecursionError (in the parser, or later in ``repr`` or
``json.dumps``); an integer of 5,000 digits raises Python's "Exceeds the limit (4300 digits)"
ValueError, one of 400 digits an OverflowError once it is used as a float; ``1e999`` becomes an
infinity; a ``"\\ud800"`` escape (half of a surrogate pair, alone) parses to a string that no
UTF-8 writer can encode, so a report or chart of it failed far from the file. :func:`loads`
refuses each with one :class:`InputError` naming where, and leaves
ordinary syntax errors (``json.JSONDecodeError``) to the caller, who knows what else the file
may be (JSON lines, a CSV).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

import numpy as np

from audit_core.errors import InputError

MAX_DEPTH = 100  # nesting levels; real logs and classes use fewer than 20
MAX_INT_DIGITS = 30  # an id, epoch, count or 0/1 label has far fewer


# A \uXXXX escape of a surrogate (D800-DFFF); a valid pair is joined by the parser into one character.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")


class _Refused(Exception):
    """A number or a nesting depth beyond the limits, raised inside the parser's hooks."""


def _parse_int(text: str) -> int:
    if len(text) - text.startswith("-") > MAX_INT_DIGITS:
        raise _Refused(f"a whole number of {len(text.lstrip('-')):,} digits (at most {MAX_INT_DIGITS})")
    return int(text)


def _parse_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Refused("a number too large to be a float")
    return value


def depth_exceeds(document: Any, limit: int = MAX_DEPTH) -> bool:
    """True when ``document`` nests lists / objects more than ``limit`` levels (no recursion)."""
    stack = [(document, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return True
        if isinstance(node, dict):
            stack.extend((v, depth + 1) for v in node.values() if isinstance(v, (dict, list)))
        elif isinstance(node, list):
            stack.extend((v, depth + 1) for v in node if isinstance(v, (dict, list)))
    return False


# A JSON string literal (the document is valid JSON when this is used): brackets inside one do not nest.
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')  # unrolled: one step per run of plain characters


def text_depth(text: str | bytes) -> int:
    """The nesting depth of a valid JSON text, from its characters: the running count of ``{``/``[``
    less ``}``/``]`` outside string literals, at its highest. Equals the depth
    :func:`depth_exceeds` walks in the parsed document (a container per opening bracket), in a
    fraction of the time (a regular expression and a cumulative sum, no Python loop per node)."""
    raw = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    codes = np.frombuffer(_STRING.sub(b'""', raw), dtype=np.uint8)
    if codes.size == 0:
        return 0
    steps = ((codes == 123) | (codes == 91)).astype(np.int32) - ((codes == 125) | (codes == 93))  # {[ and }]
    return int(np.cumsum(steps).max(initial=0))


def _depth_over(text: str | bytes, limit: int) -> bool:
    """``text_depth(text) > limit``, skipping the scan when the text has no more opening brackets
    than the limit (each level needs one)."""
    if text.count("{" if isinstance(text, str) else b"{") + text.count("[" if isinstance(text, str) else b"[") <= limit:
        return False
    return text_depth(text) > limit


def lone_surrogate(document: Any) -> str | None:
    """The first string (key or value) of ``document`` holding a lone surrogate, else None."""
    stack = [document]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            if _SURROGATE.search(node):
                return node
        elif isinstance(node, dict):
            stack.extend(node.keys())
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return None


def loads(text: str | bytes, where: str) -> Any:
    """``json.loads`` bounded for hostile input: InputError (``where: ...``) for nesting deeper
    than :data:`MAX_DEPTH`, whole numbers longer than :data:`MAX_INT_DIGITS` digits, numbers
    that overflow a float and lone surrogate escapes. Syntax errors are raised as ``json.JSONDecodeError``."""
    try:
        document = json.loads(text, parse_int=_parse_int, parse_float=_parse_float)
    except _Refused as exc:
        raise InputError(f"{where}: {exc}") from None
    except RecursionError:
        raise InputError(f"{where}: JSON nested too deeply (more than {MAX_DEPTH} levels)") from None
    except ValueError as exc:
        if isinstance(exc, json.JSONDecodeError):
            raise
        raise InputError(f"{where}: a number JSON cannot hold") from None  # e.g. the int digit limit
    if isinstance(document, (dict, list)) and _depth_over(text, MAX_DEPTH):
        raise InputError(f"{where}: JSON nested too deeply (more than {MAX_DEPTH} levels)")
    escaped = text if isinstance(text, str) else text.decode("utf-8", "replace")
    if _SURROGATE_ESCAPE.search(escaped) and lone_surrogate(document) is not None:
        raise InputError(f"{where}: a text holds a \\uD800-\\uDFFF escape that is not half of a pair (a lone "
                         "surrogate, no character); the file was written with a broken encoder")
    return document
