"""nbgrader preprocessors of the build: ``generate_assignment`` makes the same stubs as ``grader stubs``.

nbgrader replaces every solution region with one fixed ``code_stub``. This course's
stubs name their function (``raise NotImplementedError("gae_advantages is not
implemented yet: ...")``), so the release notebook and ``exercises/`` agree line
for line. :class:`StubSolutions` takes the place of nbgrader's ``ClearSolutions``
in ``GenerateAssignment.preprocessors`` (see the generated nbgrader_config.py).
"""

from __future__ import annotations

from nbgrader import utils
from nbgrader.preprocessors import ClearSolutions
from traitlets import Unicode

from grader.core.course import load_course
from grader.notebooks.segments import student_segments


class StubSolutions(ClearSolutions):
    """Replace each exercise's solution cell with its student version from the course's stubs."""

    course_root = Unicode("", help="Directory holding course.yaml (written by `grader build`).").tag(config=True)

    _segments: dict | None = None

    def segments(self) -> dict:
        if self._segments is None:
            course = load_course(self.course_root or None, check_files=False)
            self._segments = student_segments(course)
        return self._segments

    def preprocess_cell(self, cell, resources, cell_index):
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if cell.cell_type == "code" and utils.is_solution(cell) and grade_id in self.segments():
            cell.source = self.segments()[grade_id]
            return cell, resources
        return super().preprocess_cell(cell, resources, cell_index)
