"""Settings are options, read once at the command line; an environment variable is only an option's default.

(docs/architecture.md, "Settings"; tests/test_architecture.py checks that nothing below the command line
reads the environment.)
"""

from __future__ import annotations

import os
from pathlib import Path

from grader.cli import build_parser
from grader.core import cache
from grader.engine.local import settings_argv
from grader.engine.options import GradingOptions
from grader.options import ENVIRONMENT, grading_settings
from tests.helpers import use_cache


def settings(argv: list[str], environ: dict[str, str]) -> dict:
    return grading_settings(build_parser().parse_args(["grade-class", "class", *argv]), environ)


def test_an_option_beats_its_environment_variable_which_beats_the_default(tmp_path):
    home = Path.home() / ".cache" / "rl-llm-m4-grader"
    assert settings([], {}) == {
        "cache": home.resolve(),
        "replay": True,
        "cgroups": "auto",
        "bubblewrap": True,
        "insecure": False,
        "credentials": None,
    }
    environ = {
        "GRADER_CASES_CACHE": str(tmp_path / "env"),
        "GRADER_REPLAY": "0",
        "GRADER_NO_CGROUPS": "1",
        "GRADER_NO_BWRAP": "1",
        "GRADER_CLUSTER_INSECURE": "1",
        "GRADER_CLUSTER_CREDENTIALS": str(tmp_path / "tls"),
    }
    assert set(environ) <= set(ENVIRONMENT)  # every variable read is in the documented table
    assert settings([], environ) == {
        "cache": (tmp_path / "env").resolve(),
        "replay": False,
        "cgroups": "off",
        "bubblewrap": False,
        "insecure": True,
        "credentials": tmp_path / "tls",
    }
    given = ["--cache", str(tmp_path / "opt"), "--cgroups", "require", "--credentials", str(tmp_path / "mine")]
    found = settings(given, environ)
    assert (found["cache"], found["cgroups"], found["credentials"]) == (
        (tmp_path / "opt").resolve(),
        "require",
        tmp_path / "mine",
    )
    assert settings(["--cache", "0"], {})["cache"] is None
    assert settings([], {"XDG_CACHE_HOME": str(tmp_path / "xdg")})["cache"] == (tmp_path / "xdg" / "rl-llm-m4-grader")


def test_insecure_is_an_option_and_writes_no_environment(monkeypatch):
    """``--insecure`` used to work by writing $GRADER_CLUSTER_INSECURE into the process's environment."""
    monkeypatch.delenv("GRADER_CLUSTER_INSECURE", raising=False)
    args = build_parser().parse_args(["grade-class", "class", "--insecure"])
    assert "GRADER_CLUSTER_INSECURE" not in os.environ
    assert grading_settings(args, {})["insecure"] is True


def test_the_command_line_sets_the_process_cache_and_passes_every_setting_to_its_grading_processes(
    tmp_path, monkeypatch
):
    use_cache(monkeypatch, None)
    args = build_parser().parse_args(
        ["grade-class", "class", "--cache", str(tmp_path), "--no-replay", "--cgroups", "off", "--no-bubblewrap"]
    )
    options = GradingOptions.from_command_line(args, jobs=2)
    assert cache.current().directory == tmp_path.resolve() and options.jobs == 2
    argv = settings_argv(options)
    assert argv[argv.index("--cache") + 1] == str(tmp_path.resolve())
    assert argv[argv.index("--cgroups") + 1] == "off" and "--no-replay" in argv and "--no-bubblewrap" in argv
    # No cache: the grading processes keep none either.
    use_cache(monkeypatch, None)
    default = settings_argv(GradingOptions())
    assert default[default.index("--cache") + 1] == "0" and "--no-replay" not in default
