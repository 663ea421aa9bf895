"""`LogBuilder`: collects one log's messages and metadata, then makes a valid ctxlab record of them.

Importers add messages in log order and point usage, thinking and compactions at message objects,
not positions: finishing (`ctxlab.datasets.logs.finish`) may add or drop messages, and only then
are positions and ids fixed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from ctxlab.datasets.logs.common import TEXT_PARTS, LogError, LogSource, TokenUsage, as_int
from ctxlab.datasets.logs.finish import Pairing, anchor, clean, finish

BAD_LINE = "bad line"  # how meta.skipped counts a line an importer could not use (`ctxlab.datasets.logs.broken`)
_CALL_KEYS = ("index", "model", "prompt_tokens", "output_tokens", "input_tokens",
              "cache_read_tokens", "cache_write_tokens")


class LogBuilder:
    """The conversation being imported from one log (see the module docstring)."""

    def __init__(self, fmt: str, source: LogSource):
        self.fmt, self.source = fmt, source
        self.messages: list[dict[str, Any]] = []
        self.meta: dict[str, Any] = {}
        self.tools: list[Mapping[str, Any]] = []
        self.repairs: list[str] = list(source.notes)
        self.skipped: Counter[str] = Counter()
        self.omitted: Counter[str] = Counter()
        self._calls: dict[Any, tuple[dict[str, Any], str | None, TokenUsage]] = {}
        self._thinking: list[tuple[dict[str, Any], dict[str, Any]]] = []
        self._compactions: list[tuple[int | dict[str, Any], int, dict[str, Any]]] = []
        self._bad: list[tuple[int, dict[str, Any]]] = []
        self.pairing = Pairing()

    def add(self, role: str, content: str | None, *, msg_id: Any = None, tool_calls: list[dict] | None = None,
            tool_call_id: str | None = None, name: str | None = None, timestamp: float | None = None,
            where: str | None = None) -> dict:
        """Append a message (an OpenAI dict) and return it, so later entries can extend it; `where`
        (``file:line``) names it in repairs when the log gives it no id."""
        message = {"role": role, "content": content, "id": None if msg_id is None else str(msg_id),
                   "tool_calls": tool_calls or [], "tool_call_id": tool_call_id, "name": name,
                   "timestamp": timestamp, "_where": where}
        self.messages.append(message)
        return message

    def append_text(self, message: dict[str, Any], text: str | None) -> None:
        """Add a text block to a message (blocks of one message are joined by newlines)."""
        if text:
            message["content"] = f"{message['content']}\n{text}" if message["content"] else text

    def think(self, message: dict[str, Any], text: str | None, **flags: Any) -> None:
        """Record reasoning that produced `message`: kept in ``meta.thinking``, never in content."""
        self._thinking.append((message, {"text": text or "", **flags}))

    def call(self, message: dict[str, Any], model: str | None, usage: TokenUsage, key: Any = None) -> None:
        """Record a model call whose first assistant message is `message`; a repeated `key` replaces."""
        if any(usage):  # a call that reported nothing (an aborted stream) is no measurement
            self._calls[key if key is not None else id(message)] = (message, model if isinstance(model, str) else None,
                                                                     usage)

    def compaction(self, summary: str | None, tokens_before: Any, kept: int | dict[str, Any] | None = None,
                   *, at: int | None = None, **extra: Any) -> dict[str, Any]:
        """Record a compaction that replaced everything before `kept` (a position or a message;
        default: everything so far), happening now (or at position `at`). Agents that keep recent
        messages verbatim (pi, OpenHands) replace less than they have seen: ``index`` is where the
        replaced part ends and ``at`` where the compaction happened, so calls from ``at`` on saw the
        summary."""
        now = len(self.messages) if at is None else at
        item = {"summary": summary, "tokens_before": as_int(tokens_before) or None, **extra}
        self._compactions.append((now if kept is None else kept, now, item))
        return item

    def compactions(self) -> list[dict[str, Any]]:
        """The compactions recorded so far, in order (their dicts, still open to additions)."""
        return [item for _, _, item in self._compactions]

    def skip(self, kind: Any) -> None:
        """Count a log entry that has no place in a conversation."""
        self.skipped[str(kind)] += 1

    def bad_line(self, where: str, reason: str, note: str = "") -> None:
        """Skip a line the importer cannot use (`ctxlab.datasets.logs.broken`): counted, named in
        ``meta.repairs`` (with `note`, what was re-attached around it) and in ``meta.bad_lines`` with
        the position of what it held."""
        self.skipped[BAD_LINE] += 1
        self.repairs.append(f"{where}: skipped this line: {reason}{note}")
        self._bad.append((len(self.messages), {"where": where, "reason": reason}))

    def placeholder(self, kind: str) -> str:
        """Count content a chat message cannot hold and return the text that stands for it."""
        self.omitted[kind] += 1
        return f"[{kind} omitted]"

    def text(self, content: Any) -> str | None:
        """Plain text of a string or a list of content parts (images and the like as placeholders)."""
        if content is None or isinstance(content, str):
            return content
        if isinstance(content, Mapping):
            content = [content]
        if not isinstance(content, list):
            return str(content)
        return "\n".join(t for t in (self.part_text(p) for p in content) if t) or None

    def part_text(self, part: Any) -> str | None:
        """Text of one content part; a non-text part becomes a counted placeholder."""
        if isinstance(part, str):
            return part
        kind = part.get("type") if isinstance(part, Mapping) else type(part).__name__
        kind = kind if kind is None or isinstance(kind, str) else type(kind).__name__  # a log may hold anything
        if isinstance(part, Mapping) and (kind in TEXT_PARTS or kind is None) and isinstance(part.get("text"), str):
            return part["text"]
        return self.placeholder("image" if "image" in str(kind) else str(kind))

    def position(self) -> int:
        return len(self.messages)

    def record(self, conv_id: Any) -> dict[str, Any]:
        """The finished record ``{"id", "messages", "tools"?, "meta"}`` (see `finish`).

        Raises:
            LogError: the log holds no conversation message at all.
        """
        done = finish(self.messages, {id(m) for m, _ in self._thinking}, self.repairs, self.pairing)
        if not done.kept and self._bad:
            where, reason = self._bad[0][1]["where"], self._bad[0][1]["reason"]
            raise LogError(f"no conversation messages left after skipping {len(self._bad)} bad line(s), the first "
                           f"at line {where.rsplit(':', 1)[-1]}: {reason}", self.source.display)
        if not done.kept:
            article = "an" if self.fmt[:1] in "aeiou" else "a"
            raise LogError(f"no conversation messages found (is this {article} {self.fmt} log?)", self.source.display)
        record: dict[str, Any] = {"id": str(conv_id), "messages": [clean(m) for m in done.kept],
                                  "meta": self._meta(done.positions, len(done.kept))}
        if self.tools:
            record["tools"] = list(self.tools)
        return record

    def _meta(self, positions: dict[int, int], end: int) -> dict[str, Any]:
        calls = sorted((_call(positions[id(m)], model, usage) for m, model, usage in self._calls.values()),
                       key=lambda c: c["index"])
        models = Counter(c["model"] for c in calls if c["model"])
        meta: dict[str, Any] = {"format": self.fmt, "source": self.source.display, **self.meta}
        if models:
            meta["model"] = models.most_common(1)[0][0]
        meta["provider_calls"] = calls
        meta["thinking"] = [{"message_id": m["id"], **t} for m, t in self._thinking if not m.get("_drop")]
        meta["compactions"] = [{"index": anchor(kept, self.messages, positions, end),
                                "at": anchor(now, self.messages, positions, end), **c}
                               for kept, now, c in self._compactions]
        bad = [{**line, "at": anchor(at, self.messages, positions, end)} for at, line in self._bad]
        for key, value in (("repairs", self.repairs), ("bad_lines", bad), ("skipped", dict(self.skipped)),
                           ("omitted", dict(self.omitted))):
            if value:
                meta[key] = value
        return meta


def _call(index: int, model: str | None, usage: TokenUsage) -> dict[str, Any]:
    values = (index, model, usage.prompt, usage.output, usage.input, usage.cache_read, usage.cache_write)
    return dict(zip(_CALL_KEYS, values, strict=False))
