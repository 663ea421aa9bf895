"""Each agent's summary "voice": the sections its prompt asks for and how its summary is wrapped.

The offline extractive summarizer writes ctxlab's canonical sections
(`ctxlab.summarize.sections`); `Shaped` renders them under the agent's own headers instead, so an
offline pi summary reads like pi's (``## Goal``, ``## Constraints & Preferences`` ...) and an
OpenHands one like OpenHands' (``USER_CONTEXT:``, ``COMPLETED:`` ...). Several canonical
sections may share an agent section; an agent section maps back to the first of them, so a
previous summary in an agent's shape is parsed back and merged like a canonical one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import NamedTuple

from ctxlab.messages import Message
from ctxlab.summarize import agent_prompts as ap
from ctxlab.summarize import sections as s
from ctxlab.summarize.base import SummaryResult
from ctxlab.summarize.extractive import ExtractiveSummarizer
from ctxlab.summarize.message import unwrap
from ctxlab.tokens import TokenCounter
from ctxlab.tokens.clip import clip_to_tokens

Shape = tuple[tuple[str, tuple[str, ...]], ...]  # (agent header, canonical sections), in render order


class Voice(NamedTuple):
    """An agent's summary conventions.

    Attributes:
        wrapper: the summary message's content, ``{summary}`` standing for the summary.
        sections: the agent's sections; () keeps ctxlab's canonical ones.
        style: ``markdown`` (``## Header``) or ``label`` (``HEADER:``).
        file_tags: pi-mono's ``<read-files>``/``<modified-files>`` lists follow the summary, so the
            file sections are left out of the body.
        merges: a previous summary is merged by an update prompt (pi-mono); otherwise it is summarized
            again as part of the conversation (a rolling summary).
        empty: the summary when there is nothing to say.
        prefix_sections: the sections of a split turn's prefix summary (pi-mono).
    """

    wrapper: str
    sections: Shape = ()
    style: str = "markdown"
    file_tags: bool = False
    merges: bool = False
    empty: str = ""
    prefix_sections: Shape = ()


G, C, D, R, M, X, E, P, N, K, T = (s.GOAL, s.CONSTRAINTS, s.DECISIONS, s.READ, s.MODIFIED, s.COMMANDS, s.ERRORS,
                                   s.PROGRESS, s.NEXT, s.CONTEXT, s.DETAILS)
# The nine sections of inspect_ai's prompt (and Claude Code's): the extractive summarizer has no
# list of every user message (6) nor a separate optional next step (9), so those stay out.
_NINE: Shape = (("1. Primary Request and Intent", (G, C)), ("2. Key Technical Concepts", (D,)),
                ("3. Files and Code Sections", (M, R, T)), ("4. Errors and fixes", (E,)), ("5. Problem Solving", (P,)),
                ("7. Pending Tasks", (N,)), ("8. Current Work", (K, X)))
# The details trail (`s.DETAILS`) goes under the header each agent's prompt asks for references in.
VOICES: dict[str, Voice] = {
    "ctxlab": Voice(ap.PI_SUMMARY_WRAPPER, merges=True),
    "pi": Voice(ap.PI_SUMMARY_WRAPPER, (("Goal", (G,)), ("Constraints & Preferences", (C,)), ("Progress", (P,)),
                                        ("Key Decisions", (D,)), ("Next Steps", (N,)),
                                        ("Critical Context", (K, X, E, T))), file_tags=True, merges=True,
                prefix_sections=(("Original Request", (G, C)), ("Early Progress", (P, D)),
                                 ("Context for Suffix", (K, X, E, N, T)))),
    "codex": Voice(ap.CODEX_SUMMARY_WRAPPER, (
        ("Goal / user objective", (G,)), ("Current progress and key decisions", (P, D)),
        ("Important context, constraints, or user preferences", (C, K)), ("What remains to be done", (N,)),
        ("Critical data, examples, or references", (M, R, X, E, T))), empty=ap.CODEX_NO_SUMMARY),
    "langchain": Voice(ap.LANGCHAIN_SUMMARY_WRAPPER, (
        ("SESSION INTENT", (G, C)), ("SUMMARY", (D, P, E, X, K)), ("ARTIFACTS", (M, R, T)), ("NEXT STEPS", (N,))),
        empty=ap.LANGCHAIN_TOO_LONG),
    "openhands": Voice(ap.OPENHANDS_SUMMARY_WRAPPER, (
        ("USER_CONTEXT", (G, C)), ("COMPLETED", (P, D)), ("PENDING", (N,)), ("CURRENT_STATE", (K,)),
        ("CODE_STATE", (R, T)), ("TESTS", (E,)), ("CHANGES", (M, X))), style="label"),
    "inspect": Voice(ap.INSPECT_SUMMARY_WRAPPER, _NINE, style="label"),
    "claude_code": Voice(ap.CLAUDE_CODE_SUMMARY_WRAPPER, _NINE, style="label"),
    "anthropic": Voice(ap.ANTHROPIC_SUMMARY_WRAPPER),
}
_LABEL = re.compile(r"^\s*(?:#{1,6}\s*)?(.+?)\s*:?\s*$")


def render(voice: Voice, items: Mapping[str, Sequence[str]], shape: Shape | None = None) -> str:
    """Canonical section items under the voice's headers (canonical rendering without a shape)."""
    shape = voice.sections if shape is None else shape
    if not shape:
        return s.render(items)
    blocks = []
    for header, canonical in shape:
        lines = list(dict.fromkeys(i for name in canonical for i in s.lines_of(name, items.get(name, ()))))
        if lines:
            title = f"## {header}" if voice.style == "markdown" else f"{header}:"
            blocks.append("\n".join([title, *(f"- {line}" for line in lines)]))
    return "\n\n".join(blocks)


def to_canonical(voice: Voice, text: str) -> str:
    """A summary in the voice's shape rewritten under canonical headers (for merging)."""
    headers = {h.lower(): names[0] for h, names in (*voice.sections, *voice.prefix_sections)}
    out = []
    for line in text.splitlines():
        match = _LABEL.match(line) if not line.lstrip().startswith(("-", "*", "<")) else None
        name = headers.get(match.group(1).lower()) if match else None
        out.append(f"## {name}" if name else line)
    return "\n".join(out)


def unwrap_voice(voice: Voice, content: str) -> str:
    """The summary inside a summary message written in `voice` (or ctxlab's wrapper)."""
    head, _, tail = voice.wrapper.partition("{summary}")
    if content.startswith(head) and content.endswith(tail):
        return content[len(head):len(content) - len(tail)].strip()
    return unwrap(content)


@dataclass(frozen=True)
class Shaped:
    """The extractive summarizer writing in an agent's voice (sections and their order)."""

    voice: Voice
    name: str = ExtractiveSummarizer.kind

    def summarize(self, messages: Sequence[Message], *, previous_summary: str | None = None,
                  counter: TokenCounter, max_tokens: int) -> SummaryResult:
        return self._run(messages, previous_summary, counter, max_tokens, self.voice.sections)

    def summarize_turn_prefix(self, messages: Sequence[Message], *, counter: TokenCounter,
                              max_tokens: int) -> SummaryResult:
        return self._run(messages, None, counter, max_tokens, self.voice.prefix_sections or self.voice.sections)

    def _run(self, messages: Sequence[Message], previous: str | None, counter: TokenCounter, max_tokens: int,
             shape: Shape) -> SummaryResult:
        canonical = [replace(m, content=to_canonical(self.voice, m.text)) if m.mark == "summary" else m
                     for m in messages]
        previous = to_canonical(self.voice, previous) if previous else None
        result = ExtractiveSummarizer().summarize(canonical, previous_summary=previous, counter=counter,
                                                  max_tokens=max_tokens)
        items = s.parse_summary(result.text)
        if self.voice.file_tags:
            items = {k: v for k, v in items.items() if k not in (s.READ, s.MODIFIED)}
        text = render(self.voice, items, shape)
        if counter.count(text) > max_tokens:  # agent headers can be longer than canonical ones
            text = clip_to_tokens(text, max_tokens, counter, head_share=1.0)
        return replace(result, text=text, output_tokens=counter.count(text))
