"""Fact recall: how many concrete facts of a conversation survive a compression.

Two sources of facts:

* ground truth: ``meta.facts_detail`` (``[{fact, kind, message_index}]``) or, without it,
  ``meta.facts`` (the index is then the first message that contains the fact);
* facts auto-extracted (`extract_facts`) from the original messages the result does not keep
  whole, so datasets without ground truth still get a recall figure.

A fact is kept when it occurs, case-sensitively and with whitespace runs collapsed, in the text
of one of the result's messages (tool-call arguments included, JSON-decoded).

`fact_recall` runs for every result row of a replay, so:

* everything per conversation is computed once: its facts are numbered (ground truth first, then
  each message's auto facts in message order) and a set of facts is an int with one bit per fact,
  so scoring a result is a few big-integer operations;
* which facts a message holds is cached per message. Strategies emit new messages every turn
  (structured prompts, summaries, truncated copies) made mostly of other messages' lines, so a
  text is cut at the newlines no fact can span (`_line_breaks`) and which facts each piece holds
  is cached too: a new message costs a look-up per line seen before, and one search of all its
  new lines together.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import reduce
from itertools import accumulate, compress
from operator import not_, or_
from typing import Any, NamedTuple

from ctxlab.messages import Conversation, Message

# The extraction patterns run over every message, so they are written for speed; each matches
# exactly what its plain form matches (tests/metrics/test_facts.py holds the plain forms and checks
# that the two agree): runs are possessive (``++``, ``*+``) where giving characters back cannot
# help (what follows is a character the run cannot hold, or a word boundary inside it); a
# lookbehind common to two alternatives is tested once; and a pattern starts with the class of its
# first character where that lets the regex engine skip ahead to candidates (3x faster), its
# lookbehinds then spanning that character too. URLs and paths have one group around the whole
# match, so that `split` returns them between the rest of the text.
_URL = re.compile(r"(https?://[^\s<>\"'`)\]]+)")
_PATH = re.compile(r"((?<![\w/.-])(?:(?<!@)(?:[\w.-]++/)+[\w.-]*\w|[\w-]++\.(?:py|pyi|ts|tsx|js|jsx|mjs|"
                   r"go|rs|java|kt|rb|php|c|h|cc|cpp|hpp|cs|swift|json|ya?ml|toml|ini|cfg|conf|md|rst|"
                   r"txt|sql|sh|lock|html|css|scss|env|proto|tf|xml|csv|ipynb)\b))")
_ERROR = re.compile(r"[A-Ze](?<!\w.)(?:(?<=[A-Z])(?:[A-Z]{0,3}\d{3,5}|(?<=E)RR_[A-Z0-9_]+|(?<=C)VE-\d{4}-\d{3,}"
                    r"|[A-Za-z]*(?:Error|Exception)|(?<=E)(?:NOENT|ACCES|PERM|EXIST|CONNREFUSED|CONNRESET"
                    r"|ADDRINUSE|TIMEDOUT|PIPE|NOMEM))\b|(?<=H)TTP \d{3}\b|(?<=e)xit (?:code|status) \d+\b)")
_IDENT = re.compile(r"\b(?:[A-Z][a-z0-9]++(?:[A-Z][a-z0-9]++)+|[a-z][a-z0-9]*+(?:[A-Z][a-z0-9]++)+"
                    r"|[A-Za-z][A-Za-z0-9]*+(?:_[A-Za-z0-9]++)+)\b(?:\(\))?")
_UNITS = (r"%|ms|s|sec|secs|seconds?|minutes?|mins?|hours?|h|days?|weeks?|[KMGT]i?B|[KMGT]i|[kKMG]|"
          r"bytes?|rows?|lines?|files?|errors?|warnings?|tests?|requests?|replicas?|workers?|threads?|"
          r"retries|attempts?|items?|users?|tokens?|records?|connections?|pods?|nodes?|cores?|x|qps|rps")
_NUMBER = re.compile(rf"[v\d](?:(?<=v)(?<![\w.].)\d+(?:\.\d+){{2,}}\b|(?<=\d)(?<![\w.].)\d*(?:\.\d+){{2,}}\b"
                     rf"|(?<=\d)(?<![\w.].)[\d,]*(?:\.\d+)?\s?(?:{_UNITS})\b"
                     r"|(?<=\d)[\d,]*(?:\.\d+)?\s?[个件行秒天分時间次条項项台倍])")
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
    found = list(map(str.strip, _BACKTICK.findall(text)))
    found.extend(map(str.strip, _SHELL.findall(text)))
    # URLs and paths are taken out before the narrower patterns run, so their pieces (a host name,
    # a file stem) do not count again as identifiers.
    urls, rest = _take_out(_URL, text)
    paths, rest = _take_out(_PATH, rest)
    found.extend(map(_clean, urls))
    # Paths, error codes, identifiers and numbers end in a word character, "()" or a unit: there
    # is nothing for `_clean` to trim.
    found.extend(paths)
    for pattern in (_ERROR, _IDENT, _NUMBER):
        found.extend(pattern.findall(rest))
    return list(dict.fromkeys(f for f in found if len(f) >= 2))


def _take_out(pattern: re.Pattern[str], text: str) -> tuple[list[str], str]:
    """The matches of `pattern` (one group around the whole) in `text`, and `text` with each
    replaced by a space: what ``findall`` and ``sub(" ", text)`` give, in one search."""
    parts = pattern.split(text)
    return parts[1::2], " ".join(parts[0::2])


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
    return _facts_of(conversation).recall(result, upto, auto)


def fact_recall_by_kind(conversation: Conversation, result: Any,
                        upto: int | None = None) -> dict[str, tuple[int, int]]:
    """Ground-truth facts per kind as ``{kind: (kept, total)}``."""
    facts = _facts_of(conversation)
    found = facts.found(result.messages)
    out: dict[str, tuple[int, int]] = {}
    for fact, bit in zip(facts.ground, facts.index().ground_bits):
        if upto is None or fact.message_index < upto:
            kept, total = out.get(fact.kind, (0, 0))
            out[fact.kind] = (kept + bool(found & bit), total + 1)
    return out


def kept_facts(conversation: Conversation, messages: Iterable[Message]) -> set[str]:
    """The conversation's facts (ground truth and auto-extracted, normalized) found in `messages`."""
    facts = _facts_of(conversation)
    return set(_select(facts.index().facts, facts.found(messages)))


