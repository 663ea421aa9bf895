"""`ctxlab.metrics.needed._occurrences` (one Aho-Corasick pass) finds what a `str.find` per string
finds: the same messages, the same contexts in the same order, overlapping occurrences included."""

from __future__ import annotations

from bisect import bisect_right

from hypothesis import given, settings
from hypothesis import strategies as st

from ctxlab.metrics.facts import normalize
from ctxlab.metrics.needed import CONTEXT_CHARS, _occurrences


def _plain(strings, texts, first):
    """The definition: each string searched alone, every position, its line clipped around it."""
    starts, at = [], 0
    for text in texts[first:]:
        starts.append(at)
        at += len(text) + 1
    joined = "\0".join(texts[first:])
    out = {}
    for s in strings:
        pos = joined.find(s)
        while pos >= 0:
            hold = out.setdefault(s, ([], {}))
            j = bisect_right(starts, pos) - 1 + first
            if not hold[0] or hold[0][-1] != j:
                hold[0].append(j)
            start = max(joined.rfind("\n", 0, pos), joined.rfind("\0", 0, pos), pos - CONTEXT_CHARS - 1) + 1
            ends = [e for e in (joined.find("\n", pos + len(s)), joined.find("\0", pos + len(s))) if e >= 0]
            end = min([*ends, pos + len(s) + CONTEXT_CHARS, len(joined)])
            hold[1].setdefault(normalize(joined[start:end]), j)
            pos = joined.find(s, pos + 1)
    return out


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text("ab./é\n 中", max_size=200), max_size=6),
       st.lists(st.sampled_from(["a", "ab", "aba", "b.", "./", "é", "abab", "bb"]), unique=True, max_size=6),
       st.integers(0, 2))
def test_one_pass_finds_what_a_search_per_string_finds(texts, strings, first):
    got = _occurrences(strings, texts, first)
    want = _plain(strings, texts, first)
    assert list(got) == list(want)
    for s, hold in got.items():
        assert hold.indices == want[s][0]
        assert list(hold.contexts.items()) == list(want[s][1].items())


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.text("ab. ", min_size=70, max_size=100), max_size=4).map("\n".join), max_size=4),
       st.lists(st.sampled_from(["a", "ab", "b.", "ba b", "aaa"]), unique=True, min_size=1, max_size=4))
def test_lines_near_the_context_length_give_each_occurrence_its_own_context(texts, strings):
    got = _occurrences(strings, texts, 0)
    want = _plain(strings, texts, 0)
    assert {s: (h.indices, list(h.contexts.items())) for s, h in got.items()} == {
        s: (indices, list(contexts.items())) for s, (indices, contexts) in want.items()}


def test_long_lines_are_clipped_around_each_occurrence():
    text = "x" * 200 + " needle " + "y" * 200 + "\nnext line needle"
    hold = _occurrences(["needle"], [text], 0)["needle"]  # CONTEXT_CHARS (80) either side
    assert list(hold.contexts) == ["x" * 79 + " needle " + "y" * 79, "next line needle"]
