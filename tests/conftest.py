"""Fixtures shared across test folders: the demo database and a replay of provider-billed logs."""

pytest_plugins = ["tests.ui_fixtures", "tests.provider_logs"]
