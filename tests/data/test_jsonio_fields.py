"""jsonio.loads_fields (an Inspect sample member read by its fields, the transcript skipped by
msgspec): the same values as ``json.loads`` restricted to the fields, and for every text msgspec
could read otherwise, or that jsonio.loads refuses, jsonio.loads's own outcome and message."""

from __future__ import annotations

import io
import json
import struct
import zipfile
from pathlib import Path

import pytest
import zstandard
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from audit_core.data import inspect_log, jsonio
from audit_core.data.inspect_log import (
    SAMPLE_FIELDS,
    SKIPPED_SAMPLE_FIELDS,
    _zip_member,
    iter_eval_archive,
    read_eval_archive,
)
from audit_core.errors import InputError

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = sorted((ROOT / "tests" / "fixtures").rglob("*.eval"))
WHERE = "run.eval: member 'samples/1_epoch_1.json'"


def _restricted(document):
    return {k: v for k, v in document.items() if k in SAMPLE_FIELDS} if isinstance(document, dict) else document


def _outcome(read, text: bytes):
    """What a reader gives: its value's repr (types, key order, NaN, -0.0 all told apart) or its error."""
    try:
        return "value", repr(read(text))
    except InputError as exc:
        return "InputError", str(exc)
    except json.JSONDecodeError as exc:
        return "JSONDecodeError", str(exc)


def _both(text: bytes):
    """(jsonio.loads restricted to the fields, loads_fields): each a value or an error."""
    return (_outcome(lambda t: _restricted(jsonio.loads(t, WHERE)), text),
            _outcome(lambda t: jsonio.loads_fields(t, WHERE, SAMPLE_FIELDS), text))


def _members(path: Path):
    raw = path.read_bytes()
    with zipfile.ZipFile(io.BytesIO(raw)) as archive:
        return [(i.filename, _zip_member(archive, raw, i)) for i in archive.infolist()
                if i.filename.startswith("samples/") and i.filename.endswith(".json")]


def test_the_fixtures_are_inspect_logs_with_transcripts():
    assert len(FIXTURES) >= 11
    members = _members(FIXTURES[0])
    assert members and all(b'"events"' in data for _, data in members)


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_every_fixture_sample_equals_json_loads_restricted_to_the_fields(path, monkeypatch):
    """Read by msgspec (jsonio.loads, the fallback, is not called): equal to json.loads restricted to
    SAMPLE_FIELDS, key order included; the skipped fields are absent."""
    members = _members(path)
    expected = [_restricted(json.loads(data)) for _, data in members]
    monkeypatch.setattr(jsonio, "loads", lambda *_: pytest.fail("fell back to jsonio.loads"))
    for (filename, data), wanted in zip(members, expected, strict=True):
        got = jsonio.loads_fields(data, f"{path.name}: {filename}", SAMPLE_FIELDS)
        assert repr(got) == repr(wanted), filename
        assert not set(got) & set(SKIPPED_SAMPLE_FIELDS)
        assert {"id", "epoch", "scores", "metadata"} <= set(got)


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_the_archive_readers_give_the_full_read_restricted_to_the_fields(path):
    raw = path.read_bytes()
    header, samples = read_eval_archive(raw, path.name)
    full_header, full = read_eval_archive(raw, path.name, full=True)
    assert header == full_header
    assert repr(samples) == repr([_restricted(s) for s in full])
    assert any("events" in s for s in full) and not any("events" in s for s in samples)
    iter_header, each = iter_eval_archive(raw, path.name)
    assert iter_header == header and repr(list(each)) == repr(samples)
    assert repr(list(iter_eval_archive(raw, path.name, full=True)[1])) == repr(full)


def _member(**fields) -> dict:
    base = {"id": "q1", "epoch": 1, "input": "2 + 2?", "target": "4", "messages": [{"role": "user"}],
            "output": {"completion": "4"}, "scores": {"match": {"value": "C"}}, "metadata": {"subject": "a"},
            "events": [{"event": "model", "timestamp": "2026-01-01T00:00:00", "uuid": "f0b20e782685bdf5815acc"}],
            "attachments": {}}
    return {**base, **fields}


