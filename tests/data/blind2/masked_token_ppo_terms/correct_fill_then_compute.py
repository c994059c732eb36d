"""correct: replaces masked log-probabilities and advantages by 0 first, then computes every term on the filled arrays"""

import numpy as np


def masked_token_ppo_terms(new_log_probs, old_log_probs, advantages, mask, clip_epsilon=0.2):
    new = np.array(new_log_probs, dtype=np.float64)
    old = np.array(old_log_probs, dtype=np.float64)
    keep = np.array(mask, dtype=np.float64) != 0
    adv = np.array(advantages, dtype=np.float64)
    if new.ndim != 2 or new.shape != old.shape or keep.shape != new.shape:
        raise ValueError("new_log_probs, old_log_probs and mask must share one [B, L] shape")
    if adv.ndim == 1 and len(adv) == new.shape[0]:
        adv = np.repeat(adv[:, None], new.shape[1], axis=1)
    if adv.shape != new.shape:
        raise ValueError("advantages must be [B] or [B, L]")
    if not (0 < clip_epsilon < 1):
        raise ValueError("clip_epsilon must be in (0, 1)")
    new_f = np.where(keep, new, 0.0)
    old_f = np.where(keep, old, 0.0)
    adv_f = np.where(keep, adv, 0.0)
    ratio = np.exp(new_f - old_f)
    unclipped = ratio * adv_f
    clipped = np.minimum(np.maximum(ratio, 1 - clip_epsilon), 1 + clip_epsilon) * adv_f
    pessimistic = np.where(clipped < unclipped, clipped, unclipped)
    return ratio, unclipped, clipped, pessimistic
