"""The real agent logs beside the project (``<project root>/../shared/reallogs``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# <project root>/../shared/reallogs, as in CI; CTXLAB_REALLOGS overrides it (a git worktree elsewhere).
REALLOGS = Path(os.environ.get("CTXLAB_REALLOGS") or Path(__file__).resolve().parents[2].parent / "shared" / "reallogs")


@pytest.fixture(scope="module")
def reallogs() -> Path:
    if not REALLOGS.is_dir():
        pytest.fail(f"the real agent logs are missing: expected {REALLOGS} (shared/reallogs beside the project root; "
                    "set CTXLAB_REALLOGS to read them from elsewhere)")
    return REALLOGS
