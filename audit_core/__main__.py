"""``python -m audit_core``: see :mod:`audit_core.cli`."""

import sys

from audit_core.cli import main

if __name__ == "__main__":
    sys.exit(main())
