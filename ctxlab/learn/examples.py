"""Training examples: at sampled calls of a recorded session, every old tool output with the
features the history so far gives it and whether the agent soon needed it.

**Unit**: a tool output (a ``tool`` message): where the tokens of an agent's context are, and what
the rules clear or fold. **Features**: `ctxlab.strategies.mechanics.need.item_features` on
``messages[:t]`` only, the code the `learned` policy runs. **Label**: the output holds a *needed
string* (`ctxlab.metrics.needed`: a specific string an action took verbatim from earlier history)
of one of the next `horizon` calls, counting only strings that nothing the policy keeps anyway
holds: no message among the newest `recent_events` events before the call (the working set every
rule keeps whole) holds it. An output is credited only for what it alone (with other old outputs)
could bring back, the issue's lesson: an output repeating what the newest messages say is worth
nothing to rescue.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from ctxlab.messages import Conversation, Message
from ctxlab.metrics.needed import SessionNeeds
from ctxlab.strategies.mechanics import system_prefix
from ctxlab.strategies.mechanics.need import item_features
from ctxlab.strategies.trigger import event_sizes
from ctxlab.tokens import TokenCounter

HORIZON = 10  # calls whose needed strings label an output
RECENT_EVENTS = 4  # the working set: about the newest two tool calls with their results
MAX_CALLS = 80  # calls sampled per session, evenly spaced (a long session does not drown the rest)


class Examples(NamedTuple):
    """Feature rows, their labels and the session (index) each came from."""

    rows: list[list[float]]
    labels: list[int]
    sessions: list[int]

    @classmethod
    def empty(cls) -> Examples:
        return cls([], [], [])

    def extend(self, other: Examples) -> None:
        self.rows.extend(other.rows)
        self.labels.extend(other.labels)
        self.sessions.extend(other.sessions)


def session_examples(conversation: Conversation, counter: TokenCounter, session: int = 0, *,
                     horizon: int = HORIZON, recent_events: int = RECENT_EVENTS,
                     max_calls: int = MAX_CALLS) -> tuple[Examples, int]:
    """The examples of one session and how many needed strings its calls have in all."""
    needs = SessionNeeds.build(conversation, counter)
    calls = sorted(needs.calls)
    out = Examples.empty()
    step = max(1, -(-len(calls) // max_calls))
    for at in range(0, len(calls), step):
        t = calls[at]
        wanted = {n.text for later in calls[at:at + horizon] for n in needs.calls[later]}
        rows, labels = call_examples(needs, t, wanted, recent_events)
        out.extend(Examples(rows, labels, [session] * len(rows)))
    return out, sum(len(n) for n in needs.calls.values())


def call_examples(needs: SessionNeeds, t: int, wanted: set[str], recent_events: int) -> tuple[list[list[float]],
                                                                                                list[int]]:
    """Features and labels of the old tool outputs before call `t` (see the module docstring)."""
    messages = needs.conversation.messages[:t]
    recent = recent_start(messages, recent_events)
    items = [i for i in range(system_prefix(messages), recent) if messages[i].role == "tool"]
    if not items:
        return [], []
    credited: set[int] = set()
    for s in wanted:
        holders = [j for j in needs.holdings[s].indices if j < t]
        if holders and holders[-1] < recent:
            credited.update(holders)
    return item_features(messages, needs.tokens[:t], items), [int(i in credited) for i in items]


def recent_start(messages: Sequence[Message], events: int) -> int:
    """Where the newest `events` events (OpenHands' count) begin."""
    total = 0
    for j, size in zip(range(len(messages) - 1, -1, -1), reversed(event_sizes(messages)), strict=True):
        total += size
        if total > events:
            return j + 1
    return 0


__all__ = ["HORIZON", "MAX_CALLS", "RECENT_EVENTS", "Examples", "call_examples", "recent_start", "session_examples"]
