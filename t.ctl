competition_type = 'spsa_tuner'
parameters = [Parameter('x', start=0.5, min=0, max=4, c_end=0.4, r_end=0.2)]
def make_candidate(x):
    return Player(['cand', str(max(1, round(10 - 3 * abs(x - 2))))])
board_size = 9
komi = 7.5
number_of_iterations = 20
