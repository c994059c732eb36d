"""Returns G_t alone, forgetting the outer gamma^t of the literal objective.

expect: outer discount gamma^t is missing
"""


def discounted_score_weights(rewards, gamma):
    return reward_to_go(rewards, gamma)
