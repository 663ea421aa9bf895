"""Fixtures for replay tests: a small input file and temporarily registered fake strategies."""

from __future__ import annotations

import pytest

from ctxlab.strategies import STRATEGIES, register
from tests.replay.helpers import Exploding, Spy, Stateful, agent_record, write_jsonl


@pytest.fixture
def small_input(tmp_path) -> str:
    return write_jsonl(tmp_path / "agents.jsonl", [agent_record(i) for i in range(4)])


@pytest.fixture
def fake_strategies():
    """Register the fakes for one test only (so other tests' strategy lists never see them)."""
    names = {"test_stateful": Stateful, "test_exploding": Exploding, "test_spy": Spy}
    for name, cls in names.items():
        register(name)(cls)
    yield list(names)
    for name in names:
        STRATEGIES.unregister(name)
