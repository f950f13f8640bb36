# Tune the sample engine's prior knowledge (Gelly & Silver 2011, section 5)
# against GNU Go 3.8 level 10 on 9x9, komi 7.5, Chinese rules: the base
# confidence of the heuristic (--prior-visits, in virtual simulations) and the
# weight of its two most frequent rules, the 3x3 shapes and nearness to the
# last move (--prior-weights, in units of that confidence).
#
# Needs GNU Go on PATH (apt-get install gnugo; Debian puts it in /usr/games).
#     arena run examples/tune_priors.ctl -j 2
#     arena report examples/tune_priors.ctl
# A game at 1,000 simulations takes about a minute of CPU on each side, so a
# useful run (several hundred games) takes hours; it resumes where it stopped.
competition_type = 'mc_tuner'

import sys

description = """
Monte Carlo tuner over the sample engine's heuristic priors v GNU Go level 10.
"""

ENGINE = [sys.executable, '-m', 'engines.mcts', '--playouts', '1000',
          '--rave', 'mse', '--priors', 'heuristic']

def make_candidate(prior_visits, shape, near_last):
    return Player(ENGINE + [
        '--prior-visits', '%g' % prior_visits,
        '--prior-weights', 'shape=%.2f,near_last=%.2f' % (shape, near_last),
    ], move_timeout=600)

players = {
    'gnugo-l10': Player('gnugo --mode gtp --level 10 --chinese-rules',
                        is_reliable_scorer=True, move_timeout=600),
}

parameters = [
    Parameter('prior_visits', scale=EXPLICIT([5, 10, 20, 40]), split=4,
              format='M %g'),
    Parameter('shape', scale=LINEAR(0.0, 2.0), split=3, format='shape %.2f'),
    Parameter('near_last', scale=LINEAR(0.0, 2.0), split=3, format='near %.2f'),
]

board_size = 9
komi = 7.5
scorer = 'players'
move_limit = 400
opponent = 'gnugo-l10'
candidate_colour = 'b'
number_of_games = 1000
exploration_coefficient = 0.45
initial_visits = 2
initial_wins = 1
reuse_engines = False
