"""The error every command reports to its user as one clear line (never a traceback)."""

from __future__ import annotations


class UserError(Exception):
    """An error caused by the user's input: printed as one clear line, never as a traceback."""
