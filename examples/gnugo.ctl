# GNU Go at two levels on 9x9, with each scorer.  Needs GNU Go
# (apt-get install gnugo; the binary lands in /usr/games).
#   arena run examples/gnugo.ctl -j 2
competition_type = 'playoff'

description = """
GNU Go level 0 against level 1 on 9x9 (Chinese rules), alternating colours.
"""

def gnugo(level):
    return Player("/usr/games/gnugo --mode=gtp --chinese-rules "
                  "--capture-all-dead --level=%d" % level,
                  move_timeout=60)

players = {
    'gnugo-l0': gnugo(0),
    'gnugo-l1': gnugo(1),
}

board_size = 9
komi = 7.5
alternating = True

matchups = [
    Matchup('gnugo-l0', 'gnugo-l1', id='players', scorer='players',
            number_of_games=20),
    Matchup('gnugo-l0', 'gnugo-l1', id='internal', scorer='internal',
            name='gnugo-l0 v gnugo-l1 (internal scorer)', number_of_games=20),
    Matchup('gnugo-l0', 'gnugo-l1', id='h2', handicap=2, handicap_style='free',
            komi=0.5, scorer='internal', name='handicap 2 (free)',
            number_of_games=10),
]
