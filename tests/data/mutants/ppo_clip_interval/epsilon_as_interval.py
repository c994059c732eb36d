"""Widens the interval to (1 - 2 epsilon, 1 + 2 epsilon).

expect: 1 - 0.2 = 0.8
"""
ppo_clip_interval = (0.6, 1.4)
