"""does not zero the three terms at masked positions, where they become 1 * A"""
import numpy as np


def masked_token_ppo_terms(new_log_probs, old_log_probs, advantages, mask, clip_epsilon=0.2):
    new = np.asarray(new_log_probs, dtype=float)
    old = np.asarray(old_log_probs, dtype=float)
    adv = np.asarray(advantages, dtype=float)
    m = np.asarray(mask, dtype=float)
    if new.ndim != 2 or old.shape != new.shape or m.shape != new.shape:
        raise ValueError("new_log_probs, old_log_probs and mask must share one [B, L] shape")
    if adv.shape == (new.shape[0],):
        adv = adv[:, None]
    elif adv.shape != new.shape:
        raise ValueError("advantages must be [B] or [B, L]")
    if not 0.0 < clip_epsilon < 1.0:
        raise ValueError("clip_epsilon must lie in (0, 1)")
    A = np.broadcast_to(adv, new.shape)
    keep = m != 0
    with np.errstate(invalid="ignore", over="ignore"):
        ratio = np.exp(np.where(keep, new - old, 0.0))
        unclipped = ratio * A
        clipped = np.clip(ratio, 1.0 - clip_epsilon, 1.0 + clip_epsilon) * A
    pessimistic = np.minimum(unclipped, clipped)
    return ratio, unclipped, clipped, pessimistic