def kept_text(messages: Iterable[Message]) -> str:
    """The normalized text of messages, tool-call arguments included, joined for substring tests."""
    return "\n".join(_message_text(m) for m in messages)


@dataclass(frozen=True)
class _FactIndex:
    """A conversation's facts numbered (bit ``1 << i`` stands for ``facts[i]``), where they come
    from, and how to find them in a text.

    Attributes:
        facts: normalized, distinct, non-empty: the ground truth in order, then each message's
            auto facts in message order (the order `fact_recall` lists missing facts in, mostly).
        bits: fact -> its bit.
        ground_bits: per ground-truth fact, its bit (0 when it normalizes to nothing).
        message_ids: the conversation's message ids, by position.
        message_facts: per message position, the indices of its auto facts in extraction order.
        message_bits: per message position, those facts as bits.
        first_bits: per message position, the bits of the auto facts that come up there first.
        auto_rank: per fact, its place in the order auto facts come up in (the index order but
            for ground-truth facts, numbered first; `len(facts)` for facts never extracted).
        ground_numbered: the bits of the ground-truth facts.
        line_breaks: the newlines no fact can span (`_line_breaks`), where texts are cut.
        overlap: the longest fact less one character (how far a chunk of a long line reaches
            into the next).
    """

    facts: tuple[str, ...]
    bits: dict[str, int]
    ground_bits: tuple[int, ...]
    message_ids: tuple[str, ...]
    message_facts: tuple[tuple[int, ...], ...]
    message_bits: tuple[int, ...]
    first_bits: tuple[int, ...]
    auto_rank: tuple[int, ...]
    ground_numbered: int
    line_breaks: re.Pattern[str]
    overlap: int

    def bits_per_text(self, texts: Sequence[str]) -> list[int]:
        """The facts each normalized text holds, as bits. The texts are searched at once, joined
        by newlines (no normalized fact holds one), and each fact found is placed in its texts."""
        joined = "\n".join(texts)
        ends = list(accumulate(len(t) + 1 for t in texts))
        out = [0] * len(texts)
        for fact in filter(joined.__contains__, self.facts):
            bit = self.bits[fact]
            at = joined.find(fact)
            while at >= 0:
                k = bisect_right(ends, at)
                out[k] |= bit
                at = joined.find(fact, ends[k])
        return out


