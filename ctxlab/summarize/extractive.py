"""`extractive`: the offline summarizer: a structured summary built from the messages themselves.

Each message yields scored items for the sections of `ctxlab.summarize.sections` (user requests,
constraint and decision sentences, files read and modified from tool calls, commands, error
lines, progress and next steps, sentences dense in concrete details). Items are deduplicated,
ranked within their section (section weight + intrinsic score + recency) and the lowest ranked
are left out until the rendered summary fits its length. Items are whole (a sentence, a path,
a command), so nothing is cut mid-path. A previous summary is parsed and folded in: its file
lists, goals, constraints and decisions carry forward, its progress yields to newer progress.

Its length is what an LLM answering the same request would write (`ctxlab.summarize.length`,
calibrated on the compactions agents' logs record), at most `max_tokens`: `prompts` are the
requests it stands in for (ctxlab's structured ones by default; an agent's own in its voice).
``length="cap"`` fills `max_tokens` instead, as before the calibration (issue 28).

Per-message extraction is cached by message, so per-turn replays extract each message once.
"""

from __future__ import annotations

import time
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from ctxlab import caches
from ctxlab.errors import CtxlabError
from ctxlab.messages import Message
from ctxlab.summarize import heuristics as h
from ctxlab.summarize.base import SummaryResult
from ctxlab.summarize.length import STRUCTURED, Prompts, summary_length
from ctxlab.summarize.message import unwrap
from ctxlab.summarize.sections import (
    COMMANDS,
    CONSTRAINTS,
    CONTEXT,
    DECISIONS,
    DETAILS,
    ERRORS,
    GOAL,
    MODIFIED,
    NEXT,
    PROGRESS,
    READ,
    SECTIONS,
    parse_summary,
    render,
)
from ctxlab.summarize.toolcalls import classify, tool_names
from ctxlab.tokens import TokenCounter
from ctxlab.tokens.clip import clip_to_tokens

_WEIGHTS = {GOAL: 6.0, CONSTRAINTS: 6.0, DECISIONS: 5.5, MODIFIED: 5.0, ERRORS: 4.0, NEXT: 4.0,
            READ: 3.5, PROGRESS: 3.0, COMMANDS: 3.0, CONTEXT: 2.0, DETAILS: 1.0}
# Newer progress, errors and next steps matter more than older ones; goals and decisions do not age.
_RECENCY = {PROGRESS: 2.0, NEXT: 2.0, ERRORS: 1.5, COMMANDS: 1.0, CONTEXT: 1.0, DETAILS: 1.0}
_CARRIED = {GOAL: 1.0, CONSTRAINTS: 1.0, DECISIONS: 1.0, MODIFIED: 1.0, READ: 0.5}
_REQUEST_CHARS = 280
_SENTENCE_CHARS = 240
_COMMAND_CHARS = 160
_EXTRACT_ENTRIES = 50_000
LENGTHS = ("calibrated", "cap")


class Item(NamedTuple):
    """One summary line: its section, text, intrinsic score, position (order and recency), tag."""

    section: str
    text: str
    score: float
    seq: float = 0.0
    tag: str = ""


@dataclass(frozen=True)
class ExtractiveSummarizer:
    """The offline structured summarizer (see the module docstring).

    Attributes:
        length: ``calibrated`` (as long as an LLM answering `prompts` would write) or ``cap``
            (fill `max_tokens`, the behaviour before issue 28).
        prompts: the LLM requests it stands in for.
    """

    length: str = "calibrated"
    prompts: Prompts = STRUCTURED
    kind = "extractive"

    def __post_init__(self) -> None:
        if self.length not in LENGTHS:
            raise CtxlabError(f"unknown summary length {self.length!r} (valid: {', '.join(LENGTHS)})")

    @property
    def name(self) -> str:
        return self.kind if self.length == LENGTHS[0] else f"{self.kind}:length={self.length}"

    def summarize(self, messages: Sequence[Message], *, previous_summary: str | None = None,
                  counter: TokenCounter, max_tokens: int) -> SummaryResult:
        return self._summarize(messages, previous_summary, counter, max_tokens, prefix=False)

    def summarize_turn_prefix(self, messages: Sequence[Message], *, counter: TokenCounter,
                              max_tokens: int) -> SummaryResult:
        """The prefix of a split turn: the same extraction, without a previous summary, as long as
        an answer to the turn-prefix request."""
        return self._summarize(messages, None, counter, max_tokens, prefix=True)

    def _summarize(self, messages: Sequence[Message], previous_summary: str | None, counter: TokenCounter,
                   max_tokens: int, *, prefix: bool) -> SummaryResult:
        started = time.perf_counter()
        previous = [previous_summary] if previous_summary else []
        previous += [unwrap(m.text) for m in messages if m.mark == "summary"]
        items = gather([m for m in messages if m.mark != "summary"])
        if previous:
            items = [*_carried("\n\n".join(previous), any(it.section == NEXT for it in items)), *items]
        read = sum(counter.count_message(m) for m in messages)
        prompt = self.prompts.prefix if prefix else self.prompts.update if previous else self.prompts.history
        length = max_tokens if self.length == "cap" else min(
            max_tokens, summary_length(counter.count(prompt), read + counter.count(previous_summary or "")))
        text = fit(_first_goal_first(items), counter, length)
        return SummaryResult(text=text, input_tokens=read, output_tokens=counter.count(text), cost_usd=0.0,
                             latency_ms=(time.perf_counter() - started) * 1000, model=self.kind)


