"""The policy mechanics the seed strategies are expressed on: the truncating pre-pass, the
turn-counted mask, the reserved budget, and the tails that drop the oldest whole units to fit.

Counted with `chars4`, so a text of ``4k`` characters costs ``k`` tokens plus the message overhead.
"""

from __future__ import annotations

from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctxlab.messages import Message
from ctxlab.strategies.mechanics import Span, fit, mask, tool_groups, truncate
from ctxlab.strategies.trigger import reserved_budget
from ctxlab.tokens import get_counter
from tests.builders import Convo, huge_text
from tests.strategies.conftest import conversations

CHARS4 = get_counter("chars4")
TEMPLATE = "<{tool} {call_id}: {chars} chars gone>"


# ---- truncate ------------------------------------------------------------------------------------

def test_cut_long_cuts_only_the_given_messages_over_the_cap() -> None:
    messages = Convo().user("u" * 50).tools(("read_file", huge_text(300)), ("grep", "short")).build()
    cut = truncate.head_tail(100, 10, 5)
    out = truncate.cut_long(messages, truncate.tool_results(messages), 100, cut)
    assert list(out) == [2]  # the long user message is not a candidate; "short" is under the cap
    assert out[2].text == messages[2].text[:10] + "\n\n... [285 characters truncated] ...\n\n" + messages[2].text[-5:]
    assert (out[2].id, out[2].tool_call_id, out[2].mark) == ("m2", "call_0", "truncated")
    assert list(truncate.cut_long(messages, range(len(messages)), 40, truncate.first_chars(40))) == [0, 2]
    assert truncate.cut_long(messages, [0], 40, truncate.first_chars(40))[0].text == "u" * 40


def test_a_cut_that_changes_nothing_is_no_cut() -> None:
    messages = Convo().tools(("read_file", "x" * 120)).build()
    # over the cap, but head and tail (60 + 60) cover the text: nothing to omit
    assert truncate.cut_long(messages, [1], 100, truncate.head_tail(100, 60, 60)) == {}


# ---- rewrite and the reserved budget ---------------------------------------------------------------

def test_rewrite_recounts_only_the_replaced_messages() -> None:
    messages = Convo().user("a" * 40).assistant("b" * 40).user("c" * 40).build()
    short = messages[1].with_text("b" * 4)
    out, counts = fit.rewrite(messages, [100, 200, 300], {1: short}, CHARS4)
    assert out == [messages[0], short, messages[2]]
    assert counts == [100, CHARS4.count_message(short), 300]  # the others are not re-tokenized


def test_reserved_budget_is_the_window_less_the_reserve_capped_by_the_budget() -> None:
    assert reserved_budget(1_000_000, 8192, 10_000) == 10_000 - 8192
    assert reserved_budget(500, 8192, 10_000) == 500
    assert reserved_budget(1234, 8192) == 1234  # no window: the budget itself
    assert reserved_budget(10**9, 8192, model="gpt-4o") == 128_000 - 8192


# ---- the turn-counted mask -------------------------------------------------------------------------

def session() -> tuple[Message, ...]:
    return Convo().user("go").tools(("grep", "a" * 300)).tools(("read_file", "b" * 40)) \
        .tools(("run_tests", "c" * 500)).assistant("done").build()


def test_outputs_before_the_newest_turns_become_the_filled_template() -> None:
    messages = session()  # assistant messages at 1, 3, 5 and 7
    out = mask.mask_old_turns(messages, 2, TEMPLATE)
    assert list(out) == [2, 4]  # the outputs of the two newest model calls (5 and 7) stay
    assert out[2].text == "<grep call_0: 300 chars gone>" and out[2].mark == "truncated"
    assert list(mask.mask_old_turns(messages, 0, TEMPLATE)) == [2, 4, 6]
    assert mask.mask_old_turns(messages, 4, TEMPLATE) == {}


def test_min_chars_never_longer_and_never_twice() -> None:
    messages = session()
    assert list(mask.mask_old_turns(messages, 1, TEMPLATE, min_chars=300)) == [6]
    longer = "<{tool} {call_id}: " + "x" * 40 + " {chars} chars gone>"
    assert list(mask.mask_old_turns(messages, 1, longer)) == [2, 6]  # 40 chars of output stay as they are
    once = mask.mask_old_turns(messages, 1, TEMPLATE)
    masked = tuple(once.get(i, m) for i, m in enumerate(messages))
    assert mask.mask_old_turns(masked, 1, TEMPLATE) == {}
    assert mask.is_placeholder("<grep call_0: 300 chars gone>", TEMPLATE)
    assert not mask.is_placeholder("a" * 300, TEMPLATE)


def test_the_tool_name_comes_from_the_result_then_its_call() -> None:
    messages = list(session())
    messages[2] = replace(messages[2], name="shell")
    assert mask.mask_old_turns(messages, 1, TEMPLATE)[2].text.startswith("<shell call_0")
    assert mask.turns_start(messages, 2) == 5 and mask.turns_start(messages, 9) == 0


# ---- the fitting tails -----------------------------------------------------------------------------

def test_newest_turns_keeps_every_system_message_only_when_asked() -> None:
    messages = Convo().system("s" * 40).user("u" * 400).assistant("a" * 400) \
        .system("note " * 8).user("u" * 40).assistant("a" * 40).build()
    counts = [CHARS4.count_message(m) for m in messages]
    room = counts[0] + sum(counts[3:])
    assert fit.newest_turns(messages, counts, room, every_system=True) == {0, 3, 4, 5}
    # without it the mid-conversation system message belongs to the first turn, dropped with it
    assert fit.newest_turns(messages, counts, room) == {0, 4, 5}


def test_newest_until_miss_stops_at_the_first_span_over_a_limit() -> None:
    spans = [Span(0, 1), Span(1, 3), Span(3, 4), Span(4, 5)]
    tokens = [1, 50, 1, 1, 2]
    assert fit.newest_until_miss(spans, [(tokens, 10)]) == {3, 4}  # span 0 would fit: the walk stopped
    assert fit.newest_until_miss(spans, [(tokens, 10)], skip={3}) == {4}  # skipped, not counted, walk goes on
    chars = [1, 1, 1, 30, 5]
    assert fit.newest_until_miss(spans, [(tokens, 100), (chars, 20)]) == {4}  # the characters bind
    assert fit.newest_until_miss(spans, [(tokens, -1)]) == set()


def test_dropped_lists_the_rest_and_their_tokens() -> None:
    assert fit.dropped({0, 2}, [5, 6, 7, 8]) == ([1, 3], 14)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(conversations(), st.integers(0, 30_000))
def test_newest_until_miss_keeps_whole_groups_within_the_room(messages, room: int) -> None:
    counts = [CHARS4.count_message(m) for m in messages]
    groups = tool_groups(messages)
    kept = fit.newest_until_miss(groups, [(counts, room)])
    assert sum(counts[i] for i in kept) <= room
    whole = [g for g in groups if kept & set(range(g.start, g.stop))]
    assert all(set(range(g.start, g.stop)) <= kept for g in whole)
    if whole:  # a suffix of the groups: nothing newer than the oldest kept one was left out
        assert kept == set(range(whole[0].start, len(messages)))