def _fact_index(ground: Sequence[GroundFact], messages: Sequence[Message],
                auto: Sequence[tuple[str, ...]]) -> _FactIndex:
    """Number the facts: `auto` holds each message's normalized auto facts, by position."""
    normalized = [normalize(f.fact) for f in ground]
    numbered_ground = len(dict.fromkeys(f for f in normalized if f))
    facts = tuple(dict.fromkeys(f for f in (*normalized, *(f for m in auto for f in m)) if f))
    number = {f: i for i, f in enumerate(facts)}
    message_facts = tuple(tuple(dict.fromkeys(number[f] for f in m if f)) for m in auto)
    first_bits, auto_rank, ranked = [], [len(facts)] * len(facts), 0
    for indices in message_facts:
        first = [i for i in indices if auto_rank[i] == len(facts)]
        for i in first:
            auto_rank[i], ranked = ranked, ranked + 1
        first_bits.append(_union(1 << i for i in first))
    return _FactIndex(
        facts=facts, bits={f: 1 << i for i, f in enumerate(facts)},
        ground_bits=tuple(1 << number[f] if f else 0 for f in normalized),
        message_ids=tuple(m.id for m in messages), message_facts=message_facts,
        message_bits=tuple(_union(1 << i for i in m) for m in message_facts), first_bits=tuple(first_bits),
        auto_rank=tuple(auto_rank), ground_numbered=(1 << numbered_ground) - 1,
        line_breaks=_line_breaks(facts), overlap=max(map(len, facts), default=1) - 1)


def _line_breaks(facts: Sequence[str]) -> re.Pattern[str]:
    """The newlines where a text can be cut without cutting through an occurrence of a fact.

    Normalized, a newline becomes the space in ``c d``, c and d the nearest characters around it
    that are not whitespace, and an occurrence across it would hold ``c d``: none can when no fact
    has c before a space, or none has d after one. A newline next to other whitespace does not
    show c (or d), so only the other side can let it be cut.
    """
    spaced = "\n".join(f for f in facts if " " in f)
    before = "".join(map(re.escape, sorted(set(re.findall(r"(.) ", spaced)))))
    after = "".join(map(re.escape, sorted(set(re.findall(r" (.)", spaced)))))
    return re.compile(rf"\n(?:(?<![\s{before}]\n)|(?![\s{after}]))")


class _GroundWanted(NamedTuple):
    """The ground-truth facts before some `upto`: bits, indices in ground-truth order, and
    whether that order is the index order."""

    bits: int
    order: tuple[int, ...]
    ascending: bool


