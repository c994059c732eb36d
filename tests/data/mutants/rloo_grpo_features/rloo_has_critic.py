"""Thinks RLOO trains a critic and that GRPO uses the leave-one-out mean.

expect: no value network is trained
"""
rloo_grpo_features = ("both", "rloo", "grpo", "grpo", "grpo", "grpo", "both")
