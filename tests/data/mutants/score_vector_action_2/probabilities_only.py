"""Returns -p, forgetting the one-hot term of the chosen action.

expect: 1 - 0.0900
"""
score_vector_action_2 = (-0.665241, -0.244728, -0.090031)
