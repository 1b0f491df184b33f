"""Issue 19 item 12: one formatter for counts, rates, e-values and missing values, used by the
page tables, the HTML and Markdown report and the PDF."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from audit_core.report import format as fmt
from audit_core.report.document import table_html, table_markdown
from audit_core.report.pdf import table_typst

FRAME = pd.DataFrame({"subgroup": ["a", None], "n": [2.0, 62.0], "correct": [1.0, 0.0], "accuracy": [1.0, 0.5],
                      "log₁₀ E": [math.nan, 1.30103], "upper": [math.inf, 0.25]})


def test_counts_rates_evalues_and_missing_values():
    assert [fmt.count(v) for v in (2.0, 62, 1234.0, None, math.nan)] == ["2", "62", "1,234", "—", "—"]
    assert [fmt.rate(v) for v in (1.0, 2 / 3, None, math.inf)] == ["1.000", "0.667", "—", "∞"]
    assert fmt.evalue(math.log(20)) == "1.301" and fmt.evalue(-math.inf) == "—" and fmt.evalue(None) == "—"
    assert fmt.listing([]) == "none" and fmt.listing(["x", "y"]) == "x, y"
    assert fmt.column_kind("n", np.array([2.0, 62.0])) == "count"
    assert fmt.column_kind("correct", np.array([1.0, 0.0])) == "count"
    assert fmt.column_kind("accuracy", np.array([1.0, 0.0])) == "rate"
    # issue 29 item 14: a 0/1 score is 0 or 1 (Compare's changes table showed 0.000 / 1.000);
    # a graded score keeps its decimals
    assert fmt.column_kind("score_a", np.array([1.0, 0.0])) == "count"
    assert fmt.column_kind("score B", np.array([0.0, 1.0])) == "count"
    assert fmt.column_kind("score_a", np.array([0.5, 1.0])) == "rate"


def test_every_output_writes_the_same_cells():
    expected = [["a", "2", "1", "1.000", "—", "∞"], ["—", "62", "0", "0.500", "1.301", "0.250"]]
    assert fmt.frame_cells(FRAME) == expected
    html, markdown, typst = table_html(FRAME), table_markdown(FRAME), table_typst(FRAME)
    for text in (html, markdown, typst):
        for bad in ("2.000", "62.000", "None", "nan", "inf<", "Infinity"):
            assert bad not in text, (bad, text)
    assert ">62<" in html and "| 62 |" in markdown and "62" in typst
    shown = fmt.display_frame(FRAME)
    assert shown["n"].tolist() == [2, 62] and shown["n"].dtype.kind == "i"
    assert shown["upper"].tolist() == ["∞", "0.250"] and shown["subgroup"].tolist() == ["a", "—"]


def test_paired_intervals_join_each_low_high_pair_where_it_stood():
    frame = pd.DataFrame({"group": ["a", "b"], "n": [3, 4], "ci_low": [0.1, float("nan")], "ci_high": [0.9, 1.0],
                          "Wilson 95% low": [0.25, 0.5], "Wilson 95% high": [0.75, float("inf")],
                          "orphan_low": [0.2, 0.3], "share": [0.5, 0.5]})
    shown = fmt.paired_intervals(frame)
    assert list(shown.columns) == ["group", "n", "ci", "Wilson 95%", "orphan_low", "share"]
    assert shown["ci"].tolist() == ["[0.100, 0.900]", f"[{fmt.MISSING}, 1.000]"]
    assert shown["Wilson 95%"].tolist() == ["[0.250, 0.750]", f"[0.500, {fmt.INFINITE}]"]
    assert shown["orphan_low"].tolist() == [0.2, 0.3]          # no partner: left as it is
    assert list(frame.columns)[2] == "ci_low"                  # the input is not changed


def test_an_empty_confidence_sequence_is_said_not_drawn_as_a_point():
    """The bundled SDOH run is sorted by category: no one mean fits its 2,268 scores in that order
    and the overall running intersection is empty (both ends met at 0.730, the accuracy 0.880).
    Page, report and command line say so instead of "[0.730, 0.730]"."""
    import audit_core
    from audit_core.cli.replay_cmd import render_text

    assert fmt.anytime_interval(0.1, 0.25) == "[0.100, 0.250]"
    assert fmt.anytime_interval(0.7296, 0.7296) == fmt.EMPTY_SEQUENCE
    view = audit_core.replay("sdoh")
    overall = view.result.overall
    assert overall.cs_low == overall.cs_high and not overall.cs_low <= overall.accuracy <= overall.cs_high
    text = render_text(view.to_dict())
    assert fmt.EMPTY_SEQUENCE in text and "[0.730, 0.730]" not in text
    assert any(fmt.EMPTY_SEQUENCE in line for line in view.section.summary)
