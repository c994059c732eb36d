"""The PPO functions of the frame-cheating lab submission (see gae.py): unfinished stubs."""

from dataclasses import dataclass


@dataclass(frozen=True)
class PPODiagnostics:
    ratio_outside_fraction: float
    active_clip_fraction: float
    approx_kl_nonnegative: float
    mean_log_ratio: float


def ppo_clipped_terms(ratio, advantage, clip_epsilon=0.2):
    raise NotImplementedError("ppo_clipped_terms is not implemented yet")


def ppo_diagnostics(new_log_prob, old_log_prob, advantage, clip_epsilon=0.2):
    raise NotImplementedError("ppo_diagnostics is not implemented yet")
