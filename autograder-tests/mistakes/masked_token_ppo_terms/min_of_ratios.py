"""Takes the minimum of the ratios, then multiplies by A (wrong for negative advantages).

expect: the pessimistic term must be the elementwise minimum of r*A and clip(r)*A
diagnosis: your pessimistic term is min(r, clip(r)) * A: the pessimistic term must be the elementwise minimum of r*A
    and clip(r)*A, which differs for negative advantages
"""

import numpy as np


def masked_token_ppo_terms(new_log_probs, old_log_probs, advantages, mask, clip_epsilon=0.2):
    new = np.asarray(new_log_probs, dtype=float)
    old = np.asarray(old_log_probs, dtype=float)
    adv = np.asarray(advantages, dtype=float)
    m = np.asarray(mask, dtype=float)
    if new.ndim != 2 or not new.shape == old.shape == m.shape:
        raise ValueError("shapes")
    if adv.shape == (new.shape[0],):
        adv = adv[:, None] * np.ones(new.shape)
    elif adv.shape != new.shape:
        raise ValueError("advantages must be [B] or [B, L]")
    if not 0.0 < clip_epsilon < 1.0:
        raise ValueError("clip_epsilon")
    active = m != 0
    ratio = np.exp(np.where(active, new - old, 0.0))
    clipped_ratio = np.clip(ratio, 1 - clip_epsilon, 1 + clip_epsilon)
    unclipped = np.where(active, ratio * adv, 0.0)
    clipped = np.where(active, clipped_ratio * adv, 0.0)
    return ratio, unclipped, clipped, np.where(active, np.minimum(ratio, clipped_ratio) * adv, 0.0)
