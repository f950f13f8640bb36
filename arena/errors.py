"""Errors of the arena itself that end a command with one line for the user.

Kept apart from :mod:`arena.ringmaster` so that the quick commands (``show``,
``report``, ``export``, ``reset``) can catch them without importing trio.
"""

from __future__ import annotations


class RunError(Exception):
    """A run could not start or had to stop (one line for the user)."""
