# Tune the sample engine's UCT exploration constant and first-play urgency
# with SPSA: each iteration plays theta + c*delta against theta - c*delta,
# once with each colour; no opponent needed.  7x7, plain UCT.
# Needs nothing but this package:  arena run examples/spsa_tuner.ctl -j 2
competition_type = 'spsa_tuner'

import sys

description = """
SPSA over the sample engine's UCT exploration constant and first-play urgency.
"""

MCTS = [sys.executable, '-m', 'engines.mcts', '--playouts', '200',
        '--ownership-playouts', '50', '--rave', 'off', '--priors', 'none']

parameters = [
    Parameter('exploration', start=0.5, min=0.05, max=2.0, c_end=0.1, r_end=0.002,
              format='c: %.3f'),
    Parameter('fpu', start=1.0, min=0.0, max=2.0, c_end=0.1, r_end=0.002,
              format='fpu: %.3f'),
]

def make_candidate(exploration, fpu):
    return Player(MCTS + ['--exploration', '%.4f' % exploration,
                          '--uct-fpu', '%.4f' % fpu],
                  allow_claim=True)

board_size = 7
komi = 7.5
number_of_iterations = 200
# A (default: a tenth of the iterations), alpha (0.602) and gamma (0.101) as in fishtest
