"""The offline summarizer in an agent's voice: `Shaped` runs the extractive summarizer and renders
its canonical sections under the voice's headers (`render`); `to_canonical` reads a summary in the
voice's shape back into canonical headers, so a previous summary merges like a canonical one."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from ctxlab import caches
from ctxlab.messages import Message
from ctxlab.strategies.mechanics import voice_styles as vs
from ctxlab.strategies.mechanics.agent_llm import AgentLLM, request_prompts
from ctxlab.strategies.mechanics.voices import VOICES, Shape, Voice
from ctxlab.summarize import sections as s
from ctxlab.summarize.base import SummaryResult
from ctxlab.summarize.extractive import ExtractiveSummarizer
from ctxlab.tokens import TokenCounter
from ctxlab.tokens.clip import clip_to_tokens

_LABEL = re.compile(r"^\s*(?:#{1,6}\s*)?(.+?)\s*:?\s*$")
_FILES_BLOCK = re.compile(r"^## Files$.*?(?=^## |\Z)", re.MULTILINE | re.DOTALL | re.IGNORECASE)


def render(voice: Voice, items: Mapping[str, Sequence[str]], shape: Shape | None = None) -> str:
    """Canonical section items under the voice's headers (canonical rendering without a shape)."""
    shape = voice.sections if shape is None else shape
    if not shape:
        return s.render(items)
    grouped = [(header, list(dict.fromkeys(i for name in canonical for i in s.lines_of(name, items.get(name, ())))))
               for header, canonical in shape]
    if voice.style == "xml":
        return vs.xml_block(grouped)
    if voice.style == "prose":
        return vs.prose([lines for _, lines in grouped])
    blocks = []
    for header, lines in grouped:
        if lines:
            title = f"## {header}" if voice.style == "markdown" else f"{header}:"
            blocks.append("\n".join([title, *(f"- {line}" for line in lines)]))
    return "\n\n".join(blocks)


def to_canonical(voice: Voice, text: str) -> str:
    """A summary in the voice's shape rewritten under canonical headers (for merging)."""
    return _canonical(voice, text)


@caches.per_conversation
@lru_cache(maxsize=4096)  # the previous summary is read back at every compaction, and at every setting tried
def _canonical(voice: Voice, text: str) -> str:
    headers = {h.lower(): names[0] for h, names in (*voice.sections, *voice.prefix_sections)}
    out = []
    for line in text.splitlines():
        tag = vs.xml_tag(line)
        if tag is not None:  # Gemini's elements: an opening tag is a header, the rest is markup
            name = headers.get(tag[1].lower()) if not tag[0] else None
            if name:
                out.append(f"## {name}")
            continue
        match = _LABEL.match(line) if not line.lstrip().startswith(("-", "*", "<")) else None
        name = headers.get(match.group(1).lower()) if match else None
        out.append(f"## {name}" if name else line)
    return "\n".join(out)


@dataclass(frozen=True)
class Shaped:
    """The extractive summarizer writing in an agent's voice (sections and their order)."""

    voice: Voice
    name: str = ExtractiveSummarizer.kind

    voice_name: str = "ctxlab"
    length: str = "calibrated"

    def summarize(self, messages: Sequence[Message], *, previous_summary: str | None = None,
                  counter: TokenCounter, max_tokens: int) -> SummaryResult:
        return self._run(messages, previous_summary, counter, max_tokens, self.voice.sections)

    def summarize_turn_prefix(self, messages: Sequence[Message], *, counter: TokenCounter,
                              max_tokens: int) -> SummaryResult:
        return self._run(messages, None, counter, max_tokens, self.voice.prefix_sections or self.voice.sections,
                         prefix=True)

    def _run(self, messages: Sequence[Message], previous: str | None, counter: TokenCounter, max_tokens: int,
             shape: Shape, *, prefix: bool = False) -> SummaryResult:
        return caches.with_counter(_summary, counter, self, tuple(messages), previous, counter, max_tokens, shape,
                                   prefix)


@caches.per_conversation
# A tuner's settings often compact at the same calls with the same inputs (claude_code at 8k compacts
# before every call at every trigger share it tries), and an offline summary of the same messages,
# previous summary, counter and length is the same text: it is written once.
@lru_cache(maxsize=4096)
def _summary(shaped: Shaped, messages: tuple[Message, ...], previous: str | None, counter: TokenCounter,
             max_tokens: int, shape: Shape, prefix: bool) -> SummaryResult:
    voice = shaped.voice
    canonical = [replace(m, content=to_canonical(voice, m.text)) if m.mark == "summary" else m for m in messages]
    if previous and voice.files_section:  # the ## Files block is rebuilt apart (summary._files_section)
        previous = _FILES_BLOCK.sub("", previous)
    previous = to_canonical(voice, previous) if previous else None
    # As long as the agent's LLM answering its own request would write (`ctxlab.summarize.length`).
    extractive = ExtractiveSummarizer(shaped.length, request_prompts(shaped.voice_name))
    result = (extractive.summarize_turn_prefix(canonical, counter=counter, max_tokens=max_tokens) if prefix
              else extractive.summarize(canonical, previous_summary=previous, counter=counter, max_tokens=max_tokens))
    items = s.parse_summary(result.text)
    if voice.file_tags or voice.files_section:
        items = {k: v for k, v in items.items() if k not in (s.READ, s.MODIFIED)}
    text = render(voice, items, shape)
    if counter.count(text) > max_tokens:  # agent headers can be longer than canonical ones
        text = clip_to_tokens(text, max_tokens, counter, head_share=1.0)
    return replace(result, text=text, output_tokens=counter.count(text))

def offline(summarizer: Any) -> Shaped:
    """The offline summarizer in `summarizer`'s voice (itself when it is one): what a failed LLM
    call falls back to."""
    if isinstance(summarizer, Shaped):
        return summarizer
    voice = summarizer.voice if isinstance(summarizer, AgentLLM) else "ctxlab"
    return Shaped(VOICES[voice], voice_name=voice)


__all__ = ["Shaped", "offline", "render", "to_canonical"]
