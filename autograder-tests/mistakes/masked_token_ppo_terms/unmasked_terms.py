"""Sets masked ratios to 1 but forgets to zero the terms there (they become the advantage).

expect: masked positions carry nonzero PPO terms
diagnosis: your terms are not zeroed where the mask is 0: masked positions carry nonzero PPO terms
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
    ratio = np.exp(np.where(m != 0, new - old, 0.0))
    unclipped = ratio * adv
    clipped = np.clip(ratio, 1 - clip_epsilon, 1 + clip_epsilon) * adv
    return ratio, unclipped, clipped, np.minimum(unclipped, clipped)
