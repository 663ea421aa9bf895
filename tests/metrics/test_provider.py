"""The delta method: consecutive provider calls give the real token count of the messages between
them. Logs here are billed by a known rule (o200k_base text tokens + 7 per message, behind a hidden
500-token system prompt; see tests/provider_logs.py), so every delta has a known true value."""

from __future__ import annotations

import pandas as pd
import pytest

from ctxlab.errors import CtxlabError
from ctxlab.messages import Conversation
from ctxlab.metrics.estimator import KINDS, error_table
from ctxlab.metrics.provider import matches, provider_deltas, provider_rows, rows_against, usable_deltas
from ctxlab.store.schema import EstimatorRow
from ctxlab.tokens import get_counter
from tests.provider_logs import FRAMING, MODEL, billed_log, compacted_log, true_tokens


def with_calls(conversation: Conversation, calls: list[dict], **meta) -> Conversation:
    return Conversation(conversation.id, conversation.messages, meta={**conversation.meta, "provider_calls": calls,
                                                                      **meta})


@pytest.mark.parametrize("seed", range(4))
def test_deltas_recover_the_message_tokens_plus_framing(seed):
    conversation = billed_log(seed)
    calls = conversation.meta["provider_calls"]
    deltas = provider_deltas(conversation)
    assert len(deltas) == len(calls) - 1 and all(d.skipped is None for d in deltas)
    for d, a, b in zip(deltas, calls, calls[1:], strict=False):
        span = conversation.messages[a["index"]:b["index"]]
        assert (d.start, d.end, d.model) == (a["index"], b["index"], MODEL)
        assert d.actual == sum(true_tokens(m) for m in span)
        assert d.message_ids == tuple(m.id for m in span) and d.message_id == f"delta:{d.start}-{d.end}"
        assert d.roles.split("+")[0] == "assistant" and d.content_kind in KINDS


def test_the_hidden_system_prompt_cancels():
    small, large = billed_log(5, hidden=500), billed_log(5, hidden=20_000)
    assert small.meta["provider_calls"][0]["prompt_tokens"] + 19_500 == large.meta["provider_calls"][0]["prompt_tokens"]
    assert [d.actual for d in provider_deltas(small)] == [d.actual for d in provider_deltas(large)]


def test_a_model_change_is_skipped_with_the_reason():
    conversation = billed_log(6)
    calls = [dict(c) for c in conversation.meta["provider_calls"]]
    for c in calls[4:]:
        c["model"] = "gpt-5"
    deltas = provider_deltas(with_calls(conversation, calls))
    assert deltas[3].skipped == f"different model ({MODEL} -> gpt-5)"
    usable = [d for d in deltas if d.skipped is None]
    assert len(usable) == len(deltas) - 1 and {d.model for d in usable} == {MODEL, "gpt-5"}


def test_a_compaction_between_calls_is_skipped_and_the_pairs_after_it_are_exact():
    conversation = compacted_log(2)
    cut = conversation.meta["compactions"][0]["index"]
    deltas = provider_deltas(conversation)
    crossing = [d for d in deltas if d.start < cut <= d.end]
    assert len(crossing) == 1 and crossing[0].skipped == "a compaction between the calls"
    after = [d for d in deltas if d.start >= cut]
    assert after and all(d.skipped is None for d in after)
    assert all(d.actual == sum(true_tokens(m) for m in conversation.messages[d.start:d.end]) for d in after)


def test_an_agent_that_keeps_recent_messages_rewrites_the_prompt_at_at_not_index():
    conversation = compacted_log(2, keep=3)  # pi-style: summary + the 3 messages before `at`
    record = conversation.meta["compactions"][0]
    assert record["index"] == record["at"] - 3
    deltas = provider_deltas(conversation)
    assert [d.skipped for d in deltas if d.start < record["at"] <= d.end] == ["a compaction between the calls"]
    clean = [d for d in deltas if not d.start < record["at"] <= d.end]
    assert any(d.start < record["index"] <= d.end for d in clean)  # crossing `index` alone is fine
    assert all(d.skipped is None and d.actual == sum(true_tokens(m) for m in conversation.messages[d.start:d.end])
               for d in clean)


