"""Summaries written by an LLM with the agent's own prompt (``summarizer=llm`` on a preset).

The endpoint, call cache and retry policy are those of ctxlab's `LLMSummarizer` (built from the
preset's ``summarizer`` spec); only the request differs: each agent's prompt
(`ctxlab.summarize.agent_prompts`) around ctxlab's transcript of the messages
(`ctxlab.summarize.serialize`, the same for every agent). How each agent frames the request:

- ``pi``: system prompt, then ``<conversation>`` (+ ``<previous-summary>``) and the summarization or
  update prompt; a split turn's prefix with the turn-prefix prompt.
- ``codex``: the history, then the compaction prompt as the next user message.
- ``langchain``: one message, the prompt with ``{messages}`` filled.
- ``openhands``: one message, the prompt with one ``<EVENT>`` block per message.
- ``inspect``: the history, then the prompt (``instructions`` as its addendums); the ``<analysis>``
  scratchpad the prompt asks for is cut off the answer, as inspect_ai's ``_summary_text`` does.
- ``claude_code``: the history, then inspect_ai's prompt (Claude Code's own is proprietary; it asks
  for the same nine sections), ``instructions`` appended as Claude Code appends ``/compact``'s; the
  scratchpad is kept, as Claude Code keeps it: ``<analysis>`` becomes ``Analysis:``, ``<summary>``
  ``Summary:``, the closing tags go and runs of blank lines become one (`claude_code_format`).
- ``anthropic``: the history, then ctxlab's wording of the API's default compaction prompt, or
  ``instructions`` instead of it (``compact_20260112`` ``instructions`` replace the prompt); the
  text inside ``<summary>`` tags is the summary.
- ``gemini``, ``opencode``, ``cline``, ``aider``, ``goose``, ``letta``: see `agent_requests`
  (Gemini CLI makes two calls; their usage is summed into one result).

`INSTRUCTED` are the voices that read ``instructions``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ctxlab.messages import Message
from ctxlab.registry import Registry
from ctxlab.strategies.mechanics import agent_requests as ar
from ctxlab.summarize import agent_prompts as ap
from ctxlab.summarize.base import SummaryResult
from ctxlab.summarize.client import Retry, complete
from ctxlab.summarize.length import STRUCTURED, Prompts
from ctxlab.summarize.llm import LLMSummarizer
from ctxlab.summarize.serialize import serialize
from ctxlab.tokens import TokenCounter
from ctxlab.tokens.clip import clip_to_tokens

Chat = list[dict[str, str]]
_ANALYSIS = re.compile(r"</analysis>\s*(?=<summary>)")
_BLANKS = re.compile(r"\n\s*\n(\s*\n)+")
_SUMMARY = re.compile(r"<summary>(.*?)(?:</summary>|$)", re.DOTALL)
INSTRUCTED = ("inspect", "claude_code", "anthropic")


def _pi(transcript: str, previous: str | None, instructions: str = "") -> tuple[str, Chat]:
    body = f"<conversation>\n{transcript}\n</conversation>\n\n"
    if previous:
        body += f"<previous-summary>\n{previous}\n</previous-summary>\n\n"
    prompt = ap.PI_UPDATE_PROMPT if previous else ap.PI_SUMMARIZATION_PROMPT
    return ("pi_update" if previous else "pi"), [{"role": "system", "content": ap.PI_SYSTEM_PROMPT},
                                                 {"role": "user", "content": body + prompt}]


def _pi_prefix(transcript: str, previous: str | None, instructions: str = "") -> tuple[str, Chat]:
    return "pi_turn_prefix", [{"role": "user", "content": f"{transcript}\n\n{ap.PI_TURN_PREFIX_PROMPT}"}]


def _codex(transcript: str, previous: str | None, instructions: str = "") -> tuple[str, Chat]:
    return "codex", [{"role": "user", "content": transcript}, {"role": "user", "content": ap.CODEX_PROMPT}]


def _langchain(transcript: str, previous: str | None, instructions: str = "") -> tuple[str, Chat]:
    return "langchain", [{"role": "user", "content": ap.LANGCHAIN_SUMMARY_PROMPT.format(messages=transcript).rstrip()}]


def _inspect(transcript: str, previous: str | None, instructions: str = "") -> tuple[str, Chat]:
    return "inspect", [{"role": "user", "content": transcript},
                       {"role": "user", "content": ap.INSPECT_SUMMARY_PROMPT.format(addendums=instructions)}]


def _claude_code(transcript: str, previous: str | None, instructions: str = "") -> tuple[str, Chat]:
    return "claude_code", _inspect(transcript, previous, instructions)[1]


def _anthropic(transcript: str, previous: str | None, instructions: str = "") -> tuple[str, Chat]:
    return "anthropic", [{"role": "user", "content": transcript},
                         {"role": "user", "content": instructions or ap.ANTHROPIC_COMPACTION_PROMPT}]


def _uninstructed(build: Callable[[str, str | None], tuple[str, Chat]]
                  ) -> Callable[[str, str | None, str], tuple[str, Chat]]:
    """A request of an agent whose compaction prompt takes no user instructions."""
    def request(transcript: str, previous: str | None, instructions: str = "") -> tuple[str, Chat]:
        return build(transcript, previous)
    return request


def claude_code_format(text: str) -> str:
    """Claude Code's formatting of a compaction reply (as its logs show it): ``<analysis>`` ->
    ``Analysis:``, ``<summary>`` -> ``Summary:``, closing tags removed, blank-line runs collapsed."""
    text = text.replace("<analysis>", "Analysis:").replace("</analysis>", "")
    text = text.replace("<summary>", "Summary:").replace("</summary>", "")
    return _BLANKS.sub("\n\n", text).strip()


def anthropic_summary(text: str) -> str:
    """The text inside the reply's ``<summary>`` tags (the whole reply without them)."""
    found = _SUMMARY.search(text)
    return found.group(1).strip() if found else text.strip()


