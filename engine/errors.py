"""The engine's refusals: one family, so a caller tells "this cannot have happened" (``IllegalEvent`` and its
kinds) from a fault of the engine itself (anything else, which is a bug and must surface as one)."""

from __future__ import annotations


class IllegalEvent(ValueError):
    """An event that cannot have happened at a real table (CONVENTIONS.md, table record)."""


class CardError(IllegalEvent):
    """A card code that is not a card."""


class KnowledgeError(IllegalEvent):
    """The events contradict each other: this cannot have happened at a real table."""


class OptionError(IllegalEvent):
    """An option name or value the game does not have."""
