"""Which gradebook: nbgrader's configuration decides, and a rebuild never moves it."""

from __future__ import annotations

import pytest

from grader.core.course import load_course
from grader.errors import GraderError
from grader.notebooks.coursedir import CONFIG, OWN_SETTINGS, config_text, own_settings
from grader.notebooks.gradebook import GradebookTarget, course_gradebook, masked_url
from tests.helpers import ROOT

COURSE = load_course(ROOT, check_files=False)


def write_config(course_dir, own: str | None = None) -> None:
    text = config_text(COURSE, [], course_dir) if own is None else config_text(COURSE, [], course_dir, own)
    (course_dir / CONFIG).write_text(text)


def test_the_default_is_sqlite_in_the_course_directory(tmp_path):
    write_config(tmp_path)
    target = course_gradebook(tmp_path)
    assert target.url == f"sqlite:///{tmp_path.resolve() / 'gradebook.db'}"
    assert target.course_id == COURSE.id


def test_the_configured_url_is_used_and_shown_without_its_password(tmp_path):
    url = "postgresql://grader:s3cret@db.example.org:5432/rl_llm_m4"
    write_config(tmp_path, own_settings(tmp_path, url))
    target = course_gradebook(tmp_path)
    assert target.url == url
    assert target.shown == "postgresql://grader:***@db.example.org:5432/rl_llm_m4"
    assert "s3cret" not in target.shown
    # --db overrides the configuration, as nbgrader's own --db does
    assert course_gradebook(tmp_path, "sqlite:////elsewhere/gb.db").url == "sqlite:////elsewhere/gb.db"


def test_a_rebuild_keeps_the_instructors_settings(tmp_path):
    own = own_settings(tmp_path, "postgresql://grader@db/one") + "c.Exchange.root = '/srv/exchange'\n"
    write_config(tmp_path, own)
    kept = own_settings(tmp_path)  # a rebuild without --db
    assert "c.CourseDirectory.db_url = 'postgresql://grader@db/one'" in kept
    assert "c.Exchange.root = '/srv/exchange'" in kept
    replaced = own_settings(tmp_path, "postgresql://grader@db/two")
    assert "db/one" not in replaced
    assert [line for line in replaced.splitlines() if line.startswith("c.CourseDirectory.db_url")] == [
        "c.CourseDirectory.db_url = 'postgresql://grader@db/two'"
    ]
    assert "c.Exchange.root" in replaced


def test_a_hand_edited_config_of_an_older_build_keeps_its_gradebook(tmp_path):
    # Before the kept section existed, nbgrader's docs sent instructors to edit the file itself.
    old = config_text(COURSE, [], tmp_path).split(OWN_SETTINGS)[0]
    (tmp_path / CONFIG).write_text(old + "c.CourseDirectory.db_url = 'postgresql://grader@db/course'\n")
    write_config(tmp_path, own_settings(tmp_path))
    assert course_gradebook(tmp_path).url == "postgresql://grader@db/course"


def test_bad_urls_and_configs_are_named(tmp_path):
    write_config(tmp_path)
    with pytest.raises(GraderError, match="the --db value is not a database URL"):
        course_gradebook(tmp_path, "gradebook.db")
    (tmp_path / CONFIG).write_text("c.CourseDirectory.db_url = 'not a url'\n")
    with pytest.raises(GraderError, match="CourseDirectory.db_url of nbgrader's configuration .* not a database URL"):
        course_gradebook(tmp_path)
    (tmp_path / CONFIG).write_text("c.CourseDirectory.db_url = \n")
    with pytest.raises(GraderError, match=f"cannot read .*{CONFIG}: SyntaxError"):
        course_gradebook(tmp_path)
    assert masked_url("gradebook.db") == "<not a database URL>"


def test_a_missing_driver_says_what_to_install():
    target = GradebookTarget("mysql+nosuchdriver://grader:pw@db/course", COURSE.id)
    with pytest.raises(GraderError, match=r"cannot open the gradebook mysql\+nosuchdriver://grader:\*\*\*@db/course"):
        with target.open():
            pass


def test_a_gradebook_the_assignment_was_not_built_in_is_named(tmp_path):
    """`grader autograde` checks this in its enrol step, before anything is graded."""
    from nbgrader.api import Gradebook

    from grader.notebooks.gradebook import built_notebook

    target = GradebookTarget(f"sqlite:///{tmp_path / 'empty.db'}", COURSE.id)
    with (
        target.open() as gb,
        pytest.raises(GraderError, match="has no notebook ps4b of assignment ps4b: .*build again"),
    ):
        built_notebook(gb, target, "ps4b", "ps4b")
    with Gradebook(target.url, COURSE.id) as gb:
        gb.update_or_create_assignment("ps4b")
        gb.update_or_create_notebook("ps4b", "ps4b")
    with target.open() as gb:
        assert built_notebook(gb, target, "ps4b", "ps4b").name == "ps4b"


def test_a_configuration_that_drops_the_feedback_sanitiser_is_noticed(tmp_path):
    from grader.autograde.pipeline import feedback_is_sanitised

    write_config(tmp_path)
    assert feedback_is_sanitised(tmp_path)
    # A setting of the instructor's, below the kept line: the generated comment still names the step.
    write_config(
        tmp_path, own_settings(tmp_path) + "c.GenerateFeedback.preprocessors = ['nbgrader.preprocessors.GetGrades']\n"
    )
    assert "SanitizeStudentHTML" in (tmp_path / CONFIG).read_text()
    assert not feedback_is_sanitised(tmp_path)
