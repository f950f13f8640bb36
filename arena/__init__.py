"""Competitions between GTP engines: playoffs, all-play-all, the Monte Carlo tuner."""
