"""Returns G_t alone, leaving out the outer gamma**t factor of the literal objective."""
import numpy as np


def discounted_score_weights(rewards, gamma):
    return reward_to_go(rewards, gamma)
