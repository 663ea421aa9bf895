"""The summarized middle: the summarizer engine, input trimming, split turns, file lists, placement.

The fold (and a split turn's prefix) becomes one summary message in the agent's voice (`voices`). Summary
messages inside the fold are earlier summaries: a merging voice (pi-mono) hands them to its update
prompt as the previous summary; a rolling voice summarizes them again with the rest. The summary
goes where the agent puts it (`place`):

- ``after_head``: right after the kept head (pi-mono, LangChain: first after the system prompt);
- ``cut``: where the forgotten range began (OpenHands ``summary_offset``), never before the system
  prompt;
- ``end``: after everything kept (Codex, inspect_ai, opencode).

What the summarizer reads follows the agent too: a voice may cut tool results first (Cline's
2,000 characters), and an input over ``input_tokens`` is cut to its newest tokens (LangChain's
``trim_messages``) or loses tool responses from the middle outward (goose, `middle_out`). The
summary placed may be several messages (`notes.notes`: opencode's prelude and postlude, an
acknowledgement).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any, NamedTuple

from ctxlab.errors import CtxlabError
from ctxlab.messages import Message
from ctxlab.strategies.base import SUMMARY_CALL, Event
from ctxlab.strategies.mechanics import safe_cut
from ctxlab.strategies.mechanics.agent_llm import AgentLLM
from ctxlab.strategies.mechanics.context import system_prefix
from ctxlab.strategies.mechanics.middle_out import fit_input
from ctxlab.strategies.mechanics.shaped import Shaped, offline
from ctxlab.strategies.mechanics.trim import trim_last
from ctxlab.strategies.mechanics.voices import VOICES, Voice, unwrap_voice, wrap
from ctxlab.summarize import Summarizer, SummaryResult, get_summarizer
from ctxlab.summarize import agent_prompts as ap
from ctxlab.summarize.llm import LLMSummarizer
from ctxlab.summarize.message import summary_message
from ctxlab.summarize.sections import MODIFIED, READ, file_lists_block, parse_summary
from ctxlab.summarize.toolcalls import file_operations
from ctxlab.tokens import TokenCounter

PLACEMENTS = ("after_head", "cut", "end")
REDUCTIONS = ("oldest", "middle_out")  # how an input over input_tokens is cut (LangChain, goose)
Calls = list[tuple[str, SummaryResult]]


class Summary(NamedTuple):
    """The summary text and the summarizer calls that wrote it (with any error)."""

    text: str
    calls: tuple[tuple[str, SummaryResult], ...] = ()
    error: str | None = None


class Limits(NamedTuple):
    """How much a summary may take and read, in tokens.

    Attributes:
        cap: the summary's cap.
        prefix_cap: a split turn's prefix summary's cap.
        input_tokens: the summarizer reads only the newest this many tokens of the fold (0: all of it;
            LangChain trims what it sends).
        input_counter: the counter `input_tokens` are measured with.
        reduce: how an input over `input_tokens` is cut: ``oldest`` (its newest tokens are read)
            or ``middle_out`` (goose: tool responses removed from the middle outward).
    """

    cap: int
    prefix_cap: int
    input_tokens: int = 0
    input_counter: TokenCounter | None = None
    reduce: str = "oldest"


def engine(spec: Any, voice: str, instructions: str = "") -> Summarizer:
    """The summarizer: ``extractive`` shaped to the voice (which has no use for `instructions`), or
    the LLM prompted as the agent, with the user's `instructions` where the agent takes them."""
    if isinstance(spec, str) and spec.split(":", 1)[0] == "extractive":
        built = get_summarizer(spec)  # its `length` (a bad parameter fails here)
        return Shaped(VOICES[voice], voice_name=voice, length=getattr(built, "length", "calibrated"))
    built = get_summarizer(spec)
    if isinstance(built, LLMSummarizer) and voice in VOICES and voice != "ctxlab":
        return AgentLLM(built, voice, instructions)
    return built


def summarize(messages: Sequence[Message], fold: Sequence[int], prefix: Sequence[int], summarizer: Summarizer,
              counter: TokenCounter, voice: Voice, limits: Limits) -> Summary:
    """Summarize ``messages[fold]`` (and a split turn's ``messages[prefix]``) in `voice`, within `limits`."""
    chunk, previous = _inputs(messages, fold, voice, limits)
    if limits.input_tokens and not chunk:
        return Summary(voice.empty)
    calls: Calls = []
    errors: list[str] = []
    history = ""
    if chunk or previous:
        history = _run(summarizer, "history", chunk, previous, counter, limits.cap, calls, errors)
    text = history or voice.empty
    if prefix:
        turn = _run(summarizer, "turn_prefix", [messages[i] for i in prefix], None, counter, limits.prefix_cap,
                    calls, errors)
        text = ap.PI_TURN_CONTEXT.format(history=history if chunk else ap.PI_NO_HISTORY, prefix=turn)
    if voice.file_tags:
        text += _file_tags([*chunk, *(messages[i] for i in prefix)], previous)
    if voice.files_section and text:
        text = safe_cut.files_for(text, chunk, previous)
    return Summary(text, tuple(calls), "; ".join(errors) or None)


