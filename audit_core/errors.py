"""The one exception type for bad user input.

Every loader and validator raises :class:`InputError` with a one-line message that names the
file, column, row or field at fault. The command line turns it into exit status 2; the pages show
it with ``st.error`` and keep the previous data.
"""


class InputError(ValueError):
    """User-supplied data or arguments are invalid; the message says exactly what and where."""
