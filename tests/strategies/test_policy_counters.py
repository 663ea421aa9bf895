"""The agents' own counters against their sources: pi-mono ``estimateTokens``, Codex
``approx_token_count``, langchain-core ``count_tokens_approximately`` (checked against the library
itself) and inspect_ai ``count_text_tokens``."""

from __future__ import annotations

import json
import math

from hypothesis import given, settings
from langchain_core.messages import convert_to_messages
from langchain_core.messages.utils import count_tokens_approximately

from ctxlab.messages import Message, ToolCall
from ctxlab.tokens import get_counter
from ctxlab.tokens.exact import load_tiktoken
from tests.strategies.conftest import conversations

CALL = ToolCall("c1", "read_file", '{"path": "src/a.py",  "lines": [1, 2]}')


def test_pi_counts_utf16_chars_over_four_with_compact_call_json() -> None:
    pi = get_counter("pi_chars4")
    assert pi.count("hello") == 2  # Math.ceil(5 / 4)
    assert pi.count("😀") == 1  # two UTF-16 units
    # name + JSON.stringify(arguments): "read_file" (9) + {"path":"src/a.py","lines":[1,2]} (32)
    assert pi.count_message(Message("assistant", "ok", id="a", tool_calls=(CALL,))) == math.ceil((2 + 9 + 32) / 4)


def test_codex_counts_the_ceiling_of_utf8_bytes_over_four() -> None:
    codex = get_counter("codex_bytes4")
    assert [codex.count(t) for t in ("abcd", "abcde", "中文", "😀😀")] == [1, 2, 2, 2]
    assert codex.count_message(Message("user", "x" * 80_000, id="u")) == 20_000


def test_inspect_counts_o200k_plus_ten_percent_and_tool_definitions() -> None:
    inspect = get_counter("inspect_o200k")
    enc = load_tiktoken("o200k_base")
    text = "The quick brown fox jumps over the lazy dog. " * 20
    assert inspect.count(text) == int(len(enc.encode(text)) * 1.1)
    joined = "\n".join(["Reading it.", "read_file", json.dumps(json.loads(CALL.arguments))])
    assert inspect.count_message(Message("assistant", "Reading it.", id="a", tool_calls=(CALL,))) == max(
        1, int(len(enc.encode(joined)) * 1.1))
    assert inspect.count_message(Message("assistant", "", id="e")) == 1  # max(1, ...)
    tools = [{"type": "function", "function": {"name": "f", "description": "d", "parameters": {"type": "object"}}}]
    assert inspect.overhead(tools) > 0 and inspect.overhead(None) == 0


@settings(max_examples=60, deadline=None)
@given(messages=conversations(max_turns=4))
def test_langchain_counters_match_count_tokens_approximately(messages: tuple[Message, ...]) -> None:
    lc = convert_to_messages([m.to_openai(include_id=True) for m in messages])
    for name, cpt in (("langchain_approx", 4.0), ("langchain_approx_claude", 3.3)):
        counter = get_counter(name)
        assert [counter.count_message(m) for m in messages] == [
            count_tokens_approximately([m], chars_per_token=cpt) for m in lc]
        assert counter.count_messages(messages) == count_tokens_approximately(lc, chars_per_token=cpt)


def test_gemini_counts_ascii_quarters_other_units_one_and_a_half_and_responses_as_json() -> None:
    """tokenCalculation.ts estimateTokenCountSync: floor(ASCII / 4 + other UTF-16 units x 1.5); above
    100,000 characters just length / 4; a function response is (name + JSON.stringify(response)) / 4."""
    gemini = get_counter("gemini_chars4")
    assert gemini.count("abcdefg") == 1 and gemini.count("中文") == 3 and gemini.count("😀") == 3
    assert gemini.count("中" * 100_001) == 25_000
    result = Message("tool", 'say "hi"', id="t", tool_call_id="c1", name="shell")
    assert gemini.count_message(result) == (5 + len('{"output":"say \\"hi\\""}')) // 4
    call = Message("assistant", "ok", id="a", tool_calls=(CALL,))
    part = '{"functionCall":{"name":"read_file","args":{"path":"src/a.py","lines":[1,2]}}}'
    assert gemini.count_message(call) == math.floor(2 / 4 + len(part) / 4)


def test_cline_counts_the_ceiling_of_its_json_over_three_at_least_one() -> None:
    """tokens.ts estimateTokens(JSON.stringify(message).length): max(1, ceil(chars / 3))."""
    cline = get_counter("cline_json3")
    assert cline.count_message(Message("user", "hello", id="u")) == math.ceil(len('{"role":"user","content":"hello"}') / 3)
    result = Message("tool", "42", id="t", tool_call_id="c1")
    shape = '{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":"42"}]}'
    assert cline.count_message(result) == math.ceil(len(shape) / 3)
    assert cline.count("") == 0 and cline.count("a") == 1
    tools = [{"name": "read_files"}]
    assert cline.overhead(tools) == math.ceil(len('[{"name":"read_files"}]') / 3)


def test_opencode_rounds_chars_over_four_halves_up() -> None:
    """util/token.ts Token.estimate: Math.max(0, Math.round(length / 4))."""
    opencode = get_counter("opencode_chars4")
    assert [opencode.count("x" * n) for n in (1, 2, 5, 6, 8)] == [0, 1, 1, 2, 2]
    assert opencode.count_message(Message("tool", "x" * 4000, id="t", tool_call_id="c")) == 1000
