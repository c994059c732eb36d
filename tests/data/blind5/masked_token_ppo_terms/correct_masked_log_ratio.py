"""correct: zeroes the log-ratio at masked positions before exponentiating (so their ratio is exactly 1 and no overflow can reach them) and masks every term."""
import numpy as np


def masked_token_ppo_terms(new_log_probs, old_log_probs, advantages, mask, clip_epsilon=0.2):
    new_lp = np.asarray(new_log_probs, dtype=float)
    old_lp = np.asarray(old_log_probs, dtype=float)
    m = np.asarray(mask, dtype=float)
    if new_lp.ndim != 2 or old_lp.shape != new_lp.shape:
        raise ValueError("new_log_probs and old_log_probs must both be [B, L]")
    if m.shape != new_lp.shape:
        raise ValueError("mask must be [B, L]")
    if not 0.0 < clip_epsilon < 1.0:
        raise ValueError("clip_epsilon must lie in (0, 1)")
    B, L = new_lp.shape
    adv = np.asarray(advantages, dtype=float)
    if adv.ndim == 1 and adv.shape[0] == B:
        adv = np.broadcast_to(adv[:, None], (B, L))
    elif adv.shape != (B, L):
        raise ValueError("advantages must be [B] or [B, L]")
    response = m > 0
    log_ratio = np.where(response, new_lp - old_lp, 0.0)
    ratio = np.exp(log_ratio)
    clipped_ratio = np.clip(ratio, 1.0 - clip_epsilon, 1.0 + clip_epsilon)
    unclipped = np.where(response, ratio * adv, 0.0) * m
    clipped = np.where(response, clipped_ratio * adv, 0.0) * m
    pessimistic = np.minimum(unclipped, clipped)
    return ratio, unclipped, clipped, pessimistic
