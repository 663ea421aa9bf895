"""The shared demo database (built once per session, see tests/ui_fixtures.py)."""

from tests.ui_fixtures import demo_db  # noqa: F401
