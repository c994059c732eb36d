"""The course library: the course model and everything a grading session runs on."""
