"""Statistics over results: Elo with intervals, LOS and SPRT, pairwise match statistics,
Bradley-Terry ratings."""