# Each voice's request: (transcript, previous summary, instructions) -> (prompt name, chat).
REQUESTS: Registry[Callable[[str, str | None, str], tuple[str, Chat]]] = Registry("voice's LLM request")
for _voice, _request in (("pi", _pi), ("codex", _codex), ("langchain", _langchain), ("inspect", _inspect),
                         ("claude_code", _claude_code), ("anthropic", _anthropic),
                         *((name, _uninstructed(build)) for name, build in (
                             ("gemini", ar.gemini), ("opencode", ar.opencode), ("aider", ar.aider),
                             ("goose", ar.goose), ("letta", ar.letta)))):
    REQUESTS.register(_voice, _request)
# The prompt each request is cached and logged under (the template, not the filled-in text).
TEMPLATES = {"pi": ap.PI_SUMMARIZATION_PROMPT, "pi_update": ap.PI_UPDATE_PROMPT,
             "pi_turn_prefix": ap.PI_TURN_PREFIX_PROMPT, "codex": ap.CODEX_PROMPT,
             "langchain": ap.LANGCHAIN_SUMMARY_PROMPT, "openhands": ap.OPENHANDS_PROMPT_HEAD,
             "inspect": ap.INSPECT_SUMMARY_PROMPT, "claude_code": ap.INSPECT_SUMMARY_PROMPT,
             "anthropic": ap.ANTHROPIC_COMPACTION_PROMPT, **ar.TEMPLATES}


def request_prompts(voice: str) -> Prompts:
    """What the agent's summarization requests hold besides the conversation (system prompt and
    instructions; the transcript and a previous summary left empty): a first summary, an update,
    a split turn's prefix. ctxlab's structured requests for a voice without an agent prompt."""
    if voice == "openhands":
        text = ap.OPENHANDS_PROMPT_HEAD + ap.OPENHANDS_PROMPT_TAIL
        return Prompts(text, text, _text(_pi_prefix("", None)[1]))
    if voice == "cline":
        return Prompts(_text(ar.cline("", None, ())[1]), _text(ar.cline("", " ", ())[1]), _text(_pi_prefix("", None)[1]))
    if voice not in REQUESTS:
        return STRUCTURED
    build = REQUESTS.get(voice)
    return Prompts(_text(build("", None, "")[1]), _text(build("", " ", "")[1]), _text(_pi_prefix("", None)[1]))


