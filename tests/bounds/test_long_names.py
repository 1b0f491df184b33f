"""Issue 18, item 3: a 100,000-character subgroup name made ``report --out x.html|.pdf`` run past
120 s (Vega fitting the label). Charts now draw at most MAX_LABEL_CHARS characters of a text value,
with an ellipsis and a subtitle saying so; tables keep the name in full."""

import time

from audit_core import analyses
from audit_core.report.render import chart_svg
from audit_core.views.charts import MAX_LABEL_CHARS, shorten_labels

LONG = "x" * 100_000


def _run_csv() -> bytes:
    rows = [f"c{i},{LONG if i % 2 else 'short'},{int(i % 5 != 0)}" for i in range(200)]
    return ("case,grp,correct\n" + "\n".join(rows) + "\n").encode()


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def test_replay_charts_shorten_the_name_say_so_and_render_fast():
    view = analyses.replay_run(analyses.run_source(_run_csv(), "long.csv"), subgroups=("grp",))
    spec = view.subgroup_chart
    assert max(len(s) for s in _strings(spec.get("datasets"))) == MAX_LABEL_CHARS
    assert any(s.endswith("…") for s in _strings(spec["datasets"]))
    assert "shortened" in str(spec["title"])
    start = time.perf_counter()
    svg = chart_svg(spec)
    assert time.perf_counter() - start < 30  # was > 120 s
    assert LONG not in svg and "x" * (MAX_LABEL_CHARS - 1) in svg
    assert LONG in set(view.subgroup_table.astype(str).to_numpy().ravel())  # the table keeps it


def test_shorten_labels_leaves_short_values_and_titles_alone():
    spec = {"title": "T", "datasets": {"data-0": [{"g": "a" * MAX_LABEL_CHARS, "n": 3}]}}
    assert shorten_labels(spec) == {"title": "T", "datasets": {"data-0": [{"g": "a" * MAX_LABEL_CHARS, "n": 3}]}}
    cut = shorten_labels({"title": "T", "datasets": {"data-0": [{"g": "a" * (MAX_LABEL_CHARS + 1)}]}})
    assert cut["datasets"]["data-0"][0]["g"] == "a" * (MAX_LABEL_CHARS - 1) + "…"
    assert cut["title"]["text"] == "T" and "shortened" in cut["title"]["subtitle"]
