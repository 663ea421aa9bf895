"""`compaction`: seed 001's Pi-style compaction, with pi-mono's cut points, split turns and
incremental summaries.

When the request reaches ``trigger_ratio`` x the limit (seed 001: 0.8 x max tokens; the limit is
``min(budget, window - reserve_tokens)`` when a window is configured, pi-mono's trigger), the
system prompt is kept, tool definitions stay in the request, the last `keep_recent_rounds`
rounds (or pi-mono's `keep_recent_tokens`) are kept, and everything between is replaced by ONE
summary message right after the system prompt. A cut never separates a tool call from its
result; a cut inside a turn gets its own turn-prefix summary (pi-mono). A summary already in the
input (``mark="summary"``, e.g. carried forward by a per-turn replay) is merged, not summarized
blindly. If the result does not fit, fewer recent messages are kept (up to `max_attempts`), and
the last attempt keeps whole tool groups newest-first (a window) and summarizes the rest.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, ClassVar, NamedTuple

from ctxlab.messages import Message
from ctxlab.models import context_window
from ctxlab.strategies.base import BaseStrategy, Event, Plan, Request, summary_call
from ctxlab.strategies.mechanics.context import Usage, system_prefix, tool_groups
from ctxlab.strategies.mechanics.cuts import find_cut_point
from ctxlab.strategies.registry import register
from ctxlab.summarize import Summarizer, SummaryResult, get_summarizer
from ctxlab.summarize.extractive import ExtractiveSummarizer
from ctxlab.summarize.message import join_turn_context, summary_message, unwrap, wrap
from ctxlab.tokens import CachedCounter
from ctxlab.tokens.clip import clip_to_tokens

MIN_SUMMARY_TOKENS = 48
# Seed 001's question before a compaction (用户确认), verbatim.
CONFIRMATION_QUESTION = ("上下文即将达到上限 ({current_tokens}/{max_tokens} tokens)。\n"
                         "建议压缩对话历史，保留关键信息。\n是否同意压缩？")
# Answers `confirm` may give (or be): compact, drop the oldest messages, or start a new session.
AGREE = (True, "yes", "compact")
WINDOW = (False, "no", "window")
VERDICTS = (*AGREE, *WINDOW, "new_session")
# Header and summary counted together can differ from the sum of their parts by a token or two.
_MARGIN = 4


class _Ctx(NamedTuple):
    """One compaction job: the request and the fixed positions and costs every attempt uses."""

    request: Request
    limit: int
    sys_n: int
    body_start: int
    newest: int | None
    available: int
    header: int

    @property
    def msgs(self) -> tuple[Message, ...]:
        return self.request.messages


class _Outcome(NamedTuple):
    """A compaction: the messages (system prompt, then the summary message when `head` says so)."""

    messages: tuple[Message, ...]
    head: int
    summary: str
    summarized: tuple[int, ...]
    split: bool
    calls: tuple[tuple[str, SummaryResult], ...]
    error: str | None
    fallback: str | None


@register("compaction")
@dataclass(frozen=True)
class Compaction(BaseStrategy):
    """Summarize the old part of the conversation, keep the system prompt and the recent rounds.

    Attributes:
        summarizer: ``extractive`` (offline), ``llm`` (litellm; model from ``model`` or env
            ``CTXLAB_LLM_MODEL``), a spec string (``llm:model=x,prompt=seed001``) or an object.
        trigger_ratio: compact when the request reaches this share of the limit (seed 001: 0.8).
        context_window, model: a window (tokens, or looked up for a litellm model name); with
            one the limit is ``min(budget, window - reserve_tokens)`` (pi-mono).
        reserve_tokens: room kept free for the reply when a window is set (pi-mono: 16384).
        keep_recent_rounds: user rounds kept verbatim (seed 001: 2).
        keep_recent_tokens: keep about this many recent tokens instead of rounds (pi-mono's
            ``keepRecentTokens``, 20000 there); None keeps rounds.
        summary_max_tokens: cap of the summary in tokens of the counter given (see docs/summaries.md).
        summary_max_chars: cap of the summary in characters, seed 001's ``summary_max_length``
            (1000 in `compaction_seed001`); None for none. The extractive summarizer keeps whole
            items within it; a longer LLM reply is cut to it (the seed's ``summary[:max]``).
        max_attempts: compaction passes before giving up (each keeps fewer recent messages).
        prompt: the LLM summarizer's prompt, ``structured`` or ``seed001``.
        on_error: when the summarizer fails: ``extractive`` summarizes offline instead,
            ``window`` drops the oldest messages without a summary.
        confirm: seed 001's user confirmation: None (not asked), a callable ``(Usage) -> answer``
            or a fixed answer; answers are ``yes`` / True (compact), ``no`` / False / ``window``
            (drop the oldest messages) or ``new_session``. The events record the seed's question.
    """

    seed_counter: ClassVar[str] = "chars2"

    summarizer: Any = "extractive"
    trigger_ratio: float = 0.8
    context_window: int = 0
    model: str = ""
    reserve_tokens: int = 16384
    keep_recent_rounds: int = 2
    keep_recent_tokens: int | None = None
    summary_max_tokens: int = 2000
    summary_max_chars: int | None = None
    max_attempts: int = 3
    prompt: str = "structured"
    on_error: str = "extractive"
    confirm: Any = None

    def __post_init__(self) -> None:
        if not 0 < self.trigger_ratio:
            raise ValueError("trigger_ratio must be positive")
        if self.keep_recent_rounds < 1 or self.max_attempts < 1 or self.summary_max_tokens < 16:
            raise ValueError("keep_recent_rounds and max_attempts must be >= 1, summary_max_tokens >= 16")
        if self.keep_recent_tokens is not None and int(self.keep_recent_tokens) < 1:
            raise ValueError("keep_recent_tokens must be a positive number of tokens or None")
        if self.summary_max_chars is not None and int(self.summary_max_chars) < 16:
            raise ValueError("summary_max_chars must be at least 16 characters, or None")
        if self.confirm is not None and not callable(self.confirm) and self.confirm not in VERDICTS:
            raise ValueError(f"confirm must be a callable or one of {', '.join(map(str, VERDICTS))}")
        if self.on_error not in ("extractive", "window") or self.prompt not in ("structured", "seed001"):
            raise ValueError("on_error must be extractive or window; prompt structured or seed001")
        window = self.configured
        if window is not None and window <= self.reserve_tokens:
            raise ValueError(f"window {window} leaves no room after reserve_tokens={self.reserve_tokens}")

    @cached_property
    def configured(self) -> int | None:
        if self.context_window:
            return int(self.context_window)
        if not self.model:
            return None
        return context_window(self.model)

    @cached_property
    def engine(self) -> Summarizer:
        """The summarizer; ``llm`` without a model of its own uses `model` (pi-mono summarizes
        with the session's model) and `prompt`."""
        spec = self.summarizer
        if spec == "llm" or (isinstance(spec, str) and spec.startswith("llm:")):
            extra = {"prompt": self.prompt} if "prompt=" not in spec else {}
            if self.model and "model=" not in spec:
                extra["model"] = self.model
            return get_summarizer(spec, **extra)
        return get_summarizer(spec)

    def limit(self, budget: int) -> int:
        return min(budget, self.configured - self.reserve_tokens) if self.configured else budget

    def trigger(self, limit: int) -> int:
        """Seed 001's ``int(max_tokens * trigger_ratio)``: compaction starts at this many tokens."""
        return int(limit * self.trigger_ratio)

    def plan(self, request: Request) -> Plan:
        limit = self.limit(request.budget)
        if request.total < self.trigger(limit):  # seed 001: should_compact is tokens >= threshold
            return Plan(request.messages, summary=_summary_of(request.messages), dropped_ids=())
        ctx = _context(request, limit)
        asked = self._ask(Usage(request.total, limit))
        if asked is not None and asked["answer"] not in AGREE:
            return self._declined(ctx, asked)
        floor = min(self.summary_max_tokens, max(MIN_SUMMARY_TOKENS, ctx.available // 8))
        outcome, attempts = None, 0
        for cut in self._cuts(ctx):
            attempts += 1
            outcome = self._compact(ctx, cut, floor)
            if outcome is not None:
                break
        if outcome is None:  # the last attempt: keep the newest whole groups that leave room
            attempts += 1
            reserve = min(self.summary_max_tokens, max(MIN_SUMMARY_TOKENS, ctx.available // 4))
            outcome = self._compact(ctx, _suffix_start(ctx, ctx.available - reserve - ctx.header), 16)
        if outcome is None:
            outcome = self._carry(ctx)
        if outcome is None or request.cost(outcome.messages) + request.overhead > limit:
            head = outcome.messages[:outcome.head] if outcome else ctx.msgs[:ctx.sys_n]
            kept = _window(ctx, head)
            outcome = (outcome._replace(messages=kept, fallback="window") if outcome
                       else _Outcome(kept, ctx.sys_n, "", (), False, (), None, "window"))
        if outcome.messages == request.messages:
            event = Event("compaction_skipped", {"original_tokens": request.total, "limit": limit,
                                                 "reason": "nothing old enough to compact"})
            return Plan(request.messages, events=[event], summary=_summary_of(request.messages), dropped_ids=())
        return self._plan(ctx, outcome, attempts, asked)

    def _ask(self, usage: Usage) -> dict[str, Any] | None:
        """Seed 001's 用户确认: the question it asks and the answer (None when not asked)."""
        if self.confirm is None:
            return None
        answer = self.confirm(usage) if callable(self.confirm) else self.confirm
        question = CONFIRMATION_QUESTION.format(current_tokens=usage.used, max_tokens=usage.budget)
        return {"question": question, "answer": answer}

    def _carry(self, ctx: _Ctx) -> _Outcome | None:
        """Nothing new to summarize: keep the carried summary, re-fitted to the room left when it
        no longer fits, and drop the oldest messages after it if they do not."""
        previous = list(range(ctx.sys_n, ctx.body_start))
        if not previous:
            return None
        counts = ctx.request.counts
        room = ctx.available - (counts[ctx.newest] if ctx.newest is not None else 0)
        if sum(counts[i] for i in previous) <= room:
            return _Outcome(_window(ctx, ctx.msgs[:ctx.body_start]), ctx.body_start, "", (), False, (), None, None)
        text, calls, error, fallback = self._summarize(ctx, [], [], previous, room - ctx.header)
        if not text:
            return None
        ids = [*(s for i in previous for s in ctx.msgs[i].source_ids), *(ctx.msgs[i].id for i in previous)]
        head = (*ctx.msgs[:ctx.sys_n], summary_message(text, list(dict.fromkeys(ids)), {m.id for m in ctx.msgs}))
        return _Outcome(_window(ctx, head), len(head), text, tuple(previous), False, calls, error, fallback)

    def _cuts(self, ctx: _Ctx) -> list[int]:
        """First kept index of each regular attempt, keeping fewer recent messages each time."""
        msgs, n = ctx.msgs, len(ctx.msgs)
        tries = max(1, self.max_attempts - 1)
        if self.keep_recent_tokens:
            keep = min(int(self.keep_recent_tokens), max(ctx.available, 1))
            cuts = [find_cut_point(msgs, ctx.request.counts, max(1, keep >> k), ctx.body_start).index
                    for k in range(tries)]
        else:
            starts = [i for i in range(ctx.body_start, n) if _real_user(msgs[i])] or [n]
            rounds = [r for r in range(self.keep_recent_rounds, self.keep_recent_rounds - tries, -1) if r >= 1]
            cuts = [starts[-r] if len(starts) >= r else starts[0] for r in rounds]
        return [c for i, c in enumerate(cuts) if c > ctx.body_start and c not in cuts[:i]]

    def _compact(self, ctx: _Ctx, cut: int, floor: int) -> _Outcome | None:
        """Summarize everything before `cut` but the pinned newest user message; None when there
        is nothing new to summarize or the kept messages leave less than `floor` tokens for it."""
        msgs, counts = ctx.msgs, ctx.request.counts
        kept = list(range(max(cut, ctx.body_start), len(msgs)))
        if ctx.newest is not None and ctx.newest < cut:
            kept.insert(0, ctx.newest)
        cap = min(self.summary_max_tokens, ctx.available - sum(counts[i] for i in kept) - ctx.header)
        turn = _turn_start(msgs, cut, ctx.body_start)
        skip = set(kept)
        history = [i for i in range(ctx.body_start, turn) if i not in skip]
        prefix = [i for i in range(turn, min(cut, len(msgs))) if i not in skip]
        previous = list(range(ctx.sys_n, ctx.body_start))
        if cap < floor or not (history or prefix):
            return None
        text, calls, error, fallback = self._summarize(ctx, history, prefix, previous, cap)
        if text is None:
            return None
        sources = [*previous, *history, *prefix]
        # A merged summary also stands for what the previous one replaced, so metrics can trace
        # it back to the original messages after several compactions.
        ids = [*(s for i in previous for s in msgs[i].source_ids), *(msgs[i].id for i in sources)]
        head = list(msgs[:ctx.sys_n])
        if text:
            head.append(summary_message(text, list(dict.fromkeys(ids)), {m.id for m in msgs}))
        out = (*head, *(msgs[i] for i in kept))
        return _Outcome(out, len(head), text, tuple(sources), bool(prefix), calls, error, fallback)

    def _summarize(self, ctx: _Ctx, history: list[int], prefix: list[int], previous: list[int],
                   cap: int) -> tuple[str | None, tuple[tuple[str, SummaryResult], ...], str | None, str | None]:
        """(text, calls, error, fallback): the history summary merged with the previous one, and a
        turn-prefix summary for a split turn. Text is None when the summarizer failed and
        `on_error` is ``window``."""
        msgs, counter = ctx.msgs, ctx.request.counter
        earlier = "\n\n".join(unwrap(msgs[i].text) for i in previous) or None
        total_cap = cap
        has_history = bool(history or earlier)
        if prefix:
            cap -= counter.count(join_turn_context("x", "x")) - 2 * counter.count("x")
        prefix_cap = (cap // 3 if has_history else cap) if prefix else 0
        jobs = [("history", [msgs[i] for i in history], cap - prefix_cap)] if has_history else []
        jobs += [("turn_prefix", [msgs[i] for i in prefix], prefix_cap)] if prefix else []
        chars = self._part_chars(bool(prefix), has_history)
        texts: dict[str, str] = {}
        calls: list[tuple[str, SummaryResult]] = []
        errors: list[str] = []
        for part, chunk, part_cap in jobs:
            if not chunk and earlier and counter.count(earlier) <= part_cap:
                texts[part] = earlier  # nothing new to merge: the previous summary stands
                continue
            result = _run(self.engine, part, chunk, earlier, counter, part_cap)
            calls.append((part, result))
            if not result.ok:
                errors.append(f"{part}: {result.error or 'empty summary'}")
                if self.on_error == "window":
                    return None, tuple(calls), "; ".join(errors), "window"
                result = _run(ExtractiveSummarizer(), part, chunk, earlier, counter, part_cap)
            texts[part] = _within_chars(result, (part, chunk, earlier), counter, part_cap, chars.get(part))
        text = join_turn_context(texts.get("history", ""), texts.get("turn_prefix", ""))
        if counter.count(text) > total_cap:  # a summarizer that overshot its cap is clipped
            text = clip_to_tokens(text, total_cap, counter, head_share=1.0)
        if self.summary_max_chars is not None:
            text = text[:self.summary_max_chars]
        return text, tuple(calls), "; ".join(errors) or None, "extractive" if errors else None

    def _part_chars(self, split: bool, has_history: bool) -> dict[str, int]:
        """The character cap of each summary part, shared like the token cap (a third for a split
        turn's prefix); empty without `summary_max_chars`."""
        if self.summary_max_chars is None:
            return {}
        chars = int(self.summary_max_chars) - (len(join_turn_context("x", "x")) - 2 if split else 0)
        prefix = (chars // 3 if has_history else chars) if split else 0
        return {"history": chars - prefix, "turn_prefix": prefix}

    def _declined(self, ctx: _Ctx, asked: dict[str, Any]) -> Plan:
        """Seed 001's refused compaction: drop the oldest messages, or start a new session."""
        verdict = asked["answer"]
        if verdict == "new_session":
            keep = [*range(ctx.sys_n), *([ctx.newest] if ctx.newest is not None else [])]
            kept, fallback = tuple(ctx.msgs[i] for i in keep), "new_session"
        else:
            kept, fallback = _window(ctx, ctx.msgs[:ctx.body_start]), "window"  # a carried summary stays
        after = ctx.request.cost(kept) + ctx.request.overhead
        event = Event("compaction_declined", {"original_tokens": ctx.request.total, "new_tokens": after,
                                              "verdict": str(verdict), "fallback": fallback,
                                              "confirmation": _record(asked)})
        return Plan(kept, events=[event], dropped_ids=_dropped(ctx.msgs, kept))

    def _plan(self, ctx: _Ctx, outcome: _Outcome, attempts: int, asked: dict[str, Any] | None) -> Plan:
        """The plan and its events: one ``summary_call`` per LLM call (the usage the replay sums)
        and seed 001's ``context_compacted`` with the CompactResult figures."""
        request = ctx.request
        after = request.cost(outcome.messages) + request.overhead
        llm = [(part, c) for part, c in outcome.calls if c.model != ExtractiveSummarizer.kind]
        events = [summary_call(part, c) for part, c in llm]
        summary = _summary_of(outcome.messages)
        events.append(Event("context_compacted", {
            "original_tokens": request.total, "new_tokens": after,
            "compacted_count": sum(1 for i in outcome.summarized if _real_user(ctx.msgs[i])),
            "compacted_messages": len(outcome.summarized),
            "saved_ratio": 1 - after / request.total if request.total else 0.0,
            "summary": summary or "", "attempts": attempts, "fallback": outcome.fallback,
            "split_turn": outcome.split, "error": outcome.error, "summarizer": self.engine.name,
            "trigger_tokens": self.trigger(ctx.limit), "limit": ctx.limit, "confirmation": _record(asked),
            "summarizer_input_tokens": sum(c.input_tokens or 0 for _, c in llm),
            "summarizer_output_tokens": sum(c.output_tokens or 0 for _, c in llm),
            "summarizer_cost_usd": _total_cost([c for _, c in llm]),
            "summarizer_latency_ms": sum(c.latency_ms or 0.0 for _, c in llm)}))
        reason = None if after <= request.budget else (
            f"the system prompt and newest user message alone take {after} tokens, over the budget")
        return Plan(outcome.messages, events=events, summary=summary, reason=reason,
                    dropped_ids=_dropped(request.messages, outcome.messages))


@register("compaction_seed001")
@dataclass(frozen=True)
class CompactionSeed001(Compaction):
    """Seed 001 as written (the Pi-style ``ContextCompactor`` design, "上下文压缩系统设计").

    `compaction` with the seed's own settings: compact at ``int(max_tokens * 0.8)`` tokens
    (``trigger_ratio: 0.8``); keep the system prompt, the tool definitions and the last 2 rounds
    (``keep_recent_rounds: 2``); summarize with the seed's ``SUMMARY_PROMPT`` ("简洁，不超过 500 字")
    when ``summarizer=llm``; cap the summary at 1000 characters (``summary_max_length: 1000``), which
    the offline extractive summarizer (the default: no LLM is assumed) honours with whole items; and
    ask before compacting (``require_confirmation: true``). A replay has no user to ask, so the
    answer is ``confirm="yes"`` and the seed's question is recorded on the event; ``confirm=no``
    (drop the oldest messages) or ``new_session`` replay the other answers.
    """

    prompt: str = "seed001"
    summary_max_chars: int | None = 1000
    confirm: Any = "yes"


def _run(engine: Summarizer, part: str, chunk: Sequence[Message], earlier: str | None,
         counter: Any, cap: int) -> SummaryResult:
    """One summarizer call; a split turn's prefix uses `summarize_turn_prefix` when it has one."""
    prefix_fn = getattr(engine, "summarize_turn_prefix", None) if part == "turn_prefix" else None
    if prefix_fn is not None:
        return prefix_fn(chunk, counter=counter, max_tokens=cap)
    if part == "turn_prefix":
        return engine.summarize(chunk, counter=counter, max_tokens=cap)
    return engine.summarize(chunk, previous_summary=earlier, counter=counter, max_tokens=cap)


def _within_chars(result: SummaryResult, job: tuple[str, Sequence[Message], str | None], counter: Any,
                  cap: int, chars: int | None) -> str:
    """A summary part within seed 001's character cap: the extractive summary is redone with whole
    items within the characters (when that still fits `cap` tokens); any other text is cut, as the
    seed cuts an overlong summary (``summary = summary[:max_summary_tokens]``)."""
    text = result.text
    if chars is None or len(text) <= chars:
        return text
    if result.model == ExtractiveSummarizer.kind:
        part, chunk, earlier = job
        again = _run(ExtractiveSummarizer(), part, chunk, earlier, CHARACTERS, chars).text
        if counter.count(again) <= cap:
            return again
    return text[:chars]


class _Characters(CachedCounter):
    """Characters as a counter, so that the extractive summarizer fits a character cap."""

    name = "characters"

    def _count_text(self, text: str) -> int:
        return len(text)


CHARACTERS = _Characters()


def _record(asked: dict[str, Any] | None) -> dict[str, Any] | None:
    """The confirmation as stored on events: the seed's question and the answer (JSON-friendly)."""
    if asked is None:
        return None
    answer = asked["answer"]
    return {"question": asked["question"], "answer": answer if isinstance(answer, str | bool) else str(answer)}


def _context(request: Request, limit: int) -> _Ctx:
    msgs = request.messages
    sys_n = system_prefix(msgs)
    body = sys_n
    while body < len(msgs) and msgs[body].mark == "summary":
        body += 1
    newest = next((i for i in range(len(msgs) - 1, sys_n - 1, -1) if _real_user(msgs[i])), None)
    available = limit - request.overhead - sum(request.counts[:sys_n])
    header = request.counter.count_message(Message(role="user", content=wrap(""))) + _MARGIN
    return _Ctx(request, limit, sys_n, body, newest, available, header)


def _suffix_start(ctx: _Ctx, room: int) -> int:
    """First index of the longest run of newest whole tool groups that fits in `room` together
    with the pinned newest user message (which is counted whether or not it is in the run)."""
    msgs, counts = ctx.msgs, ctx.request.counts
    used = counts[ctx.newest] if ctx.newest is not None else 0
    start = len(msgs)
    for group in reversed(tool_groups(msgs)):
        if group.start < ctx.body_start:
            break
        if ctx.newest is not None and group.start == ctx.newest:
            start = group.start
            continue
        cost = sum(counts[group.start:group.stop])
        if used + cost > room or any(msgs[i].mark == "summary" for i in range(*group)):
            break
        used, start = used + cost, group.start
    return start


def _window(ctx: _Ctx, head: Sequence[Message]) -> tuple[Message, ...]:
    """`head`, the pinned newest user message, and the newest whole tool groups that fit."""
    request = ctx.request
    start = _suffix_start(ctx, ctx.limit - request.overhead - request.cost(head))
    pinned = [ctx.msgs[ctx.newest]] if ctx.newest is not None and ctx.newest < start else []
    return (*head, *pinned, *ctx.msgs[start:])


def _turn_start(msgs: Sequence[Message], cut: int, body_start: int) -> int:
    """The user message opening the turn that contains `cut` (`cut` itself when it opens one, or
    when no user message precedes it)."""
    for i in range(min(cut, len(msgs) - 1), body_start - 1, -1):
        if _real_user(msgs[i]):
            return i
    return cut


def _summary_of(messages: Sequence[Message]) -> str | None:
    """The summary a context carries (the first summary message's text), if any."""
    return next((unwrap(m.text) for m in messages if m.mark == "summary"), None)


def _real_user(message: Message) -> bool:
    return message.role == "user" and message.mark != "summary"


def _dropped(inputs: Sequence[Message], outputs: Sequence[Message]) -> list[str]:
    present = {m.id for m in outputs}
    return [m.id for m in inputs if m.id not in present]


def _total_cost(calls: Sequence[SummaryResult]) -> float | None:
    costs = [c.cost_usd for c in calls]
    return None if any(c is None for c in costs) else float(sum(costs))  # type: ignore[arg-type]
