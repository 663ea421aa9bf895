"""The summarized middle: the summarizer engine, input trimming, split turns, file lists, placement.

The fold (and a split turn's prefix) becomes one summary message in the agent's voice. Summary
messages inside the fold are earlier summaries: a merging voice (pi-mono) hands them to its update
prompt as the previous summary; a rolling voice summarizes them again with the rest. The summary
goes where the agent puts it (``placement``):

- ``after_head``: right after the kept head (pi-mono, LangChain: first after the system prompt);
- ``cut``: where the forgotten range began (OpenHands ``summary_offset``), never before the system
  prompt;
- ``end``: after everything kept (Codex, inspect_ai).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any, NamedTuple

from ctxlab.errors import CtxlabError
from ctxlab.messages import Message
from ctxlab.strategies.mechanics import system_prefix
from ctxlab.strategies.policy.agent_llm import AgentLLM
from ctxlab.strategies.policy.job import Job
from ctxlab.strategies.policy.lc_trim import trim_last
from ctxlab.strategies.policy.voices import VOICES, Shaped, Voice, unwrap_voice
from ctxlab.summarize import Summarizer, SummaryResult, get_summarizer
from ctxlab.summarize import agent_prompts as ap
from ctxlab.summarize.llm import LLMSummarizer
from ctxlab.summarize.message import summary_message
from ctxlab.summarize.sections import MODIFIED, READ, file_lists_block, parse_summary
from ctxlab.summarize.toolcalls import file_operations

PLACEMENTS = ("after_head", "cut", "end")


class Summary(NamedTuple):
    """The summary text and the summarizer calls that wrote it (with any error)."""

    text: str
    calls: tuple[tuple[str, SummaryResult], ...] = ()
    error: str | None = None


def engine(spec: Any, voice: str) -> Summarizer:
    """The summarizer: ``extractive`` shaped to the voice, or the LLM prompted as the agent."""
    if isinstance(spec, str) and spec.split(":", 1)[0] == "extractive":
        return Shaped(VOICES[voice])
    built = get_summarizer(spec)
    if isinstance(built, LLMSummarizer) and voice in VOICES and voice != "ctxlab":
        return AgentLLM(built, voice)
    return built


def summarize(job: Job, fold: Sequence[int], prefix: Sequence[int], summarizer: Summarizer,
              cap: int | None = None) -> Summary:
    """Summarize ``messages[fold]`` (and a split turn's ``messages[prefix]``) in the policy's voice,
    in at most `cap` tokens (default: the policy's ``summary_max_tokens``)."""
    p, messages = job.policy, job.messages
    voice = VOICES[p.voice]
    chunk, previous = _inputs(job, fold, voice)
    if p.summary_input_tokens and not chunk:
        return Summary(voice.empty)
    counter = job.request.counter
    calls: list[tuple[str, SummaryResult]] = []
    errors: list[str] = []
    history = ""
    if chunk or previous:
        history = _run(summarizer, "history", chunk, previous, counter, cap or p.summary_max_tokens, calls, errors)
    text = history or voice.empty
    if prefix:
        turn = _run(summarizer, "turn_prefix", [messages[i] for i in prefix], None, counter,
                    p.prefix_max_tokens or p.summary_max_tokens, calls, errors)
        text = ap.PI_TURN_CONTEXT.format(history=history if chunk else ap.PI_NO_HISTORY, prefix=turn)
    if voice.file_tags:
        text += _file_tags([*chunk, *(messages[i] for i in prefix)], previous)
    return Summary(text, tuple(calls), "; ".join(errors) or None)


def _inputs(job: Job, fold: Sequence[int], voice: Voice) -> tuple[list[Message], str | None]:
    """The messages to summarize and, for a merging voice, the earlier summary apart."""
    p = job.policy
    chunk = [_raw(voice, job.messages[i]) for i in fold]
    previous = None
    if voice.merges:
        previous = "\n\n".join(m.text for m in chunk if m.mark == "summary") or None
        chunk = [m for m in chunk if m.mark != "summary"]
    if p.summary_input_tokens:  # LangChain trims what it sends to the summarizer
        chunk = [m for _, m in trim_last(chunk, p.summary_input_tokens, job.counter(p.trigger_counter),
                                         allow_partial=True)]
    return chunk, previous


def _raw(voice: Voice, message: Message) -> Message:
    """An earlier summary message reduced to its summary text (other messages unchanged)."""
    return replace(message, content=unwrap_voice(voice, message.text)) if message.mark == "summary" else message


def _run(summarizer: Summarizer, part: str, chunk: list[Message], previous: str | None, counter: Any, cap: int,
         calls: list, errors: list) -> str:
    """One summarizer call; a failed LLM call falls back to the extractive summarizer."""
    if part == "turn_prefix" and hasattr(summarizer, "summarize_turn_prefix"):
        result = summarizer.summarize_turn_prefix(chunk, counter=counter, max_tokens=cap)
    else:
        result = summarizer.summarize(chunk, previous_summary=previous, counter=counter, max_tokens=cap)
    if not isinstance(summarizer, Shaped):
        calls.append((part, result))
    if result.ok or isinstance(summarizer, Shaped):
        return result.text
    errors.append(f"{part}: {result.error or 'empty summary'}")
    voice = summarizer.voice if isinstance(summarizer, AgentLLM) else "ctxlab"
    return _run(Shaped(VOICES[voice]), part, chunk, previous, counter, cap, calls, errors)


def _file_tags(messages: Sequence[Message], previous: str | None) -> str:
    """pi-mono's file lists: read-only and modified files, sorted, carried from the previous summary."""
    read, modified = file_operations(messages)
    if previous:
        earlier = parse_summary(previous)
        read, modified = [*earlier.get(READ, []), *read], [*earlier.get(MODIFIED, []), *modified]
    block = file_lists_block(sorted(set(read)), sorted(set(modified)))
    return f"\n\n{block}" if block else ""


def message(job: Job, text: str, sources: Sequence[int]) -> Message:
    """The summary message in the policy's voice, standing for `sources` (and what they stood for)."""
    messages = job.messages
    ids = [s for i in sources for s in (*messages[i].source_ids, messages[i].id) if messages[i].mark == "summary"]
    ids += [messages[i].id for i in sources if messages[i].mark != "summary"]
    made = summary_message(text, list(dict.fromkeys(ids)), {m.id for m in messages})
    return replace(made, content=VOICES[job.policy.voice].wrapper.format(summary=text))


def place(job: Job, keep: Iterable[int], replaced: Mapping[int, Message], summary: Message | None,
          where: str, head: int, anchor: int | None) -> list[Message]:
    """The kept messages in order with the summary inserted where the policy puts it.

    Raises:
        CtxlabError: an unknown placement.
    """
    if where not in PLACEMENTS:
        raise CtxlabError(f"unknown placement {where!r} (valid: {', '.join(PLACEMENTS)})")
    n = len(job.messages)
    at = {"after_head": head, "end": n, "cut": max(anchor if anchor is not None else n,
                                                   system_prefix(job.messages))}[where]
    out: list[Message] = []
    pending = summary
    for i in sorted(keep):
        if pending is not None and i >= at:
            out.append(pending)
            pending = None
        out.append(replaced.get(i, job.messages[i]))
    return out if pending is None else [*out, pending]