def _text(chat: Chat) -> str:
    return "\n".join(m["content"] for m in chat)


@dataclass(frozen=True)
class AgentLLM:
    """An `LLMSummarizer`'s endpoint and cache, prompted as the agent `voice` prompts its model
    (with the user's `instructions`, for the `INSTRUCTED` voices)."""

    base: LLMSummarizer
    voice: str
    instructions: str = ""

    @property
    def name(self) -> str:
        return self.base.name

    def summarize(self, messages: Sequence[Message], *, previous_summary: str | None = None,
                  counter: TokenCounter, max_tokens: int) -> SummaryResult:
        if self.voice == "openhands":
            events = "".join(ap.OPENHANDS_EVENT.format(event=self._transcript([m], counter)) for m in messages)
            name, chat = "openhands", [{"role": "user", "content": ap.OPENHANDS_PROMPT_HEAD + events
                                        + ap.OPENHANDS_PROMPT_TAIL}]
        elif self.voice == "cline":
            name, chat = ar.cline(self._transcript(messages, counter), previous_summary, messages)
        else:
            name, chat = REQUESTS.get(self.voice)(self._transcript(messages, counter), previous_summary,
                                                  self.instructions)
        first = self._call(name, chat, counter, max_tokens)
        if self.voice != "gemini" or not first.ok:
            return first
        probe = self._call(*ar.gemini_probe(chat, first.text), counter, max_tokens)
        return _both(first, probe)

    def summarize_turn_prefix(self, messages: Sequence[Message], *, counter: TokenCounter,
                              max_tokens: int) -> SummaryResult:
        name, chat = _pi_prefix(self._transcript(messages, counter), None)
        return self._call(name, chat, counter, max_tokens)

    def _transcript(self, messages: Sequence[Message], counter: TokenCounter) -> str:
        return serialize(messages, counter=counter, tool_output_tokens=self.base.tool_output_tokens)

    def _call(self, name: str, chat: Chat, counter: TokenCounter, max_tokens: int) -> SummaryResult:
        b = self.base
        prompt = self.instructions if self.voice == "anthropic" and self.instructions else TEMPLATES[name]
        r = complete(chat, endpoint=b.endpoint, prompt_name=name, prompt_text=prompt,
                     params={"temperature": b.temperature, "max_tokens": max(16, int(max_tokens))},
                     cache=b.calls, retry=Retry(b.attempts, b.base_delay, b.max_delay))
        text = r.text.strip()
        if self.voice == "inspect" and (cut := _ANALYSIS.search(text)) and text.startswith("<analysis>"):
            text = text[cut.end():].strip()
        elif self.voice == "claude_code":
            text = claude_code_format(text)
        elif self.voice == "anthropic":
            text = anthropic_summary(text)
        if text and counter.count(text) > max_tokens:
            text = clip_to_tokens(text, max_tokens, counter, head_share=1.0)
        error = r.error or (None if text else "the model returned an empty summary")
        return SummaryResult(text, r.input_tokens, r.output_tokens, r.cost_usd, r.latency_ms, r.model, r.cached, error)


def _both(first: SummaryResult, probe: SummaryResult) -> SummaryResult:
    """Gemini CLI's snapshot: the probe's answer when it has one, else the first; usage of both calls."""
    def total(a: float | None, b: float | None) -> Any:
        return None if a is None and b is None else (a or 0) + (b or 0)
    return SummaryResult(probe.text or first.text, total(first.input_tokens, probe.input_tokens),
                         total(first.output_tokens, probe.output_tokens), total(first.cost_usd, probe.cost_usd),
                         total(first.latency_ms, probe.latency_ms), first.model, first.cached and probe.cached, None)
