"""`sliding_window` against seed 000 (SimpleCompressor): char cap, then the newest-first budget walk.

Under `chars4` a message of ``4k`` characters costs exactly ``k`` tokens, which keeps the
arithmetic in these tests readable.
"""

from __future__ import annotations

from ctxlab.messages import Message
from ctxlab.strategies import get_strategy, strategy_params
from ctxlab.strategies.seeds.sliding_window import SlidingWindow
from tests.builders import Convo, assistant, huge_text, user


def tokens(k: int, ch: str = "x") -> str:
    return ch * (4 * k)


def compress(messages, budget: int, **params):
    return get_strategy("sliding_window", **params).compress(messages, budget, counter="chars4")


def test_seed_defaults() -> None:
    assert strategy_params("sliding_window") == {"max_chars_per_message": 4000, "max_chars": 0}
    assert SlidingWindow.seed_counter == "chars4"


def test_walk_is_newest_first_and_stops_at_the_first_message_that_does_not_fit() -> None:
    messages = (user(tokens(40), "u0"), assistant(tokens(10), "a0"), user(tokens(100, "y"), "u1"),
                assistant(tokens(10), "a1"), user(tokens(5), "u2"))
    r = compress(messages, 30)
    # u2 is pinned (5), a1 fits (10); u1 (100) does not, so a0 is dropped although it would fit.
    assert [m.id for m in r.messages] == ["a1", "u2"]
    assert r.dropped_ids == ("u0", "a0", "u1") and r.fits and r.tokens_after == 15


def test_context_compressed_event_counts_the_history_only() -> None:
    """Issue 16, item 6. Seed 000: ``compressed := compressor.Compress(history, ctx.TokenBudget{MaxTokens:
    cfg.MaxContextTokens})`` then ``assembler.Assemble(cfg.SystemPrompt, compressed, task.Text)``: the
    Compressor, whose ``context.compressed`` event carries ``original_count``, ``compressed_count``,
    ``estimated_tokens`` and ``budget_tokens``, sees the history alone. The system prompt and the
    newest user message (the Assembler's) are not counted, and the budget is the history's."""
    messages = Convo().system(tokens(2)).user(tokens(10)).assistant(tokens(10)).user(tokens(3)).build()
    r = compress(messages, 16)  # history budget: 16 - (2 + 3) = 11; m2 fits, m1 does not
    assert [m.id for m in r.messages] == ["m0", "m2", "m3"]
    assert r.events == (get_event(r),)
    assert get_event(r).payload == {"original_count": 2, "compressed_count": 1, "estimated_tokens": 10,
                                    "budget_tokens": 11}


def test_max_chars_bounds_the_kept_history() -> None:
    """Seed 000: ``TokenBudget{MaxTokens int; MaxChars int // Maximum total characters (fallback when no
    token estimate)}``. ctxlab always has a token estimate, so `max_chars` bounds the history's
    characters alongside the token budget: the walk stops at the first message over either."""
    messages = (user(tokens(1), "u0"), assistant("a" * 30, "a0"), user("b" * 50, "u1"),
                assistant("c" * 40, "a1"), user("now?", "u2"))
    r = compress(messages, 10_000, max_chars=100)  # a1 (40) and u1 (50) fit in 100; a0 (30) does not
    assert [m.id for m in r.messages] == ["u1", "a1", "u2"] and r.dropped_ids == ("u0", "a0")
    payload = get_event(r).payload
    assert payload["estimated_chars"] == 90 and payload["budget_chars"] == 100
    assert compress(messages, 10_000).messages == messages  # 0: no character budget


def get_event(r):
    (event,) = [e for e in r.events if e.name == "context.compressed"]
    return event


def test_messages_over_the_char_cap_are_cut_even_when_everything_fits() -> None:
    messages = Convo().system().user("old question").assistant(huge_text(5000)).assistant(huge_text(4000)) \
        .user(huge_text(6000)).build()
    r = compress(messages, 100_000)
    cut = r.messages[2]
    assert cut.mark == "truncated" and cut.id == "m2" and cut.text == huge_text(5000)[:4000]
    assert r.messages[3] == messages[3]  # exactly 4000 characters: not cut
    assert r.messages[4] == messages[4]  # the newest user message is the Assembler's, never cut
    assert r.truncated_ids == ("m2",) and r.dropped_ids == ()


def test_truncation_comes_before_the_walk() -> None:
    # 8000 characters = 2000 tokens uncut, 1000 once cut to 4000: the cut message now fits.
    messages = (assistant(tokens(2000), "a0"), user("go", "u0"))
    r = compress(messages, 1001)
    assert [m.id for m in r.messages] == ["a0", "u0"] and r.truncated_ids == ("a0",) and r.fits


def test_list_content_is_cut_as_one_text() -> None:
    message = Message(role="assistant", content=("a" * 3000, "b" * 3000), id="a0")
    r = compress((message, user("q", "u0")), 10_000, max_chars_per_message=4000)
    assert r.messages[0].content == "a" * 3000 + "\n" + "b" * 999


def test_empty_input() -> None:
    r = compress((), 10)
    assert r.messages == () and r.fits and get_event(r).payload["original_count"] == 0


def test_everything_over_budget_keeps_only_the_pinned_messages() -> None:
    messages = (user(tokens(50), "u0"), assistant(tokens(50), "a0"), user(tokens(50), "u1"),
                assistant(tokens(50), "a1"))
    r = compress(messages, 60)
    assert [m.id for m in r.messages] == ["u1"] and r.fits
    history_only = (assistant(tokens(50), "a0"), assistant(tokens(50), "a1"))
    r = compress(history_only, 20)
    assert r.messages == () and r.dropped_ids == ("a0", "a1")


def test_pinned_over_budget_is_kept_and_does_not_fit() -> None:
    messages = Convo().system(tokens(30)).user(tokens(10)).assistant(tokens(1)).user(tokens(30)).build()
    r = compress(messages, 50)
    assert [m.id for m in r.messages] == ["m0", "m3"]
    assert not r.fits and "system prompt and newest user message" in r.reason


def test_tool_exchange_moves_as_one_unit() -> None:
    messages = Convo().user("task").tools(("read_file", tokens(20)), ("grep", tokens(20))) \
        .assistant(tokens(5)).user(tokens(1)).build()
    r = compress(messages, 30)  # the exchange costs 40+: it goes whole, and the walk stops there
    assert [m.id for m in r.messages] == ["m4", "m5"]
    r = compress(messages, 60)
    assert [m.id for m in r.messages] == ["m0", "m1", "m2", "m3", "m4", "m5"]


def test_walk_starts_after_the_newest_user_message() -> None:
    # Agent turn in progress: what follows the newest user message is newest of all.
    messages = Convo().user(tokens(10)).assistant(tokens(10)).user(tokens(2)) \
        .tools(("run_tests", tokens(10))).assistant(tokens(3)).build()
    r = compress(messages, 2 + 3 + 15)  # pinned user, final answer, the 15-token exchange
    assert [m.id for m in r.messages] == ["m2", "m3", "m4", "m5"] and r.dropped_ids == ("m0", "m1")
