"""Engines shipped with gtp-arena."""
