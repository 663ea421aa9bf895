"""The policy model's attempts loop (``retry="keep_less"``), the ``rounds`` tail and the shared-cap
summary writer: `compaction` and `compaction_seed001` are this loop, so a `Policy` with their
settings keeps the very same messages on the bundled sessions."""

from __future__ import annotations

import pytest

import ctxlab
from ctxlab.messages import Message
from ctxlab.replay.steps import replay_steps
from ctxlab.strategies import get_strategy
from ctxlab.strategies.mechanics.voices import VOICES
from ctxlab.strategies.policy import Policy, split_cap
from ctxlab.summarize import SummaryResult
from ctxlab.tokens import get_counter
from tests.builders import Convo, huge_text

# `compaction`'s defaults as policy fields (seed 001's trigger, head, rounds and attempts).
SEED = {"trigger": "share", "trigger_share": 0.8, "trigger_inclusive": True, "fold_previous": True,
        "tail": "rounds", "keep_rounds": 2, "snap": "group_start", "split_turns": True, "middle": "summarize",
        "summary_split": "shared", "retry": "keep_less", "passes": 3}


def rounds(n: int, output_chars: int = 3000) -> tuple[Message, ...]:
    """System, then `n` rounds of: a task, a read with its output, a reply."""
    c = Convo().system()
    for t in range(n):
        c.user(f"Task {t}: fix src/mod_{t}.py.").tools(("read_file", huge_text(output_chars, f"R{t}>")), text="Reading.")
        c.assistant(f"Fixed mod_{t}.")
    return c.build()


def sessions(n: int = 12) -> list[ctxlab.Conversation]:
    out = []
    for conv in ctxlab.load_conversations("sample:agent_sessions"):
        out.append(conv)
        if len(out) == n:
            return out
    return out


@pytest.mark.parametrize(("seed", "fields"), [
    ("compaction", {}),
    ("compaction:keep_recent_tokens=1500", {"tail": "recent_tokens", "keep_tokens": 1500}),
    ("compaction_seed001", {"summary_max_chars": 1000}),
])
def test_a_policy_with_the_seed_settings_keeps_what_the_seed_keeps(seed: str, fields: dict) -> None:
    policy = Policy(**{**SEED, **fields})
    compacted = 0
    for conv in sessions():
        for budget in (2000, 6000):
            want = get_strategy(seed).compress(conv.messages, budget, counter="o200k_base", tools=conv.tools)
            got = policy.compress(conv.messages, budget, counter="o200k_base", tools=conv.tools)
            assert got.messages == want.messages, (conv.id, budget)
            assert got.summary == want.summary and got.fits == want.fits
            compacted += want.messages != conv.messages
    assert compacted >= 12  # most of the 24 cases compact: the comparison is not between no-ops


def test_per_turn_the_policy_merges_carried_summaries_as_the_seed_does() -> None:
    """A per-turn replay hands each call the previous call's output: the carried summary is merged
    (or kept whole, or written again into the room left) by the same code."""
    policy, counter = Policy(**SEED), get_counter("o200k_base")
    carried = 0
    for conv in sessions(4):
        want = list(replay_steps(get_strategy("compaction"), conv, 2000, counter, "per-turn"))
        got = list(replay_steps(policy, conv, 2000, counter, "per-turn"))
        assert [s.result.messages for s in got] == [s.result.messages for s in want], conv.id
        carried += sum(any(m.mark == "summary" for m in s.result.messages) for s in want)
    assert carried >= 10


def test_keep_less_reports_one_compaction_with_its_attempts() -> None:
    msgs = rounds(8)
    r = Policy(**SEED).compress(msgs, 3000, counter="o200k_base")
    done = [e.payload for e in r.events if e.name == "policy.compacted"]
    assert len(done) == 1 and 1 <= done[0]["pass"] <= 3 and r.fits
    assert done[0]["tokens_after"] < done[0]["tokens_before"]
    seed = get_strategy("compaction").compress(msgs, 3000, counter="o200k_base")
    assert done[0]["pass"] == next(e.payload["attempts"] for e in seed.events if e.name == "context_compacted")


def test_the_rounds_tail_keeps_the_last_rounds_from_a_real_user_message() -> None:
    msgs = rounds(5, 200)
    r = Policy(trigger="always", tail="rounds", keep_rounds=2).compress(msgs, 100_000, counter="o200k_base")
    users = [i for i, m in enumerate(msgs) if m.role == "user"]
    assert r.messages == (msgs[0], *msgs[users[-2]:])


def test_rounds_and_keep_less_refuse_settings_they_cannot_run() -> None:
    with pytest.raises(ValueError, match="keep_rounds"):
        Policy(tail="rounds")
    with pytest.raises(ValueError, match="retry=keep_less"):
        Policy(tail="recent_messages", keep_messages=4, snap="group_start", retry="keep_less")
    with pytest.raises(ValueError, match="summary_split=shared"):
        Policy(voice="pi", summary_split="shared")


class Broken:
    """A summarizer whose every call fails (as an LLM behind a dead endpoint does)."""

    name = "broken"

    def summarize(self, messages, *, previous_summary=None, counter, max_tokens) -> SummaryResult:
        return SummaryResult("", model="broken-model", error="HTTP 500")


@pytest.mark.parametrize("split", ["own", "shared"])
def test_a_failed_summary_falls_back_offline_or_is_dropped(split: str) -> None:
    msgs = rounds(8)
    base = {"trigger": "always", "tail": "recent_messages", "keep_messages": 6, "snap": "group_start",
            "middle": "summarize", "summary_split": split, "summarizer": Broken()}
    offline = Policy(**base).compress(msgs, 100_000, counter="o200k_base")
    calls = [e.payload for e in offline.events if e.name == "summary_call"]
    assert offline.summary and calls and all(c["error"] == "HTTP 500" for c in calls)
    dropped = Policy(**base, summary_on_error="drop").compress(msgs, 100_000, counter="o200k_base")
    assert dropped.messages == msgs and dropped.summary is None


def test_the_shared_cap_gives_a_split_turns_prefix_a_third() -> None:
    msgs = [Message("user", "earlier work " * 40, id="u0"), Message("assistant", "done " * 40, id="a0"),
            Message("user", "now this " * 40, id="u1"), Message("assistant", "step " * 40, id="a1")]
    caps = split_cap.Caps(300, 0, get_counter("o200k_base"))
    history, prefix = split_cap.parts(msgs, (0, 1), 0, (2, 3), VOICES["ctxlab"], caps)
    join = history.cap + prefix.cap
    assert (history.name, prefix.name) == ("history", "turn_prefix") and join < 300
    assert prefix.cap == join // 3 and history.cap == join - join // 3
    (alone,) = split_cap.parts(msgs, (), 0, (2, 3), VOICES["ctxlab"], caps)
    assert alone.name == "turn_prefix" and alone.cap == join
