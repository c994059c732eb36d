"""Lets record 1's reward leak backward across the cut (A_0 = 98).

expect: leaked across the cut
"""
lab_gae_advantages = (98.0, 100.0)
