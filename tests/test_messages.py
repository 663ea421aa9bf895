"""The message model: OpenAI dict <-> Message and record <-> Conversation round trips, and validation."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxlab.errors import InvalidInputError
from ctxlab.messages import Conversation, Message, ToolCall, as_messages, from_sharegpt

texts = st.text(max_size=40)
names = st.none() | st.text(min_size=1, max_size=12)
ids = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789_-", min_size=1, max_size=10)
calls = st.builds(lambda i, name, args: {"id": f"call_{i}", "type": "function",
                                         "function": {"name": name, "arguments": args}},
                  st.integers(0, 9), st.text(min_size=1, max_size=12), texts)
contents = st.one_of(texts, st.lists(texts, max_size=3).map(lambda parts: [{"type": "text", "text": p} for p in parts]))


@st.composite
def openai_messages(draw) -> dict:
    """A valid OpenAI chat dict in the canonical form `Message.to_openai` produces."""
    role = draw(st.sampled_from(["system", "user", "assistant", "tool"]))
    message = {"role": role}
    tool_calls = draw(st.lists(calls, max_size=3, unique_by=lambda c: c["id"])) if role == "assistant" else []
    message["content"] = draw(st.none() if tool_calls and draw(st.booleans()) else contents)
    name = draw(names)
    if name is not None:
        message["name"] = name
    if tool_calls:
        message["tool_calls"] = tool_calls
    if role == "tool":
        message["tool_call_id"] = draw(ids)
    return message


@given(openai_messages(), st.integers(0, 1000))
def test_openai_dict_round_trip(data, index):
    message = Message.from_openai(data, index)
    assert message.id == f"m{index}"
    assert message.to_openai() == data
    assert Message.from_openai(message.to_openai(include_id=True)) == message


@given(openai_messages())
def test_message_fields(data):
    message = Message.from_openai(data)
    content = data["content"]
    if isinstance(content, list):
        assert message.parts == tuple(p["text"] for p in content) and message.text == "\n".join(message.parts)
    elif content is None:
        assert message.parts == () and message.text == ""
    else:
        assert message.parts == (content,) and message.text == content
    assert [c.to_openai() for c in message.tool_calls] == data.get("tool_calls", [])
    assert message.mark is None and message.source_ids == ()


def test_plain_strings_in_list_content_and_non_string_arguments():
    message = Message.from_openai({"role": "assistant", "content": ["a", {"type": "text", "text": "b"}],
                                   "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": {"x": 1}}}]})
    assert message.content == ("a", "b") and message.tool_calls == (ToolCall("c", "f", '{"x":1}'),)


@st.composite
def conversations(draw) -> Conversation:
    """A valid conversation: user and assistant turns, each call answered by a tool message."""
    messages: list[Message] = []
    if draw(st.booleans()):
        messages.append(Message(role="system", content=draw(texts), id="sys"))
    for turn in range(draw(st.integers(1, 4))):
        messages.append(Message(role="user", content=draw(texts), id=f"u{turn}", name=draw(names)))
        n_calls = draw(st.integers(0, 2))
        batch = tuple(ToolCall(f"t{turn}_{k}", draw(st.text(min_size=1, max_size=8)), draw(texts)) for k in range(n_calls))
        messages.append(Message(role="assistant", content=draw(st.none() if batch else texts), id=f"a{turn}",
                                tool_calls=batch))
        messages += [Message(role="tool", content=draw(contents.map(_as_content)), id=f"r{call.id}",
                             tool_call_id=call.id) for call in draw(st.permutations(batch))]
    tools = tuple(draw(st.lists(st.fixed_dictionaries({"type": st.just("function"), "function": st.fixed_dictionaries(
        {"name": st.text(min_size=1, max_size=8)})}), max_size=2)))
    meta = draw(st.dictionaries(st.text(max_size=5), st.integers() | texts, max_size=2))
    return Conversation(draw(ids), tuple(messages), tools, meta)


def _as_content(value):
    return value if isinstance(value, str) else tuple(p["text"] for p in value)


@given(conversations())
def test_conversation_record_round_trip(conversation):
    record = conversation.to_record()
    assert Conversation.from_record(record) == conversation
    assert ("tools" in record) == bool(conversation.tools) and ("meta" in record) == bool(conversation.meta)


def test_default_id_and_sharegpt_roles():
    record = {"conversations": [{"from": "system", "value": "s"}, {"from": "human", "value": "q"},
                                {"from": "chatgpt", "value": "a"}, {"from": "bard", "value": "b"}]}
    conversation = Conversation.from_record(record, default_id="file:3")
    assert conversation.id == "file:3"
    assert [m.role for m in conversation.messages] == ["system", "user", "assistant", "assistant"]
    assert [m.id for m in conversation.messages] == ["m0", "m1", "m2", "m3"]


@pytest.mark.parametrize(("data", "reason"), [
    ("hello", "message 0 is str, not an object"),
    ({"role": "robot", "content": "x"}, "unknown role 'robot'"),
    ({"role": "user"}, "message 0 (user) has no content"),
    ({"role": "user", "content": 3}, "content is int, not text"),
    ({"role": "user", "content": [{"type": "image_url"}]}, "unsupported content part ('image_url'"),
    ({"role": "tool", "content": "x"}, "tool result without tool_call_id"),
    ({"role": "assistant", "tool_calls": {"id": "c"}}, "tool_calls is not a list"),
    ({"role": "assistant", "tool_calls": [{"id": "c"}]}, "malformed tool call"),
    ({"role": "user", "content": "x", "name": 5}, "name is int, not a string"),
    ({"role": "user", "content": "x", "id": [1]}, "non-string id"),
])
def test_message_validation_errors(data, reason):
    with pytest.raises(InvalidInputError) as caught:
        Message.from_openai(data)
    assert reason in caught.value.reason and caught.value.where is None


USER = {"role": "user", "content": "q"}
CALL = {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "function": {"name": "f"}}]}


@pytest.mark.parametrize(("record", "reason"), [
    ([], "record is list, not an object"),
    ({"messages": [USER]}, "no usable id"),
    ({"id": "", "messages": [USER]}, "no usable id"),
    ({"id": "x", "messages": "q"}, "'messages' is not a list"),
    ({"id": "x"}, "neither 'messages' nor 'conversations'"),
    ({"id": "x", "messages": []}, "empty conversation"),
    ({"id": "x", "conversations": []}, "empty conversation"),
    ({"id": "x", "conversations": [{"from": "alien", "value": "q"}]}, "unknown speaker 'alien'"),
    ({"id": "x", "conversations": [{"from": "human", "value": None}]}, "has no text value"),
    ({"id": "x", "messages": [USER, {"role": "tool", "content": "r", "tool_call_id": "c9"}]}, "orphan tool result"),
    ({"id": "x", "messages": [CALL, USER]}, "were never answered"),
    ({"id": "x", "messages": [USER, CALL]}, "at the end were never answered"),
    ({"id": "x", "messages": [{**USER, "id": "a"}, {**USER, "id": "a"}]}, "repeats id 'a'"),
    ({"id": "x", "messages": [USER], "tools": {"name": "f"}}, "'tools' is not a list"),
    ({"id": "x", "messages": [USER], "meta": ["a"]}, "'meta' is not an object"),
])
def test_record_validation_errors(record, reason):
    with pytest.raises(InvalidInputError) as caught:
        Conversation.from_record(record)
    assert reason in caught.value.reason


def test_sharegpt_turns_must_be_a_list_of_objects():
    with pytest.raises(InvalidInputError, match="'conversations' is not a list"):
        from_sharegpt({"from": "human"})
    with pytest.raises(InvalidInputError, match="turn 1 is str"):
        from_sharegpt([{"from": "human", "value": "q"}, "gpt: a"])


def test_as_messages_accepts_dicts_and_messages():
    existing = Message(role="user", content="hi", id="keep")
    converted = as_messages([existing, {"role": "assistant", "content": "yo"}])
    assert converted[0] is existing and converted[1].id == "m1"


def test_with_text_marks_truncation_and_keeps_the_id():
    message = Message(role="tool", content="long output", id="t", tool_call_id="c")
    cut = message.with_text("long…")
    assert (cut.id, cut.mark, cut.source_ids, cut.content) == ("t", "truncated", ("t",), "long…")
    assert message.mark is None


def test_with_text_hands_out_one_copy_per_message_text_and_mark_until_forgotten():
    from ctxlab import caches

    message = Message(role="tool", content="a long tool output", id="t", tool_call_id="c")
    cleared = message.with_text("[cleared]")
    assert message.with_text("[cleared]") is cleared  # a policy clearing it again at the next call
    assert message.with_text("[cleared]", mark="marker") is not cleared
    assert message.with_text("[cleared]", mark="marker").mark == "marker"
    caches.forget()
    again = message.with_text("[cleared]")
    assert again == cleared and again is not cleared


def test_a_record_keeps_message_timestamps():
    conv = Conversation("t", (Message("user", "hi", id="u", timestamp=1770912145.284),
                              Message("assistant", "hello", id="a")))
    record = conv.to_record()
    assert record["messages"][0]["timestamp"] == 1770912145.284 and "timestamp" not in record["messages"][1]
    again = Conversation.from_record(record)
    assert [m.timestamp for m in again.messages] == [1770912145.284, None] and again == conv
