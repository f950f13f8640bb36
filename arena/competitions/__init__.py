"""The competitions, pure and synchronous: playoffs, all-play-all, the tuners; the one registry
of competition types; frozen snapshots of each for the dashboard and reports."""