def gather(messages: Sequence[Message]) -> list[Item]:
    """Items of all messages in conversation order; only the latest two status lines are kept."""
    names = tool_names(messages)
    placed = [caches.kept(_PLACED, (m, names.get(m.tool_call_id or "", m.name or "tool"), pos), _EXTRACT_ENTRIES,
                          _place) for pos, m in enumerate(messages)]
    # A message has at most one status line ("lead"): only the latest two messages' are kept.
    keep = set([i for i, p in enumerate(placed) if p.unled is not None][-2:])
    items: list[Item] = []
    for i, p in enumerate(placed):
        items.extend(p.items if p.unled is None or i in keep else p.unled)
    return items


class _Placed(NamedTuple):
    """A message's items at its position, and the same without its status line (None: it has none)."""

    items: tuple[Item, ...]
    unled: tuple[Item, ...] | None


def _place(key: tuple[Message, str, int]) -> _Placed:
    message, name, pos = key
    items = tuple(Item(section, text, score, pos + k / 1000, tag)
                  for k, (section, text, score, tag) in enumerate(extract(message, name)))
    unled = tuple(it for it in items if it.tag != "lead")
    return _Placed(items, unled if len(unled) < len(items) else None)


# Every compaction of a conversation (each window, each recorded compaction) summarizes a prefix of
# the same messages at the same positions: their items are made once.
_PLACED: dict[tuple[Message, str, int], _Placed] = caches.per_conversation({})


@caches.per_conversation
# Each compaction folds in the summary before it, and every setting a tuner tries that compacts at
# the same calls folds in the same summaries again.
@lru_cache(maxsize=8192)
def _carried(previous: str, has_next: bool) -> tuple[Item, ...]:
    return tuple(carried(parse_summary(previous), has_next))


def carried(previous: dict[str, list[str]], has_next: bool) -> list[Item]:
    """How a parsed previous summary folds in: its items come first (older) and carry forward; its
    next steps are superseded when the new messages state new ones (`has_next`)."""
    out: list[Item] = []
    count = sum(len(v) for v in previous.values()) or 1
    for section, lines in previous.items():
        if section == NEXT and has_next:
            continue
        for line in lines:
            texts = [line] if len(line) <= _SENTENCE_CHARS * 2 else list(h.sentences(line))
            for text in texts:
                seq = -1.0 + len(out) / count / 2
                out.append(Item(section, text, _CARRIED.get(section, 0.0), seq, "previous"))
    return out


