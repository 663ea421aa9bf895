"""LangChain's presets against LangChain: `langchain_trim` (and the summarizer-input trimming) give
the same messages as langchain-core 1.7.2's own ``trim_messages``; `langchain_summarization` and
`langchain_clear_tool_uses` follow langchain 1.5.0's SummarizationMiddleware and ClearToolUsesEdit."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field

from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.messages import BaseMessage, convert_to_messages
from langchain_core.messages.utils import count_tokens_approximately, trim_messages

from ctxlab.messages import Message, ToolCall
from ctxlab.strategies import get_strategy
from ctxlab.strategies.mechanics.integrity import BROKEN_PAIRS
from ctxlab.strategies.mechanics.trim import trim_last
from ctxlab.summarize.base import SummaryResult
from ctxlab.tokens import TokenCounter, get_counter
from tests.builders import Convo
from tests.strategies.conftest import budgets, conversations

APPROX = get_counter("langchain_approx")
FAST = settings(max_examples=150, deadline=None)


def to_langchain(messages: Sequence[Message]) -> list[BaseMessage]:
    return convert_to_messages([m.to_openai(include_id=True) for m in messages])


def content(message: BaseMessage | Message) -> str | tuple[str, ...]:
    """A message's text as ctxlab holds it (LangChain list content as a tuple of parts)."""
    if isinstance(message, Message):
        return message.content or ""
    if isinstance(message.content, str):
        return message.content
    return tuple(b["text"] if isinstance(b, dict) else b for b in message.content)


def langchain_trim(messages: Sequence[Message], max_tokens: int, **kwargs) -> list[BaseMessage]:
    return trim_messages(to_langchain(messages), max_tokens=max_tokens, strategy="last", include_system=True,
                         token_counter=count_tokens_approximately, **kwargs)


@FAST
@given(data=st.data())
def test_langchain_trim_keeps_exactly_what_trim_messages_keeps(data: st.DataObject) -> None:
    messages = data.draw(conversations())
    budget = data.draw(budgets(APPROX.count_messages(messages)))
    start_on = data.draw(st.sampled_from(["human", None]))
    ours = get_strategy("langchain_trim", start_on_user=start_on == "human").compress(messages, budget,
                                                                                      counter="o200k_base")
    theirs = langchain_trim(messages, budget, start_on=start_on)
    assert [m.id for m in ours.messages] == [m.id for m in theirs]
    assert all(m.mark is None for m in ours.messages)


@FAST
@given(data=st.data())
def test_partial_trimming_matches_trim_messages_allow_partial(data: st.DataObject) -> None:
    """The summarizer-input trimming (allow_partial=True, start_on="human"): same messages, and the
    same lines or content blocks of the one cut."""
    messages = data.draw(conversations(max_turns=4))
    budget = data.draw(budgets(APPROX.count_messages(messages)))
    ours = trim_last(messages, budget, APPROX, allow_partial=True)
    theirs = langchain_trim(messages, budget, start_on="human", allow_partial=True)
    assert [(m.id, content(m)) for _, m in ours] == [(m.id, content(m)) for m in theirs]


def tool_session(n: int, output: str = "out", follow_up: bool = False) -> tuple[Message, ...]:
    """system, a request, `n` single tool exchanges, a final answer (and a follow-up request)."""
    out = [Message("system", "You are a helpful agent.", id="s"), Message("user", "Audit the repo.", id="u")]
    for i in range(n):
        out += [Message("assistant", f"step {i}", id=f"a{i}",
                        tool_calls=(ToolCall(f"c{i}", "read_file", json.dumps({"path": f"f{i}.py"})),)),
                Message("tool", f"{output} {i}", id=f"t{i}", tool_call_id=f"c{i}")]
    out.append(Message("assistant", "Audit done.", id="end"))
    return (*out, Message("user", "Now fix what you found.", id="q")) if follow_up else tuple(out)


def test_trim_drops_everything_when_the_newest_turn_does_not_fit_and_reports_it() -> None:
    """A long tool loop after the newest user message: trim_messages keeps the system message alone."""
    session = tool_session(30, output="x" * 400)
    r = get_strategy("langchain_trim").compress(session, 500, counter="o200k_base")
    assert [m.id for m in r.messages] == ["s"] == [m.id for m in langchain_trim(session, 500, start_on="human")]
    assert {e.name: dict(e.payload) for e in r.events}["policy.dropped_pinned"] == {"ids": ["u"]}


def test_trim_without_start_on_orphans_results_and_reports_them() -> None:
    session = tool_session(3)
    budget = next(b for b in range(1, 400) if len(kept := langchain_trim(session, b)) > 1 and kept[1].type == "tool")
    r = get_strategy("langchain_trim", start_on_user=False).compress(session, budget, counter="o200k_base")
    first = r.messages[1]
    assert first.role == "tool"
    assert [dict(e.payload) for e in r.events if e.name == BROKEN_PAIRS] == [
        {"orphan_calls": [], "orphan_results": [first.id]}]