def _inputs(messages: Sequence[Message], fold: Sequence[int], voice: Voice,
            limits: Limits) -> tuple[list[Message], str | None]:
    """The messages to summarize and, for a merging voice, the earlier summary apart."""
    chunk = [_raw(voice, messages[i]) for i in fold]
    previous = None
    if voice.merges:
        previous = "\n\n".join(m.text for m in chunk if m.mark == "summary") or None
        chunk = [m for m in chunk if m.mark != "summary"]
    if voice.clip_results:
        chunk = safe_cut.clip_results(chunk, voice.clip_results)
    if limits.input_tokens and limits.input_counter is not None:
        if limits.reduce == "middle_out":
            chunk = fit_input(chunk, limits.input_tokens, limits.input_counter)[0]
        else:
            chunk = [m for _, m in trim_last(chunk, limits.input_tokens, limits.input_counter, allow_partial=True)]
    return chunk, previous


def _raw(voice: Voice, message: Message) -> Message:
    """An earlier summary message reduced to its summary text (other messages unchanged)."""
    return replace(message, content=unwrap_voice(voice, message.text)) if message.mark == "summary" else message


def call(summarizer: Summarizer, part: str, chunk: Sequence[Message], previous: str | None, counter: TokenCounter,
         cap: int) -> SummaryResult:
    """One summarizer call: the ``history`` (merging `previous`), or a split turn's ``turn_prefix``
    (with the summarizer's turn-prefix prompt when it has one)."""
    if part == "turn_prefix" and hasattr(summarizer, "summarize_turn_prefix"):
        return summarizer.summarize_turn_prefix(chunk, counter=counter, max_tokens=cap)
    return summarizer.summarize(chunk, previous_summary=previous, counter=counter, max_tokens=cap)


def _run(summarizer: Summarizer, part: str, chunk: list[Message], previous: str | None, counter: TokenCounter,
         cap: int, calls: Calls, errors: list[str]) -> str:
    """One summarizer call; a failed LLM call falls back to the extractive summarizer in the same voice."""
    result = call(summarizer, part, chunk, previous, counter, cap)
    if not isinstance(summarizer, Shaped):
        calls.append((part, result))
    if result.ok or isinstance(summarizer, Shaped):
        return result.text
    errors.append(f"{part}: {result.error or 'empty summary'}")
    return _run(offline(summarizer), part, chunk, previous, counter, cap, calls, errors)

def _file_tags(messages: Sequence[Message], previous: str | None) -> str:
    """pi-mono's file lists: read-only and modified files, sorted, carried from the previous summary."""
    read, modified = file_operations(messages)
    if previous:
        earlier = parse_summary(previous)
        read, modified = [*earlier.get(READ, []), *read], [*earlier.get(MODIFIED, []), *modified]
    block = file_lists_block(sorted(set(read)), sorted(set(modified)))
    return f"\n\n{block}" if block else ""


def billed_pass(input_tokens: int, output_tokens: int, model: str) -> Event:
    """The `SUMMARY_CALL` event of a summarization pass the source bills although ctxlab wrote the
    summary offline (Anthropic's compaction: an extra sampling iteration over the whole context),
    marked ``estimated``: the input is the context it summarized, the output the summary."""
    return Event(SUMMARY_CALL, {"part": "history", "model": model, "input_tokens": input_tokens,
                                "output_tokens": output_tokens, "cost_usd": 0.0, "latency_ms": 0.0, "cached": False,
                                "error": None, "estimated": True})


def message(messages: Sequence[Message], text: str, sources: Sequence[int], voice: Voice, evicted: int = 0) -> Message:
    """The summary message in `voice`, standing for ``messages[sources]`` (and what they stood for);
    `evicted` is how many messages it takes the place of (Letta's note names it)."""
    ids = [s for i in sources for s in (*messages[i].source_ids, messages[i].id) if messages[i].mark == "summary"]
    ids += [messages[i].id for i in sources if messages[i].mark != "summary"]
    made = summary_message(text, list(dict.fromkeys(ids)), {m.id for m in messages})
    return replace(made, role=voice.role, content=wrap(voice, text, evicted))


def place(messages: Sequence[Message], keep: Iterable[int], replaced: Mapping[int, Message],
          summary: Sequence[Message], where: str, head: int, anchor: int | None) -> list[Message]:
    """The kept messages in order with the summary's messages inserted `where` (see the module docstring).

    Raises:
        CtxlabError: an unknown placement.
    """
    if where not in PLACEMENTS:
        raise CtxlabError(f"unknown placement {where!r} (valid: {', '.join(PLACEMENTS)})")
    at = position(messages, where, head, anchor)
    out: list[Message] = []
    pending = list(summary)
    for i in sorted(keep):
        if pending and i >= at:
            out += pending
            pending = []
        out.append(replaced.get(i, messages[i]))
    return [*out, *pending]


def position(messages: Sequence[Message], where: str, head: int, anchor: int | None) -> int:
    """The index the summary goes before (``len(messages)``: at the end)."""
    n = len(messages)
    return {"after_head": head, "end": n, "cut": max(anchor if anchor is not None else n, system_prefix(messages))}[where]


def carried(messages: Sequence[Message], voice: Voice) -> str | None:
    """The text of the newest summary message in `messages` (written in `voice`), None without one:
    what `CompressionResult.summary` reports."""
    newest = next((m for m in reversed(messages) if m.mark == "summary"), None)
    return unwrap_voice(voice, newest.text) if newest is not None else None


__all__ = ["PLACEMENTS", "REDUCTIONS", "Limits", "Summary", "billed_pass", "call", "carried", "engine", "message",
           "place", "position",
           "summarize"]
