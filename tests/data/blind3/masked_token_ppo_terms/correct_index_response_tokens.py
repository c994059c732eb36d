"""correct: computes the terms only at the response tokens by boolean indexing and scatters them into arrays of ones and zeros."""
import numpy as np


def masked_token_ppo_terms(new_log_probs, old_log_probs, advantages, mask, clip_epsilon=0.2):
    new = np.array(new_log_probs, dtype=np.float64)
    old = np.array(old_log_probs, dtype=np.float64)
    m = np.array(mask)
    adv = np.array(advantages, dtype=np.float64)
    if new.ndim != 2:
        raise ValueError(f"new_log_probs must be [B, L], got shape {new.shape}")
    if old.shape != new.shape or m.shape != new.shape:
        raise ValueError("new_log_probs, old_log_probs and mask must share one [B, L] shape")
    if adv.ndim == 1 and adv.shape[0] == new.shape[0]:
        adv = np.repeat(adv[:, None], new.shape[1], axis=1)
    elif adv.shape != new.shape:
        raise ValueError(f"advantages must be [B] or [B, L], got shape {adv.shape}")
    if not (0.0 < clip_epsilon < 1.0):
        raise ValueError(f"clip_epsilon must lie in (0, 1), got {clip_epsilon}")
    idx = m != 0
    r = np.exp(new[idx] - old[idx])
    a = adv[idx]
    ratio = np.ones(new.shape)
    unclipped = np.zeros(new.shape)
    clipped = np.zeros(new.shape)
    pessimistic = np.zeros(new.shape)
    ratio[idx] = r
    unclipped[idx] = r * a
    clipped[idx] = np.clip(r, 1.0 - clip_epsilon, 1.0 + clip_epsilon) * a
    pessimistic[idx] = np.minimum(unclipped[idx], clipped[idx])
    return ratio, unclipped, clipped, pessimistic
