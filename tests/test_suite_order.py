"""tests/conftest.py's longest-first list names files that exist: a renamed file would silently drop
to pytest's own order and could start last, leaving the other worker idle while it runs."""

from tests.conftest import LONGEST_FIRST
from tests.helpers import ROOT


def test_every_file_of_the_longest_first_list_exists():
    missing = [path for path in LONGEST_FIRST if not (ROOT / path).is_file()]
    assert not missing, f"rename or remove these in tests/conftest.py: {missing}"
