"""The course library: the course model and what a grading session runs on; it imports no verb.

- :mod:`grader.core.course`: course.yaml (and the written questions it asks), loaded and checked;
- :mod:`grader.core.stubs`: the student files of ``exercises/``, generated from ``solutions/``;
- :mod:`grader.core.plugin`: the pytest plugin that runs the hidden tests against submissions;
- :mod:`grader.core.submission`: a submission as the tests see it (functions behind the worker boundary);
- :mod:`grader.core.results`, :mod:`grader.core.diagnosis`: grades, and the known mistake a failure shows;
- :mod:`grader.core.staging`: a submission copied into the shape the worker expects;
- :mod:`grader.core.labrun`, :mod:`grader.core.labreplay`: what the labs' hidden tests train and replay;
- :mod:`grader.core.fingerprint`: what decides whether a stored grade is still current.

:mod:`grader.testing` and :mod:`grader.answers` belong to this layer too; they keep their short names
because the course's tests import them. The layers are described in docs/architecture.md.
"""
