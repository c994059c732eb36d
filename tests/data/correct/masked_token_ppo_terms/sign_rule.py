"""Token ratios with np.subtract(where=...), the pessimistic term by the sign rule of the advantage."""
import numpy as np


def masked_token_ppo_terms(new_log_probs, old_log_probs, advantages, mask, clip_epsilon=0.2):
    new = np.asarray(new_log_probs, dtype=float)
    old = np.asarray(old_log_probs, dtype=float)
    m = np.asarray(mask, dtype=float)
    adv = np.asarray(advantages, dtype=float)
    if new.ndim != 2 or old.shape != new.shape or m.shape != new.shape:
        raise ValueError("new_log_probs, old_log_probs and mask must share one [B, L] shape")
    if adv.shape not in ((new.shape[0],), new.shape):
        raise ValueError("advantages must be [B] or [B, L]")
    if not 0 < clip_epsilon < 1:
        raise ValueError("clip_epsilon must lie in (0, 1)")
    active = m != 0
    a = np.where(active, adv if adv.ndim == 2 else adv[:, None], 0.0)
    ratio = np.exp(np.subtract(new, old, out=np.zeros(new.shape), where=active))
    unclipped = ratio * a
    clipped = np.clip(ratio, 1 - clip_epsilon, 1 + clip_epsilon) * a
    pessimistic = np.where(a >= 0, np.minimum(ratio, 1 + clip_epsilon), np.maximum(ratio, 1 - clip_epsilon)) * a
    return ratio, unclipped, clipped, pessimistic