def fit(items: list[Item], counter: TokenCounter, max_tokens: int) -> str:
    """Render the highest-ranked items that fit in `max_tokens` (as counted by `counter`)."""
    items = _dedupe(items)
    if not items or max_tokens <= 0:
        return ""
    low = min(it.seq for it in items)
    span = (max(it.seq for it in items) - low) or 1.0
    priority = [_WEIGHTS.get(it.section, 2.0) + it.score + _RECENCY.get(it.section, 0.5) * (it.seq - low) / span
                for it in items]
    # By priority, then position, then list order (what a stable sort on the first two gives), at C speed.
    ranks = sorted(zip([-p for p in priority], [it.seq for it in items], range(len(items)), strict=True))
    order = [i for *_, i in ranks]
    chosen: list[int] = []
    opened: set[str] = set()
    said = ""  # the chosen lines' text: a detail one of them already holds is not repeated
    used = 0
    details, lines = _costs(counter)
    # A section's heading is paid with its first item: counted once per section, not per item tried.
    headings = {section: counter.count(f"## {section}") + 2 for section in {it.section for it in items}}
    for i in order:
        item = items[i]
        if item.section == DETAILS:
            if item.text in said:
                continue
            cost = details.get(item.text)
            if cost is None:  # several details share a line
                cost = details[item.text] = counter.count(item.text) + 1
        else:
            cost = lines.get(item.text)
            if cost is None:
                cost = lines[item.text] = counter.count(f"- {item.text}") + 1
        if item.section not in opened:
            cost += headings[item.section]
        if used + cost <= max_tokens:
            chosen.append(i)
            opened.add(item.section)
            used += cost
            said += "\n" + item.text
    text = _render([items[i] for i in chosen])
    while chosen and counter.count(text) > max_tokens:  # the per-line estimate was short: trim more
        chosen.pop()
        text = _render([items[i] for i in chosen])
    if not text:  # no whole item fits: the best one, cut to the length (an LLM would still say something)
        text = clip_to_tokens(_render([items[order[0]]]), max_tokens, counter, head_share=1.0)
    return text


def _costs(counter: TokenCounter) -> tuple[dict[str, int], dict[str, int]]:
    """The counter's cost of an item's text as a detail and as a line, by text (fresh dicts for a
    counter that cannot be hashed). Each compaction of a conversation ranks the same items again."""
    if not isinstance(counter, Hashable):
        return {}, {}
    found = caches.kept(_COSTS, counter, 64, lambda _: ({}, {}))
    for costs in found:
        if len(costs) >= _EXTRACT_ENTRIES * 4:
            costs.clear()
    return found


_COSTS: dict[TokenCounter, tuple[dict[str, int], dict[str, int]]] = caches.per_conversation({})


def extract(message: Message, tool_name: str = "tool") -> tuple[tuple[str, str, float, str], ...]:
    """``(section, text, score, tag)`` items of one message, cached per message."""
    key = (message, tool_name)
    cached = _EXTRACTED.get(key)
    if cached is None:
        if len(_EXTRACTED) >= _EXTRACT_ENTRIES:
            _EXTRACTED.clear()
        if message.role == "user":
            cached = _user_items(message.text)
        elif message.role == "assistant":
            cached = _assistant_items(message)
        elif message.role == "tool":
            cached = _tool_items(message.text)
        else:
            cached = ()
        _EXTRACTED[key] = cached
    return cached


_EXTRACTED: dict[tuple[Message, str], tuple[tuple[str, str, float, str], ...]] = caches.per_conversation({})


def _user_items(text: str) -> tuple[tuple[str, str, float, str], ...]:
    body = h.prose(text)
    sentences = list(h.sentences(body))
    if not sentences:
        return ()
    # Constraint and decision sentences go to their own sections; the rest is the request,
    # verbatim when short (a message of rules only states no new request).
    ruled = {s for s in sentences if h.holds(h.CONSTRAINT, s) or h.holds(h.DECISION, s)}
    request = h.lead("\n".join(s for s in sentences if s not in ruled), _REQUEST_CHARS)
    trivial = len(request.split()) <= 3 and not h.concreteness(request)
    out = [(GOAL, request, -3.0 if trivial else 1.0, "")] if request else []
    for sentence in sentences:
        if sentence in request:
            continue
        out.extend(_classify_sentence(sentence, user=True))
    # Errors in the prose are part of the request; pasted logs (code blocks) are errors seen.
    out.extend((ERRORS, h.shorten(line, _SENTENCE_CHARS), score, "") for line, score in h.error_lines(h.code(text), 2))
    return (*out, *_detail_items(text))


