"""How a use-case result shows itself in a notebook and in a terminal.

A result (``RunReplay``, ``PlannedAudit``, ...) mixes in :class:`Displayed` and names its key table
and key chart. Jupyter, JupyterLab and VS Code call ``_repr_html_``: the verdict first, its caveat,
the key table, then the key chart as inline SVG drawn offline by vl-convert (no script, no network,
so the notebook renders the same when exported to HTML). ``tables`` gives every display table as
pandas, ``to_frame()`` the key one, ``chart()`` an Altair chart of any spec, and ``to_dict()`` the
JSON document the command line prints with ``--json``.

User-supplied text (file names, subgroup names, verdicts quoting them) is escaped, as in the reports.
"""

from __future__ import annotations

from dataclasses import fields
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    import pandas as pd

MAX_ROWS_SHOWN = 20  # of the key table in the notebook display; the whole table is in ``to_frame()``

_TONE_COLOURS = {"good": "#1b5e20", "bad": "#b71c1c", "neutral": "#1f4e79"}
_TONE_WORDS = {"good": "✓", "bad": "✗", "neutral": "•"}


def altair_chart(spec: dict):
    """An Altair chart object for a Vega-Lite spec of any top-level kind (single view, layer,
    concatenation, facet or repeat), without re-validating the spec."""
    import altair as alt  # only when a chart is asked for: importing Altair costs ~0.3 s

    for key, kind in (("layer", alt.LayerChart), ("hconcat", alt.HConcatChart), ("vconcat", alt.VConcatChart),
                      ("concat", alt.ConcatChart), ("facet", alt.FacetChart), ("repeat", alt.RepeatChart)):
        if key in spec:
            return kind.from_dict(spec, validate=False)
    return alt.Chart.from_dict(spec, validate=False)


class Displayed:
    """Mixin of the frozen use-case results: rich display, tables, charts and the CLI's JSON.

    A subclass sets ``_key_table`` (the field holding the table shown first) and ``_key_chart``
    (the field holding the chart shown; "" for none) and defines ``to_dict()``.
    """

    _key_table: ClassVar[str] = ""
    _key_chart: ClassVar[str] = ""

    # ------------------------------------------------------------------ data
    def _member_names(self) -> list[str]:
        """Fields, and the tables and charts a result builds on first use (properties)."""
        built = [n for n in dir(type(self)) if n.endswith(("_table", "_chart"))
                 and isinstance(getattr(type(self), n, None), (property, cached_property))]
        return [f.name for f in fields(self)] + built

    @property
    def tables(self) -> dict[str, pd.DataFrame]:
        """Every display table of the result, by name (copies: editing one changes nothing here)."""
        import pandas as pd  # a result holding tables has loaded pandas already; `audit status` holds none

        members = ((n, getattr(self, n)) for n in self._member_names())
        return {n: v.copy() for n, v in members if isinstance(v, pd.DataFrame)}

    def to_frame(self) -> pd.DataFrame:
        """The key table as a pandas DataFrame (a copy) with stable snake_case column ids, as the
        JSON names its fields (``"stop (case)"`` → ``stop_case``, ``"q − δ"`` → ``q_minus_delta``);
        the readable labels are the display's (:attr:`tables`, the rich display)."""
        import pandas as pd

        table = getattr(self, self._key_table, None)
        if not isinstance(table, pd.DataFrame):
            return pd.DataFrame()
        return table.rename(columns=column_id)

    @property
    def charts(self) -> dict[str, dict]:
        """Every Vega-Lite spec of the result, by field name (``*_chart`` fields that are set)."""
        members = ((n, getattr(self, n)) for n in self._member_names() if n.endswith("chart"))
        return {n: v for n, v in members if isinstance(v, dict)}

    def chart(self, name: str | None = None):
        """The key chart (or the chart field ``name``, e.g. ``"subgroup_chart"``) as an Altair chart,
        which renders interactively in Jupyter, JupyterLab and VS Code; None when there is none."""
        specs = self.charts
        if name is not None and name not in specs:
            from audit_core.errors import InputError
            raise InputError(f"chart {name!r}: this result has {', '.join(specs) or 'no charts'}")
        spec = specs.get(name or self._key_chart)
        return None if spec is None else altair_chart(spec)

    # ------------------------------------------------------------------ display
    def _repr_html_(self) -> str:
        from audit_core.report.document import table_html
        from audit_core.report.render import chart_svg, static_spec
        from audit_core.report.safety import escape_html

        verdict = getattr(self, "verdict", None)
        parts = [f'<div class="audit-result" style="max-width:100%">'
                 f'<p style="color:#555;margin:0 0 .3rem 0">{escape_html(type(self).__name__)}'
                 f'{escape_html(_source_note(self))}</p>']
        # A measurement's second verdict says whether τ is identified on the support its log covers.
        for shown in (verdict, getattr(self, "support_verdict", None)):
            if shown is None:
                continue
            colour = _TONE_COLOURS.get(shown.tone, "#333")
            parts.append(f'<p style="border-left:4px solid {colour};padding:.3rem .6rem;margin:.2rem 0;'
                         f'font-weight:600">{_TONE_WORDS.get(shown.tone, "")} {escape_html(shown.text)}</p>')
            if shown.caveat:
                parts.append(f'<p style="color:#444;margin:.2rem 0 .6rem 0">{escape_html(shown.caveat)}</p>')
        table = getattr(self, self._key_table, None)   # readable labels for people
        if table is not None and len(table.columns):
            parts.append(table_html(table, max_rows=MAX_ROWS_SHOWN))
        spec = self.charts.get(self._key_chart)
        if spec is not None:
            try:
                parts.append(f"<figure>{chart_svg(static_spec(spec))}</figure>")
            except Exception as exc:  # a chart that cannot be drawn must not hide the numbers
                parts.append(f"<p>(chart not drawn: {escape_html(type(exc).__name__)})</p>")
        parts.append("</div>")
        return "".join(parts)

    def __repr__(self) -> str:
        verdict = getattr(self, "verdict", None)
        what = _source_note(self).removeprefix(" of ")
        said = f"{verdict.tone}: {verdict.text!r}" if verdict is not None else ""
        return f"{type(self).__name__}({', '.join(p for p in (what, said) if p)})"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:  # noqa: ARG002 (IPython's signature)
        printer.text(repr(self))


_SYMBOLS = (("q − δ′", "q_minus_delta_aud"), ("q + δ′", "q_plus_delta_aud"), ("δ′", "delta_aud"), ("−", " minus "),
            ("+", " plus "), ("%", " pct "), ("α", "alpha"), ("τ", "tau"), ("δ", "delta"), ("η", "eta"),
            ("≥", " at least "), ("≤", " at most "), ("·", " "), ("/", " per "), ("#", " number "))


def column_id(label: Any) -> str:
    """A display column's stable snake_case id: lower case, symbols spelled out, every other run of
    non-alphanumerics one underscore (``"95% CI low"`` → ``95_pct_ci_low``; ``"ci_low"`` unchanged)."""
    import re
    text = str(label)
    for symbol, word in _SYMBOLS:
        text = text.replace(symbol, word)
    return re.sub(r"[^0-9a-z]+", "_", text.lower()).strip("_") or "column"


def _source_note(result: Any) -> str:
    source = getattr(result, "source", None)
    name = getattr(source, "name", None)
    return f" of {name}" if name else ""
