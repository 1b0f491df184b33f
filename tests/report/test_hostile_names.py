"""Reports with hostile and ordinary user names, in every format (issue 13, item 1).

The names go through the real use case (a replay of a CSV whose subgroup values are the names),
so they reach table cells, chart labels, tooltips and the verdict exactly as a user's file would.
"""

import io
import json
import re
import zipfile

import numpy as np
import pandas as pd
import pytest

from audit_core import analyses
from audit_core.report import Report, markdown_literal, markdown_zip, render_html, render_json, render_markdown

NAMES = (
    "group one = baseline",
    '"><img src=x onerror=alert(1)>',
    "<script>alert(1)</script>",
    "![x](http://host/x.png)",
    '=HYPERLINK("http://host","x")',
    "a onclick = b",
    "javascript:alert(1)",
)


def _run_csv(names) -> bytes:
    rng = np.random.default_rng(0)
    rows = [{"score": int(rng.random() < 0.8), "subgroup": name} for name in names for _ in range(15)]
    return pd.DataFrame(rows).to_csv(index=False).encode()


@pytest.fixture(scope="module")
def report():
    run = analyses.run_source(_run_csv(NAMES), name="hostile names.csv")
    replayed = analyses.replay_run(run, score="score", subgroups=["subgroup"], order=False)
    return Report("Names", (replayed.section,))


def test_html_renders_every_name_as_text(report):
    html = render_html(report)
    # outside the non-executed JSON spec blocks no name appears with its markup intact
    visible = re.sub(r'<script type="application/json"[^>]*>.*?</script>', "", html, flags=re.S)
    for name in NAMES:
        if re.search(r"[<>]", name):
            assert name not in visible
    assert "group one = baseline" in visible  # an ordinary name is shown as typed
    assert "&lt;img src=x onerror=alert(1)&gt;" in visible
    assert "<img" not in visible and "<script>alert" not in html
    for tag in re.findall(r"<script[^>]*>", html):
        assert 'type="application/json"' in tag


def test_markdown_and_zip_escape_every_name(report):
    text = render_markdown(report)
    assert "![x](http://host/x.png)" not in text
    assert "<img" not in text and "<script>" not in text
    with zipfile.ZipFile(io.BytesIO(markdown_zip(report))) as archive:
        body = archive.read("report.md").decode() if "report.md" in archive.namelist() else \
            archive.read(next(n for n in archive.namelist() if n.endswith(".md"))).decode()
    assert "![x](http://host/x.png)" not in body and "<img" not in body


def test_json_keeps_names_verbatim(report):
    document = json.loads(render_json(report))
    dumped = json.dumps(document, ensure_ascii=False)
    for name in NAMES:
        assert json.dumps(name, ensure_ascii=False)[1:-1] in dumped


@pytest.mark.parametrize("svg, refused", [
    ('<svg xmlns="http://www.w3.org/2000/svg"><text>group one = baseline</text></svg>', False),
    ('<svg xmlns="http://www.w3.org/2000/svg"><text>&lt;script&gt; onload=x</text></svg>', False),
    ('<svg xmlns="http://www.w3.org/2000/svg"><g aria-label="a onclick = b"/></svg>', False),
    ('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>', True),
    ('<svg xmlns="http://www.w3.org/2000/svg"><rect onload="alert(1)"/></svg>', True),
    ('<svg xmlns="http://www.w3.org/2000/svg" xmlns:x="http://www.w3.org/1999/xlink">'
     '<a x:href=" javascript:alert(1)"/></svg>', True),
    ('<svg xmlns="http://www.w3.org/2000/svg"><foreignObject/></svg>', True),
    ('<svg><text>unclosed</svg>', True),
])
def test_svg_check_is_structural(svg, refused):
    from audit_core.report.render import svg_active_content
    assert (svg_active_content(svg) is not None) is refused


@pytest.mark.parametrize("text", ["![x](http://127.0.0.1:9/x.png)", "**bold** and _it_", "`code` <b>x</b>",
                                  "$x^2$ ~~s~~ | a | b |", "# heading", "a\\*b", "case_id p_correct",
                                  "line\nbreak", "see http://x.com, www.y.org or a@b.c"])
def test_markdown_literal_escapes_every_opener_and_nothing_else(text):
    shown = markdown_literal(text)
    # Every character that opens a construct is backslashed; reading the escapes back gives the text.
    assert not re.search(r"(?<!\\)[`*\[\]<>~$|#]", shown.replace("\\\\", "")), shown
    assert re.sub(r"\\(.)", r"\1", shown) == text.replace("\n", " ")
    assert "case_id p_correct" not in text or "case_id p_correct" in shown   # snake_case is left alone
    assert not re.search(r"://|www\.|\w@", shown)                             # no bare link or address
