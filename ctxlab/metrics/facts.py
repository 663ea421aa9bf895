"""Fact recall: how many concrete facts of a conversation survive a compression.

Two sources of facts:

* ground truth: ``meta.facts_detail`` (``[{fact, kind, message_index}]``) or, without it,
  ``meta.facts`` (the index is then the first message that contains the fact);
* facts auto-extracted (`extract_facts`) from the original messages the result does not keep
  whole, so datasets without ground truth still get a recall figure.

A fact is kept when it occurs, case-sensitively and with whitespace runs collapsed, in the text
of one of the result's messages (tool-call arguments included, JSON-decoded). `fact_recall` runs
for every result row of a replay, so everything per conversation or per message is computed
once: which of the conversation's facts each message contains is cached per message, and
scoring a result is a union of those sets.
"""

from __future__ import annotations

import json
import re
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, NamedTuple

from ahocorasick_rs import AhoCorasick, MatchKind

from ctxlab import caches
from ctxlab.messages import Conversation, Message
from ctxlab.metrics.fact_stream import FactStream

# Each pattern opens with a lookahead on the characters a match can start with: it changes no match,
# and lets `re` skip every other position at once instead of trying the whole pattern there (twice
# as fast over long tool outputs, where most of a replay's facts are looked for).
_URL = re.compile(r"https?://[^\s<>\"'`)\]]+")
_PATH = re.compile(r"(?=[\w.-])(?:(?<![\w/.@-])(?:[\w.-]+/)+[\w.-]*\w|(?<![\w/.-])[\w-]+\.(?:py|pyi|ts|tsx|js|"
                   r"jsx|mjs|go|rs|java|kt|rb|php|c|h|cc|cpp|hpp|cs|swift|json|ya?ml|toml|ini|cfg|conf|md|"
                   r"rst|txt|sql|sh|lock|html|css|scss|env|proto|tf|xml|csv|ipynb)\b)")
_ERROR = re.compile(r"(?=[A-Ze])(?:\b(?:[A-Z]{1,4}\d{3,5}|ERR_[A-Z0-9_]+|CVE-\d{4}-\d{3,}|[A-Z][A-Za-z]*"
                    r"(?:Error|Exception)|E(?:NOENT|ACCES|PERM|EXIST|CONNREFUSED|CONNRESET|ADDRINUSE|TIMEDOUT|"
                    r"PIPE|NOMEM))\b|\bHTTP \d{3}\b|\bexit (?:code|status) \d+\b)")
_IDENT = re.compile(r"(?=[A-Za-z])\b(?:[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+|[a-z][a-z0-9]*(?:[A-Z][a-z0-9]+)+"
                    r"|[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+)\b(?:\(\))?")
_UNITS = (r"%|ms|s|sec|secs|seconds?|minutes?|mins?|hours?|h|days?|weeks?|[KMGT]i?B|[KMGT]i|[kKMG]|"
          r"bytes?|rows?|lines?|files?|errors?|warnings?|tests?|requests?|replicas?|workers?|threads?|"
          r"retries|attempts?|items?|users?|tokens?|records?|connections?|pods?|nodes?|cores?|x|qps|rps")
_NUMBER = re.compile(rf"(?=[v\d])(?:(?<![\w.])v?\d+(?:\.\d+){{2,}}\b|(?<![\w.])\d[\d,]*(?:\.\d+)?\s?(?:{_UNITS})\b"
                     r"|\d[\d,]*(?:\.\d+)?\s?[个件行秒天分時间次条項项台倍])")
_BACKTICK = re.compile(r"`([^`\n]{2,200})`")
_SHELL = re.compile(r"(?m)^\s*\$ (\S.{0,200})$")
_TRAILING = ".,;:!?'\")]"


class FactRecall(NamedTuple):
    """Facts kept by a result: `recall` is kept/total (None when there is nothing to recall)."""

    recall: float | None
    total: int
    kept: int
    missing: tuple[str, ...]


class GroundFact(NamedTuple):
    """One ground-truth fact: its exact text, its kind and the index of the message stating it."""

    fact: str
    kind: str
    message_index: int


def extract_facts(text: str) -> list[str]:
    """Concrete facts in `text`: URLs, file paths, error codes, identifiers, numbers with units or
    versions, and shell commands (in backticks or after ``$ ``), deduplicated in order."""
    return list(_extracted(text))


# Fact recall and the grounded measures both look for the facts of every message of a session.
@caches.per_conversation
@lru_cache(maxsize=16_384)
def _extracted(text: str) -> tuple[str, ...]:
    found = [m.group(1).strip() for m in _BACKTICK.finditer(text)]
    found.extend(m.group(1).strip() for m in _SHELL.finditer(text))
    # URLs and paths are taken out before the narrower patterns run, so their pieces (a host name,
    # a file stem) do not count again as identifiers.
    rest = _taken_out(_PATH, _taken_out(_URL, text, found), found)
    for pattern in (_ERROR, _IDENT, _NUMBER):
        found.extend(_clean(m.group()) for m in pattern.finditer(rest))
    return tuple(dict.fromkeys(f for f in found if len(f) >= 2))


