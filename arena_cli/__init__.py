"""The ``arena`` command line.

It sits above both the arena library (:mod:`arena`) and the dashboard (:mod:`tui`).
"""
