"""Correct arithmetic but no input validation, and it needs an array (calls .sum() on its input).

expect: must raise ValueError
"""


def leave_one_out_baselines(rewards):
    return (rewards.sum() - rewards) / (len(rewards) - 1)
