"""correct: picks the pessimistic term by the advantage's sign, A * min(r, 1 + eps) or A * max(r, 1 - eps), with np.where"""
import numpy as np


def ppo_clipped_terms(ratio, advantage, clip_epsilon=0.2):
    ratio = np.asarray(ratio, dtype=float)
    advantage = np.asarray(advantage, dtype=float)
    if ratio.shape != advantage.shape or not 0.0 < clip_epsilon < 1.0 or not np.all(ratio > 0):
        raise ValueError("need same shapes, strictly positive ratios and clip_epsilon in (0, 1)")
    low, high = 1.0 - clip_epsilon, 1.0 + clip_epsilon
    unclipped = ratio * advantage
    clipped = np.minimum(np.maximum(ratio, low), high) * advantage
    pessimistic = np.where(advantage >= 0, np.minimum(ratio, high) * advantage,
                           np.maximum(ratio, low) * advantage)
    return unclipped, clipped, pessimistic
