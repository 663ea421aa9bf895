"""The summary writer that splits ONE cap (``summary_split="shared"``, seed 001 on pi-mono's split turns).

`mechanics.summary.summarize` gives the history and a split turn's prefix a cap each; this writer
shares one: the history, merging the summaries the fold opens with (the carried ones: the
summarizer's update path), gets two thirds of the cap left after the join's own tokens, a split
turn's prefix a third (all of it without a history); both are joined under pi-mono's ``**Turn
Context (split turn):**`` and the whole is clipped to the cap. A character cap (``max_chars``) is
split the same way: a part over its characters is written again by the offline summarizer within
them, whole items only (when that still fits its tokens), else cut (seed 001's ``summary[:max]``).
A part with nothing new keeps the carried summary when it fits. A failed call falls back to the
offline summarizer in the engine's voice, or (``on_error="drop"``) gives the summary up.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from ctxlab.messages import Message
from ctxlab.strategies.mechanics.shaped import offline
from ctxlab.strategies.mechanics.summary import Summary, call
from ctxlab.strategies.mechanics.voices import Voice, unwrap_voice
from ctxlab.summarize import Summarizer, SummaryResult
from ctxlab.summarize.extractive import ExtractiveSummarizer
from ctxlab.summarize.message import join_turn_context
from ctxlab.tokens import CachedCounter, TokenCounter
from ctxlab.tokens.clip import clip_to_tokens

ON_ERROR = ("offline", "drop")


class Part(NamedTuple):
    """One summarizer call: ``history`` (merging `previous`) or ``turn_prefix``, within `cap` tokens
    and `chars` characters (None: no character cap)."""

    name: str
    messages: list[Message]
    previous: str | None
    cap: int
    chars: int | None


class Caps(NamedTuple):
    """The one cap the parts share: `tokens` under `counter`, `chars` characters (0: none)."""

    tokens: int
    chars: int
    counter: TokenCounter


def write(messages: Sequence[Message], fold: Sequence[int], carried: int, prefix: Sequence[int], engine: Summarizer,
          voice: Voice, caps: Caps, on_error: str) -> Summary | None:
    """Summarize ``messages[fold]`` (its first `carried` are earlier summaries, merged) and a split
    turn's ``messages[prefix]`` within `caps`; None when a call failed and `on_error` is ``drop``."""
    counter = caps.counter
    texts: dict[str, str] = {}
    calls: list[tuple[str, SummaryResult]] = []
    errors: list[str] = []
    for part in parts(messages, fold, carried, prefix, voice, caps):
        if not part.messages and part.previous and counter.count(part.previous) <= part.cap:
            texts[part.name] = part.previous  # nothing new to merge: the previous summary stands
            continue
        result = call(engine, part.name, part.messages, part.previous, counter, part.cap)
        if result.model != ExtractiveSummarizer.kind:  # the offline summarizer's calls cost nothing
            calls.append((part.name, result))
        if not result.ok:
            errors.append(f"{part.name}: {result.error or 'empty summary'}")
            if on_error == "drop":
                return None
            result = call(offline(engine), part.name, part.messages, part.previous, counter, part.cap)
        texts[part.name] = _within_chars(part, result, engine, counter)
    text = join_turn_context(texts.get("history", ""), texts.get("turn_prefix", ""))
    if counter.count(text) > caps.tokens:  # a summarizer that overshot its cap is clipped
        text = clip_to_tokens(text, caps.tokens, counter, head_share=1.0)
    return Summary(text, tuple(calls), "; ".join(errors) or None)


def parts(messages: Sequence[Message], fold: Sequence[int], carried: int, prefix: Sequence[int], voice: Voice,
          caps: Caps) -> list[Part]:
    """The calls: the history (with the carried summaries) and a split turn's prefix, sharing `caps`."""
    earlier = "\n\n".join(unwrap_voice(voice, messages[i].text) for i in fold[:carried]) or None
    history = [messages[i] for i in fold[carried:]]
    has_history = bool(history or earlier)
    join = caps.counter.count(join_turn_context("x", "x")) - 2 * caps.counter.count("x")
    tokens = _shares(caps.tokens, join, bool(prefix), has_history)
    chars: tuple[int | None, int | None] = (None, None)
    if caps.chars:
        chars = _shares(caps.chars, len(join_turn_context("x", "x")) - 2, bool(prefix), has_history)
    out = [Part("history", history, earlier, tokens[0], chars[0])] if has_history else []
    return out + ([Part("turn_prefix", [messages[i] for i in prefix], None, tokens[1], chars[1])] if prefix else [])


def _shares(total: int, join: int, split: bool, has_history: bool) -> tuple[int, int]:
    """(history, prefix) shares of `total`: a split turn's prefix gets a third of what the join
    leaves (all of it without a history)."""
    if not split:
        return total, 0
    total -= join
    prefix = total // 3 if has_history else total
    return total - prefix, prefix


def _within_chars(part: Part, result: SummaryResult, engine: Summarizer, counter: TokenCounter) -> str:
    """The part's text within its characters: an offline summary is written again with whole items
    within them (when that still fits the part's tokens); any other text is cut."""
    text = result.text
    if part.chars is None or len(text) <= part.chars:
        return text
    if result.model == ExtractiveSummarizer.kind:
        again = call(offline(engine), part.name, part.messages, part.previous, CHARACTERS, part.chars).text
        if counter.count(again) <= part.cap:
            return again
    return text[:part.chars]


class _Characters(CachedCounter):
    """Characters as a counter, so that the offline summarizer fits a character cap."""

    name = "characters"

    def _count_text(self, text: str) -> int:
        return len(text)


CHARACTERS = _Characters()

__all__ = ["CHARACTERS", "ON_ERROR", "Caps", "Part", "parts", "write"]
