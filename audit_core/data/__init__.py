"""Data in and out: the one CSV reader (:mod:`.csvio`), the labelled-audit loader and the seeded
generators of the bundled synthetic example data."""