@dataclass
class Recorder:
    """A summarizer that records what it is asked to summarize."""

    seen: list[tuple[Message, ...]] = field(default_factory=list)
    name: str = "recorder"

    def summarize(self, messages: Sequence[Message], *, previous_summary: str | None = None,
                  counter: TokenCounter, max_tokens: int) -> SummaryResult:
        self.seen.append(tuple(messages))
        return SummaryResult(f"summary of {len(messages)} messages", model="recorder")


def test_summarization_keeps_the_last_20_messages_and_puts_the_summary_first() -> None:
    session = tool_session(15, follow_up=True)  # system + 33 messages: the 20th from the end is a6
    recorder = Recorder()
    strategy = get_strategy("langchain_summarization", summarizer=recorder)
    r = strategy.compress(session, APPROX.count_messages(session), counter="o200k_base")  # over 0.8 of it
    assert r.messages[0].id == "s"
    note = r.messages[1]
    assert note.text == "Here is a summary of the conversation to date:\n\nsummary of 13 messages"
    assert (note.role, note.mark) == ("user", "summary")
    assert r.messages[2:] == session[-20:] and r.messages[2].id == "a6"
    assert [m.id for m in recorder.seen[0]] == ["u", *(x for i in range(6) for x in (f"a{i}", f"t{i}"))]


def test_summarization_moves_a_cut_on_tool_results_back_to_the_calling_message() -> None:
    session = tool_session(15, follow_up=True)
    r = get_strategy("langchain_summarization", keep_messages=21, summarizer=Recorder()).compress(
        session, APPROX.count_messages(session), counter="o200k_base")
    assert r.messages[2:] == session[-22:] and r.messages[2].id == "a5"  # 21 cuts on t5: a5 comes back with it


def test_summarization_trigger_is_inclusive_at_the_chosen_fraction() -> None:
    session = tool_session(15, follow_up=True)
    total = APPROX.count_messages(session)
    at = next(b for b in range(total, 2 * total) if int(b * 0.8) == total)
    over = next(b for b in range(at, 2 * total) if int(b * 0.8) == total + 1)
    assert get_strategy("langchain_summarization", summarizer=Recorder()).compress(session, at).messages != session
    assert get_strategy("langchain_summarization", summarizer=Recorder()).compress(session, over).messages == session


def test_summarizer_input_is_trimmed_like_langchain() -> None:
    """_trim_messages_for_summary: the last 4,000 tokens, starting on a human message, partial allowed."""
    c = Convo().system()
    for turn in range(8):
        c.user(f"Audit package {turn}.")
        for _ in range(8):
            c.tools(("read_file", "y" * 300), text="Reading.")
    session = c.user("Now fix what you found.").build()
    recorder = Recorder()
    r = get_strategy("langchain_summarization", summarizer=recorder).compress(session, 1000, counter="o200k_base")
    folded = session[1:[m.id for m in session].index(r.messages[2].id)]
    expected = langchain_trim(folded, 4000, start_on="human", allow_partial=True)
    assert expected and [(m.id, content(m)) for m in recorder.seen[0]] == [(m.id, content(m)) for m in expected]
    assert APPROX.count_messages(recorder.seen[0]) <= 4000 and recorder.seen[0][0].role == "user"


def test_one_long_agent_turn_is_too_long_to_summarize() -> None:
    """A single request followed by a long tool loop: the trimmed summarizer input has no human
    message to start on, so LangChain's summary is its "too long" sentence."""
    session = tool_session(60, output="y" * 300, follow_up=True)
    recorder = Recorder()
    r = get_strategy("langchain_summarization", summarizer=recorder).compress(session, 1000, counter="o200k_base")
    assert recorder.seen == [] and r.summary == "Previous conversation was too long to summarize."


def test_clear_tool_uses_keeps_the_last_three_results_over_100k_tokens() -> None:
    session = tool_session(6, output="z" * 80_000)  # ~20k approximate tokens per result
    assert APPROX.count_messages(session) > 100_000
    r = get_strategy("langchain_clear_tool_uses").compress(session, 1_000_000, counter="o200k_base")
    texts = {m.id: m.text for m in r.messages}
    assert [texts[f"t{i}"] for i in range(3)] == ["[cleared]"] * 3
    assert all(texts[f"t{i}"].startswith("z") for i in range(3, 6))
    assert [m.id for m in r.messages] == [m.id for m in session] and set(r.truncated_ids) == {"t0", "t1", "t2"}


def test_clear_tool_uses_waits_until_strictly_over_the_trigger() -> None:
    session = tool_session(6)
    total = APPROX.count_messages(session)
    assert get_strategy("langchain_clear_tool_uses", trigger_tokens=total).compress(session, 10).messages == session
    cleared = get_strategy("langchain_clear_tool_uses", trigger_tokens=total - 1).compress(session, 10)
    assert cleared.truncated_ids == ("t0", "t1", "t2")
