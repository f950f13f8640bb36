"""The Go Text Protocol (both sides) and the shared Go vocabulary of gtp-arena."""