def _text(member: dict, **raw) -> bytes:
    """The member as JSON, each ``raw`` field's value written verbatim (hostile tokens json.dumps
    cannot write)."""
    text = json.dumps({**member, **{k: f"@{k}@" for k in raw}})
    for key, value in raw.items():
        text = text.replace(json.dumps(f"@{key}@"), value)
    return text.encode("utf-8", "surrogatepass")


def test_an_absent_field_is_absent_and_a_null_one_none():
    got = jsonio.loads_fields(_text(_member(error=None)), WHERE, SAMPLE_FIELDS)
    assert got["error"] is None and "store" not in got and "messages" not in got and "events" not in got
    assert got.get("store") is None and (got.get("scores") or {})["match"] == {"value": "C"}


def test_a_field_written_twice_keeps_its_first_place_and_its_last_value_as_json_loads():
    text = b'{"epoch": 1, "id": "a", "events": [], "id": "b", "metadata": {"k": 1, "k": 2}}'
    assert repr(jsonio.loads_fields(text, WHERE, SAMPLE_FIELDS)) == repr(_restricted(json.loads(text)))
    assert list(jsonio.loads_fields(text, WHERE, SAMPLE_FIELDS)) == ["epoch", "id", "metadata"]


def test_nested_metadata_unicode_and_numbers_equal_json_loads():
    member = _member(metadata={"subject": "é 😀 \u2028", "nested": {"list": [1, -0.0, 1e-05, 2.5e30, 1.7976931348623157e+308 / 1e250, None, True],
                                                                       "deep": [[[{"x": "[{\"}"}]]]}},
                     total_time=0.0005337380000582925, working_time=12345678901234567890123456789,
                     store={"ints": [2**63, -(2**64), 10**29]})
    for ensure_ascii in (True, False):
        text = json.dumps(member, ensure_ascii=ensure_ascii).encode()
        assert jsonio._shape(text) is not None  # msgspec's read, not the fallback's
        assert repr(jsonio.loads_fields(text, WHERE, SAMPLE_FIELDS)) == repr(_restricted(json.loads(text)))


# Tokens jsonio.loads refuses or msgspec reads otherwise, each in a field read and in one skipped.
HOSTILE = {
    "31-digit integer": "1234567890123456789012345678901",
    "negative 31-digit integer": "-1234567890123456789012345678901",
    "400-digit integer": "7" * 400,
    "30-digit integer (accepted)": "123456789012345678901234567890",
    "float overflowing": "1e999",
    "negative float overflowing": "-2.5E+400",
    "overflow by its mantissa": "1" * 400 + ".5",
    "3-digit exponent (accepted)": "1.5e-300",
    "NaN": "NaN",
    "Infinity": "Infinity",
    "-Infinity": "-Infinity",
    "lone high surrogate": '"a\\ud800b"',
    "lone low surrogate": '"\\udc00"',
    "reversed pair": '"\\udc00\\ud800"',
    "valid pair (accepted)": '"\\ud83d\\ude00"',
    "nested 101 levels": "[" * 101 + "]" * 101,
    "nested 100 levels (accepted at the top)": "[" * 99 + "]" * 99,
    "nested 5,000 levels": "[" * 5000 + "]" * 5000,
    "brackets in a string (accepted)": json.dumps("[" * 500),
    "hex id (accepted)": '"f0b20e782685bdf5815acc"',
    "leading zero": "012",
    "trailing comma": "[1, 2,]",
    "single quotes": "'x'",
    "control character": '"a\x01b"',
}


@pytest.mark.parametrize("field", ["metadata", "events"])
@pytest.mark.parametrize("case", list(HOSTILE), ids=str)
def test_hostile_tokens_give_jsonio_loads_outcome_and_message(case, field):
    text = _text(_member(), **{field: HOSTILE[case]})
    expected, got = _both(text)
    assert got == expected
    if "(accepted)" in case:
        assert got[0] == "value"


