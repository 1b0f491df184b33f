"""PDF report (typst): deterministic bytes, hostile user strings shown verbatim, tables that break."""

import datetime as dt
import hashlib
import json
import os
import shutil
import subprocess
import sys

import altair as alt
import pandas as pd
import pytest

from audit_core.cli import main
from audit_core.report import Report, ReportChart, ReportSection, ReportTable
from audit_core.report.pdf import ZWSP, breakable, render_pdf, table_typst, typst_source
from audit_core.report.safety import typst_string

HOSTILE = ("#let x = 1", "$x^2$", "*bold*", "_emph_", "@ref", "<label>", "back\\slash", "close]",
           '"><img src=x onerror=alert(1)>', "group one = baseline", '#"quote" \\" end')
FIXED = dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.UTC)
VERSIONS = {"python": "3.x", "numpy": "n", "typst": "t"}


def _report(names=HOSTILE, rows: int = len(HOSTILE)) -> Report:
    frame = pd.DataFrame({"subgroup": [names[i % len(names)] for i in range(rows)],
                          "n": list(range(rows)), "accuracy": [0.5 + i / (4 * rows) for i in range(rows)]})
    chart = alt.Chart(frame).mark_bar().encode(x="subgroup:N", y="accuracy:Q").properties(width=300, height=150)
    section = ReportSection(key="s", title=f"Replay of {names[0]}", source=f"upload {names[-2]}.csv",
                            parameters={names[1]: names[2], "q": 0.85},
                            summary=(f"verdict on {names[3]}", f"second {names[4]}"),
                            tables=(ReportTable(f"Subgroups {names[5]}", frame),),
                            charts=(ReportChart(f"Chart {names[6]}", chart.to_dict()),))
    return Report(f"Audit {names[7]}", (section,), created=FIXED, versions=VERSIONS)


def _text(pdf: bytes, tmp_path) -> str:
    if shutil.which("pdftotext") is None:  # Debian's poppler-utils; .ci/run installs it
        reason = "pdftotext is not installed (apt-get install poppler-utils)"
        if os.environ.get("CI") or os.environ.get("AUDIT_REQUIRE_BROWSER"):
            pytest.fail(reason)
        pytest.skip(reason)
    path = tmp_path / "r.pdf"  # zero-width break opportunities in table cells are dropped below
    path.write_bytes(pdf)
    out = subprocess.run(["pdftotext", "-layout", str(path), "-"], capture_output=True, check=True, text=True)
    return out.stdout.replace("\u200b", "")


def test_typst_string_escapes_only_what_a_literal_needs():
    assert typst_string('a"b\\c') == '"a\\"b\\\\c"'
    assert typst_string("line\nnext\ttab\x01") == '"line\\nnext\\ttab\\u{1}"'
    assert typst_string("#$*_@<>]=") == '"#$*_@<>]="'  # inside a literal these have no meaning


def test_no_user_string_reaches_markup_unquoted():
    source = typst_source(_report())
    for name in HOSTILE:
        assert typst_string(breakable(name)) in source  # each one is a table cell literal of its own
    # outside string literals the source holds none of the hostile fragments
    outside = "".join(part for i, part in enumerate(_split_literals(source)) if i % 2 == 0)
    for fragment in ("onerror", "group one", "back", "close]", "@ref", "<label>"):
        assert fragment not in outside


def _split_literals(source: str) -> list[str]:
    """Alternating [code, literal, code, literal, ...] pieces of typst source."""
    pieces, current, inside, i = [], [], False, 0
    while i < len(source):
        char = source[i]
        if inside and char == "\\":
            current.append(source[i:i + 2])
            i += 2
            continue
        if char == '"':
            pieces.append("".join(current))
            current, inside = [], not inside
        else:
            current.append(char)
        i += 1
    pieces.append("".join(current))
    return pieces


def test_hostile_names_are_shown_verbatim(tmp_path):
    text = _text(render_pdf(_report()), tmp_path)
    flat = " ".join(text.split())
    for name in HOSTILE:
        assert " ".join(name.split()) in flat, name
    assert "Verdicts" in text and "Package versions" in text and "2026-01-02T03:04:05+00:00" in text


def test_two_renders_are_byte_identical_also_in_a_fresh_process():
    first = render_pdf(_report())
    assert first.startswith(b"%PDF-") and first == render_pdf(_report())
    code = ("import datetime as dt, hashlib, sys; sys.path.insert(0, '.'); "
            "from tests.report.test_pdf import _report; from audit_core.report.pdf import render_pdf; "
            "print(hashlib.sha256(render_pdf(_report())).hexdigest())")
    fresh = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert fresh.stdout.strip() == hashlib.sha256(first).hexdigest()


def test_creation_time_changes_the_bytes():
    report = _report()
    later = Report(report.title, report.sections, created=FIXED + dt.timedelta(days=1), versions=VERSIONS)
    assert render_pdf(later) != render_pdf(report)


def test_long_table_breaks_across_pages_with_its_header_repeated(tmp_path):
    pdf = render_pdf(_report(rows=150))
    text = _text(pdf, tmp_path)
    pages = text.split("\f")
    with_header = [p for p in pages if "subgroup" in p and "accuracy" in p]
    assert len(with_header) >= 3  # the header row repeats on every page the table spans
    assert "149" in text  # the last row is there


def test_table_cells_are_literals_and_numbers_right_aligned():
    frame = pd.DataFrame({"name": ["a]", "b"], "x": [0.123456, float("nan")]})
    source = table_typst(frame)
    assert "columns: 2" in source and "align: (left, right,)" in source
    assert typst_string("a]") in source and typst_string("0.123") in source
    assert "table.header(" in source


def test_report_command_writes_pdf(tmp_path, capsys):
    out = tmp_path / "r.pdf"
    assert main(["report", "--out", str(out), "--components", "target", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["format"] == "pdf" and out.read_bytes().startswith(b"%PDF-")
    assert "Identifiability" in _text(out.read_bytes(), tmp_path)


@pytest.mark.parametrize("suffix", [".PDF"])
def test_pdf_suffix_is_case_insensitive(tmp_path, suffix, capsys):
    out = tmp_path / f"r{suffix}"
    assert main(["report", "--out", str(out), "--components", "none"]) == 0
    assert out.read_bytes()[:5] == b"%PDF-"


def test_svg_guard_rejects_real_handlers_but_not_escaped_labels():
    from audit_core.report.render import svg_active_content

    def _unsafe_markup(svg: str) -> bool:
        return svg_active_content(svg) is not None

    assert _unsafe_markup('<svg><g onload="x()"></g></svg>')
    assert _unsafe_markup("<svg><script>x()</script></svg>")
    assert _unsafe_markup('<svg><a href="javascript:x()">a</a></svg>')
    assert not _unsafe_markup('<svg><path aria-label="s: &quot;&gt;&lt;img src=x onerror=alert(1)&gt;"/>'
                              '<text>&lt;script&gt; javascript: x</text></svg>')


def test_long_words_get_break_opportunities_and_keep_their_text():
    word = "UNKNOWN→FALSE→UNKNOWN"
    assert breakable(word) == ZWSP.join(["UNKNOWN", "→", "FALSE", "→", "UNKNOWN"])
    long = "x" * 30
    assert breakable(long).replace(ZWSP, "") == long and breakable(long).count(ZWSP) == 2
    assert breakable("short words stay") == "short words stay"
