"""One row at a time with math, sums with math.fsum."""
import math

import numpy as np


def ppo_diagnostics(new_log_prob, old_log_prob, advantage, clip_epsilon=0.2):
    new = np.asarray(new_log_prob, dtype=float)
    old = np.asarray(old_log_prob, dtype=float)
    adv = np.asarray(advantage, dtype=float)
    if not (new.shape == old.shape == adv.shape):
        raise ValueError("shapes differ")
    if new.size == 0:
        raise ValueError("empty batch")
    if not (0 < clip_epsilon < 1):
        raise ValueError("clip_epsilon must lie in (0, 1)")
    outside, active, kl, logs = [], [], [], []
    for n, o, a in zip(new.ravel(), old.ravel(), adv.ravel()):
        log_r = n - o
        r = math.exp(log_r)
        clipped = min(max(r, 1 - clip_epsilon), 1 + clip_epsilon)
        outside.append(1.0 if r < 1 - clip_epsilon or r > 1 + clip_epsilon else 0.0)
        active.append(1.0 if clipped * a < r * a else 0.0)
        kl.append((r - 1) - log_r)
        logs.append(log_r)
    count = len(logs)
    return PPODiagnostics(math.fsum(outside) / count, math.fsum(active) / count,  # noqa: F821
                          math.fsum(kl) / count, math.fsum(logs) / count)
