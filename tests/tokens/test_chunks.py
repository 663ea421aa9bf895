"""Long texts are counted as sums of cached line chunks; the sums must equal whole-text counts."""

from __future__ import annotations

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxlab import load_conversations
from ctxlab.tokens import chunks, get_counter
from ctxlab.tokens.exact import TiktokenCounter, load_tiktoken
from tests.builders import SPLIT_PATTERN_EDGES

ADDITIVE = ["o200k_base", "cl100k_base"]
line = st.lists(st.sampled_from(SPLIT_PATTERN_EDGES), max_size=12).map("".join)
lines = st.lists(line, min_size=1, max_size=60).map("\n".join)


def whole(name: str, text: str) -> int:
    return len(load_tiktoken(name).encode_ordinary(text))


def cut_everywhere(text: str) -> list[str]:
    """`text` cut at every safe cut, the finest split the counters may use."""
    ends = [m.end() for m in chunks.SAFE_CUT.finditer(text)]
    return [text[a:b] for a, b in zip([0, *ends], [*ends, len(text)], strict=False)]


@pytest.mark.parametrize("name", ADDITIVE)
@settings(max_examples=300, deadline=None)
@given(text=lines)
def test_counts_add_up_across_every_safe_cut(name, text):
    assert sum(whole(name, piece) for piece in cut_everywhere(text)) == whole(name, text)


@pytest.mark.parametrize("name", ADDITIVE)
def test_counts_add_up_across_every_safe_cut_of_the_bundled_data(name):
    texts = {part for c in load_conversations(["sample:agent_sessions", "sample:chats"])
             for m in c.messages for part in m.parts if "\n" in part}
    cuts = mismatched = 0
    for text in texts:
        pieces = cut_everywhere(text)
        cuts += len(pieces) - 1
        mismatched += sum(whole(name, p) for p in pieces) != whole(name, text)
    assert cuts > 20_000 and mismatched == 0


def test_a_cut_before_slash_newline_or_blank_indent_is_never_safe():
    # Each would change the count: o200k reads "}\n/" as one, "\n  \n" is one whitespace run; an
    # indent that a visible character ends is cut before (pretty JSON, code, numbered listings).
    assert cut_everywhere("a\n b\n\tc}\n/d\n\x1ce\n  \nf") == ["a\n", " b\n", "\tc}\n/d\n\x1ce\n  \n", "f"]
    assert cut_everywhere("x\n\ny\nz") == ["x\n\n", "y\n", "z"]


@pytest.mark.parametrize("name", ADDITIVE)
def test_indented_lines_split_as_in_the_whole_text(name):
    """The split pattern's matches, not only their counts, are the same across an indent cut."""
    pattern = regex.compile(load_tiktoken(name)._pat_str)
    texts = {part for c in load_conversations(["sample:agent_sessions"]) for m in c.messages for part in m.parts}
    cuts = 0
    for text in texts:
        ends = [m.end() for m in chunks.SAFE_CUT.finditer(text) if text[m.end()] in " \t"]
        pieces = [text[a:b] for a, b in zip([0, *ends], [*ends, len(text)], strict=False)]
        cuts += len(ends)
        assert [m for p in pieces for m in pattern.findall(p)] == pattern.findall(text)
    assert cuts > 10_000


@given(text=lines)
def test_chunks_put_back_together_are_the_text(text):
    assert "".join(chunks.line_chunks(text * 8)) == text * 8


def test_the_same_lines_are_cut_the_same_way_inside_another_text():
    block = "".join(f"line {i}: checked src/module_{i}.py, 3 warnings\n" for i in range(400))
    old, new = chunks.line_chunks(block), chunks.line_chunks("[tool] a new prefix\n" + block + "tail")
    assert len(old) > 10
    assert len(set(old[1:-1]) & set(new)) >= len(old) - 3  # only the pieces at the edges differ


