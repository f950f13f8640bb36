"""The live terminal dashboard."""
