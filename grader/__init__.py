"""Trusted grader for the module 'Policy gradients: from REINFORCE to PPO'."""

__version__ = "0.1.0"
