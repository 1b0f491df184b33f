"""The one exception type for bad user input.

Every loader and validator raises :class:`InputError` with a one-line message that names the
file, column, row or field at fault. The command line turns it into exit status 2; the pages show
it with ``st.error`` and keep the previous data.
"""


class InputError(ValueError):
    """User-supplied data or arguments are invalid; the message says exactly what and where."""


# Longest name a message quotes (a scorer, metric, filter, task, sample id or member read from a
# file): as a chart's label (audit_core.views.charts.MAX_LABEL_CHARS); a log may name anything.
MAX_NAME_CHARS = 120
MAX_NAMES_LISTED = 20


def quoted(name: object, limit: int = MAX_NAME_CHARS) -> str:
    """``repr(str(name))`` of at most ``limit`` characters of the name (then "…")."""
    text = str(name)
    return repr(text if len(text) <= limit else text[:limit - 1] + "…")


def listed(names, limit: int = MAX_NAME_CHARS, most: int = MAX_NAMES_LISTED) -> str:
    """Names joined by ", ", each cut as :func:`quoted` cuts it (unquoted), at most ``most`` of
    them then "and N more"."""
    names = [str(n) for n in names]
    shown = [n if len(n) <= limit else n[:limit - 1] + "…" for n in names[:most]]
    return ", ".join(shown) + (f" and {len(names) - most} more" if len(names) > most else "")
