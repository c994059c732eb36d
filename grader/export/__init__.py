"""Grades in the formats other platforms read."""