def _taken_out(pattern: re.Pattern[str], text: str, found: list[str]) -> str:
    """``pattern.sub(" ", text)``, with every match's fact appended to `found` on the same pass."""
    pieces, last = [], 0
    for match in pattern.finditer(text):
        found.append(_clean(match.group()))
        pieces.append(text[last:match.start()])
        last = match.end()
    if not pieces:
        return text
    pieces.append(text[last:])
    return " ".join(pieces)


def normalize(text: str) -> str:
    """Collapse whitespace runs to one space (how facts and kept text are compared)."""
    return " ".join(text.split())


def ground_truth(conversation: Conversation) -> tuple[GroundFact, ...]:
    """The conversation's ground-truth facts (see the module docstring for the two meta forms)."""
    return _facts_of(conversation).ground


def fact_recall(conversation: Conversation, result: Any, upto: int | None = None, *,
                auto: bool = True) -> FactRecall:
    """Fact recall of `result`, a `CompressionResult` of `conversation.messages[:upto]`.

    Args:
        conversation: the original conversation (its meta holds the ground truth).
        result: the compression result (per-turn replays pass the result of one turn).
        upto: only facts of messages before this index count (all when None).
        auto: also count facts auto-extracted from original messages not kept whole.
    """
    facts = _facts_of(conversation)
    wanted = facts.wanted(result, upto, auto)
    return _score(wanted, facts.found(result.messages))


def fact_recall_by_kind(conversation: Conversation, result: Any,
                        upto: int | None = None) -> dict[str, tuple[int, int]]:
    """Ground-truth facts per kind as ``{kind: (kept, total)}``."""
    facts = _facts_of(conversation)
    found = facts.found(result.messages)
    out: dict[str, tuple[int, int]] = {}
    for fact in facts.ground_before(upto):
        kept, total = out.get(fact.kind, (0, 0))
        out[fact.kind] = (kept + (normalize(fact.fact) in found), total + 1)
    return out


def kept_facts(conversation: Conversation, messages: Iterable[Message]) -> set[str]:
    """The conversation's facts (ground truth and auto-extracted, normalized) found in `messages`."""
    return _facts_of(conversation).found(messages)


def looks_like_path(text: str) -> bool:
    """Whether all of `text` is what `extract_facts` takes for a path (a ``/`` or a known extension)."""
    return _PATH.fullmatch(text) is not None


def message_text(message: Message) -> str:
    """A message's text as facts are matched in it: normalized, with its tool calls' names, raw
    arguments and JSON-decoded argument values (cached per message)."""
    return _message_text(message)


def raw_text(message: Message) -> str:
    """A message's text, its tool calls' names, raw arguments and JSON-decoded argument values,
    not normalized (`message_text` is this, normalized)."""
    return _raw_text(message)


def action_text(message: Message) -> str:
    """What a message says or does: its text and its tool calls' JSON-decoded argument values
    (not the raw JSON, whose escapes would glue ``\\n`` to the next word)."""
    pieces = [message.text]
    for call in message.tool_calls:
        decoded = _json_strings(call.arguments)
        pieces.extend(decoded if decoded or not call.arguments else [call.arguments])  # not JSON: as written
    return "\n".join(pieces)


def kept_text(messages: Iterable[Message]) -> str:
    """The normalized text of messages, tool-call arguments included, joined for substring tests."""
    return "\n".join(_message_text(m) for m in messages)


