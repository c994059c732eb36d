"""masked_token_ppo_terms whose pessimistic term is just the unclipped r * A (several epochs overshoot).

module: response_tokens
expect: never clips
"""
import numpy as np


def masked_token_ppo_terms(new_log_probs, old_log_probs, advantages, mask, clip_epsilon=0.2):
    new = np.asarray(new_log_probs, dtype=float)
    old = np.asarray(old_log_probs, dtype=float)
    adv = np.asarray(advantages, dtype=float)
    m = np.asarray(mask, dtype=float)
    if adv.ndim == 1:
        adv = np.broadcast_to(adv[:, None], new.shape)
    active = m != 0
    ratio = np.exp(np.where(active, new - old, 0.0))
    adv = np.where(active, adv, 0.0)
    unclipped = ratio * adv
    clipped = np.clip(ratio, 1.0 - clip_epsilon, 1.0 + clip_epsilon) * adv
    return ratio, unclipped, clipped, unclipped
