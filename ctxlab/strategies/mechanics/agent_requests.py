"""How Gemini CLI, opencode, Cline, Aider, goose and Letta ask their model for a summary
(`agent_llm.AgentLLM` sends these; the prompts are `ctxlab.summarize.agent_prompts`'s):

- ``gemini``: system = the compression prompt; the history, then the anchor instruction (integrate
  the previous ``<state_snapshot>`` when the history holds one, else write a new one) with the
  scratchpad line; then the "probe" turn: the same history, the first answer as the model's, and
  the request to evaluate it and write a final snapshot (its answer wins when not empty);
- ``opencode``: no system prompt; the history, then the summary prompt as the last user message;
- ``cline``: system = its one-line instruction; one user message, the summary request with the
  file lists, the previous summary and the conversation;
- ``aider``: system = its summarize prompt; the history as one user message;
- ``goose``: system = its compaction template holding the history; one user message asking for it;
- ``letta``: system = the sliding-window prompt; the transcript as one user message (no
  acknowledgement turn: ``prompt_acknowledgement`` is off by default).

The history is ctxlab's transcript of the messages (`ctxlab.summarize.serialize`), as for the
other agents.
"""

from __future__ import annotations

from collections.abc import Sequence

from ctxlab.messages import Message
from ctxlab.summarize import agent_prompts as ap
from ctxlab.summarize.toolcalls import file_operations

Chat = list[dict[str, str]]


def gemini(transcript: str, previous: str | None) -> tuple[str, Chat]:
    anchor = ap.GEMINI_ANCHOR_PREVIOUS if "<state_snapshot>" in transcript else ap.GEMINI_ANCHOR_NEW
    return "gemini", [{"role": "system", "content": ap.GEMINI_COMPRESSION_PROMPT},
                      {"role": "user", "content": transcript},
                      {"role": "user", "content": anchor + ap.GEMINI_SCRATCHPAD}]


def gemini_probe(chat: Chat, first: str) -> tuple[str, Chat]:
    return "gemini_probe", [*chat[:2], {"role": "assistant", "content": first},
                            {"role": "user", "content": ap.GEMINI_PROBE}]


def opencode(transcript: str, previous: str | None) -> tuple[str, Chat]:
    return "opencode", [{"role": "user", "content": transcript}, {"role": "user", "content": ap.OPENCODE_PROMPT}]


def cline(transcript: str, previous: str | None, messages: Sequence[Message]) -> tuple[str, Chat]:
    read, modified = file_operations(messages)
    parts = [ap.CLINE_SUMMARY_REQUEST.format(read=", ".join(read) or "none", edited=", ".join(modified) or "none")]
    if previous and previous.strip():
        parts.append(ap.CLINE_PREVIOUS.format(summary=previous.strip()))
    parts.append(ap.CLINE_CONVERSATION.format(conversation=transcript or "(empty)"))
    return "cline", [{"role": "system", "content": ap.CLINE_SYSTEM_PROMPT},
                     {"role": "user", "content": "\n\n".join(parts)}]


def aider(transcript: str, previous: str | None) -> tuple[str, Chat]:
    return "aider", [{"role": "system", "content": ap.AIDER_SUMMARIZE_PROMPT}, {"role": "user", "content": transcript}]


def goose(transcript: str, previous: str | None) -> tuple[str, Chat]:
    return "goose", [{"role": "system", "content": ap.GOOSE_COMPACTION_PROMPT.format(messages=transcript)},
                     {"role": "user", "content": ap.GOOSE_REQUEST}]


def letta(transcript: str, previous: str | None) -> tuple[str, Chat]:
    return "letta", [{"role": "system", "content": ap.LETTA_SLIDING_PROMPT}, {"role": "user", "content": transcript}]


TEMPLATES = {"gemini": ap.GEMINI_COMPRESSION_PROMPT, "gemini_probe": ap.GEMINI_PROBE, "opencode": ap.OPENCODE_PROMPT,
             "cline": ap.CLINE_SUMMARY_REQUEST, "aider": ap.AIDER_SUMMARIZE_PROMPT,
             "goose": ap.GOOSE_COMPACTION_PROMPT, "letta": ap.LETTA_SLIDING_PROMPT}

__all__ = ["TEMPLATES", "aider", "cline", "gemini", "gemini_probe", "goose", "letta", "opencode"]