@pytest.mark.parametrize("name", ADDITIVE)
@settings(max_examples=100, deadline=None)
@given(text=lines)
def test_a_tiktoken_counter_counts_long_texts_exactly(name, text):
    text = (text + "\n") * (chunks.SPLIT_CHARS // (len(text) + 1) + 1)
    assert TiktokenCounter(name).count(text) == whole(name, text)


def test_a_derived_text_is_mostly_a_cache_hit():
    counter = TiktokenCounter("o200k_base")
    encoded: list[int] = []
    encode = counter._encode
    counter._encode = lambda text: encoded.append(len(text)) or encode(text)
    log = "".join(f"PASS tests/test_{i}.py::test_case_{i} ({i % 7} ms)\n" for i in range(2000))
    counter.count(log)
    assert sum(encoded) == len(log)
    encoded.clear()
    derived = "[tool] " + log[: len(log) // 2] + "... (truncated)"
    assert counter.count(derived) == whole("o200k_base", derived)
    assert sum(encoded) < len(derived) // 10


def test_other_patterns_and_counters_count_whole_texts():
    class Other:
        _pat_str = r"\s+|\S+"

    assert not chunks.additive(Other())
    assert all(TiktokenCounter(name).additive for name in ADDITIVE)
    assert not hasattr(get_counter("claude_legacy"), "additive")


def inspect_whole(text: str) -> int:
    """inspect_ai's `count_text_tokens` as its source writes it: the whole text, special tokens as text."""
    return max(1, int(len(load_tiktoken("o200k_base").encode(text, disallowed_special=())) * 1.1))


@settings(max_examples=200, deadline=None)
@given(text=lines.map(lambda t: t * 12), special=st.sampled_from(["", "<|endoftext|>", "<|endofprompt|>"]))
def test_inspect_counts_long_texts_from_o200k_chunks_as_inspect_does_whole(text, special):
    text = special + text + special or "x"  # an empty text counts 0 in every counter (`CachedCounter.count`)
    assert get_counter("inspect_o200k").count(text) == inspect_whole(text)


def test_inspect_counts_the_bundled_texts_and_their_clipped_heads_as_inspect_does():
    inspect = get_counter("inspect_o200k")
    texts = {part for c in load_conversations(["sample:agent_sessions"]) for m in c.messages for part in m.parts
             if len(part) >= chunks.SPLIT_CHARS}
    heads = {t[: len(t) * k // 7] for t in texts for k in (2, 3, 5)}
    mismatched = [t[:60] for t in sorted(texts | heads) if inspect.count(t) != inspect_whole(t)]
    assert len(texts) > 200 and mismatched == []


@pytest.mark.parametrize("name", ADDITIVE)
@settings(max_examples=100, deadline=None)
@given(parts=st.lists(lines, min_size=2, max_size=8), mark=st.sampled_from(["[", "  x", "\t{"]))
def test_a_text_cut_before_the_lines_a_mark_opens_is_counted_exactly(name, parts, mark):
    text = ("\n" + mark).join(parts) + "\n" + "x " * chunks.SPLIT_CHARS  # long enough to be cut
    chunks.parts_of(text, mark)
    assert chunks.line_chunks(text) == tuple(chunks.cut_before(text, mark))
    assert "".join(chunks.line_chunks(text)) == text and len(chunks.line_chunks(text)) >= len(parts)
    assert TiktokenCounter(name).count(text) == whole(name, text)


def test_a_mark_must_open_a_safe_cut():
    for mark in ("/", " ", "\n", "", " \n"):
        with pytest.raises(ValueError, match="not a safe cut"):
            chunks.parts_of("a\n" + mark + "b", mark)
    text = "[x] " + "y" * chunks.SPLIT_CHARS
    chunks.parts_of(text, "[")  # no line opens with it: the text keeps its content-defined chunks
    assert chunks.line_chunks(text) == chunks._content_chunks(text)
