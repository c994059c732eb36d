"""Uses the plain reward-to-go G_t, forgetting the outer gamma^t.

expect: drops the outer discount
"""
literal_discount_weights = (2.75, 3.5, 3.0)