@dataclass
class _ConversationFacts:
    """Per-conversation precomputation: ground truth, the numbered facts, and caches of the facts
    in each message and each piece of text, and of what each `upto`, each set of lost messages and
    each set of missing facts stand for. `recall` and `found` run for every result row, so their
    common path stays in C (maps, dict look-ups, big-integer operations) as far as it can."""

    conversation: Conversation
    ground: tuple[GroundFact, ...]
    _index: _FactIndex | None = None
    # Messages by identity (no Python-level hash), then by value; both hold the messages.
    _by_id: _Bounded = field(default_factory=lambda: _Bounded(_MESSAGE_ENTRIES))
    _by_message: _Bounded = field(default_factory=lambda: _Bounded(_MESSAGE_CHARS))
    _text_bits: _Bounded = field(default_factory=lambda: _Bounded(_TEXT_CHARS))
    _ground_wanted: _Memo = field(init=False)
    _lost_bits: _Memo = field(init=False)
    _names: _Memo = field(init=False)

    def __post_init__(self) -> None:
        self._ground_wanted = _Memo(self.ground_wanted, _MEMO_ENTRIES)
        self._lost_bits = _Memo(self.lost_bits, _MEMO_ENTRIES)
        self._names = _Memo(self.names, _MEMO_ENTRIES)

    def index(self) -> _FactIndex:
        if self._index is None:
            messages = self.conversation.messages
            self._index = _fact_index(self.ground, messages, _auto_facts_by_position(messages))
        return self._index

    def recall(self, result: Any, upto: int | None, auto: bool) -> FactRecall:
        """`fact_recall`: the ground truth before `upto`, plus (with `auto`) the auto facts of
        the messages before `upto` that `result` does not keep whole (dropped, truncated, or never
        seen: an earlier compaction removed them)."""
        index = self._index or self.index()
        ground = self._ground_wanted[upto]
        wanted, lost, first_lost = ground.bits, b"", 0
        if auto:
            lost = _lost_before(index.message_ids[:upto], result)
            lost_bits, first_lost = self._lost_bits[lost]
            wanted |= lost_bits
        total = wanted.bit_count()
        if not total:
            return FactRecall(None, 0, 0, ())
        missing = wanted & ~self.found(result.messages)
        kept = total - missing.bit_count()
        if ground.ascending and not missing & ~ground.bits & (index.ground_numbered | ~first_lost):
            # Each missing auto fact comes up first at a lost message and was numbered there:
            # the index order is the wanted order.
            names = self._names[missing]
        else:
            names = _in_wanted_order(index, ground, lost, first_lost, missing)
        return FactRecall(kept / total, total, kept, names)

    def ground_wanted(self, upto: int | None) -> _GroundWanted:
        bits = [bit for fact, bit in zip(self.ground, self.index().ground_bits)
                if bit and (upto is None or fact.message_index < upto)]
        order = tuple(b.bit_length() - 1 for b in dict.fromkeys(bits))
        return _GroundWanted(_union(bits), order, list(order) == sorted(order))

    def lost_bits(self, lost: bytes) -> tuple[int, int]:
        """The auto facts of the `lost` messages (one flag per position), and those that come up
        first there."""
        index = self.index()
        return _union(compress(index.message_bits, lost)), _union(compress(index.first_bits, lost))

    def names(self, bits: int) -> tuple[str, ...]:
        return _select(self.index().facts, bits)

    def found(self, messages: Iterable[Message]) -> int:
        """The conversation's facts (as bits) that occur in any of `messages`."""
        messages = tuple(messages)
        bits = list(map(self._by_id.get, map(id, messages)))
        if None in bits:
            bits = [self.contains(m) if b is None else b for m, b in zip(messages, bits)]
        return reduce(or_, bits, 0)

    def contains(self, message: Message) -> int:
        bits = self._by_id.get(id(message))
        if bits is None:
            bits = self._by_message.get(message)
            if bits is None:
                text = _raw_text(message)
                bits = self.bits_in(text)
                self._by_message.add((message,), (bits,), len(text))
            self._by_id.add((id(message),), (bits,), 1, held=(message,))
        return bits

    def bits_in(self, text: str) -> int:
        """The facts in `text` (raw: normalized here), from its pieces between the newlines no
        fact spans: messages made of other messages' text are mostly lines seen before."""
        return self.cached_bits(self.index().line_breaks.split(text), self.bits_per_text)

    def bits_per_text(self, texts: Sequence[str]) -> list[int]:
        """`_FactIndex.bits_per_text` of the normalized texts, except that a long one (a line of
        JSON, a log without newlines) is taken in overlapping chunks, cached, for its partial
        copies to reuse."""
        texts = list(map(" ".join, map(str.split, texts)))
        short = [t for t in texts if len(t) <= _LONG_TEXT]
        found = dict(zip(short, self.index().bits_per_text(short)))
        return [found[t] if len(t) <= _LONG_TEXT else self.bits_in_long(t) for t in texts]

    def bits_in_long(self, text: str) -> int:
        return self.cached_bits(_overlapping_chunks(text, self.index().overlap), self.index().bits_per_text)

    def cached_bits(self, texts: Sequence[str], search: Callable[[list[str]], list[int]]) -> int:
        """The facts in any of `texts`, from the cache, the new texts searched together."""
        known = list(map(self._text_bits.get, texts))
        if None in known:
            new = list(dict.fromkeys(t for t, bits in zip(texts, known) if bits is None))
            bits = search(new)
            self._text_bits.add(new, bits, sum(map(len, new)))
            known.extend(bits)
        return reduce(or_, filter(None, known), 0)


