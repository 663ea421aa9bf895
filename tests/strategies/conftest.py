"""Hypothesis strategies that generate valid conversations for strategy tests.

    from tests.strategies.conftest import conversations, budgets

Conversations mix English, arbitrary Unicode, Chinese and Japanese text, huge tool outputs (around
the 4000 and 50,000 character thresholds of seeds 000 and 003), list-of-parts content, optional
names, parallel tool-call batches whose results come back in any order, leading assistant messages
and conversations without a user message. Every generated conversation passes
`validate_messages`; ids are ``m<position>`` and call ids ``call_<n>``.
"""

from __future__ import annotations

import functools

from hypothesis import strategies as st

from ctxlab.messages import Message, ToolCall, validate_messages
from tests.builders import cjk_text, huge_text, japanese_text, prose

TOOL_NAMES = ("read_file", "grep", "run_tests", "list_dir", "web_fetch")
# Sizes straddling the seeds' thresholds: sliding_window cuts at 4000, window_guard at 50,000.
HUGE_SIZES = (3_999, 4_000, 4_001, 9_000, 50_000, 50_001, 120_000)

# One shared string per size, so thousands of examples do not pin thousands of copies in the
# counters' message caches.
_huge = functools.lru_cache(maxsize=None)(huge_text)

texts = st.one_of(
    st.builds(prose, st.integers(0, 400), st.integers(0, 15)),
    st.text(max_size=40),
    st.builds(cjk_text, st.integers(1, 300)),
    st.builds(japanese_text, st.integers(1, 200)),
    st.builds(prose, st.integers(0, 400), st.integers(0, 15)),
    st.sampled_from(HUGE_SIZES).map(_huge),
)
contents = st.one_of(texts, texts, texts, st.lists(texts, min_size=1, max_size=3).map(tuple))
names = st.one_of(st.none(), st.none(), st.sampled_from(("alice", "bob_2")))
arguments = st.one_of(st.just("{}"), st.builds(lambda n: f'{{"path": "src/mod_{n}.py"}}', st.integers(0, 99)),
                      st.builds(lambda t: f'{{"q": "{t}"}}', st.builds(cjk_text, st.integers(1, 30))))


class _Builder:
    """Appends messages with positional ids and sequential call ids."""

    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.calls = 0

    def add(self, role: str, content: object, **fields: object) -> None:
        message = Message(role=role, content=content, id=f"m{len(self.messages)}", **fields)  # type: ignore[arg-type]
        self.messages.append(message)

    def step(self, draw: st.DrawFn) -> None:
        """One agent step: a text reply, or a batch of 1-3 parallel calls and their results."""
        if draw(st.integers(0, 2)) == 0:
            self.add("assistant", draw(contents))
            return
        calls = tuple(ToolCall(f"call_{self.calls + k}", draw(st.sampled_from(TOOL_NAMES)), draw(arguments))
                      for k in range(draw(st.integers(1, 3))))
        self.calls += len(calls)
        self.add("assistant", draw(st.one_of(st.none(), texts)), tool_calls=calls)
        for k in draw(st.permutations(range(len(calls)))):
            name = calls[k].name if draw(st.booleans()) else None
            self.add("tool", draw(texts), tool_call_id=calls[k].id, name=name)


@st.composite
def conversations(draw: st.DrawFn, max_turns: int = 6, max_steps: int = 4) -> tuple[Message, ...]:
    """A valid conversation: optional system prompt(s), optional assistant preamble, user turns
    each followed by agent steps (text replies or parallel tool exchanges)."""
    b = _Builder()
    for _ in range(draw(st.sampled_from((0, 1, 1, 1, 2)))):
        b.add("system", draw(contents))
    if draw(st.integers(0, 9)) == 0:  # ShareGPT records often start with the assistant
        b.step(draw)
    for _ in range(draw(st.integers(0, max_turns))):
        b.add("user", draw(contents), name=draw(names))
        for _ in range(draw(st.integers(0, max_steps))):
            b.step(draw)
    if not b.messages:
        b.add("user", draw(texts))
    messages = tuple(b.messages)
    validate_messages(messages)
    return messages


def budgets(total: int) -> st.SearchStrategy[int]:
    """Budgets from tiny to above `total` (most of them forcing some compression)."""
    return st.one_of(st.integers(1, 30), st.integers(1, max(1, total)),
                     st.integers(1, 120).map(lambda pct: max(1, total * pct // 100)))
