"""Numbers on the pages: tables and metrics written by the one formatter
(:mod:`audit_core.report.format`: counts as ``62``, rates as ``0.667``, e-values as log₁₀ E,
missing values as ``—``), and the explorer's instant numbers (issue 19 item 12).
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from audit_core.report import format as fmt
from pages._presentation import presenting


def readable(name) -> str:
    """A column name for people: ``failure_found_low`` → ``failure found low``."""
    return str(name).replace("_", " ")


def show_table(frame: pd.DataFrame, *, height: int | str = "auto", column_config: dict | None = None,
               intervals: bool = False, **kwargs) -> None:
    """A table written by the one formatter: counts as whole numbers (``62``, never ``62.000``),
    rates at three decimals (1.000 next to 0.667), missing or infinite values as ``—`` / ``∞``
    (never ``None`` or ``Infinity``); in presentation mode, readable column names; hidden columns
    stay hidden. ``intervals``: each low/high pair shown as one "[low, high]" column."""
    frame = fmt.display_frame(fmt.paired_intervals(frame) if intervals else frame)
    config = {c: st.column_config.NumberColumn(format=f"%.{fmt.RATE_DIGITS}f") for c in frame.columns
              if pd.api.types.is_float_dtype(frame[c])}
    config.update({c: st.column_config.NumberColumn(format="localized") for c in frame.columns
                   if pd.api.types.is_integer_dtype(frame[c]) and c not in config})
    config.update(column_config or {})
    if presenting():
        renamed = {c: readable(c) for c in frame.columns}
        frame = frame.rename(columns=renamed)
        config = {renamed.get(k, k): v for k, v in config.items()}
    st.dataframe(frame, hide_index=True, width="stretch", height=height, column_config=config, **kwargs)


# ------------------------------------------------------------------------- instant numbers

# Shows a support's numbers the moment a toggle flips, from the engine's numbers of every support
# (views.identify.support_metrics_by_key), before the rerun brings the verdict and the lists (and
# the same numbers). It sets the value of the text node React rendered, never replaces a node, so
# React's next update lands on the node it owns. Anything not found (another page, a Streamlit
# whose markup differs) leaves the page to the rerun alone.
_INSTANT_JS = """
export default function(component) {
  window.__auditInstant = component.data;
  if (window.__auditInstantInstalled) return;
  window.__auditInstantInstalled = true;
  const TOGGLES = '[data-testid="stCheckbox"], [data-testid="stToggle"]';   // st.toggle is a checkbox
  const label = (el) => (el.textContent || '').trim();
  const textNode = (el) => {
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.nodeValue.trim()) return node;
    }
    return null;
  };
  document.addEventListener('change', (event) => {
    const table = window.__auditInstant;
    if (!table || !(event.target instanceof HTMLInputElement)) return;
    const path = window.location.pathname.replace(/\\/+$/, '');
    if (!table.paths.some((p) => path.endsWith(p))) return;
    const checked = {};
    for (const toggle of document.querySelectorAll(TOGGLES)) {
      const input = toggle.querySelector('input');
      if (input && table.names.includes(label(toggle))) checked[label(toggle)] = input.checked;
    }
    if (!(label(event.target.closest(TOGGLES) || document.body) in checked)) return;
    const values = table.numbers[table.names.filter((n) => checked[n]).join(',')];
    if (!values) return;
    for (const metric of document.querySelectorAll('[data-testid="stMetric"]')) {
      const name = metric.querySelector('[data-testid="stMetricLabel"]');
      const value = metric.querySelector('[data-testid="stMetricValue"]');
      const node = value && textNode(value);
      if (name && node && label(name) in values) node.nodeValue = values[label(name)];
    }
  }, true);
}
"""
_instant_numbers = st.components.v2.component("audit_instant_numbers", js=_INSTANT_JS)


def instant_numbers(names, numbers: dict[str, dict[str, str]], paths: tuple[str, ...]) -> None:
    """Mount the instant numbers for the toggles ``names`` (labels of st.toggle) on the pages at
    ``paths``; ``numbers``: metric label -> shown value, per support key (see above)."""
    _instant_numbers(data={"names": list(names), "numbers": numbers, "paths": list(paths)},
                     key="instant_numbers")
