"""The shared CSV reader: encodings, delimiters, shapes, messages."""

import io

import pytest

from audit_core.data.csvio import read_csv_frame
from audit_core.errors import InputError


def test_sources_path_bytes_and_file_object(tmp_path):
    content = b"id,score\na,1\nb,0\n"
    path = tmp_path / "x.csv"
    path.write_bytes(content)
    for source in (path, str(path), content, io.BytesIO(content)):
        frame = read_csv_frame(source)
        assert list(frame.columns) == ["id", "score"] and frame["score"].tolist() == ["1", "0"]
    with pytest.raises(InputError, match="file not found"):
        read_csv_frame(tmp_path / "missing.csv")


def test_bom_is_removed_and_values_stay_strings():
    frame = read_csv_frame("\ufeffid,score\n007,1\n".encode("utf-8"), name="bom.csv")
    assert list(frame.columns) == ["id", "score"] and frame["id"].tolist() == ["007"]


@pytest.mark.parametrize("delimiter", [";", "\t", "|"])
def test_sniffed_delimiters(delimiter):
    text = delimiter.join(["id", "score", "domain"]) + "\n" + delimiter.join(["a", "1", "Chem, Bio"]) + "\n"
    frame = read_csv_frame(text.encode())
    assert frame.loc[0, "domain"] == "Chem, Bio"


def test_quoted_commas_and_blank_lines():
    frame = read_csv_frame(b'id,text,score\n1,"a, b",1\n\n2,"c",0\n')
    assert frame["text"].tolist() == ["a, b", "c"] and len(frame) == 2


@pytest.mark.parametrize("content,pattern", [
    (b"", "empty"),
    (b"   \n\n", "empty"),
    (b"id,score\n", "no data rows"),
    (b"id,score\n1,0\n2\n", r"data row 2 \(line 3\) has 1 field"),
    (b"id,score\n1,0,5\n", "data row 1"),
    (b"id,,score\n1,2,3\n", "column 2 of the header has no name"),
    (b"id,score,id\n1,2,3\n", "columns 1 and 3 of the header have the same name"),
    (b"id,score\n1,\xff\n", r"not UTF-8 .*line 2, column 3"),
])
def test_bad_files(content, pattern):
    with pytest.raises(InputError, match=pattern):
        read_csv_frame(content, name="bad.csv")


# ----------------------------------------------------------------- issue 13: hostile inputs

@pytest.mark.parametrize("text", [
    'score,group\n1,"a\n0,b\n1,c\n',          # a quote opened on a data row and never closed
    'score,"group\n1,a\n',                      # ... in the header
    'score;group\n1;"x\n',                       # ... with another delimiter
])
def test_unterminated_quote_is_one_input_error(text):
    with pytest.raises(InputError, match="malformed CSV.*never closed"):
        read_csv_frame(text.encode(), name="q.csv")


def test_json_decoding_error_does_not_advise_csv():
    from audit_core.identify import load_policy_class
    with pytest.raises(InputError) as info:
        load_policy_class(b'{"axes": "\xff"}', name="class.json")
    assert "UTF-8 JSON" in str(info.value) and "CSV" not in str(info.value)
