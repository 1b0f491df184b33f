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

:func:`loads_fields` reads only some fields of an object (an Inspect sample without its event
transcript): msgspec skips the others in C without building them, and any text msgspec could read
otherwise than :func:`loads`, or that :func:`loads` refuses, is read by :func:`loads` itself, so
values, refusals and messages are those of :func:`loads`.
"""

from __future__ import annotations

import functools
import json
import math
import re
from typing import Any, TypedDict

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


# The text's skeleton: its quotes and brackets only (every other byte deleted); then its brackets as
# steps of +1 ({ [) and -1 (} ]), read as signed bytes.
_NOT_SKELETON = bytes(c for c in range(256) if c not in b'"{}[]')
_STEPS = bytes.maketrans(b"{[}]", b"\x01\x01\xff\xff")


def text_depth(text: str | bytes) -> int:
    """The nesting depth of a valid JSON text, from its characters: the running count of ``{``/``[``
    less ``}``/``]`` outside string literals, at its highest. Equals the depth
    :func:`depth_exceeds` walks in the parsed document (a container per opening bracket), in a
    fraction of the time (a few passes of bytes methods and a cumulative sum, no Python loop per
    node; a regular expression over the strings took as long as parsing the text).

    Escaped backslashes go first, then escaped quotes (pairs from the left, as JSON reads a run of
    backslashes), so every quote left opens or closes a string. Of the skeleton (quotes and
    brackets), two adjacent quotes are an empty string or the end of one and the start of the
    next: removing them leaves every bracket inside or outside a string as it was; the brackets
    between the quotes that are left alternate outside / inside."""
    raw = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    if b"\\" in raw:
        raw = raw.replace(b"\\\\", b"").replace(b'\\"', b"")
    skeleton = raw.translate(None, _NOT_SKELETON).replace(b'""', b"")
    if b'"' in skeleton:
        skeleton = b"".join(skeleton.split(b'"')[0::2])
    if not skeleton:
        return 0
    return int(np.frombuffer(skeleton.translate(_STEPS), dtype=np.int8).cumsum().max(initial=0))


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


def _too_deep(where: str) -> str:
    return f"{where}: JSON nested too deeply (more than {MAX_DEPTH} levels)"


def loads(text: str | bytes, where: str) -> Any:
    """``json.loads`` bounded for hostile input: InputError (``where: ...``) for nesting deeper
    than :data:`MAX_DEPTH`, whole numbers longer than :data:`MAX_INT_DIGITS` digits, numbers
    that overflow a float and lone surrogate escapes. Syntax errors are raised as ``json.JSONDecodeError``."""
    try:
        document = json.loads(text, parse_int=_parse_int, parse_float=_parse_float)
    except _Refused as exc:
        raise InputError(f"{where}: {exc}") from None
    except RecursionError:
        raise InputError(_too_deep(where)) from None
    except UnicodeDecodeError as exc:  # a ValueError too: said before the number message below
        raise InputError(f"{where}: not UTF-8 text (byte {exc.start + 1:,} is not part of a UTF-8 "
                         "character)") from None
    except ValueError as exc:
        if isinstance(exc, json.JSONDecodeError):
            raise
        raise InputError(f"{where}: a number JSON cannot hold") from None  # e.g. the int digit limit
    if isinstance(document, (dict, list)) and _depth_over(text, MAX_DEPTH):
        raise InputError(_too_deep(where))
    escaped = text if isinstance(text, str) else text.decode("utf-8", "replace")
    if _SURROGATE_ESCAPE.search(escaped) and lone_surrogate(document) is not None:
        raise InputError(f"{where}: a text holds a \\uD800-\\uDFFF escape that is not half of a pair (a lone "
                         "surrogate, no character); the file was written with a broken encoder")
    return document


# Where msgspec and loads() could differ (msgspec refuses NaN / Infinity and more: a failure, so a
# fallback to loads()): numbers loads() refuses in fields msgspec skips without reading them (an
# integer of more than MAX_INT_DIGITS digits; a float overflowing a double, which needs an exponent
# of 3 digits or more when its integer part has at most MAX_INT_DIGITS digits), and bytes that are
# not UTF-8 (loads() refuses them, msgspec skips them). Lone surrogate escapes need no search:
# msgspec refuses them wherever they are, skipped fields included (tests/data/test_jsonio_fields.py).
# The numbers are looked for in the text's shape (every digit a 0, E an e, a minus a plus, [ a {):
# a run of MAX_INT_DIGITS + 1 digits; a digit, an e, 3 digits or more and what ends a number in
# JSON (a comma, a closing bracket, a blank), which a hex id in a string (f0b20e782685") is not.
# A match inside a string only sends the text to loads(), which reads it exactly. Three passes in
# C: a regular expression starting with a character class took longer than msgspec's whole read.
_SHAPE = bytes.maketrans(b"123456789E-[", b"000000000e+{")
_LONG_INTEGER = b"0" * (MAX_INT_DIGITS + 1)
_LARGE_EXPONENT = re.compile(rb"0e\+?0000*[,}\] \t\n\r]")  # starts with a literal: a fast search


def _shape(raw: bytes) -> bytes | None:
    """The text's shape when msgspec, if it accepts the text, gives the values :func:`loads` gives
    and :func:`loads` would accept it but for its depth (checked on the text alike); else None."""
    if not raw.isascii():
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            return None
    shape = raw.translate(_SHAPE)
    if _LONG_INTEGER in shape or _LARGE_EXPONENT.search(shape):
        return None
    return shape


@functools.cache
def _fields_decoder(fields: tuple[str, ...]):
    import msgspec  # imported here: only logs read by fields need it

    # A total=False TypedDict: a dict of the fields present, in the text's order (a field written
    # twice keeps its first place and its last value, as json.loads does); the others are skipped.
    return msgspec.json.Decoder(TypedDict("Fields", {f: Any for f in fields}, total=False))


def loads_fields(text: bytes, where: str, fields: tuple[str, ...]) -> Any:
    """``loads(text, where)`` restricted to the object's ``fields`` (a field absent from the text is
    absent from the dict, one written null is None), for a text whose other fields are large and
    unused: msgspec reads the declared fields and skips the rest without building it. A text it
    could read otherwise than :func:`loads` or fails on (NaN, a syntax error, a document that is
    not an object) is read by :func:`loads`: same values, same refusals and messages (a document
    that is not an object is returned as it is, for the caller's message)."""
    shape = _shape(text) if isinstance(text, bytes) else None
    if shape is not None:
        try:
            document = _fields_decoder(fields).decode(text)
        except Exception:  # any failure: loads() below reads the text and says what it says
            shape = None
    if shape is not None:
        # _depth_over's test, its bracket count from the shape ([ is a { there)
        if shape.count(b"{") > MAX_DEPTH and text_depth(text) > MAX_DEPTH:
            raise InputError(_too_deep(where))
        return document
    document = loads(text, where)
    if not isinstance(document, dict):
        return document
    wanted = set(fields)
    return {key: value for key, value in document.items() if key in wanted}
