"""Returns G_t alone, forgetting the outer gamma^t of the literal objective.

expect: outer discount gamma^t is missing
diagnosis: your weights are the returns G_t: the outer discount gamma^t is missing (the literal objective weights step
    t by gamma^t * G_t)
"""


def discounted_score_weights(rewards, gamma):
    return reward_to_go(rewards, gamma)
