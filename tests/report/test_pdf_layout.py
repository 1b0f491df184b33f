"""Issue 29 item 14: the PDF's first page holds the first section with the verdicts (not the verdict
box alone), a short table is not split over two pages, and interval columns are named in words
("[low, high]" under "Wilson 95% (fixed n)"), never ci_low / fw_high."""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import replace

import pytest

from audit_core import api
from audit_core.report import Report
from audit_core.report.pdf import render_pdf, typst_source


def _report() -> Report:
    section = api.replay("recorded_run").section
    return Report("Replay", (replace(section, charts=()),))


def test_typst_source_keeps_short_tables_whole_and_names_intervals():
    source = typst_source(_report())
    assert "ci_low" not in source and "fw_high" not in source and "Wilson 95% (fixed n)" in source
    # every table here is short: none may break (the parameters block may)
    assert not re.search(r"breakable: true\)\[#set text\(size: [\d.]+pt, hyphenate", source)
    assert re.search(r"breakable: false\)\[#set text\(size: [\d.]+pt, hyphenate", source)
    head, _, _ = source.partition("= Provenance")
    assert head.count("#pagebreak") == 1   # only before the provenance page


@pytest.mark.skipif(shutil.which("pdftotext") is None, reason="pdftotext (poppler-utils) not installed")
def test_first_pdf_page_holds_the_first_section(tmp_path):
    path = tmp_path / "r.pdf"
    path.write_bytes(render_pdf(_report()))
    first = subprocess.run(["pdftotext", "-f", "1", "-l", "1", str(path), "-"], capture_output=True,
                           text=True, check=True).stdout
    assert "Verdicts" in first and "column(s) not used" in first   # the section's own summary, not only the box