@dataclass
class _ConversationFacts:
    """Per-conversation precomputation: ground truth, facts extracted per message, and which of
    the conversation's facts each message contains (so scoring a result is a set union)."""

    conversation: Conversation
    ground: tuple[GroundFact, ...]
    _auto: dict[str, tuple[str, ...]] = field(default_factory=dict)
    _universe: tuple[str, ...] = ()
    _contains: dict[Message, frozenset[str]] = field(default_factory=dict)
    _automaton: Any = field(default=None, repr=False)
    sources: dict[str, list[tuple[int, int]]] | None = field(default=None, repr=False)  # `fact_tracker`'s
    _stream: FactStream | None = field(default=None, repr=False)

    def found(self, messages: Iterable[Message]) -> set[str]:
        """The conversation's facts (normalized) that occur in any of `messages`."""
        out: set[str] = set()
        for message in messages:
            out.update(self.contains(message))
        return out

    def contains(self, message: Message) -> frozenset[str]:
        """The conversation's facts that occur in `message` (``{f for f in facts if f in text}``),
        found in one pass over the text by an Aho-Corasick automaton of all of them (overlapping
        matches, so every fact that occurs is reported), built once per conversation."""
        cached = self._contains.get(message)
        if cached is None:
            if self._automaton is None:
                facts = [normalize(f.fact) for f in self.ground]
                facts += [f for m in self.conversation.messages for f in self.auto_facts(m)]
                self._universe = tuple(dict.fromkeys(f for f in facts if f))
                self._automaton = AhoCorasick(self._universe, matchkind=MatchKind.Standard)
            if len(self._contains) >= _TEXT_ENTRIES:
                self._contains.clear()
            universe = self._universe
            matches = self._automaton.find_matches_as_indexes(_message_text(message), overlapping=True)
            cached = self._contains[message] = frozenset(universe[i] for i in {i for i, _, _ in matches})
        return cached

    def ground_before(self, upto: int | None) -> list[GroundFact]:
        return [f for f in self.ground if upto is None or f.message_index < upto]

    def auto_facts(self, message: Message) -> tuple[str, ...]:
        cached = self._auto.get(message.id)
        if cached is None:
            cached = self._auto[message.id] = tuple(normalize(f) for f in extract_facts(_raw_text(message)))
        return cached

    def wanted(self, result: Any, upto: int | None, auto: bool) -> list[str]:
        """Ground facts before `upto`, then (`auto`) the facts of every message before it that
        `result` does not keep whole, in order, each once (`FactStream`)."""
        wanted = [f for g in self.ground_before(upto) if (f := normalize(g.fact))]
        if auto:
            whole = set(result.input_ids).difference(result.dropped_ids, result.truncated_ids)
            wanted += self.stream().wanted(upto, whole)
        return list(dict.fromkeys(wanted))

    def stream(self) -> FactStream:
        """The conversation's facts laid out once (built at the first score)."""
        if self._stream is None:
            messages = self.conversation.messages
            self._stream = FactStream([self.auto_facts(m) for m in messages], [m.id for m in messages])
        return self._stream


def _clean(fact: str) -> str:
    return fact if fact.endswith("()") else fact.rstrip(_TRAILING)


def _score(wanted: Sequence[str], found: set[str]) -> FactRecall:
    missing = tuple(f for f in wanted if f not in found)
    kept = len(wanted) - len(missing)
    return FactRecall(kept / len(wanted) if wanted else None, len(wanted), kept, missing)


def _ground(conversation: Conversation) -> tuple[GroundFact, ...]:
    meta = conversation.meta or {}
    detail = meta.get("facts_detail")
    if isinstance(detail, list) and detail:
        return tuple(GroundFact(str(d["fact"]), str(d.get("kind", "fact")), int(d.get("message_index", 0)))
                     for d in detail if isinstance(d, Mapping) and d.get("fact"))
    texts = [normalize(_raw_text(m)) for m in conversation.messages]
    out = []
    for fact in meta.get("facts") or ():
        needle = normalize(str(fact))
        index = next((i for i, t in enumerate(texts) if needle in t), 0)
        out.append(GroundFact(str(fact), "fact", index))
    return tuple(out)


# Replays score one conversation against many results in a row: keep the last few conversations'
# precomputation, keyed by object identity (the entry holds the object, so the id stays valid).
_CONVERSATIONS: OrderedDict[int, _ConversationFacts] = caches.per_conversation(OrderedDict())
_CONVERSATION_ENTRIES = 64
_TEXTS: dict[Message, str] = caches.per_conversation({})
_TEXT_ENTRIES = 100_000


def _facts_of(conversation: Conversation) -> _ConversationFacts:
    key = id(conversation)
    entry = _CONVERSATIONS.get(key)
    if entry is None or entry.conversation is not conversation:
        entry = _ConversationFacts(conversation, _ground(conversation))
        _CONVERSATIONS[key] = entry
        while len(_CONVERSATIONS) > _CONVERSATION_ENTRIES:
            _CONVERSATIONS.popitem(last=False)
    return entry


def _message_text(message: Message) -> str:
    text = _TEXTS.get(message)
    if text is None:
        if len(_TEXTS) >= _TEXT_ENTRIES:
            _TEXTS.clear()
        text = _TEXTS[message] = normalize(_raw_text(message))
    return text


def _raw_text(message: Message) -> str:
    pieces = [message.text]
    for call in message.tool_calls:
        pieces.append(call.name)
        pieces.append(call.arguments)
        pieces.extend(_json_strings(call.arguments))
    return "\n".join(pieces)


def _json_strings(arguments: str) -> list[str]:
    """String values inside JSON arguments, decoded (escaped newlines and quotes become real)."""
    try:
        value = json.loads(arguments) if arguments else None
    except (ValueError, TypeError):
        return []
    out: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, Mapping):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif item is not None:
            out.append(str(item))
    return out
