"""Reports from competition snapshots: the text of ``show`` and ``X.report`` per competition
type, and CSV/JSON export of the games."""
