"""Takes the optimal constant baseline to be the state value.

expect: rare action
"""
optimal_baseline_values = (2.8, 2.8)
