"""The shared pure mechanics strategies are composed of."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from ctxlab.strategies.mechanics import (
    TRUNCATION_MARKER,
    Span,
    Usage,
    clip_to_tokens,
    newest_user,
    pinned,
    system_prefix,
    tool_groups,
    truncate_head_tail,
    turns,
)
from ctxlab.strategies.mechanics.cuts import newest_tokens, snap, turn_start
from ctxlab.strategies.mechanics.fit import drop_oldest_turns, keep_newest
from ctxlab.tokens import get_counter
from tests.builders import Convo, cjk_text, huge_text
from tests.strategies.conftest import conversations

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
CONVERSATIONS = settings(SETTINGS, max_examples=150)  # generating conversations is the slow part
any_text = st.one_of(st.text(max_size=300), st.builds(cjk_text, st.integers(0, 300)),
                     st.builds(huge_text, st.integers(10, 3000)))


def marker(omitted: int) -> str:
    return TRUNCATION_MARKER.format(omitted=omitted)


# ---- truncate_head_tail -------------------------------------------------------------------------

@SETTINGS
@given(text=any_text, max_chars=st.integers(0, 400), head=st.integers(0, 200), tail=st.integers(0, 200))
def test_truncate_head_tail_properties(text: str, max_chars: int, head: int, tail: int) -> None:
    out = truncate_head_tail(text, max_chars, head, tail)
    if len(text) <= max_chars or head + tail >= len(text):
        assert out == text
        return
    omitted = len(text) - head - tail
    assert out == text[:head] + marker(omitted) + (text[-tail:] if tail else "")
    assert len(out) == head + tail + len(marker(omitted))
    assert out.startswith(text[:head]) and out.endswith(text[len(text) - tail:])
    assert f"[{omitted} characters truncated]" in out


@given(size=st.integers(10, 5000))
def test_truncate_boundary_exactly_max_and_one_more(size: int) -> None:
    text = huge_text(size + 1)
    assert truncate_head_tail(text[:size], size, 2, 3) == text[:size]
    out = truncate_head_tail(text, size, 2, 3)
    assert out == text[:2] + marker(size + 1 - 5) + text[-3:]


def test_truncate_seed_003_defaults() -> None:
    assert truncate_head_tail("x" * 50_000, 50_000) == "x" * 50_000
    text = huge_text(50_001)
    out = truncate_head_tail(text, 50_000)
    assert out == text[:2000] + "\n\n... [46001 characters truncated] ...\n\n" + text[-2000:]


def test_truncate_never_lengthens_when_head_and_tail_cover_the_text() -> None:
    text = "abcdefghij" * 3
    assert truncate_head_tail(text, 10, 20, 20) == text
    assert truncate_head_tail(text, 10, 15, 15) == text
    assert truncate_head_tail(text, 10, 0, 0) == marker(30)


# ---- clip_to_tokens -----------------------------------------------------------------------------

@SETTINGS
@given(text=any_text, max_tokens=st.integers(0, 400),
       counter=st.sampled_from(["chars4", "chars3", "chars2", "ascii_cjk"]))
def test_clip_to_tokens_always_fits(text: str, max_tokens: int, counter: str) -> None:
    c = get_counter(counter)
    out = clip_to_tokens(text, max_tokens, c)
    assert c.count(out) <= max_tokens
    if c.count(text) <= max_tokens:
        assert out == text
    elif "\n\n... [" in out:  # a head+tail clip: both ends come from the text
        head, _, rest = out.partition("\n\n... [")
        assert text.startswith(head) and text.endswith(rest.partition("] ...\n\n")[2])


@pytest.mark.parametrize("max_tokens", [0, 1, 5, 40, 300, 5000])
def test_clip_to_tokens_fits_exact_tokenizer(max_tokens: int) -> None:
    c = get_counter("o200k_base")
    text = cjk_text(2000) + huge_text(4000)
    out = clip_to_tokens(text, max_tokens, c)
    assert c.count(out) <= max_tokens
    if max_tokens >= 300:
        assert out.startswith(text[:50]) and out.endswith(text[-50:])


# ---- tool_groups --------------------------------------------------------------------------------

@CONVERSATIONS
@given(messages=conversations())
def test_tool_groups_partition_and_never_split_a_call_from_its_results(messages) -> None:
    groups = tool_groups(messages)
    assert [g.start for g in groups] == [0, *[g.stop for g in groups[:-1]]]
    assert groups[-1].stop == len(messages)
    group_of = {i: g for g in groups for i in range(g.start, g.stop)}
    for i, m in enumerate(messages):
        if m.role == "tool":
            head = messages[group_of[i].start]
            assert m.tool_call_id in {c.id for c in head.tool_calls}
        if m.tool_calls:
            g = group_of[i]
            assert g.start == i
            answered = {messages[j].tool_call_id for j in range(g.start + 1, g.stop)}
            assert answered == {c.id for c in m.tool_calls}
    for g in groups:
        assert all(messages[j].role == "tool" for j in range(g.start + 1, g.stop))


def test_tool_groups_parallel_batch_is_one_unit() -> None:
    messages = Convo().user().tools(("a", "1"), ("b", "2"), ("c", "3")).assistant().build()
    assert tool_groups(messages) == [Span(0, 1), Span(1, 5), Span(5, 6)]


# ---- pinned, turns ------------------------------------------------------------------------------

def test_system_prefix_newest_user_and_pinned() -> None:
    messages = Convo().system().system("more").user("a").assistant().user("b").tools(("t", "x")).build()
    assert system_prefix(messages) == 2
    assert newest_user(messages) == 4
    assert pinned(messages) == {0, 1, 4}
    no_user = Convo().assistant().build()
    assert newest_user(no_user) is None and pinned(no_user) == set()


@CONVERSATIONS
@given(messages=conversations())
def test_turns_partition_and_open_at_users(messages) -> None:
    start = system_prefix(messages)
    spans = turns(messages, start)
    covered = [i for s in spans for i in range(s.start, s.stop)]
    assert covered == list(range(start, len(messages)))
    for k, s in enumerate(spans):
        users = [i for i in range(s.start, s.stop) if messages[i].role == "user"]
        assert users in ([], [s.start]) and (users or k == 0)


# ---- keep_newest, drop_oldest_turns -------------------------------------------------------------

@SETTINGS
@given(costs=st.lists(st.integers(0, 50), max_size=30), available=st.integers(-10, 500))
def test_keep_newest_is_the_longest_fitting_suffix(costs: list[int], available: int) -> None:
    first = keep_newest(costs, available)
    assert 0 <= first <= len(costs)
    assert sum(costs[first:]) <= available or first == len(costs)
    if first > 0:
        assert sum(costs[first - 1:]) > available


def test_keep_newest_examples() -> None:
    assert keep_newest([5, 5, 5], 10) == 1
    assert keep_newest([5, 5, 5], 15) == 0
    assert keep_newest([5, 5, 20], 10) == 3
    assert keep_newest([], 0) == 0


@SETTINGS
@given(costs=st.lists(st.integers(0, 40), min_size=1, max_size=20), cuts=st.data(), available=st.integers(0, 300))
def test_drop_oldest_turns_matches_keep_newest_on_span_sums(costs, cuts, available) -> None:
    bounds = sorted(set(cuts.draw(st.lists(st.integers(1, len(costs) - 1), max_size=5)) if len(costs) > 1 else []))
    edges = [0, *bounds, len(costs)]
    spans = [Span(a, b) for a, b in zip(edges, edges[1:], strict=False)]
    drop = drop_oldest_turns(spans, costs, available)
    assert drop == keep_newest([sum(costs[s.start:s.stop]) for s in spans], available)


# ---- a token cut (pi-mono's findCutPoint walk, snapped to its tool group) ------------------------

@CONVERSATIONS
@given(messages=conversations(), keep=st.integers(0, 3000))
def test_a_token_cut_never_falls_inside_a_tool_exchange(messages, keep: int) -> None:
    counts = [get_counter("chars4").count_message(m) for m in messages]
    start = system_prefix(messages)
    assume(start < len(messages))
    at = newest_tokens(counts, keep, start)
    if at is None:
        assert sum(counts[start:]) < keep
        return
    assert sum(counts[at:]) >= keep and (at == len(messages) - 1 or sum(counts[at + 1:]) < keep)
    cut = snap("group_start", messages, at, start)
    assert start <= cut <= at and (messages[cut].role != "tool" or cut == start)
    assert not any(g.start < cut < g.stop for g in tool_groups(messages))
    turn = turn_start(messages, cut, start)
    assert turn is None or (messages[turn].role == "user" and start <= turn < cut)


# ---- Usage --------------------------------------------------------------------------------------

def test_usage() -> None:
    assert Usage(80, 100).percent == 0.8 and Usage(80, 100).remaining == 20
    assert math.isinf(Usage(5, 0).percent)
