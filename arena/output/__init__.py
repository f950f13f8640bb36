"""Subscribers that turn a run's events into text: ``X.log``, ``X.hist``, ``X.events`` and
plain lines, with every wording in one module."""
