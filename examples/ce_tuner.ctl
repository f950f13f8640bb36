# Tune the sample engine's MC-RAVE bias (on a log scale) and its exploration
# constant with the cross-entropy method, against the sample engine at its
# defaults, 7x7.  Needs nothing but this package:  arena run examples/ce_tuner.ctl -j 2
competition_type = 'ce_tuner'

import sys

description = """
Cross-entropy tuner over the sample engine's RAVE bias and exploration constant.
"""

MCTS = [sys.executable, '-m', 'engines.mcts', '--playouts', '200',
        '--ownership-playouts', '50']

players = {
    'default': Player(MCTS, allow_claim=True),
}

def exp_10(f):
    return 10.0 ** f

parameters = [
    # mean and variance in terms of log_10(rave bias); the default is 0.0085
    Parameter('rave_bias', initial_mean=-2.0, initial_variance=0.5,
              transform=exp_10, format='bias: %.4f'),
    Parameter('exploration', initial_mean=0.3, initial_variance=0.04,
              transform=abs, format='c: %.2f'),
]

def make_candidate(bias, exploration):
    return Player(MCTS + ['--rave-bias', '%.6f' % bias,
                          '--rave-exploration', '%.3f' % exploration],
                  allow_claim=True)

board_size = 7
komi = 7.5
opponent = 'default'
candidate_colour = 'random'

number_of_generations = 4
samples_per_generation = 12
batch_size = 4
elite_proportion = 0.25
step_size = 0.8