def test_empty_spans_non_positive_deltas_and_bad_records_are_reported():
    conversation = billed_log(7)
    calls = [dict(c) for c in conversation.meta["provider_calls"][:4]]
    calls[1] = {**calls[1], "index": calls[0]["index"]}                   # two calls, one message
    calls[3] = {**calls[3], "prompt_tokens": calls[2]["prompt_tokens"] - 1}  # a shrinking prompt
    calls.append({"index": len(conversation.messages), "model": MODEL})   # no prompt_tokens
    reasons = [d.skipped for d in provider_deltas(with_calls(conversation, calls))]
    assert reasons == ["empty span", None, "non-positive delta (-1)", "a call without a usable index or prompt_tokens"]


def test_thinking_sent_back_in_a_tool_use_loop_is_counted_and_dropped_with_its_turn():
    conversation = billed_log(8)
    deltas = provider_deltas(conversation)
    first = deltas[0]  # the first call's output (a tool call) and its results
    thinking = [{"message_id": conversation.messages[first.start].id, "text": "Let me read the file first."}]
    marked = provider_deltas(with_calls(conversation, conversation.meta["provider_calls"], thinking=thinking))
    assert marked[0].skipped is None and marked[0].thinking == ("Let me read the file first.",)
    turn_end = next(i for i, m in enumerate(conversation.messages) if i > first.start and m.role == "user")
    crossing = next(d for d in marked if d.start < turn_end < d.end)
    assert crossing.skipped.startswith("thinking left the prompt")  # the next turn's prompt lost it
    assert all(d.skipped is None and d.thinking == () for d in marked if d.start > turn_end)


def test_provider_rows_have_the_estimator_row_shape():
    conversation = billed_log(9)
    counters = ["chars4", "o200k_base"]
    rows = provider_rows(conversation, counters)
    usable = [d for d in provider_deltas(conversation) if d.skipped is None]
    assert len(rows) == 2 * len(usable)
    assert all(type(r) is EstimatorRow for r in rows)  # the estimator_rows table's row, like message_rows'
    o200k = get_counter("o200k_base")
    for d in usable:
        row = next(r for r in rows if r.message_id == d.message_id and r.counter == "o200k_base")
        span = conversation.messages[d.start:d.end]
        assert row.reference == f"provider:{MODEL}" and row.actual == d.actual and row.role == d.roles
        assert row.estimated == sum(o200k.count_message(m) for m in span)  # no reply priming
    # o200k_base frames a message with 4 tokens (3 + the role) where this provider uses 7: it undercounts.
    table = error_table(pd.DataFrame(rows)).set_index("counter")
    assert table.loc["o200k_base", "underestimate_share"] > 0.9 and FRAMING == 7
    assert -10 < table.loc["o200k_base", "mean_signed_error_pct"] < 0


def test_usable_deltas_name_the_models_found_when_none_match():
    logs = [billed_log(10), compacted_log(11)]
    assert len(usable_deltas(logs, f"provider:{MODEL}")) == len(usable_deltas(logs, "provider:*")) > 0
    with pytest.raises(CtxlabError, match=rf"no usable provider deltas for provider:gpt-5.*{MODEL} \(\d+ usable"):
        usable_deltas(logs, "provider:gpt-5")
    plain = Conversation("c", billed_log(10).messages)
    with pytest.raises(CtxlabError, match="meta.provider_calls"):
        usable_deltas([plain], "provider:*")


def test_rows_against_a_tokenizer_or_a_provider():
    logs = [billed_log(12)]
    against_tokenizer = rows_against(logs, ["chars4"], "o200k_base")
    assert len(against_tokenizer) == len(logs[0].messages)
    assert {r.reference for r in against_tokenizer} == {"o200k_base"}
    assert rows_against(logs, ["chars4"], f"provider:{MODEL}") == provider_rows(logs[0], ["chars4"])
    assert rows_against(logs, ["chars4"], "provider:other") == []
    assert matches("provider:*", "any") and matches(f"provider:{MODEL}", MODEL) and not matches("provider:x", MODEL)
