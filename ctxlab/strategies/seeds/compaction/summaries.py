"""The summary one compaction attempt writes: the history merged with the carried summary, and a
split turn's prefix summarized apart (pi-mono), sharing one token cap.

Private to `compaction`. The history part merges the summary carried from earlier compactions
(the summarizer's update path); a split turn's prefix gets a third of the cap (all of it without a
history) and its own prompt; both are joined under pi-mono's ``**Turn Context (split turn):**``
and the whole is clipped to the cap. `shape` and `finish` are where `compaction_seed001` applies
the seed's character cap.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

from ctxlab.messages import Message
from ctxlab.strategies.mechanics.summary import call
from ctxlab.strategies.seeds.compaction.job import Ctx
from ctxlab.summarize import Summarizer, SummaryResult
from ctxlab.summarize.extractive import ExtractiveSummarizer
from ctxlab.summarize.message import join_turn_context, unwrap
from ctxlab.tokens import TokenCounter
from ctxlab.tokens.clip import clip_to_tokens


class Part(NamedTuple):
    """One summarizer call: ``history`` (merging `previous`) or ``turn_prefix``, within `cap` tokens."""

    name: str
    messages: list[Message]
    previous: str | None
    cap: int
    split: bool
    has_history: bool


class Written(NamedTuple):
    """The summary (None: the summarizer failed and ``on_error`` is ``window``), the calls, the error."""

    text: str | None
    calls: tuple[tuple[str, SummaryResult], ...]
    error: str | None
    fallback: str | None


Shape = Callable[[Part, SummaryResult, TokenCounter], str]


def parts(ctx: Ctx, history: Sequence[int], prefix: Sequence[int], previous: Sequence[int], cap: int) -> list[Part]:
    """The calls of one attempt: the history (with the carried summaries) and a split turn's prefix."""
    msgs, counter = ctx.msgs, ctx.request.counter
    earlier = "\n\n".join(unwrap(msgs[i].text) for i in previous) or None
    has_history = bool(history or earlier)
    if prefix:
        cap -= counter.count(join_turn_context("x", "x")) - 2 * counter.count("x")
    prefix_cap = (cap // 3 if has_history else cap) if prefix else 0
    split = bool(prefix)
    out = [Part("history", [msgs[i] for i in history], earlier, cap - prefix_cap, split, True)] if has_history else []
    return out + ([Part("turn_prefix", [msgs[i] for i in prefix], None, prefix_cap, split, has_history)]
                  if prefix else [])


def write(jobs: Sequence[Part], cap: int, engine: Summarizer, counter: TokenCounter, on_error: str, shape: Shape,
          finish: Callable[[str], str]) -> Written:
    """Run the calls, falling back to the extractive summarizer (or giving up, ``on_error="window"``)
    when one fails; a part with nothing new keeps the carried summary when it fits."""
    texts: dict[str, str] = {}
    calls: list[tuple[str, SummaryResult]] = []
    errors: list[str] = []
    for part in jobs:
        if not part.messages and part.previous and counter.count(part.previous) <= part.cap:
            texts[part.name] = part.previous  # nothing new to merge: the previous summary stands
            continue
        result = call(engine, part.name, part.messages, part.previous, counter, part.cap)
        calls.append((part.name, result))
        if not result.ok:
            errors.append(f"{part.name}: {result.error or 'empty summary'}")
            if on_error == "window":
                return Written(None, tuple(calls), "; ".join(errors), "window")
            result = call(ExtractiveSummarizer(), part.name, part.messages, part.previous, counter, part.cap)
        texts[part.name] = shape(part, result, counter)
    text = join_turn_context(texts.get("history", ""), texts.get("turn_prefix", ""))
    if counter.count(text) > cap:  # a summarizer that overshot its cap is clipped
        text = clip_to_tokens(text, cap, counter, head_share=1.0)
    return Written(finish(text), tuple(calls), "; ".join(errors) or None, "extractive" if errors else None)


__all__ = ["Part", "Shape", "Written", "parts", "write"]