def test_the_refusals_are_those_of_jsonio_loads():
    """Spelled out: each refusal that must survive, with its message."""
    def refusal(field: str, token: str) -> str:
        with pytest.raises(InputError) as caught:
            jsonio.loads_fields(_text(_member(), **{field: token}), WHERE, SAMPLE_FIELDS)
        return str(caught.value)
    assert refusal("events", "1" * 31) == f"{WHERE}: a whole number of 31 digits (at most 30)"
    assert refusal("events", "1e999") == f"{WHERE}: a number too large to be a float"
    assert refusal("events", '"\\ud800"').startswith(f"{WHERE}: a text holds a \\uD800-\\uDFFF escape")
    assert refusal("metadata", '{"k": "\\udfff"}').startswith(f"{WHERE}: a text holds a \\uD800-\\uDFFF escape")
    too_deep = f"{WHERE}: JSON nested too deeply (more than {jsonio.MAX_DEPTH} levels)"
    assert refusal("events", "[" * 101 + "]" * 101) == too_deep   # msgspec reads it; the depth guard refuses
    assert refusal("events", "[" * 5000 + "]" * 5000) == too_deep  # msgspec fails; loads refuses
    with pytest.raises(json.JSONDecodeError):
        jsonio.loads_fields(_text(_member(), events="[1,]"), WHERE, SAMPLE_FIELDS)


def test_msgspec_refuses_every_lone_surrogate_escape_itself():
    """loads_fields does not search for surrogate escapes: msgspec's refusal of a lone one, in a
    field it skips too, sends the text to jsonio.loads. Checked here, in case msgspec changes."""
    decoder = jsonio._fields_decoder(("id",))
    for escape in ("\\ud800", "\\udbff", "\\udc00", "\\udfff", "\\ud800x", "\\ud800\\u0041", "\\udc00\\ud800"):
        for text in (f'{{"id": "{escape}"}}', f'{{"skipped": ["{escape}"]}}', f'{{"skipped": {{"{escape}": 1}}}}'):
            with pytest.raises(Exception):  # noqa: B017 (msgspec.DecodeError; any failure is a fallback)
                decoder.decode(text.encode())


def test_bytes_that_are_not_utf8_are_refused_in_a_skipped_field_too():
    for field in ("metadata", "events"):
        text = _text(_member(), **{field: '"caf\xe9"'}).replace(b"caf\xc3\xa9", b"caf\xe9")
        expected, got = _both(text)
        assert got == expected and got[0] == "InputError"
    with pytest.raises(InputError, match=r"^where: not UTF-8 text \(byte 5 is not part"):
        jsonio.loads(b'"caf\xe9"', "where")


def test_a_document_that_is_not_an_object_is_returned_for_the_callers_message():
    assert jsonio.loads_fields(b"[1, 2]", WHERE, SAMPLE_FIELDS) == [1, 2]
    assert jsonio.loads_fields(b'"text"', WHERE, SAMPLE_FIELDS) == "text"


def test_hex_ids_and_ordinary_floats_keep_msgspecs_read():
    """The number search must not send ordinary members to the slow path: hex ids hold 0e782...,
    Python writes small floats as 1e-05."""
    for token in ('"f0b20e782685"', '"3e456"', "1e-05", "-2.5e+30", "0.0005337380000582925", "1E+99", "-123",
                  "-18446744073709551616", '"2026-01-01T00:00:00-05:00"'):
        assert jsonio._shape(_text(_member(), events=f"[{token}]")) is not None, token
    for token in ("1e300", "-1E+999", "0.5e-0300 ", "1" * 31, "[1e300]", '{"x": 2e1000}'):
        assert jsonio._shape(_text(_member(), events=f"[{token}]")) is None, token


# Generated members: any JSON values (NaN and infinities written as Inspect writes them, integers
# past 30 digits, any text) under read, skipped and unknown keys; some with a hostile token verbatim.
_SCALARS = (st.none() | st.booleans() | st.integers(min_value=-10**35, max_value=10**35)
            | st.floats() | st.text(max_size=12))
