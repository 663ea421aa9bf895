"""Where an agent's own preset compacts, beside where the agent compacted in its log.

An agent log records its compactions (``meta.compactions``: at message ``at`` the agent replaced
the history). Replaying the log per turn at the log's window (`replay_steps`, with the recorded
provider usage of earlier calls, and one more call after the last message, where an agent that
compacted at the very end did) with the preset that follows that agent (`PRESETS`: Claude Code,
pi, Codex) gives the calls where the preset compacts. The k-th recorded compaction is lined up with
the preset's k-th: how many calls apart (negative: the preset compacted earlier) and how many
tokens apart (what the preset measured when it fired, against the agent's own ``tokens_before``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

from ctxlab.errors import CtxlabError
from ctxlab.messages import Conversation
from ctxlab.metrics.compactions import recorded_compactions
from ctxlab.models import context_window
from ctxlab.replay.steps import Step, replay_steps
from ctxlab.strategies import get_strategy
from ctxlab.strategies.base import FIRED
from ctxlab.tokens import TokenCounter

PRESETS = {"claude_code": "claude_code", "pi": "pi", "codex": "codex"}  # log format -> the agent's preset
CLAUDE_WINDOW, CLAUDE_1M = 200_000, 1_000_000


class LinedUp(NamedTuple):
    """One recorded compaction beside the preset's compaction of the same rank.

    Attributes:
        conversation_id, compaction: the log and the compaction's position in ``meta.compactions``.
        preset, window: the preset replayed and the window it was replayed at.
        agent_call, agent_at, agent_tokens: the call (numbered from 1 among the replay's calls)
            before which the agent compacted, its message index, and the agent's own count.
        preset_call, preset_at, preset_tokens, signal: the same for the preset (None: it never
            compacted that often), what its trigger measured and from which signal.
        calls_apart, tokens_apart: preset minus agent.
        context_tokens: the context the preset was given at the agent's call, under the replay's
            counter (what a counter-based trigger measured there: why it did or did not fire).
        error: why the compaction could not be lined up.
    """

    conversation_id: str
    compaction: int
    preset: str
    window: int
    agent_call: int | None = None
    agent_at: int | None = None
    agent_tokens: int | None = None
    preset_call: int | None = None
    preset_at: int | None = None
    preset_tokens: int | None = None
    signal: str | None = None
    calls_apart: int | None = None
    tokens_apart: int | None = None
    context_tokens: int | None = None
    error: str | None = None


class Firing(NamedTuple):
    """A call where the preset compacted: its number (from 1), where it was made, what the trigger
    measured and from which signal."""

    call: int
    at: int
    tokens: int
    signal: str


def log_window(conversation: Conversation) -> int:
    """The window the agent ran with: Claude Code's 200,000 (1,000,000 for a ``[1m]`` model), else
    the log's model's in litellm's map.

    Raises:
        CtxlabError: a log without a model, or one litellm does not know (pass the window).
    """
    meta = conversation.meta or {}
    model = str(meta.get("model") or "")
    if meta.get("format") == "claude_code":
        return CLAUDE_1M if "[1m]" in model else CLAUDE_WINDOW
    if not model:
        raise CtxlabError(f"{conversation.id}: the log names no model; pass the window")
    return context_window(model)


def line_up(conversation: Conversation, counter: TokenCounter, window: int | None = None) -> list[LinedUp]:
    """Each recorded compaction of `conversation` beside its agent's preset's (see the module
    docstring); [] for a log whose agent has no preset or that recorded no compaction."""
    preset = PRESETS.get(str((conversation.meta or {}).get("format")))
    records = recorded_compactions(conversation)
    if preset is None or not records:
        return []
    try:
        size = window or log_window(conversation)
    except CtxlabError as exc:
        return [LinedUp(conversation.id, r.number, preset, 0, error=str(exc)) for r in records]
    steps = replay_steps(get_strategy(preset), conversation, size, counter, "per-turn", after_last=True)
    ats = [r.at for r in records if r.at is not None]
    calls, sizes, firings = _walk(steps, len(ats), max(ats, default=0))
    return [_row(LinedUp(conversation.id, r.number, preset, size), r.at, r.tokens_before, (calls, sizes), firings, k)
            for k, r in enumerate(records)]


def _walk(steps: Iterator[Step], wanted: int, last_at: int) -> tuple[list[int], list[int | None], list[Firing]]:
    """The message index and context size of every call replayed, and the preset's firings, until
    there are `wanted` of them and the calls have passed `last_at`."""
    calls: list[int] = []
    sizes: list[int | None] = []
    firings: list[Firing] = []
    for step in steps:
        at = step.upto if step.upto is not None else step.turn
        calls.append(at)
        result = step.result
        sizes.append(result.tokens_before if result is not None else None)
        if result is not None and result.messages != step.context:
            fired = next((e.payload for e in result.events if e.name == FIRED), None)
            tokens, signal = (fired["tokens"], fired["signal"]) if fired else (result.tokens_before, "counter")
            firings.append(Firing(len(calls), at, tokens, signal))
        if len(firings) >= wanted and at >= last_at:
            break
    return calls, sizes, firings


def _row(row: LinedUp, at: int | None, tokens: int | None, replayed: tuple[list[int], list[int | None]],
         firings: list[Firing], k: int) -> LinedUp:
    if at is None:
        return row._replace(error="the compaction record has no usable position (at/index)")
    calls, sizes = replayed
    agent_call = next((n for n, upto in enumerate(calls, 1) if upto >= at), None)
    row = row._replace(agent_call=agent_call, agent_at=at, agent_tokens=tokens,
                       context_tokens=None if agent_call is None else sizes[agent_call - 1])
    if k >= len(firings):
        return row
    f = firings[k]
    return row._replace(preset_call=f.call, preset_at=f.at, preset_tokens=f.tokens, signal=f.signal,
                        calls_apart=None if agent_call is None else f.call - agent_call,
                        tokens_apart=None if tokens is None else f.tokens - tokens)


__all__ = ["PRESETS", "Firing", "LinedUp", "line_up", "log_window"]
