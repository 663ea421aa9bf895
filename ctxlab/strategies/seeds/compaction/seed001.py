"""`compaction_seed001`: seed 001 as written, a thin wrapper of `compaction` adding the seed's user
confirmation and its summary cap in characters.

Seed 001 ("上下文压缩系统设计", the Pi-style ``ContextCompactor`` design) asks before compacting
(``require_confirmation: true``) and caps the summary at ``summary_max_length: 1000`` characters
(an overlong summary is cut, ``summary[:max]``). Everything else is `compaction`'s.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ctxlab.messages import Message
from ctxlab.strategies.base import Event, Plan
from ctxlab.strategies.mechanics.context import Usage, dropped_ids
from ctxlab.strategies.mechanics.summary import call
from ctxlab.strategies.registry import register
from ctxlab.strategies.seeds.compaction.job import Ctx, window
from ctxlab.strategies.seeds.compaction.strategy import Compaction
from ctxlab.strategies.seeds.compaction.summaries import Part
from ctxlab.summarize import SummaryResult
from ctxlab.summarize.extractive import ExtractiveSummarizer
from ctxlab.summarize.message import join_turn_context
from ctxlab.tokens import CachedCounter, TokenCounter

# Seed 001's question before a compaction (用户确认), verbatim.
CONFIRMATION_QUESTION = ("上下文即将达到上限 ({current_tokens}/{max_tokens} tokens)。\n"
                         "建议压缩对话历史，保留关键信息。\n是否同意压缩？")
# Answers `confirm` may give (or be): compact, drop the oldest messages, or start a new session.
AGREE = (True, "yes", "compact")
WINDOW = (False, "no", "window")
VERDICTS = (*AGREE, *WINDOW, "new_session")


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

    Attributes:
        summary_max_chars: cap of the summary in characters, seed 001's ``summary_max_length``; None
            for none. The extractive summarizer keeps whole items within it; a longer LLM reply is
            cut to it (the seed's ``summary[:max]``).
        confirm: seed 001's user confirmation: None (not asked), a callable ``(Usage) -> answer``
            or a fixed answer; answers are ``yes`` / True (compact), ``no`` / False / ``window``
            (drop the oldest messages) or ``new_session``. The events record the seed's question.
    """

    prompt: str = "seed001"
    summary_max_chars: int | None = 1000
    confirm: Any = "yes"

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.summary_max_chars is not None and int(self.summary_max_chars) < 16:
            raise ValueError("summary_max_chars must be at least 16 characters, or None")
        if self.confirm is not None and not callable(self.confirm) and self.confirm not in VERDICTS:
            raise ValueError(f"confirm must be a callable or one of {', '.join(map(str, VERDICTS))}")

    def _confirm(self, ctx: Ctx) -> tuple[Plan | None, dict[str, Any] | None]:
        """Seed 001's 用户确认: the question, the answer, and what a refusal keeps instead."""
        if self.confirm is None:
            return None, None
        usage = Usage(ctx.request.total, ctx.limit)
        answer = self.confirm(usage) if callable(self.confirm) else self.confirm
        question = CONFIRMATION_QUESTION.format(current_tokens=usage.used, max_tokens=usage.budget)
        record = {"question": question, "answer": answer if isinstance(answer, str | bool) else str(answer)}
        return (None if answer in AGREE else _declined(ctx, answer, record)), record

    def _shape(self, part: Part, result: SummaryResult, counter: TokenCounter) -> str:
        """The part within its share of the characters: the extractive summary is redone with whole
        items within them (when that still fits the part's tokens); any other text is cut, as the
        seed cuts an overlong summary (``summary = summary[:max_summary_tokens]``)."""
        chars = self._part_chars(part)
        text = result.text
        if chars is None or len(text) <= chars:
            return text
        if result.model == ExtractiveSummarizer.kind:
            again = call(ExtractiveSummarizer(), part.name, part.messages, part.previous, CHARACTERS, chars).text
            if counter.count(again) <= part.cap:
                return again
        return text[:chars]

    def _finish(self, text: str) -> str:
        return text if self.summary_max_chars is None else text[:self.summary_max_chars]

    def _part_chars(self, part: Part) -> int | None:
        """A part's share of the characters, shared like the token cap (a third for a split turn's
        prefix, after the join's own characters)."""
        if self.summary_max_chars is None:
            return None
        chars = int(self.summary_max_chars) - (len(join_turn_context("x", "x")) - 2 if part.split else 0)
        prefix = (chars // 3 if part.has_history else chars) if part.split else 0
        return prefix if part.name == "turn_prefix" else chars - prefix


def _declined(ctx: Ctx, verdict: Any, record: dict[str, Any]) -> Plan:
    """Seed 001's refused compaction: drop the oldest messages, or start a new session."""
    kept: tuple[Message, ...]
    if verdict == "new_session":
        kept, fallback = tuple(ctx.msgs[i] for i in (*range(ctx.sys_n), *_newest(ctx))), "new_session"
    else:
        kept, fallback = window(ctx, ctx.msgs[:ctx.body_start]), "window"  # a carried summary stays
    after = ctx.request.cost(kept) + ctx.request.overhead
    event = Event("compaction_declined", {"original_tokens": ctx.request.total, "new_tokens": after,
                                          "verdict": str(verdict), "fallback": fallback, "confirmation": record})
    return Plan(kept, events=[event], dropped_ids=dropped_ids(ctx.msgs, kept))


def _newest(ctx: Ctx) -> tuple[int, ...]:
    return (ctx.newest,) if ctx.newest is not None else ()


class _Characters(CachedCounter):
    """Characters as a counter, so that the extractive summarizer fits a character cap."""

    name = "characters"

    def _count_text(self, text: str) -> int:
        return len(text)


CHARACTERS = _Characters()

__all__ = ["AGREE", "CHARACTERS", "CONFIRMATION_QUESTION", "VERDICTS", "WINDOW", "CompactionSeed001"]
