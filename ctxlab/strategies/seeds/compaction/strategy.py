"""`compaction`: seed 001's Pi-style compaction, with pi-mono's cut points, split turns and
incremental summaries, on the shared mechanics.

When: the request reaches ``trigger_ratio`` x the limit (seed 001: ``int(0.8 x max tokens)``,
inclusive; the limit is ``min(budget, window - reserve_tokens)`` when a window is configured,
pi-mono's reserve): a share `Trigger` over `trigger.reserved_budget`.

What: the system prompt is kept, tool definitions stay in the request, the last
`keep_recent_rounds` rounds (or pi-mono's `keep_recent_tokens`, `cuts.newest_tokens` backed out of
a tool exchange) are kept, and everything between is replaced by ONE summary message right after the
system prompt (`summary.message` in ctxlab's voice). A cut inside a turn gets its own turn-prefix
summary (`cuts.turn_start`, pi-mono). A summary already in the input (``mark="summary"``, e.g.
carried forward by a per-turn replay) is merged, not summarized blindly. If the summary would have
too little room, fewer recent messages are kept (up to `max_attempts`), and the last attempt keeps
whole tool groups newest-first (a window) and summarizes the rest. Seed 001's confirmation and
character cap are `compaction_seed001`'s (`seed001`).

How: the parameters map onto a policy's `Parts` (`parts`), and the compaction is the policy
model's own (`ctxlab.strategies.policy.attempts`, ``retry="keep_less"``, over `policy.apply`):
the ``rounds`` or ``recent_tokens`` tail (snapped to a group start, split turns), the shared-cap
summary writer (`policy.split_cap`) in ctxlab's voice after the system prompt. Only the events are
this strategy's own (`events`: seed 001's ``context_compacted``).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from functools import cached_property
from typing import Any, ClassVar

from ctxlab.errors import CtxlabError
from ctxlab.strategies.base import BaseStrategy, Event, Plan, Request
from ctxlab.strategies.mechanics import summary
from ctxlab.strategies.mechanics.voices import VOICES
from ctxlab.strategies.policy import attempts
from ctxlab.strategies.policy.frame import Frame, frame
from ctxlab.strategies.policy.job import Job
from ctxlab.strategies.policy.parts import Head, Middle, Parts, Tail, Writing
from ctxlab.strategies.registry import register
from ctxlab.strategies.seeds.compaction import events
from ctxlab.strategies.trigger import REQUEST, Trigger, configured_window, reserved_budget
from ctxlab.summarize import Summarizer, get_summarizer

CTXLAB = VOICES["ctxlab"]  # the summary message: pi-mono's wrapper around ctxlab's sections
ON_ERROR = {"extractive": "offline", "window": "drop"}  # `on_error` as the summary writer's


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
            ``keepRecentTokens``, 20000 there; the cut backs out of a tool exchange); None keeps rounds.
        summary_max_tokens: cap of the summary in tokens of the counter given (see docs/summaries.md).
        max_attempts: compaction passes before giving up (each keeps fewer recent messages).
        prompt: the LLM summarizer's prompt, ``structured`` or ``seed001``.
        on_error: when the summarizer fails: ``extractive`` summarizes offline instead,
            ``window`` drops the oldest messages without a summary.
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
    max_attempts: int = 3
    prompt: str = "structured"
    on_error: str = "extractive"

    def __post_init__(self) -> None:
        if not 0 < self.trigger_ratio:
            raise ValueError("trigger_ratio must be positive")
        if self.keep_recent_rounds < 1 or self.max_attempts < 1 or self.summary_max_tokens < 16:
            raise ValueError("keep_recent_rounds and max_attempts must be >= 1, summary_max_tokens >= 16")
        if self.keep_recent_tokens is not None and int(self.keep_recent_tokens) < 1:
            raise ValueError("keep_recent_tokens must be a positive number of tokens or None")
        if self.on_error not in ("extractive", "window") or self.prompt not in ("structured", "seed001"):
            raise ValueError("on_error must be extractive or window; prompt structured or seed001")
        window = configured_window(self.context_window, self.model)
        if window and window <= self.reserve_tokens:
            raise ValueError(f"window {window} leaves no room after reserve_tokens={self.reserve_tokens}")

    @classmethod
    def upgrade_params(cls, params: dict[str, Any]) -> dict[str, Any]:
        """Specs stored when every compaction had seed 001's ``confirm`` and ``summary_max_chars`` build
        when those were unset; set, they are `compaction_seed001`'s.

        Raises:
            CtxlabError: one of them set on a strategy without it.
        """
        moved = [k for k in SEED001_ONLY if k in params and k not in {f.name for f in fields(cls)}]
        if any(params[k] is not None for k in moved):
            raise CtxlabError(f"{cls.name}: {' and '.join(moved)} belong to compaction_seed001 (seed 001's "
                              "confirmation and character cap)")
        return {k: v for k, v in params.items() if k not in moved}

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

    def when(self) -> Trigger:
        """Seed 001's ``int(max_tokens * trigger_ratio)``, reached (``>=``) by the request."""
        return Trigger.at_share(self.trigger_ratio, inclusive=True)

    def window(self, budget: int) -> int:
        """The limit: ``min(budget, window - reserve_tokens)`` with a window, else the budget."""
        return reserved_budget(budget, self.reserve_tokens, self.context_window, self.model)

    @cached_property
    def parts(self) -> Parts:
        """The parameters as the policy model's arguments (the one place they are mapped)."""
        tokens = self.keep_recent_tokens is not None
        return Parts(
            trigger=self.when(), head=Head("system", 0, fold_previous=True),
            tail=Tail("recent_tokens" if tokens else "rounds", REQUEST, int(self.keep_recent_tokens or 0), 0, 0.0, 0.0,
                      0.0, "group_start", split_turns=True, start_on_user=False, repair_orphans=False,
                      keep_rounds=self.keep_recent_rounds),
            middle=Middle("summarize", 0, "", "results"),
            summary=Writing("ctxlab", self.summary_max_tokens, 0, 0, "after_head", max_chars=self._max_chars(),
                            split="shared", on_error=ON_ERROR[self.on_error]),
            strip_trailing_assistant="none", passes=self.max_attempts, retry="keep_less")

    def idle(self, request: Request) -> Plan:
        return Plan(request.messages, summary=summary.carried(request.messages, CTXLAB), dropped_ids=())

    def plan(self, request: Request) -> Plan:
        job = Job(request, request.messages, self.window(request.budget))
        at = frame(self.parts, job)
        refused, confirmation = self._confirm(job, at)
        if refused is not None:
            return refused
        outcome = attempts.run(self.parts, self.engine, job, at)
        if outcome.messages == request.messages:
            event = Event("compaction_skipped", {"original_tokens": request.total, "limit": job.window,
                                                 "reason": "nothing old enough to compact"})
            return Plan(request.messages, events=[event], summary=summary.carried(request.messages, CTXLAB),
                        dropped_ids=())
        return events.done(job, outcome, confirmation, self.when().threshold(job.window), self.engine.name)

    def _confirm(self, job: Job, at: Frame) -> tuple[Plan | None, dict[str, Any] | None]:
        """Before compacting: (a plan instead, the confirmation the event records). Seed 001 asks its
        user (`compaction_seed001`); `compaction` asks nobody."""
        return None, None

    def _max_chars(self) -> int:
        """The summary's cap in characters, 0 for none (`compaction_seed001` has seed 001's)."""
        return 0


SEED001_ONLY = ("confirm", "summary_max_chars")  # parameters `compaction` had until seed 001's were split off

__all__ = ["Compaction"]
