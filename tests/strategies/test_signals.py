"""The trigger's other signals: recorded provider usage (`recorded_total`) and the idle gap."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from ctxlab.messages import Message
from ctxlab.strategies.signals import Recorded, idle_gap, recorded_total


@given(counts=st.lists(st.integers(0, 1000), min_size=1, max_size=12),
       calls=st.lists(st.tuples(st.integers(0, 15), st.integers(0, 10**6), st.integers(0, 9999)), max_size=6))
def test_the_newest_call_inside_the_request_anchors_the_count(counts: list[int], calls: list) -> None:
    recorded = [Recorded(*c) for c in calls]
    inside = [r for r in recorded if r.covers < len(counts)]
    for how in ("prompt", "prompt+output", "prompt+tail"):
        found = recorded_total(recorded, counts, how)
        if not inside:
            assert found is None
            continue
        assert found is not None
        anchor, total = found
        assert anchor.covers == max(r.covers for r in inside) and anchor in inside
        extra = {"prompt": 0, "prompt+output": anchor.output, "prompt+tail": sum(counts[anchor.covers:])}[how]
        assert total == anchor.prompt + extra
    assert recorded_total(recorded, counts, "none") is None


def test_the_idle_gap_runs_from_the_newest_assistant_message_to_the_newest_message() -> None:
    messages = [Message("user", "a", timestamp=0.0), Message("assistant", "b", timestamp=10.0),
                Message("tool", "c", tool_call_id="x", timestamp=50.0), Message("user", "d", timestamp=100.0)]
    assert idle_gap(messages) == 90.0
    assert idle_gap([*messages[:3], Message("user", "d")]) is None  # the request's time unknown
    assert idle_gap([messages[0], messages[3]]) is None  # no assistant message yet
    assert idle_gap([]) is None
