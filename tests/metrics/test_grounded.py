"""Grounded measures: needed-context recall, its splits, refetch cost, instruction survival."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from ctxlab.messages import Conversation, Message, ToolCall
from ctxlab.metrics.grounded import GroundedEvaluator, evaluate, grounded_row, pool
from ctxlab.metrics.needed import SessionNeeds
from ctxlab.store.schema import GroundedRow
from ctxlab.tokens import get_counter

COUNTER = get_counter("o200k_base")
CONFIG = "\n".join(f"option_{i} = {i}" for i in range(40))


def session() -> Conversation:
    """A task, a read of src/app/config.py whose output names MAX_RETRY_COUNT, and actions using them."""
    read = ToolCall("c1", "read_file", json.dumps({"path": "src/app/config.py"}))
    edit = ToolCall("c2", "edit_file", json.dumps({"path": "src/app/config.py", "old": "MAX_RETRY_COUNT = 3",
                                                   "new": "MAX_RETRY_COUNT = 5"}))
    return Conversation("s", (
        Message("system", "You are a coding agent. Tools: read_file, edit_file.", id="m0"),
        Message("user", "Raise the retry limit in src/app/config.py. Do not touch the tests!", id="m1"),
        Message("assistant", None, id="m2", tool_calls=(read,)),
        Message("tool", f"{CONFIG}\nMAX_RETRY_COUNT = 3  # retries before giving up\n", id="m3", tool_call_id="c1"),
        Message("assistant", "Found it.", id="m4"),
        Message("user", "go on", id="m5"),
        Message("assistant", None, id="m6", tool_calls=(edit,)),
        Message("tool", "ok", id="m7", tool_call_id="c2"),
        Message("assistant", "Set MAX_RETRY_COUNT to 5 in src/app/config.py.", id="m8"),
    ))


def calls(conv: Conversation) -> list[int]:
    return [t for t, m in enumerate(conv.messages) if m.role == "assistant"]


def test_noop_keeps_every_needed_string():
    conv = session()
    measures = evaluate(conv, [(t, conv.messages[:t]) for t in calls(conv)], COUNTER)
    pooled = pool(measures)
    assert pooled.needed > 0 and pooled.needed_recall == pooled.in_context_recall == 1.0
    assert pooled.refetch_tokens == 0 and all(not m.lost for m in measures)


def test_the_needs_of_an_action_come_from_earlier_messages_only():
    needs = SessionNeeds.build(session(), COUNTER)
    at6 = {n.text: n for n in needs.calls[6]}
    assert set(at6) == {"src/app/config.py", "MAX_RETRY_COUNT"}  # "5" is too short; "= 3" is not specific
    assert at6["MAX_RETRY_COUNT"].kind == "identifier" and at6["src/app/config.py"].kind == "path"
    # m3 held it, and m4/m5 since the previous call (m4) do not: an old string
    assert at6["MAX_RETRY_COUNT"].old and at6["src/app/config.py"].old
    # the first action reads the path the user gave: needed, and new (every message is new at the first call)
    assert needs.calls[2] == (at6["src/app/config.py"]._replace(old=False),)
    assert needs.calls[4] == ()  # "Found it." uses nothing


def test_strings_of_the_system_prompt_and_tool_schemas_are_not_needed():
    conv = session()
    tools = ({"type": "function", "function": {"name": "edit_file", "description": "edits src/app/config.py"}},)
    needs = SessionNeeds.build(Conversation("s", conv.messages, tools=tools), COUNTER)
    assert {n.text for n in needs.calls[6]} == {"MAX_RETRY_COUNT"}


def test_removing_the_one_message_that_held_a_needed_string_lowers_recall_and_adds_its_tokens_as_refetch():
    conv = session()
    holder = conv.messages[3]
    sent = [m for m in conv.messages[:6] if m is not holder]
    full, cut = evaluate(conv, [(6, conv.messages[:6])], COUNTER)[0], evaluate(conv, [(6, sent)], COUNTER)[0]
    assert full.needed_kept == full.needed_total == 2
    assert cut.needed_kept == 1 and cut.lost == ("MAX_RETRY_COUNT",)
    assert cut.refetch_tokens == COUNTER.count_message(holder) and cut.refetch_messages == 1
    assert full.refetch_tokens == 0


def test_a_bare_list_of_identifiers_keeps_the_string_but_not_its_context():
    conv = session()
    digest = conv.messages[3].with_text("cleared; names: MAX_RETRY_COUNT; option_1")
    framed = conv.messages[3].with_text("MAX_RETRY_COUNT = 3  # retries before giving up")
    for replacement, in_context in ((digest, 0), (framed, 1)):
        sent = [replacement if m.id == "m3" else m for m in conv.messages[:6]]
        m = evaluate(conv, [(6, sent)], COUNTER)[0]
        names = [n for n in ("MAX_RETRY_COUNT",) if n in m.lost]
        assert not names and m.needed_kept == 2
        assert m.needed_kept_in_context == 1 + in_context  # the path stands whole in the user message


def test_the_row_holds_the_counts_and_the_lost_strings_as_json():
    conv = session()
    m = evaluate(conv, [(6, conv.messages[:3])], COUNTER)[0]
    row = grounded_row(7, m)
    assert row.unit == 7 and row.needed_total == 2 and json.loads(row.needed_lost) == list(m.lost) and type(row) is GroundedRow
    assert row.needed_path_total == row.needed_identifier_total == 1


def test_instructions_in_english_and_chinese_are_detected_and_a_dropped_one_is_reported_lost():
    conv = Conversation("i", (
        Message("user", "Fix the build. Never push to main.", id="m0"),
        Message("assistant", "ok", id="m1"),
        Message("user", "请修复测试。不要删除数据库文件。", id="m2"),
        Message("assistant", "好的", id="m3"),
    ))
    needs = SessionNeeds.build(conv, COUNTER)
    assert needs.instructions == [(0, "Never push to main."), (2, "请修复测试"), (2, "不要删除数据库文件")]
    kept, dropped = evaluate(conv, [(3, conv.messages[:3]), (3, conv.messages[1:3])], COUNTER)
    assert kept.instructions_kept == kept.instructions_total == len(needs.instructions)
    assert dropped.lost_instructions == ("Never push to main.",)


@st.composite
def sent_sets(draw: st.DrawFn) -> list[tuple[int, list[Message]]]:
    conv = session()
    out = []
    for t in draw(st.lists(st.sampled_from(calls(conv)), min_size=1, max_size=6)):
        keep = draw(st.lists(st.booleans(), min_size=t, max_size=t))
        out.append((t, [m for m, k in zip(conv.messages[:t], keep, strict=True) if k]))
    return out


@settings(max_examples=60, deadline=None)
@given(sent_sets())
def test_the_incremental_evaluator_equals_a_fresh_one_for_every_call(sequence):
    conv = session()
    needs = SessionNeeds.build(conv, COUNTER)
    running = GroundedEvaluator(needs)
    for t, sent in sequence:
        assert running.measure(t, sent) == GroundedEvaluator(needs).measure(t, sent)