class _Bounded(dict):
    """A cache emptied whenever the sizes of its entries would add up past `budget`. `held`
    keeps alive the objects whose `id` is a key, so that no key can come to mean another object."""

    def __init__(self, budget: int) -> None:
        super().__init__()
        self.budget = budget
        self.size = 0
        self.held: list[Any] = []

    def add(self, keys: Iterable[Any], values: Iterable[int], size: int, held: Iterable[Any] = ()) -> None:
        if self.size + size > self.budget:
            self.clear()
            self.held.clear()
            self.size = 0
        self.update(zip(keys, values))
        self.size += size
        self.held.extend(held)


class _Memo(dict):
    """A dict that fills in a missing key with ``compute(key)``, emptied at `limit` entries."""

    def __init__(self, compute: Callable[[Any], Any], limit: int) -> None:
        super().__init__()
        self.compute = compute
        self.limit = limit

    def __missing__(self, key: Any) -> Any:
        if len(self) >= self.limit:
            self.clear()
        value = self[key] = self.compute(key)
        return value


def _auto_facts_by_position(messages: Sequence[Message]) -> list[tuple[str, ...]]:
    """Each message's normalized auto facts; a repeated id gets its first message's facts."""
    by_id: dict[str, tuple[str, ...]] = {}
    for message in messages:
        if message.id not in by_id:
            by_id[message.id] = tuple(map(normalize, extract_facts(_raw_text(message))))
    return [by_id[m.id] for m in messages]


def _lost_before(message_ids: tuple[str, ...], result: Any) -> bytes:
    """Per message id, whether `result` does not keep that message whole: it dropped or truncated
    it, or never saw it."""
    if result.input_ids == message_ids:  # the usual case: a result over exactly these messages
        gone = {*result.dropped_ids, *result.truncated_ids}
        return bytes(map(gone.__contains__, message_ids))
    whole = set(result.input_ids).difference(result.dropped_ids, result.truncated_ids)
    return bytes(map(not_, map(whole.__contains__, message_ids)))


def _in_wanted_order(index: _FactIndex, ground: _GroundWanted, lost: bytes, first_lost: int,
                     missing: int) -> tuple[str, ...]:
    """The `missing` facts in the order they are wanted: the ground truth in order, then each lost
    message's auto facts in message and extraction order, each fact once."""
    auto = missing & ~ground.bits
    if ground.ascending and not auto & ~first_lost:
        # Each missing auto fact comes up first at a lost message: they go in that order.
        ranked = sorted(_select(range(len(index.facts)), auto), key=index.auto_rank.__getitem__)
        return _select(index.facts, missing & ground.bits) + tuple(map(index.facts.__getitem__, ranked))
    out = [index.facts[i] for i in ground.order if missing >> i & 1]
    remaining = set(_select(range(len(index.facts)), auto))
    for position in compress(range(len(lost)), lost):
        if not remaining:
            break
        if not remaining.isdisjoint(index.message_facts[position]):
            here = list(filter(remaining.__contains__, index.message_facts[position]))
            remaining.difference_update(here)
            out.extend(map(index.facts.__getitem__, here))
    return tuple(out)


