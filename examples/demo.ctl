# A playoff between the sample MCTS engine and the random engine on 9x9.
# Needs nothing but this package:  arena run examples/demo.ctl
competition_type = 'playoff'

import sys

description = """
Sample MCTS engine against the random engine, 9x9, alternating colours.
"""

# sys.executable: the Python that runs the arena, so the engines are found
# whatever the PATH says.
players = {
    # 400 playouts a move keeps a game to a few seconds; the engine claims
    # the win (gomill-genmove_ex) once it is sure of it.
    'mcts': Player([sys.executable, '-m', 'engines.mcts', '--playouts', '400',
                    '--seed', '1'],
                   allow_claim=True, move_timeout=60),
    # No --seed: the random engine seeds itself with the game id, so each game
    # is its own and a replayed game is the same.
    'random': Player([sys.executable, '-m', 'engines.random'], move_timeout=10),
}

board_size = 9
komi = 7.5
scorer = 'internal'
move_limit = 400

matchups = [
    Matchup('mcts', 'random', alternating=True, number_of_games=10),
]
