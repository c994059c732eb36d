"""Leaves the generated EOS out of the loss.

expect: generated EOS is an action
"""
policy_loss_tokens = {2}
