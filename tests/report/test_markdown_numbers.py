"""Issue 29 item 14: the Markdown report writes numbers as they are ("0.640", not "0\\.640") and still
renders every hostile text literally (checked by rendering it with markdown-it, CommonMark)."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
from markdown_it import MarkdownIt

from audit_core import api
from audit_core.report import Report, escape_markdown
from audit_core.report.document import _markdown

HOSTILE = ["![x](http://host/x.png)", "[link](http://host)", "**bold**", "`code`", "<script>alert(1)</script>",
           "- item", "1. item", "12) item", "# heading", "> quote", "a|b", "$x$", "~~s~~", "http://host/a", "=== "]


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_text_renders_literally(text):
    html = MarkdownIt("commonmark").enable("table").render(escape_markdown(text))
    assert html.startswith("<p>") and not re.search(r"<(img|a|strong|em|code|script|h\d|ul|ol|blockquote|li)\b", html)


@pytest.mark.parametrize("text", ["0.640", "3.2 cases", "q = 0.85, α = 0.05", "τ_full", "a.b-c"])
def test_numbers_and_words_are_written_as_they_are(text):
    assert escape_markdown(text) == text


def test_markdown_report_numbers_have_no_backslashes():
    section = api.replay("recorded_run").section
    text = _markdown(Report("Replay", (replace(section, charts=()),)), lambda *_: "")
    assert not re.search(r"\d\\\.\d", text), re.findall(r".{10}\d\\\.\d.{10}", text)[:3]
    assert re.search(r"\b0\.\d{3}\b", text)
