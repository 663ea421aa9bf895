"""`openhands` against OpenHands' LLMSummarizingCondenser and View (software-agent-sdk): events per
message, manipulation indices (tool batches and call/result pairs never split), the forgotten range
and its summary offset, the rolling summary, the token-triggered hard reset, and the agent preset's
80/4 variant."""

from __future__ import annotations

from ctxlab.messages import Message, ToolCall
from ctxlab.strategies import get_strategy
from ctxlab.strategies.mechanics.forgotten_events import event_sizes, find_next, forgotten, manipulation_indices
from tests.builders import Convo


def session(steps: int, parallel: int = 1, output: str = "ok") -> tuple[Message, ...]:
    c = Convo().system().user("Migrate the settings module.")
    for step in range(steps):
        c.tools(*((f"tool{k}", f"{output} {step}.{k}") for k in range(parallel)), text=f"Step {step}.")
    return c.assistant("Migrated.").user("Now the docs.").build()


def test_an_assistant_message_with_k_calls_is_k_events() -> None:
    m = session(1, parallel=3)
    assert event_sizes(m) == [1, 1, 3, 1, 1, 1, 1, 1]


def test_manipulation_indices_never_split_a_batch_or_a_call_and_its_result() -> None:
    """Batch atomicity + tool-call matching: no index inside [actions..., observations...]."""
    m = session(2, parallel=2)  # events: sys 0, user 1, (2 actions + 2 results) 2-5, (2 + 2) 6-9, asst 10, user 11
    assert manipulation_indices(m) == [0, 1, 2, 6, 10, 11, 12]
    assert find_next([0, 1, 2, 6, 10], 3) == 6 and find_next([0, 1], 2) is None


def test_too_many_events_forgets_from_keep_first_to_the_tail_it_keeps() -> None:
    """max_size 10, keep_first 2: events_from_tail = 10 // 2 - 2 - 1 = 2, so the range is
    [find_next(2), find_next(16 - 2)), the summary taking its place at offset 2."""
    m = session(6)  # 2 + 12 + 2 = 16 events
    r = get_strategy("openhands", trigger_events=10).compress(m, 100_000, counter="o200k_base")
    assert [x.id if x.mark is None else "SUMMARY" for x in r.messages] == ["m0", "m1", "SUMMARY", "m14", "m15"]
    assert r.messages[2].role == "user" and r.messages[2].text == r.summary  # the summary alone, no wrapper
    assert set(r.dropped_ids) == {f"m{i}" for i in range(2, 14)}
    assert r.messages[2].source_ids == tuple(f"m{i}" for i in range(2, 14))


def test_a_parallel_batch_at_the_cut_stays_whole() -> None:
    m = session(4, parallel=3)  # events: 2 + 4 * 6 + 2 = 28
    forget = forgotten(m, [1] * len(m), keep_first=2, max_size=20, max_tokens=None, min_progress=0.1)
    # events_from_tail = 20 // 2 - 3 = 7: the naive end, event 21, falls inside the last batch (events
    # 20..25: three actions, three results), so the range runs on to event 26, message 18
    assert forget is not None and (forget.start, forget.stop) == (2, 18)
    assert m[forget.stop].role == "assistant" and m[forget.stop - 1].role == "tool"


def test_the_summary_rolls_forward() -> None:
    """The next condensation forgets the previous summary event with the new events."""
    strategy = get_strategy("openhands", trigger_events=10)
    first = strategy.compress(session(6), 100_000, counter="o200k_base").messages
    extra = []
    for i in range(5):
        extra += [Message("assistant", f"More {i}.", id=f"b{i}", tool_calls=(ToolCall(f"x{i}", "tool0", "{}"),)),
                  Message("tool", "ok", id=f"r{i}", tool_call_id=f"x{i}")]
    grown = (*first, *extra, Message("user", "And the tests.", id="q"))  # 15 events
    r = strategy.compress(grown, 100_000, counter="o200k_base")
    summaries = [x for x in r.messages if x.mark == "summary"]
    assert len(summaries) == 1 and summaries[0] is not first[2]
    assert first[2].id in summaries[0].source_ids


def test_too_many_tokens_with_no_range_to_forget_resets_the_context() -> None:
    """Token pressure is hard: when the only range would be empty, every event is forgotten."""
    m = (Message("system", "You migrate code.", id="s"),
         *Convo().tools(("read_file", "x" * 8000)).build(), Message("user", "Continue.", id="u"))
    r = get_strategy("openhands", trigger_events=0).compress(m, 1000, counter="o200k_base")
    assert [x.id if x.mark is None else "SUMMARY" for x in r.messages] == ["s", "SUMMARY", "u"]
    assert r.messages[1].source_ids == ("m0", "m1")


def test_under_both_limits_nothing_happens() -> None:
    m = session(3)
    assert get_strategy("openhands").compress(m, 100_000, counter="o200k_base").messages == m


def test_the_agent_presets_variant_condenses_at_80_events_keeping_4() -> None:
    agent = get_strategy("openhands_agent")
    assert (agent.trigger_events, agent.keep_first) == (80, 4)
    m = session(40)  # 2 + 80 + 2 = 84 events
    r = agent.compress(m, 1_000_000, counter="o200k_base")
    assert get_strategy("openhands").compress(m, 1_000_000, counter="o200k_base").messages == m  # under 240
    ids = [x.id if x.mark is None else "SUMMARY" for x in r.messages]
    # keep_first 4 -> first index 4; events_from_tail = 80 // 2 - 4 - 1 = 35 -> naive end 49 -> 50
    assert ids[:5] == ["m0", "m1", "m2", "m3", "SUMMARY"] and len(r.messages) == 5 + 34