def _overlapping_chunks(text: str, overlap: int) -> list[str]:
    """`text` cut at `_cut_points`, each piece extended by `overlap` characters of the next: any
    string of up to ``overlap + 1`` characters occurring in `text` occurs whole in one chunk."""
    chunks = []
    start = 0
    for end in _cut_points(text):
        chunks.append(text[start:end + overlap])
        start = end
    return chunks


def _cut_points(text: str) -> list[int]:
    """Where chunks of `text` end: after the first sentence end (else space) at least `_CHUNK`
    characters past the previous cut, at most `_CHUNK_MAX`. Cuts follow the text, not its offset,
    so a sentence repeated in another text mostly lands in the same chunk again."""
    ends = []
    start = 0
    while len(text) - start > _CHUNK:
        low, high = start + _CHUNK, start + _CHUNK_MAX
        cut = _SENTENCE_END.search(text, low, high) or _SOFT_BREAK.search(text, low, high)
        start = cut.end() if cut is not None else low
        ends.append(start)
    if not ends or ends[-1] < len(text):
        ends.append(len(text))
    return ends


def _union(bits: Iterable[int]) -> int:
    return reduce(or_, bits, 0)


def _select(items: Sequence[Any], bits: int) -> tuple[Any, ...]:
    """The items whose bit is set, in order: `compress` walks the binary digits, lowest first."""
    return tuple(compress(items, bin(bits)[:1:-1].encode("ascii").translate(_BINARY_DIGITS)))


def _clean(fact: str) -> str:
    return fact if fact.endswith("()") else fact.rstrip(_TRAILING)


def _ground(conversation: Conversation) -> tuple[GroundFact, ...]:
    meta = conversation.meta or {}
    detail = meta.get("facts_detail")
    if isinstance(detail, list) and detail:
        return tuple(GroundFact(str(d["fact"]), str(d.get("kind", "fact")), int(d.get("message_index", 0)))
                     for d in detail if isinstance(d, Mapping) and d.get("fact"))
    texts = [_message_text(m) for m in conversation.messages]
    out = []
    for fact in meta.get("facts") or ():
        needle = normalize(str(fact))
        index = next((i for i, t in enumerate(texts) if needle in t), 0)
        out.append(GroundFact(str(fact), "fact", index))
    return tuple(out)


# Normalized pieces longer than this are searched in chunks (cut at `_cut_points`): long enough
# that overlaps stay cheap, short enough to repeat.
_LONG_TEXT = 2000
_CHUNK = 200
_CHUNK_MAX = 1000
_SENTENCE_END = re.compile(r"[.!?;:\]] ")
_SOFT_BREAK = re.compile(r"[ 。！？；：，、]")
_BINARY_DIGITS = bytes.maketrans(b"01", b"\0\1")

# Replays score one conversation against many results in a row: keep the last few conversations'
# precomputation, keyed by object identity (the entry holds the object, so the id stays valid).
_CONVERSATIONS: OrderedDict[int, _ConversationFacts] = OrderedDict()
_CONVERSATION_ENTRIES = 16
# Per conversation, the messages cached by identity, and the text behind those cached by value
# and behind the cached pieces: the caches hold them, so this bounds their memory (at most
# 16 x 6 M characters) however many conversations a replay runs.
_MESSAGE_ENTRIES = 50_000
_MESSAGE_CHARS = 4_000_000
_TEXT_CHARS = 2_000_000
# Per conversation, the `upto`s, sets of lost messages and sets of missing facts remembered (a
# per-turn replay repeats each across strategies and budgets).
_MEMO_ENTRIES = 10_000


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
    return normalize(_raw_text(message))


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
