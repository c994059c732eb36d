"""grader similarity: evidence that two students share work, for instructors (docs/similarity.md)."""
