"""`aider` against Aider's history.py @ 19a78641 and models.py @ a7a54a93: the history budget
``min(max(max_input / 16, 1024), 8192)``, only completed exchanges counted (``>``), the tail under
half the budget, the head ending with an assistant message, small histories summarized whole, the
recursion (depth at most 3), the ``I spoke to you previously`` summary and its ``Ok.``."""

from __future__ import annotations

import pytest

from ctxlab.messages import Message
from ctxlab.strategies import get_strategy
from ctxlab.strategies.mechanics.half_split import half_split, head_read
from ctxlab.summarize import agent_prompts as ap
from ctxlab.summarize import get_summarizer
from ctxlab.summarize.cache import MemoryCache
from tests.summarize.fake_openai import FakeOpenAI

WINDOW = 8000  # 8000 / 16 < 1024: the budget is 1,024


def text(tokens: int, tag: str) -> str:
    """`tokens` under chars4 ((chars + 3) // 4), starting with `tag`."""
    return (tag + " " + "w" * (4 * tokens))[:4 * tokens]


def history(*sizes: int) -> list[Message]:
    return [Message("user" if i % 2 == 0 else "assistant", text(n, f"m{i}"), id=f"m{i}") for i, n in enumerate(sizes)]


def request(*sizes: int, current: int = 10) -> tuple[Message, ...]:
    return (Message("system", "You are aider.", id="s"), *history(*sizes), Message("user", text(current, "now"), id="now"))


def run(messages, **params):
    return get_strategy("aider", **params).compress(messages, WINDOW, counter="chars4")


@pytest.mark.parametrize(("window", "budget"), [(128_000, 8000), (200_000, 8192), (8192, 1024), (4000, 1024)])
def test_history_budget_is_a_sixteenth_of_the_input_between_1024_and_8192(window: int, budget: int) -> None:
    assert get_strategy("aider").when().threshold(window) == budget


def test_only_completed_exchanges_count_and_only_over_the_budget() -> None:
    """10 x 100 history tokens (1000 <= 1024): unchanged, whatever the current exchange and system prompt weigh."""
    big = (Message("system", "s" * 20_000, id="s"), *history(*[100] * 10), Message("user", text(2000, "now"), id="now"))
    assert run(big).messages == big
    assert run(request(*[100] * 12)).messages != request(*[100] * 12)  # 1200 > 1024


def test_tail_stays_under_half_the_budget_and_the_head_ends_with_an_assistant_message() -> None:
    """12 messages of 100: the tail takes 5 (500 < 512), split 7; messages[6] is a user message, so 6."""
    assert half_split([100] * 12, ["user", "assistant"] * 6, 1024, depth=0) == 6
    r = run(request(*[100] * 12))
    assert [m.id for m in r.messages] == ["s", "summary@m5", *(f"m{i}" for i in range(6, 12)), "now"]
    assert r.messages[1].text == "I spoke to you previously about a number of things.\n" + r.summary


def test_small_histories_are_summarized_whole_and_answered_ok() -> None:
    assert half_split([400] * 4, ["user", "assistant"] * 2, 1024, depth=0) == 0
    r = run(request(400, 400, 400, 400))
    assert [(m.role, m.mark) for m in r.messages] == [("system", None), ("user", "summary"), ("assistant", "marker"),
                                                      ("user", None)]
    assert r.messages[2].text == "Ok."


def test_a_split_at_four_or_before_and_a_deep_recursion_summarize_everything() -> None:
    assert half_split([100, 100, 100, 100, 100, 400], ["user", "assistant"] * 3, 1024, depth=0) == 0
    assert half_split([100] * 12, ["user", "assistant"] * 6, 1024, depth=4) == 0
    assert half_split([100] * 12, ["user", "assistant"] * 6, 1024, depth=3) == 6


def test_a_head_never_ends_between_a_call_and_its_results() -> None:
    """The tail (3 x 100 < 350) starts on a tool result at 8; 7 made that call, so the head ends at 6."""
    roles = ["user", "assistant"] * 4 + ["tool", "tool", "assistant"]
    assert half_split([100] * 11, roles, 700, depth=0) == 6
    assert half_split([100] * 11, ["user", "assistant"] * 5 + ["user"], 700, depth=0) == 8


def test_the_summarizer_reads_the_head_only_up_to_its_input_limit() -> None:
    assert head_read([100, 100, 100], 250) == 2 and head_read([100, 100], 250) == 2
    r = run(request(*[100] * 12), summary_input_tokens=250)
    assert "m2" not in r.messages[1].source_ids and r.dropped_ids[:3] == ("m0", "m1", "m2")
    assert set(r.messages[1].source_ids) == {"m0", "m1"}  # m2..m5: neither kept nor summarized


def llm_summaries(*tokens: int):
    replies = iter(text(n - 13, "I asked you") for n in tokens)  # the prefix adds 13 chars4 tokens
    return FakeOpenAI(reply_fn=lambda request: next(replies))


def recursion_request() -> tuple[Message, ...]:
    """u, a, u, a, u, a of 100, then u 300, a 205 (1,105): the tail is a 205 + u 300, the head six messages."""
    return request(100, 100, 100, 100, 100, 100, 300, 205)


def test_summary_and_tail_over_the_budget_recurse_one_level_deeper() -> None:
    with llm_summaries(550, 200) as server:
        engine = get_summarizer("llm", model="openai/gpt-4o-mini", api_base=server.api_base, api_key="sk-test",
                                cache=MemoryCache(), base_delay=0.01)
        r = get_strategy("aider", summarizer=engine).compress(recursion_request(), WINDOW, counter="chars4")
    first, second = server.requests
    assert first["messages"][0] == {"role": "system", "content": ap.AIDER_SUMMARIZE_PROMPT}
    assert "m6" not in first["messages"][1]["content"] and "m6" in second["messages"][1]["content"]
    # 550 + 505 >= 1024: depth 1 on [summary, u 300, a 205], three messages: everything, then "Ok."
    assert [(m.role, m.mark) for m in r.messages][1:] == [("user", "summary"), ("assistant", "marker"), ("user", None)]
    assert [e.payload["pass"] for e in r.events if e.name == "policy.compacted"] == [1, 2]


def test_summary_and_tail_under_the_budget_stop() -> None:
    with llm_summaries(300) as server:
        engine = get_summarizer("llm", model="openai/gpt-4o-mini", api_base=server.api_base, api_key="sk-test",
                                cache=MemoryCache(), base_delay=0.01)
        r = get_strategy("aider", summarizer=engine).compress(recursion_request(), WINDOW, counter="chars4")
    assert len(server.requests) == 1
    assert [m.id for m in r.messages] == ["s", "summary@m5", "m6", "m7", "now"]  # 300 + 505 < 1024: no Ok.
