"""The tuners' maths: the UCB tree and scales, cross-entropy and SPSA (pure, no I/O)."""
