"""Next-action agreement: the scores on hand-written calls and their properties, the tools a model
is offered, the request built from what a policy sends, and one call through litellm's mock."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxlab.messages import Conversation, Message, ToolCall
from ctxlab.metrics.agreement import (
    RAW_ARGUMENTS,
    agreement_endpoint,
    arguments,
    build_request,
    canonical,
    jaccard,
    propose,
    score_arguments,
    score_call,
    session_tools,
    value_tokens,
)
from ctxlab.summarize.cache import MemoryCache
from ctxlab.summarize.client import Endpoint


def call(name: str, **args: object) -> ToolCall:
    return ToolCall(f"id_{name}", name, json.dumps(args))


READ = call("read_file", path="src/auth/login.py")
EDIT = call("edit_file", path="src/auth/login.py", old_string="raise KeyError(user)", new_string="return None")


def test_the_same_call_agrees_fully():
    assert score_call([EDIT], [EDIT]) == (True, False, 1.0, 1.0, 1.0)


def test_a_different_tool_on_the_same_file_shares_its_path():
    score = score_call([EDIT], [READ])
    assert not score.name_match and not score.text_answer
    assert score.arg_exact == pytest.approx(1 / 3)  # path equal; old_string, new_string missing
    assert score.arg_overlap == pytest.approx(1 / 3)
    assert 0 < score.arg_tokens < 1


def test_a_near_miss_value_earns_partial_credit_by_its_tokens():
    score = score_call([call("run_shell", command="pytest tests/test_api.py -x")],
                       [call("run_shell", command="pytest tests/test_api.py")])
    assert score.name_match and score.arg_exact == 0.0
    # tokens {pytest, tests, test_api, py, x} against the same without x: 4 of 5
    assert score.arg_overlap == pytest.approx(4 / 5) == score.arg_tokens


def test_normalization_forgives_white_space_key_order_and_number_types():
    recorded = call("search", query="  login   failure ", limit=20, flags={"a": 1, "b": True})
    proposed = ToolCall("x", "search", json.dumps({"flags": {"b": "true", "a": 1.0}, "limit": "20",
                                                   "query": "login failure"}))
    assert score_call([recorded], [proposed]).arg_exact == 1.0


def test_case_and_content_differences_count():
    assert canonical("Login") != canonical("login")
    assert score_call([call("grep", pattern="TODO")], [call("grep", pattern="todo")]).arg_overlap == 0.0


def test_a_text_answer_scores_zero_on_every_argument_measure():
    assert score_call([EDIT], []) == (False, True, 0.0, 0.0, 0.0)


def test_a_call_without_arguments_leaves_the_argument_measures_undefined():
    assert score_call([call("list_files")], [call("list_files")]) == (True, False, None, None, None)
    assert score_call([call("list_files")], []) == (False, True, None, None, None)


def test_parallel_recorded_calls_credit_the_one_the_proposal_matches_best():
    a, b = call("read_file", path="a.py"), call("read_file", path="b.py")
    assert score_call([a, b], [b]).arg_exact == 1.0  # the agent read both; reading b first is right
    assert score_call([READ, call("grep", pattern="x")], [call("grep", pattern="x")]).name_match
    # only the proposal's first call is scored
    assert not score_call([READ], [call("grep", pattern="x"), READ]).name_match


def test_arguments_that_are_not_a_json_object_are_one_raw_argument():
    assert arguments("") == {}
    assert arguments("not json") == {RAW_ARGUMENTS: "not json"}
    assert arguments("[1, 2]") == {RAW_ARGUMENTS: [1, 2]}
    assert score_call([ToolCall("1", "bash", "ls -la")], [ToolCall("2", "bash", "ls -la")]).arg_exact == 1.0


def test_only_a_recorded_call_can_be_agreed_with():
    with pytest.raises(ValueError, match="recorded tool call"):
        score_call([], [READ])


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12)
ARGS = st.dictionaries(st.text(min_size=1, max_size=10), JSON_VALUES, max_size=5)


@given(ARGS)
def test_a_call_agrees_fully_with_itself(args):
    scores = score_arguments(args, args)
    assert scores is None if not args else scores == (1.0, 1.0, 1.0)


@given(ARGS, ARGS)
def test_scores_are_shares_and_overlap_credits_at_least_the_exact_matches(recorded, proposed):
    scores = score_arguments(recorded, proposed)
    if not recorded:
        assert scores is None
        return
    exact, overlap, tokens = scores
    assert 0.0 <= exact <= overlap <= 1.0 and 0.0 <= tokens <= 1.0


@given(ARGS)
def test_key_order_and_surrounding_white_space_do_not_matter(args):
    padded = {k: (f"  {v}\n" if isinstance(v, str) else v) for k, v in reversed(list(args.items()))}
    scores = score_arguments(args, padded)
    assert scores is None or scores[0] == 1.0


@given(st.frozensets(st.text(max_size=3)), st.frozensets(st.text(max_size=3)))
def test_jaccard_is_symmetric_and_one_only_for_equal_sets(a, b):
    assert jaccard(a, b) == jaccard(b, a)
    assert (jaccard(a, b) == 1.0) == (a == b)


def test_value_tokens_are_the_words_of_strings_and_the_scalars():
    assert value_tokens({"p": "src/a_b.py", "n": [3, True, None]}) == {"src", "a_b", "py", "3", "true"}


def test_recorded_tool_definitions_are_offered_in_openai_format():
    openai = {"type": "function", "function": {"name": "read_file", "parameters": {"type": "object"}}}
    anthropic = {"name": "grep", "description": "search", "input_schema": {"type": "object", "properties": {}}}
    conv = Conversation("c", (Message("user", "hi", id="u"),), tools=(openai, anthropic))
    offered = session_tools(conv)
    assert offered[0] == openai
    assert offered[1] == {"type": "function", "function": {"name": "grep", "description": "search",
                                                           "parameters": anthropic["input_schema"]}}


def test_tools_are_derived_from_the_calls_when_the_log_has_no_definitions():
    messages = (Message("user", "go", id="u"),
                Message("assistant", None, id="a1", tool_calls=(call("Read", file_path="a.py", limit=5),)),
                Message("tool", "x", id="t1", tool_call_id="id_Read"),
                Message("assistant", None, id="a2",
                        tool_calls=(ToolCall("id2", "Read", json.dumps({"file_path": "b.py", "limit": "all"})),
                                    ToolCall("id3", "Bash", json.dumps({"command": "ls", "args": ["-l"]})))),
                Message("tool", "y", id="t2", tool_call_id="id2"), Message("tool", "z", id="t3", tool_call_id="id3"))
    read, bash = session_tools(Conversation("c", messages))
    assert read["function"]["name"] == "Read" and "recorded calls" in read["function"]["description"]
    assert read["function"]["parameters"]["properties"] == {"file_path": {"type": "string"}, "limit": {}}
    assert bash["function"]["parameters"]["properties"] == {"command": {"type": "string"},
                                                            "args": {"type": "array", "items": {}}}


def test_the_request_is_what_the_policy_sends():
    sent = (Message("system", "You are an agent.", id="s"), Message("user", ("part one", "part two"), id="u"),
            Message("assistant", None, id="a", tool_calls=(READ,)),
            Message("tool", "def login(): ...", id="t", tool_call_id=READ.id, name="read_file"),
            Message("user", "[summary of earlier work]", id="sum", mark="summary"))
    request = build_request(sent)
    assert [m["role"] for m in request] == ["system", "user", "assistant", "tool", "user"]
    assert request[1]["content"] == [{"type": "text", "text": "part one"}, {"type": "text", "text": "part two"}]
    assert request[2]["tool_calls"][0]["function"] == {"name": "read_file", "arguments": READ.arguments}
    assert request[3] == {"role": "tool", "content": "def login(): ...", "tool_call_id": READ.id}
    assert request[4]["content"] == "[summary of earlier work]"


def test_the_endpoint_comes_from_the_agreement_variables_then_the_summarizers(monkeypatch):
    for name in ("CTXLAB_AGREEMENT_MODEL", "CTXLAB_AGREEMENT_API_BASE", "CTXLAB_AGREEMENT_API_KEY",
                 "CTXLAB_LLM_MODEL", "CTXLAB_LLM_API_BASE", "CTXLAB_LLM_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    assert agreement_endpoint().model is None
    monkeypatch.setenv("CTXLAB_LLM_MODEL", "openai/summarizer")
    assert agreement_endpoint().model == "openai/summarizer"
    monkeypatch.setenv("CTXLAB_AGREEMENT_MODEL", "anthropic/judge")
    monkeypatch.setenv("CTXLAB_AGREEMENT_API_BASE", "http://127.0.0.1:9/v1")
    assert (agreement_endpoint().model, agreement_endpoint().api_base) == ("anthropic/judge", "http://127.0.0.1:9/v1")
    assert agreement_endpoint("openai/flag").model == "openai/flag"


def test_a_mocked_tool_call_comes_back_parsed_and_cached():
    """litellm's own mock (`mock_tool_calls`): the proposal is parsed, and the same request again
    is answered by the cache."""
    mocked = [{"id": "call_1", "type": "function",
               "function": {"name": "read_file", "arguments": json.dumps({"path": "src/auth/login.py"})}}]
    cache = MemoryCache()
    ask = {"endpoint": Endpoint("gpt-4o-mini", api_key="sk-mock"), "cache": cache,
           "params": {"temperature": 0.0, "mock_tool_calls": mocked, "mock_response": ""}}
    tools = session_tools(Conversation("c", (Message("assistant", None, id="a", tool_calls=(READ,)),)))
    first = propose([Message("user", "Fix login.", id="u")], tools, **ask)
    assert first.error is None and not first.cached
    assert first.tool_calls == (ToolCall("call_1", "read_file", json.dumps({"path": "src/auth/login.py"})),)
    assert score_call([READ], first.tool_calls) == (True, False, 1.0, 1.0, 1.0)
    again = propose([Message("user", "Fix login.", id="u")], tools, **ask)
    assert again.cached and again.tool_calls == first.tool_calls and len(cache.records) == 1
    other_tools = propose([Message("user", "Fix login.", id="u")], (), **ask)  # tools are part of the key
    assert not other_tools.cached and len(cache.records) == 2
