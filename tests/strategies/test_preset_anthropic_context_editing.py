"""`anthropic_context_editing` against the Claude API's ``clear_tool_uses_20250919``, rule by rule:
past ``trigger`` input tokens the oldest tool uses are cleared but the newest ``keep``; excluded
tools are never cleared; ``clear_at_least`` or nothing; ``clear_tool_inputs``; the full history is
edited at every call (server-side); and a cleared prefix is a new prefix for the prompt cache."""

from __future__ import annotations

import json

from ctxlab.cost import Prompt, price_model, price_prompts
from ctxlab.messages import Conversation, Message, ToolCall, validate_messages
from ctxlab.replay.steps import replay_steps
from ctxlab.strategies import get_strategy
from ctxlab.tokens import get_counter

CHARS4 = get_counter("chars4")
PLACEHOLDER = get_strategy("anthropic_context_editing").mask_placeholder


def uses(sizes: list[int], tools: list[str] | None = None, parallel: bool = False) -> tuple[Message, ...]:
    """system, a task, tool uses u1..un with results of `sizes` chars4 tokens (one assistant
    message each, or one parallel batch), a closing request."""
    tools = tools or ["Read"] * len(sizes)
    calls = [ToolCall(f"u{i}", tools[i - 1], json.dumps({"path": f"f{i}"})) for i in range(1, len(sizes) + 1)]
    results = [Message("tool", "r" * (4 * n), id=f"t{i}", tool_call_id=f"u{i}") for i, n in enumerate(sizes, 1)]
    out = [Message("system", "You are an agent.", id="s"), Message("user", "Audit it.", id="u")]
    if parallel:
        out += [Message("assistant", None, id="a", tool_calls=tuple(calls)), *results]
    else:
        for i, (call, result) in enumerate(zip(calls, results, strict=True), 1):
            out += [Message("assistant", None, id=f"a{i}", tool_calls=(call,)), result]
    return (*out, Message("user", "Report.", id="q"))


def cleared(messages) -> list[str]:
    return [m.id for m in messages if m.role == "tool" and m.text == PLACEHOLDER]


def compress(messages, **params):
    return get_strategy("anthropic_context_editing", **params).compress(messages, 1_000_000, counter="chars4")


def test_nothing_happens_until_the_prompt_exceeds_the_trigger() -> None:
    messages = uses([20_000] * 5)
    total = CHARS4.count_messages(messages)
    assert compress(messages, trigger_tokens=total).messages == messages  # "exceeds": not at it
    assert cleared(compress(messages, trigger_tokens=total - 1).messages) == ["t1", "t2"]
    assert get_strategy("anthropic_context_editing").when().threshold(200_000) == 100_000


def test_the_oldest_uses_are_cleared_and_the_newest_3_kept() -> None:
    messages = uses([20_000] * 6)  # 120k tokens: over 100,000
    r = compress(messages)
    assert cleared(r.messages) == ["t1", "t2", "t3"]
    assert [m.tool_calls for m in r.messages] == [m.tool_calls for m in messages]  # calls and inputs stay
    validate_messages(r.messages)


def test_keep_counts_tool_uses_not_messages() -> None:
    r = compress(uses([30_000] * 4, parallel=True))  # one assistant message, four uses
    assert cleared(r.messages) == ["t1"]


def test_excluded_tools_are_never_cleared_nor_counted() -> None:
    messages = uses([20_000] * 6, tools=["Read", "Read", "Bash", "Bash", "Bash", "Bash"])
    assert cleared(compress(messages, mask_exclude=("Read",)).messages) == ["t3"]
    assert cleared(compress(messages, mask_exclude="Read|Bash").messages) == []  # a command-line list


def test_clear_at_least_or_nothing() -> None:
    messages = uses([2_000, 2_000, 2_000, 40_000, 40_000, 40_000])  # the 3 clearable ones: 6,000 tokens
    assert cleared(compress(messages, mask_at_least=5_000).messages) == ["t1", "t2", "t3"]
    assert compress(messages, mask_at_least=7_000).messages == messages


def test_clear_tool_inputs_clears_the_cleared_calls_arguments() -> None:
    messages = uses([20_000] * 6)
    r = compress(messages, mask_inputs=True)
    calls = [c for m in r.messages for c in m.tool_calls]
    assert [c.arguments for c in calls] == ["{}"] * 3 + [json.dumps({"path": f"f{i}"}) for i in (4, 5, 6)]
    assert [(c.id, c.name) for c in calls] == [(f"u{i}", "Read") for i in range(1, 7)]
    assert {"a1", "a2", "a3"} <= set(r.truncated_ids)
    validate_messages(r.messages)


def test_each_call_edits_the_full_history() -> None:
    """The client keeps its whole history; the API edits each request. So once the history is past
    the trigger every call clears, even when the previous call's edited prompt was under it."""
    messages = uses([40_000, 40_000, 20_000, 5_000, 1_000])
    conv = Conversation("ce", (*messages[:-1], Message("assistant", "Done.", id="end"), messages[-1]))
    steps = list(replay_steps(get_strategy("anthropic_context_editing"), conv, 1_000_000, CHARS4, "per-turn"))
    assert all(s.context == conv.messages[:s.upto] for s in steps)
    by_turn = {s.turn: cleared(s.result.messages) for s in steps}
    assert by_turn[10] == ["t1"]  # 105k of results before the 5th call: the oldest goes, 65k left
    # The full history is 106k before the last call (the edited 65k plus 1k would not trigger).
    assert by_turn[12] == ["t1", "t2"]


def test_a_cleared_prefix_is_written_to_the_cache_again() -> None:
    messages = uses([20_000] * 6)
    edited = compress(messages).messages
    pm = price_model("claude-sonnet-4-5")
    # The next call after an unedited one: its whole prompt but the new message is read from cache.
    grown = price_prompts(pm, "chars4", [Prompt(messages[:-1]), Prompt(messages)]).calls[1]
    # The same call edited: from the first cleared result on, the prompt is new and written again.
    broken = price_prompts(pm, "chars4", [Prompt(messages[:-1]), Prompt(edited)]).calls[1]
    first = next(i for i, m in enumerate(edited) if m.text == PLACEHOLDER)
    assert grown.cache_write_tokens < 100 < broken.cache_write_tokens
    assert broken.cache_read_tokens < CHARS4.count_messages(edited[:first]) + 100 < grown.cache_read_tokens
    assert broken.cost_usd > grown.cost_usd
