"""Returns the plain reward-to-go G_t, forgetting the outer factor gamma**t of the literal objective."""
import numpy as np


def discounted_score_weights(rewards, gamma):
    return reward_to_go(rewards, gamma)
