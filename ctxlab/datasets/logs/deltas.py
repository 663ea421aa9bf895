"""Which consecutive model calls of an imported log measure which messages: provider delta spans.

An agent log records, per model call, ``prompt_tokens``: what the provider counted for the whole
prompt. The prompt of call *j* is the prompt of the previous call *i* plus
``messages[index_i:index_j]`` (call i's output, the tool results and user turns after it), so

    prompt_tokens[j] - prompt_tokens[i] = tokens of messages[index_i:index_j] + framing

and the system prompt and tool schemas the log leaves out cancel. A pair measures nothing when the
two prompts are not one the prefix of the other; every such pair is kept with the reason
(`Span.skipped`): another model, a compaction between the calls (it rewrote the prompt from its
``at``), an empty or shrinking span, calls that overlap (the later one started before the earlier
one's reply), a call whose own prompt was not an extension of its predecessor's (the pair before it
shrank), a line of the log skipped as unusable near the span (``meta.bad_lines``: what it held is
missing from the messages, or from the reply that starts the span), thinking the prompt may carry
but the log cannot size, or a call whose record says its
counts measure no messages (``no_delta``: the reason, e.g. Aider's printed estimates of prompts
that also hold files the log does not show).

Thinking. Anthropic strips the thinking of finished turns from later prompts, but sends back the
thinking of the turn in progress inside a tool-use loop (docs: build-with-claude/context-windows);
Claude Opus 4.5 and later keep earlier thinking in context. So the recorded thinking of the span's
assistant messages is part of what the later prompt added, and is counted (`Span.thinking`), for
models that keep it; for the other Claude models, the thinking of the turn in progress at the later
call (from its user message on). A span in which a new user turn starts, when the earlier prompt
carried thinking of its own turn, lost that thinking, and is skipped (on the real Claude Code
1.0.95 session such a prompt shrank by more than the recorded text of that thinking). Other APIs
resend thinking as opaque pieces whose size the summaries a log records do not give (Gemini: thought
signatures on the turn's function calls): when the log records the call's own thinking token count
(``call_thoughts_tokens`` on a thinking block: Gemini CLI's ``tokens.thoughts``), the span's
assistant messages add that many tokens (`Span.thinking_tokens`, counted as they are, never
estimated), as long as the span stays in one turn; otherwise (the size unknown, or a new user turn in
the span) the pair is skipped when the turn in progress has thinking recorded. A user message that is a ``<system-reminder>`` (hook output, Claude Code's
todo list) rides with the tool results and starts no turn. Thinking blocks marked ``resent: false``
never reached a later prompt (Codex reasoning without ``encrypted_content``) and are ignored;
redacted, empty or encrypted ones are of unknown size unless their call's size is recorded.

Pure functions over a conversation's ``meta.provider_calls``, ``meta.compactions`` and
``meta.thinking``; `ctxlab.metrics.provider` describes and counts the spans.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from ctxlab.errors import CtxlabError
from ctxlab.messages import Conversation, Message

PROVIDER = "provider:"
ANY_MODEL = "*"
NON_POSITIVE = "non-positive delta"  # a span with messages whose prompt did not grow: not on one line
THINKING_LOOP = "thinking in the prompt (a tool-use loop sends it back)"
THINKING_DROPPED = "thinking left the prompt (a new user turn in the span drops the earlier thinking of its turn)"
REMINDER = "<system-reminder>"  # a user message starting so is context sent with tool results, not a new turn
THINKING_UNKNOWN = "thinking of unknown size in the span (redacted or not recorded)"
BAD_LINE = "a log line skipped in the span (what it held is not in the messages)"
# Claude models that keep earlier turns' thinking in the prompt: Opus 4.5 and later, and every
# family from major version 5 on.
_CLAUDE = re.compile(r"claude-(?:(opus|sonnet|haiku|fable)-)?(\d+)(?:[-.](\d{1,2}))?(?:-(opus|sonnet|haiku))?(?!\d)")


class Call(NamedTuple):
    """One recorded model call: where its output starts, its model and its prompt size (None when
    the record lacks a usable value)."""

    index: int | None  # type: ignore[assignment]  # a field named index shadows tuple.index, on purpose
    model: str
    prompt_tokens: int | None
    no_delta: str | None = None  # why the log's own counts measure no messages (a call's ``no_delta``)


class Span(NamedTuple):
    """Two consecutive calls: the messages between them and what the provider counted for them.

    Attributes:
        model: the model of the later call.
        start, end: the span ``messages[start:end]``.
        actual: ``prompt_tokens[j] - prompt_tokens[i]`` (None when a call lacks a count).
        thinking: recorded thinking the later prompt carries for the span (models that keep it).
        skipped: why the pair is not a usable measurement (None when it is).
        thinking_tokens: thinking the later prompt carries whose size in the provider's tokens the
            log records (``call_thoughts_tokens``): part of `actual`, counted as it is.
    """

    model: str
    start: int
    end: int
    actual: int | None
    thinking: tuple[str, ...] = ()
    skipped: str | None = None
    thinking_tokens: int = 0


def delta_spans(conversation: Conversation) -> list[Span]:
    """Every pair of consecutive ``meta.provider_calls``, usable or skipped with the reason."""
    meta = conversation.meta or {}
    calls = [_call(c) for c in meta.get("provider_calls") or () if isinstance(c, Mapping)]
    # Calls from `at` on saw the summary (`index` ends the replaced part; agents that keep recent
    # messages compact later, at `at` > `index`).
    cuts = _ints(_first(c.get("at"), c.get("index")) for c in meta.get("compactions") or () if isinstance(c, Mapping))
    thinking = thinking_by_position(conversation)
    bad = _ints(b.get("at") for b in meta.get("bad_lines") or () if isinstance(b, Mapping))
    spans = [_span(conversation.messages, a, b, cuts, thinking, bad) for a, b in zip(calls, calls[1:], strict=False)]
    return [_off_the_line(span, spans[i - 1] if i else None) for i, span in enumerate(spans)]


def calls_before_compaction(conversation: Conversation) -> list[tuple[int, int, int]]:
    """``(index, prompt_tokens, output_tokens)`` of the recorded calls whose prompt was the
    conversation's own ``messages[:index]`` (plus what the log leaves out: system prompt, tools),
    ordered by index: every call with an index and a prompt count that came before the first
    recorded compaction took effect (its ``at``; later prompts held the agent's summary instead),
    calls whose counts measure no messages (``no_delta``) left out. A missing output count is 0."""
    meta = conversation.meta or {}
    cuts = _ints(_first(c.get("at"), c.get("index")) for c in meta.get("compactions") or () if isinstance(c, Mapping))
    first_cut = min(cuts, default=len(conversation.messages) + 1)
    out = []
    for record in meta.get("provider_calls") or ():
        call = _call(record) if isinstance(record, Mapping) else None
        if call is None or call.no_delta or call.index is None or call.prompt_tokens is None:
            continue
        if 0 <= call.index < first_cut:
            out.append((call.index, call.prompt_tokens, _int(record.get("output_tokens")) or 0))
    return sorted(out)


def _off_the_line(span: Span, before: Span | None) -> Span:
    """A pair whose earlier call was itself not an extension of its predecessor (that pair shrank:
    overlapping requests, a restarted agent) measures against a prompt off the conversation's line.

    Seen in a real pi session: two requests sent 1.3 s apart, the second's prompt 807 tokens smaller
    than the first's; the call after them continued the first, so its delta against the second
    was 851 tokens too large.
    """
    shrank = before is not None and (before.skipped or "").startswith(NON_POSITIVE)
    if span.skipped is None and shrank and before is not None and before.actual is not None:
        return span._replace(skipped=f"after a prompt off the line (the pair before changed by {before.actual})")
    return span


def usable_spans(conversations: Iterable[Conversation], reference: str) -> list[tuple[Conversation, Span]]:
    """The usable spans of the reference's model(s), with their conversations, in log order.

    Raises:
        CtxlabError: none, with the models the logs do have and why their pairs were skipped.
    """
    found = [(c, s) for c in conversations for s in delta_spans(c)]
    usable = [(c, s) for c, s in found if s.skipped is None and matches(reference, s.model)]
    if not usable:
        raise CtxlabError(f"no usable provider deltas for {reference} in these logs; {models_found(found)}")
    return usable


def is_provider(reference: str) -> bool:
    """True for a provider reference (``provider:<model>`` or ``provider:*``)."""
    return str(reference).startswith(PROVIDER)


def matches(reference: str, model: str) -> bool:
    """Whether a provider reference covers `model` (``provider:*`` covers every model)."""
    return str(reference).removeprefix(PROVIDER) in (ANY_MODEL, model)


def _claude(model: str) -> bool:
    return _CLAUDE.search(str(model).lower()) is not None


def keeps_thinking(model: str) -> bool:
    """Whether the model's API keeps earlier turns' thinking in the prompt (Claude Opus 4.5 and
    later, Claude 5 and later)."""
    found = _CLAUDE.search(str(model).lower())
    if found is None:
        return False
    family = found.group(1) or found.group(4)
    version = (int(found.group(2)), int(found.group(3) or 0))
    return version >= (5, 0) or (family == "opus" and version >= (4, 5))


def reason_counts(spans: Iterable[Span]) -> dict[str, int]:
    """How many spans each reason made unusable (the reason's head, without its details)."""
    counts: dict[str, int] = {}
    for span in spans:
        if span.skipped is not None:
            head = span.skipped.split(" (")[0]
            counts[head] = counts.get(head, 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: -kv[1]))


def models_found(found: Sequence[tuple[Conversation, Span]]) -> str:
    """One phrase naming the models of `found`, their usable pairs and the main reason for the rest."""
    if not found:
        return "they record no consecutive provider calls (meta.provider_calls)"
    parts = []
    for model in dict.fromkeys(s.model for _, s in found):
        spans = [s for _, s in found if s.model == model]
        reasons = reason_counts(spans)
        usable = sum(s.skipped is None for s in spans)
        why = f", the others mostly {next(iter(reasons))}" if reasons else ""
        parts.append(f"{model} ({usable} usable of {len(spans)} pairs{why})")
    return "models found: " + ", ".join(parts)


Thought = str | int | None  # a recorded text, a size in provider tokens, or a block of unknown size


def thinking_by_position(conversation: Conversation) -> list[tuple[Thought, ...]]:
    """The recorded thinking of each message that later prompts carried: its texts (None for a block
    of unknown size: redacted, empty or encrypted; blocks marked ``resent: false`` left out), or,
    when a block records its call's thinking token count (``call_thoughts_tokens``), that one
    number instead of the message's texts."""
    by_id: dict[str, list[Thought]] = {}
    sizes: dict[str, int] = {}
    for block in (conversation.meta or {}).get("thinking") or ():
        if isinstance(block, Mapping) and block.get("message_id") is not None and block.get("resent") is not False:
            key, text, size = str(block["message_id"]), block.get("text"), _int(block.get("call_thoughts_tokens"))
            known = isinstance(text, str) and text.strip() and not block.get("redacted") and not block.get("encrypted")
            by_id.setdefault(key, []).append(text if known else None)
            if size is not None and size > 0:
                sizes[key] = sizes.get(key, 0) + size
    return [(sizes[m.id],) if m.id in sizes else tuple(by_id.get(m.id, ())) for m in conversation.messages]


def _span(messages: Sequence[Message], a: Call, b: Call, cuts: list[int],
          thinking: list[tuple[Thought, ...]], bad: list[int]) -> Span:
    start, end = a.index or 0, b.index or 0
    actual = b.prompt_tokens - a.prompt_tokens if a.prompt_tokens is not None and b.prompt_tokens is not None else None
    reason = _problem(a, b, len(messages))
    if reason is None and any(start < c <= end for c in cuts):
        reason = "a compaction between the calls"
    if reason is None and any(start <= p <= end for p in bad):  # at `start`: it may have been part of the reply
        reason = BAD_LINE
    if reason is None and _overlap(messages[start], messages[end - 1]):
        reason = "overlapping calls (the later reply is older than the earlier one)"
    carried: tuple[Thought, ...] = ()
    if reason is None:
        carried, reason = _thinking(messages, start, end, b.model, thinking)
    texts = tuple(t for t in carried if isinstance(t, str))
    sized = sum(t for t in carried if isinstance(t, int))
    if reason is None and actual is not None and actual - sized <= 0:
        reason = f"{NON_POSITIVE} ({actual}{f' with {sized} thinking tokens' if sized else ''})"
    return Span(b.model, start, end, actual, texts, reason, sized)


def _thinking(messages: Sequence[Message], start: int, end: int, model: str,
              thinking: list[tuple[Thought, ...]]) -> tuple[tuple[Thought, ...], str | None]:
    """The thinking the later prompt adds for the span, or why the pair cannot be measured."""
    first = start
    if not keeps_thinking(model):
        if not _claude(model):  # other APIs: only a recorded size can be counted, within one turn
            return _opaque(messages, start, end, thinking)
        turns = [i for i in range(start, end) if _starts_turn(messages[i])]
        if turns:  # the later prompt carries only the new turn's thinking
            if any(thinking[_turn_start(messages, start):start]):  # what the earlier prompt carried is gone
                return (), THINKING_DROPPED
            first = turns[-1]
    blocks = [t for blocks in thinking[first:end] for t in blocks]
    if any(t is None for t in blocks):
        return (), THINKING_UNKNOWN
    return tuple(blocks), None


def _opaque(messages: Sequence[Message], start: int, end: int,
            thinking: list[tuple[Thought, ...]]) -> tuple[tuple[Thought, ...], str | None]:
    """A non-Claude API resends the turn's thinking in a form the log does not show (Gemini: thought
    signatures). Measured on a real Gemini CLI session, the later prompt grew by the span's
    messages plus its calls' thoughts token counts; so a span within one turn whose every thinking
    message has its size recorded carries those sizes, and any other span with thinking in its
    turn is set aside."""
    if not any(thinking[_turn_start(messages, start):end]):
        return (), None
    new_turn = any(_starts_turn(messages[i]) for i in range(start + 1, end))
    sizes = [blocks for blocks in thinking[start:end] if blocks]
    if new_turn or not all(len(b) == 1 and isinstance(b[0], int) for b in sizes):
        return (), THINKING_LOOP
    return tuple(b[0] for b in sizes), None


def _problem(a: Call, b: Call, n: int) -> str | None:
    """What makes a pair unusable before looking at its messages (None if nothing)."""
    if a.no_delta or b.no_delta:
        return a.no_delta or b.no_delta
    if a.index is None or b.index is None or a.prompt_tokens is None or b.prompt_tokens is None:
        return "a call without a usable index or prompt_tokens"
    if a.model != b.model:
        return f"different model ({a.model} -> {b.model})"
    if not 0 <= a.index < b.index <= n:
        return "empty span" if a.index == b.index else f"span {a.index}:{b.index} out of range"
    return None


def _overlap(first_reply: Message, last: Message) -> bool:
    """Whether the span's messages go back in time: the later call was sent before the earlier call's
    reply was written, so its prompt cannot contain that reply."""
    return first_reply.timestamp is not None and last.timestamp is not None and last.timestamp < first_reply.timestamp


def _turn_start(messages: Sequence[Message], index: int) -> int:
    """The user message that started the turn in progress at `index`: the turn whose thinking a
    tool-use loop carries."""
    for i in range(min(index, len(messages)) - 1, -1, -1):
        if _starts_turn(messages[i]):
            return i
    return 0


def _starts_turn(message: Message) -> bool:
    return message.role == "user" and not message.text.lstrip().startswith(REMINDER)


def _call(record: Mapping[str, Any]) -> Call:
    no_delta = record.get("no_delta")
    return Call(_int(record.get("index")), str(record.get("model") or "unknown"), _int(record.get("prompt_tokens")),
                str(no_delta) if no_delta else None)


def _int(value: Any) -> int | None:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _first(*values: Any) -> Any:
    return next((v for v in values if v is not None), None)


def _ints(values: Iterable[Any]) -> list[int]:
    return [v for v in map(_int, values) if v is not None]
