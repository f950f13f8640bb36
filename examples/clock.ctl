# The sample engine under a clock, from an opening suite, with time odds.
# Needs nothing but this package:  arena run examples/clock.ctl -j 2
competition_type = 'playoff'

import sys

description = """
Plain UCT against MC-RAVE under Japanese byo-yomi, each opening of
examples/openings played twice with colours swapped.
"""


def mcts(*options, **settings):
    # --playouts 0: the clock decides how long the engine thinks.
    return Player([sys.executable, '-m', 'engines.mcts', '--playouts', '0',
                   *options], **settings)


players = {
    'uct': mcts('--rave', 'off', '--priors', 'none', '--seed', '1'),
    'rave': mcts('--seed', '2'),
    # Time odds: a player's own time_control wins over the matchup's.
    'rave-half': mcts('--seed', '3',
                      time_control=ByoYomi(main=5, period=0.25, periods=3)),
}

board_size = 9
komi = 7.5
scorer = 'internal'

# Every game: 10 s of main time, then 3 periods of 0.5 s (Japanese byo-yomi).
# The others: Absolute(300), Canadian(main=600, period=300, stones=25),
# Fischer(main=60, increment=2) (for any engine: one without kata-time_settings
# is told its time, increments added, by time_left), PerMove(0.5).
time_control = ByoYomi(main=10, period=0.5, periods=3)

# How far a move may overrun its clock before it loses on time (default 0.05 s).
time_margin = 0.1

# Each opening starts two adjacent games, colours swapped; the first 6 moves
# of each file, in a random order fixed by the seed.
openings = Openings('openings', moves=6, order='random', seed=1)

matchups = [
    Matchup('uct', 'rave', number_of_games=4),
    Matchup('rave', 'rave-half', number_of_games=4),
    Matchup('uct', 'rave', id='fast', name='uct v rave, 0.2 s a move',
            time_control=PerMove(0.2), number_of_games=4),
]
