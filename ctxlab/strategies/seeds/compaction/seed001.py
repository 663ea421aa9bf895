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
from ctxlab.strategies.policy.frame import Frame, window
from ctxlab.strategies.policy.job import Job
from ctxlab.strategies.registry import register
from ctxlab.strategies.seeds.compaction.strategy import Compaction

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

    def _confirm(self, job: Job, at: Frame) -> tuple[Plan | None, dict[str, Any] | None]:
        """Seed 001's 用户确认: the question, the answer, and what a refusal keeps instead."""
        if self.confirm is None:
            return None, None
        usage = Usage(job.request.total, job.window)
        answer = self.confirm(usage) if callable(self.confirm) else self.confirm
        question = CONFIRMATION_QUESTION.format(current_tokens=usage.used, max_tokens=usage.budget)
        record = {"question": question, "answer": answer if isinstance(answer, str | bool) else str(answer)}
        return (None if answer in AGREE else _declined(job, at, answer, record)), record

    def _max_chars(self) -> int:
        """Seed 001's ``summary_max_length``, shared between a split turn's parts like the token cap
        (`ctxlab.strategies.policy.split_cap`): the offline summary keeps whole items within it,
        any other text is cut (the seed's ``summary[:max]``)."""
        return 0 if self.summary_max_chars is None else int(self.summary_max_chars)


def _declined(job: Job, at: Frame, verdict: Any, record: dict[str, Any]) -> Plan:
    """Seed 001's refused compaction: drop the oldest messages, or start a new session."""
    msgs, request = job.messages, job.request
    kept: tuple[Message, ...]
    if verdict == "new_session":
        newest = (msgs[at.newest],) if at.newest is not None else ()
        kept, fallback = (*msgs[:at.head], *newest), "new_session"
    else:
        kept, fallback = window(job, at, msgs[:at.start]), "window"  # a carried summary stays
    after = request.cost(kept) + request.overhead
    event = Event("compaction_declined", {"original_tokens": request.total, "new_tokens": after,
                                          "verdict": str(verdict), "fallback": fallback, "confirmation": record})
    return Plan(kept, events=[event], dropped_ids=dropped_ids(msgs, kept))


__all__ = ["AGREE", "CONFIRMATION_QUESTION", "VERDICTS", "WINDOW", "CompactionSeed001"]
