"""Pieces every use case shares: the one-line verdict."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Verdict:
    """What a result means, in one line of plain words with the numbers that justify it.

    Attributes
    ----------
    tone : "good" (identified, audit passed), "bad" (not identified, failure mode found) or
        "neutral" (inconclusive, a measurement without a decision).
    text : the sentence shown first on a page and first in a report section (Markdown-free).
    caveat : what the decision does and does not guarantee ("" when there is nothing to add).
    """

    tone: str
    text: str
    caveat: str = ""

    def to_dict(self) -> dict:
        return {"tone": self.tone, "text": self.text, "caveat": self.caveat}

    def __repr__(self) -> str:
        return f"Verdict({self.tone}: {self.text!r})"


def plural(count: int, one: str, many: str | None = None) -> str:
    """``3 pairs``, ``1 pair``: the count with the right form of the noun."""
    return f"{count} {one if count == 1 else (many or one + 's')}"
