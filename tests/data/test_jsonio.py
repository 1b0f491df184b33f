"""jsonio's depth check: the text scan equals the parsed document's walk (the definition)."""

from __future__ import annotations

import io
import json
import random
import zipfile
from pathlib import Path

import pytest

from audit_core.data import jsonio
from audit_core.data.inspect_log import _zip_member
from audit_core.errors import InputError

# Strings that look like JSON structure, escapes a naive scan would get wrong, non-ASCII text.
_TRICKY = ['[', ']', '{', '}', '"', '\\', '\\"[', 'x\\\\', '[{"a": 1}]', 'é{', '😀]', '\u2028', '',
           '\\\\"[', '"["', '""]', '\\\\\\"{', ']\\']


def _document(rng: random.Random, depth: int):
    if depth <= 0 or rng.random() < 0.25:
        return rng.choice([rng.choice(_TRICKY), rng.randint(-10**9, 10**9), rng.random(), True, None])
    if rng.random() < 0.5:
        return [_document(rng, depth - 1) for _ in range(rng.randint(0, 4))]
    return {rng.choice(_TRICKY) + str(i): _document(rng, depth - 1) for i in range(rng.randint(0, 4))}


def _walked_depth(document) -> int:
    """The smallest limit that depth_exceeds accepts: the parsed document's depth (0 for a
    scalar, which loads never walks)."""
    if not isinstance(document, (dict, list)):
        return 0
    depth = 0
    while jsonio.depth_exceeds(document, depth):
        depth += 1
    return depth


@pytest.mark.parametrize("ensure_ascii", [True, False])
def test_text_depth_equals_the_walk_of_the_parsed_document(ensure_ascii):
    rng = random.Random(7)
    for _ in range(400):
        document = _document(rng, rng.randint(0, 12))
        text = json.dumps(document, ensure_ascii=ensure_ascii, indent=rng.choice([None, 1]))
        assert jsonio.text_depth(text) == jsonio.text_depth(text.encode()) == _walked_depth(json.loads(text)), text


def test_text_depth_equals_the_walk_on_the_inspect_fixtures():
    """Real texts: escaped quotes and JSON inside strings (a model call's request), unicode."""
    checked = 0
    for path in sorted((Path(__file__).resolve().parents[1] / "fixtures").rglob("*.eval")):
        raw = path.read_bytes()
        with zipfile.ZipFile(io.BytesIO(raw)) as archive:
            for info in archive.infolist()[:40]:
                data = _zip_member(archive, raw, info)
                assert jsonio.text_depth(data) == _walked_depth(json.loads(data)), (path.name, info.filename)
                checked += 1
    assert checked > 300


def test_deep_nesting_is_refused_and_the_limit_itself_accepted():
    at_limit = "[" * jsonio.MAX_DEPTH + "]" * jsonio.MAX_DEPTH
    assert jsonio.loads(at_limit, "f") is not None
    deeper = '{"a": ' * (jsonio.MAX_DEPTH + 1) + "1" + "}" * (jsonio.MAX_DEPTH + 1)
    with pytest.raises(InputError, match="nested too deeply"):
        jsonio.loads(deeper, "f")
    # brackets inside strings do not count
    assert jsonio.loads(json.dumps(["[" * 500]), "f") == ["[" * 500]
