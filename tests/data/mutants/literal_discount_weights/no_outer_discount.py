"""Uses the plain reward-to-go G_t, forgetting the outer gamma^t.

expect: G_1 alone belongs to a differently normalised objective
"""
literal_discount_weights = (2.75, 3.5, 3.0)