_VALUES = st.recursive(_SCALARS, lambda inner: st.lists(inner, max_size=4)
                       | st.dictionaries(st.text(max_size=4), inner, max_size=4), max_leaves=12)
_KEYS = st.sampled_from(SAMPLE_FIELDS[:12] + SKIPPED_SAMPLE_FIELDS + ("other", ""))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(member=st.dictionaries(_KEYS, _VALUES, max_size=8), ensure_ascii=st.booleans(),
       hostile=st.none() | st.tuples(_KEYS, st.sampled_from(sorted(HOSTILE.values()))))
def test_generated_members_equal_jsonio_loads_restricted_to_the_fields(member, ensure_ascii, hostile):
    text = json.dumps(member, ensure_ascii=ensure_ascii)
    if hostile is not None:
        key, token = hostile
        text = text[:-1] + (", " if member else "") + f"{json.dumps(key)}: {token}}}"
    expected, got = _both(text.encode("utf-8", "surrogatepass"))
    assert got == expected


# The member's bytes: one sized read instead of a 64 MB one, the same bytes in every case.
def _zstd_archive(frames: bytes, declared: int) -> tuple[bytes, zipfile.ZipInfo]:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("samples/1_epoch_1.json", frames)
    raw = bytearray(buffer.getvalue())
    central = raw.rindex(b"PK\x01\x02")
    for at, method_offset, size_offset in ((0, 8, 22), (central, 10, 24)):
        struct.pack_into("<H", raw, at + method_offset, 93)
        struct.pack_into("<I", raw, at + size_offset, declared)
    with zipfile.ZipFile(io.BytesIO(bytes(raw))) as archive:
        return bytes(raw), archive.getinfo("samples/1_epoch_1.json")


def _as_before(raw: bytes, info: zipfile.ZipInfo) -> bytes:
    """The member's bytes as the reader took them before (one read of the member limit + 1)."""
    name_len, extra_len = struct.unpack("<HH", raw[info.header_offset + 26:info.header_offset + 30])
    start = info.header_offset + 30 + name_len + extra_len
    source = memoryview(raw)[start:start + info.compress_size]
    with zstandard.ZstdDecompressor().stream_reader(source) as stream:
        return stream.read(inspect_log.MAX_MEMBER_BYTES + 1)


@pytest.mark.parametrize("streamed", [True, False], ids=["streamed", "one-shot"])
@pytest.mark.parametrize("declared", ["right", "one less", "one more", "zero", "far too large"])
@pytest.mark.parametrize("frames", [1, 2])
def test_a_zstd_member_reads_the_same_bytes_whatever_size_the_archive_declares(streamed, declared, frames):
    content = [json.dumps({"id": f"q{i}", "text": "x" * (1000 + 37 * i)}).encode() for i in range(frames)]
    compressor = zstandard.ZstdCompressor()
    if streamed:
        compress = [compressor.compressobj() for _ in content]
        data = b"".join(c.compress(part) + c.flush() for c, part in zip(compress, content, strict=True))
    else:
        data = b"".join(compressor.compress(part) for part in content)
    size = {"right": len(content[0]), "one less": len(content[0]) - 1, "one more": len(content[0]) + 1,
            "zero": 0, "far too large": inspect_log.MAX_MEMBER_BYTES + 5}[declared]
    raw, info = _zstd_archive(data, size)
    with zipfile.ZipFile(io.BytesIO(raw)) as archive:
        for decompressor in (None, zstandard.ZstdDecompressor()):
            got = _zip_member(archive, raw, info, "run.eval", decompressor)
            assert got == _as_before(raw, info) == content[0]  # the first frame only, as before


def test_a_shared_decompressor_reads_each_member_alike():
    path = ROOT / "tests" / "fixtures" / "inspect" / "run.eval"
    raw = path.read_bytes()
    decompressor = zstandard.ZstdDecompressor()
    with zipfile.ZipFile(io.BytesIO(raw)) as archive:
        infos = archive.infolist()
        assert {i.compress_type for i in infos} == {93}
        for info in infos:
            assert _zip_member(archive, raw, info, "run.eval", decompressor) == _as_before(raw, info)
