"""`observation_masking`: old tool outputs become placeholders; a window only when still over budget."""

from __future__ import annotations

from dataclasses import replace

from ctxlab.strategies import get_strategy, strategy_params
from ctxlab.strategies.general.observation_masking import is_placeholder
from tests.builders import Convo, agent_session, huge_text

BIG = 10**9


def mask(messages, budget: int = BIG, counter: str = "chars4", **params):
    return get_strategy("observation_masking", **params).compress(messages, budget, counter=counter)


def outputs(messages):
    return [m for m in messages if m.role == "tool"]


def test_defaults() -> None:
    assert strategy_params("observation_masking") == {"attention_window": 10, "min_chars": 0,
                                                      "fallback_window": True}


def test_outputs_older_than_the_last_ten_turns_are_masked() -> None:
    # 15 tool steps and a final answer: the 10 newest model calls are the answer and steps 6-14.
    messages = agent_session(15, output_chars=2000)
    r = mask(messages)
    masked = [m for m in outputs(r.messages) if m.mark == "truncated"]
    assert [m.tool_call_id for m in masked] == [f"call_{k}" for k in range(6)]
    assert all(m.text == messages[i].text for i, m in enumerate(r.messages) if m.mark is None)
    assert len(r.messages) == len(messages) and r.dropped_ids == ()
    assert r.fits  # masking is the method, not a fallback: it runs even when everything fits


def test_placeholder_keeps_tool_name_call_id_and_size() -> None:
    messages = agent_session(12, output_chars=18_234)
    first = mask(messages).messages[3]
    assert first.text == "[output of read_file (call_0) omitted: 18,234 chars]"
    assert (first.id, first.role, first.tool_call_id, first.mark) == (messages[3].id, "tool", "call_0", "truncated")
    assert is_placeholder(first.text)


def test_tool_name_from_the_result_message() -> None:
    messages = list(agent_session(3, output_chars=500))
    messages[3] = replace(messages[3], name="shell")
    r = mask(tuple(messages), attention_window=1)
    assert r.messages[3].text == "[output of shell (call_0) omitted: 500 chars]"


def test_parallel_results_are_masked_each_with_its_own_call_id() -> None:
    messages = Convo().user("go").tools(("grep", "a" * 300), ("list_dir", "b" * 400)) \
        .assistant("next").assistant("done").build()
    r = mask(messages, attention_window=2)
    assert [m.text for m in outputs(r.messages)] == ["[output of grep (call_0) omitted: 300 chars]",
                                                     "[output of list_dir (call_1) omitted: 400 chars]"]


def test_attention_window_counts_model_calls_from_the_newest() -> None:
    messages = agent_session(4, output_chars=500)  # steps 0-3, then the final answer
    masked = lambda window: [m.tool_call_id for m in outputs(mask(messages, attention_window=window).messages)
                             if m.mark]
    assert masked(0) == ["call_0", "call_1", "call_2", "call_3"]
    assert masked(1) == ["call_0", "call_1", "call_2", "call_3"]
    assert masked(2) == ["call_0", "call_1", "call_2"]
    assert masked(5) == [] and masked(10) == []


def test_min_chars_and_never_a_longer_placeholder() -> None:
    messages = Convo().user("go").tools(("grep", "ok"), ("read_file", "x" * 100), ("run_tests", "y" * 1000)) \
        .assistant("done").build()
    r = mask(messages, attention_window=1)
    assert [m.mark for m in outputs(r.messages)] == [None, "truncated", "truncated"]
    r = mask(messages, attention_window=1, min_chars=500)
    assert [m.mark for m in outputs(r.messages)] == [None, None, "truncated"]


def test_masking_twice_keeps_the_original_size() -> None:
    once = mask(agent_session(3, output_chars=5000), attention_window=1)
    twice = mask(once.messages, attention_window=1)
    assert twice.messages == once.messages


def test_masked_event_reports_tokens_saved() -> None:
    r = mask(agent_session(3, output_chars=4000), attention_window=1)
    (event,) = r.events
    assert event.name == "observation_masking.masked"
    assert event.payload["messages"] == 3 and event.payload["tokens_saved"] == r.tokens_before - r.tokens_after


def test_still_over_budget_drops_the_oldest_whole_turns() -> None:
    messages = Convo().system().user("first task " * 100).assistant("answer " * 100) \
        .user("second task").tools(("read_file", huge_text(2000))).assistant("done").build()
    r = mask(messages, budget=700)
    assert r.dropped_ids == ("m1", "m2") and r.fits
    assert [e.name for e in r.events] == ["observation_masking.dropped"]
    assert r.events[0].payload == {"messages": 2, "tokens": r.tokens_before - r.tokens_after}


def test_masking_alone_when_the_fallback_window_is_off() -> None:
    messages = agent_session(4, output_chars=8000)
    r = mask(messages, budget=50, attention_window=1, fallback_window=False)
    assert r.dropped_ids == () and not r.fits and len(r.truncated_ids) == 4
    r = mask(messages, budget=50, attention_window=1)
    assert r.dropped_ids and r.fits