def _assistant_items(message: Message) -> tuple[tuple[str, str, float, str], ...]:
    out: list[tuple[str, str, float, str]] = []
    body = h.prose(message.text)
    for sentence in h.sentences(body):
        out.extend(_classify_sentence(sentence, user=False))
    if body.strip() and not out:  # a status line when no sentence said anything more specific
        out.append((PROGRESS, h.lead(body, _SENTENCE_CHARS), 0.5, "lead"))
    for call in message.tool_calls:
        out.append((DETAILS, call.name, 0.0, ""))  # which tools ran, even where the call says nothing else
        info = classify(call)
        if info.kind == "command" and info.command:
            out.append((COMMANDS, h.shorten(info.command, _COMMAND_CHARS), 0.5, ""))
        elif info.kind in ("read", "modify"):
            section = MODIFIED if info.kind == "modify" else READ
            out.extend((section, path, 0.5, "") for path in info.paths)
        else:
            args = ", ".join(f"{k}={v}" for k, v in info.args.items() if isinstance(v, str | int | float))
            out.append((CONTEXT, h.shorten(f"{info.name}({args})", _COMMAND_CHARS), 0.5, ""))
    return (*out, *_detail_items(message.text))


def _tool_items(text: str) -> tuple[tuple[str, str, float, str], ...]:
    out = [(ERRORS, h.shorten(line, _SENTENCE_CHARS), score, "") for line, score in h.error_lines(text)]
    summary = h.runner_summary(text)
    if summary and all(summary not in line for _, line, _, _ in out):
        out.append((ERRORS if h.failed(summary) else PROGRESS, h.shorten(summary, _SENTENCE_CHARS), 1.0, ""))
    return (*out, *_detail_items(text))


def _detail_items(text: str) -> tuple[tuple[str, str, float, str], ...]:
    """The text's concrete details (paths, identifiers, numbers...), the lowest-ranked items: what
    room the other sections leave keeps the trail of what the messages named."""
    return tuple((DETAILS, d, 0.0, "") for d in h.details(text) if len(d) <= _SENTENCE_CHARS)


def _classify_sentence(sentence: str, *, user: bool) -> list[tuple[str, str, float, str]]:
    density = h.concreteness(sentence)
    text = h.shorten(sentence, _SENTENCE_CHARS)
    bonus = min(density, 4) * 0.25
    if h.holds(h.DECISION, sentence):
        return [(DECISIONS, text, 1.0 + bonus, "")]
    if h.holds(h.CONSTRAINT, sentence) and (user or density):
        return [(CONSTRAINTS, text, (1.0 if user else 0.0) + bonus, "")]
    if not user and h.holds(h.NEXT, sentence):
        return [(NEXT, text, 0.5 + bonus, "")]
    if not user and h.holds(h.PROGRESS, sentence):
        return [(PROGRESS, text, 0.5 + bonus, "")]
    if density:
        return [(CONTEXT, text, (0.5 if user else 0.0) + bonus, "")]
    return []


def _first_goal_first(items: list[Item]) -> list[Item]:
    """The earliest request (carried from a previous summary or new) is the session's goal."""
    goals = [i for i, it in enumerate(items) if it.section == GOAL]
    if goals:
        first = min(goals, key=lambda i: items[i].seq)
        items = list(items)
        items[first] = items[first]._replace(score=items[first].score + 2.0)
    return items


def _dedupe(items: list[Item]) -> list[Item]:
    """One item per text (the highest-weighted section wins, at its first position); a file
    that was modified is not listed again as read."""
    modified = {it.text for it in items if it.section == MODIFIED}
    best: dict[str, Item] = {}
    if len(_KEYS) >= _EXTRACT_ENTRIES * 4:
        _KEYS.clear()
    known, weight, first = _KEYS.get, _WEIGHTS.get, best.setdefault  # bound once: run per item
    for it in items:
        if it.section == READ and it.text in modified:
            continue
        key = known(it.text)
        if key is None:
            key = _KEYS[it.text] = " ".join(it.text.lower().split())
        old = first(key, it)
        if old is not it and weight(it.section, 0) + it.score > weight(old.section, 0) + old.score:
            best[key] = it._replace(seq=min(it.seq, old.seq))
    return list(best.values())


# Text -> its deduplication key (lower-cased, whitespace collapsed), for the same items ranked again.
_KEYS: dict[str, str] = caches.per_conversation({})


def _render(items: list[Item]) -> str:
    sections: dict[str, list[str]] = {s: [] for s in SECTIONS}  # rendered by `render` (details joined)
    for it in sorted(items, key=lambda it: it.seq):
        sections.setdefault(it.section, []).append(it.text)
    return render(sections)
