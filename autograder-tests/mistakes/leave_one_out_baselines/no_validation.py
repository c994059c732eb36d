"""Correct arithmetic but no input validation, and it needs an array (calls .sum() on its input).

expect: must raise ValueError
diagnosis: your function checks nothing and needs an array: a single reward, an empty or a 2-D input must raise
    ValueError, and lists must work
"""


def leave_one_out_baselines(rewards):
    return (rewards.sum() - rewards) / (len(rewards) - 1)
