"""grader stubs: regenerate exercises/ from solutions/ (the stubs themselves are made by :mod:`grader.core.stubs`)."""
