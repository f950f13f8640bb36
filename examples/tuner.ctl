# Tune the sample engine's playouts per move and its UCT exploration constant
# against a fixed opponent (the sample engine at 100 playouts), 7x7.
# Needs nothing but this package:  arena run examples/tuner.ctl -j 2
competition_type = 'mc_tuner'

import sys

description = """
Monte Carlo tuner over the sample engine's playouts and exploration constant.
"""

MCTS = [sys.executable, '-m', 'engines.mcts', '--ownership-playouts', '50']

def make_candidate(playouts, exploration):
    return Player(MCTS + ['--playouts', str(playouts),
                          '--exploration', '%.2f' % exploration],
                  allow_claim=True)

players = {
    'fixed': Player(MCTS + ['--playouts', '100'], allow_claim=True),
}

parameters = [
    Parameter('playouts', scale=EXPLICIT([25, 100, 400]), split=3,
              format='playouts: %d'),
    Parameter('exploration', scale=LINEAR(0.2, 1.4), split=3,
              format='c: %.2f'),
]

board_size = 7
komi = 7.5
opponent = 'fixed'
candidate_colour = 'b'
number_of_games = 60
exploration_coefficient = 0.45
initial_visits = 2
initial_wins = 1
reuse_engines = True
