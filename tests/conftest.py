"""Shared pytest set-up. The package is importable from the repository root (``python -m pytest``
puts the working directory on ``sys.path``) or installed with ``pip install -e .``."""
