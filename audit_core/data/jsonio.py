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
    if isinstance(document, (dict, list)) and depth_exceeds(document):
        raise InputError(f"{where}: JSON nested too deeply (more than {MAX_DEPTH} levels)")
    escaped = text if isinstance(text, str) else text.decode("utf-8", "replace")
    if _SURROGATE_ESCAPE.search(escaped) and lone_surrogate(document) is not None:
        raise InputError(f"{where}: a text holds a \\uD800-\\uDFFF escape that is not half of a pair (a lone "
                         "surrogate, no character); the file was written with a broken encoder")
    return document
