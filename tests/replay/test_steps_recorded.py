"""A per-turn replay hands each call the provider usage the log recorded for the calls before it,
never its own or a later one's, and only while the context is still the log's own history."""

from __future__ import annotations

from dataclasses import dataclass, field

from ctxlab.datasets.logs.deltas import calls_before_compaction
from ctxlab.messages import Conversation, Message
from ctxlab.replay.steps import replay_steps
from ctxlab.strategies import BaseStrategy, Plan, Request
from ctxlab.strategies.signals import Recorded
from ctxlab.tokens import get_counter


@dataclass(frozen=True)
class Spy(BaseStrategy):
    """Records what each call was given; drops the oldest message from call `cut_at` on."""

    seen: list = field(default_factory=list, compare=False)
    cut_at: int = 10**9

    def plan(self, request: Request) -> Plan:
        self.seen.append((len(request.messages), request.recorded))
        return Plan(request.messages[1:] if len(self.seen) >= self.cut_at else request.messages)


def conversation(compactions: tuple = ()) -> Conversation:
    """u a u a u a u a (assistant replies at 1, 3, 5, 7), each call's usage recorded."""
    messages = tuple(Message("user" if i % 2 == 0 else "assistant", f"m{i}", id=f"m{i}") for i in range(8))
    calls = [{"index": i, "model": "m", "prompt_tokens": 100 * i, "output_tokens": i} for i in (1, 3, 5, 7)]
    return Conversation("c", messages, meta={"provider_calls": calls, "compactions": list(compactions)})


def test_each_call_gets_only_the_calls_before_it() -> None:
    spy = Spy()
    list(replay_steps(spy, conversation(), 10_000, get_counter("chars4"), "per-turn", after_last=True))
    assert spy.seen == [(1, ()), (3, (Recorded(1, 100, 1),)), (5, (Recorded(1, 100, 1), Recorded(3, 300, 3))),
                        (7, (Recorded(1, 100, 1), Recorded(3, 300, 3), Recorded(5, 500, 5))),
                        (8, (Recorded(1, 100, 1), Recorded(3, 300, 3), Recorded(5, 500, 5), Recorded(7, 700, 7)))]


def test_none_once_the_strategy_changed_what_it_sends() -> None:
    spy = Spy(cut_at=2)  # the second call drops a message: from the third on the log's prompts no longer hold
    list(replay_steps(spy, conversation(), 10_000, get_counter("chars4"), "per-turn"))
    assert [recorded for _, recorded in spy.seen] == [(), (Recorded(1, 100, 1),), (), ()]


def test_calls_after_the_agents_own_compaction_are_left_out() -> None:
    # The agent compacted before its call at 5: that call's prompt held its summary, not messages[:5].
    conv = conversation(({"index": 5, "at": 5, "summary": "s"},))
    assert calls_before_compaction(conv) == [(1, 100, 1), (3, 300, 3)]
    spy = Spy()
    list(replay_steps(spy, conv, 10_000, get_counter("chars4"), "per-turn"))
    assert spy.seen[-1] == (7, (Recorded(1, 100, 1), Recorded(3, 300, 3)))
