"""Each agent's summary "voice": the sections its prompt asks for and how its summary is wrapped.

The offline extractive summarizer writes ctxlab's canonical sections
(`ctxlab.summarize.sections`); `shaped.Shaped` renders them under the agent's own headers instead, so an
offline pi summary reads like pi's (``## Goal``, ``## Constraints & Preferences`` ...) and an
OpenHands one like OpenHands' (``USER_CONTEXT:``, ``COMPLETED:`` ...), a Gemini CLI one as a
``<state_snapshot>``. Several canonical sections may share an agent section; an agent section maps
back to the first of them, so a previous summary in an agent's shape is parsed back and merged like
a canonical one.

A voice also says how the summary travels: its wrapper (`wrap`; Letta's is a JSON ``system_alert``
naming how many messages it replaced), its role (opencode's summary is the model's own answer), and
the messages placed around it (`notes`): opencode's "What did we do so far?" before it and its
continue prompt after it, the model's acknowledgement after Gemini CLI's, Aider's (only when nothing
of the history follows) and goose's continuation (another text when a tool loop was under way).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple

from ctxlab.strategies.mechanics import voice_styles as vs
from ctxlab.summarize import agent_prompts as ap
from ctxlab.summarize import sections as s
from ctxlab.summarize.message import unwrap

Shape = tuple[tuple[str, tuple[str, ...]], ...]  # (agent header, canonical sections), in render order


class Voice(NamedTuple):
    """An agent's summary conventions.

    Attributes:
        wrapper: the summary message's content, ``{summary}`` standing for the summary (and
            ``{evicted}`` for the number of messages it replaced).
        sections: the agent's sections; () keeps ctxlab's canonical ones.
        style: ``markdown`` (``## Header``), ``label`` (``HEADER:``), ``xml`` (one element per
            section in a ``<state_snapshot>``) or ``prose`` (one paragraph per section).
        file_tags: pi-mono's ``<read-files>``/``<modified-files>`` lists follow the summary, so the
            file sections are left out of the body.
        merges: a previous summary is merged by an update prompt (pi-mono); otherwise it is summarized
            again as part of the conversation (a rolling summary).
        empty: the summary when there is nothing to say.
        prefix_sections: the sections of a split turn's prefix summary (pi-mono).
        role: the summary message's role.
        prelude: a user message placed right before the summary ("": none).
        postlude: a user message placed right after the summary and its acknowledgement.
        ack: an assistant message placed right after the summary ("": none).
        ack_in_loop: the acknowledgement instead when a tool loop follows the newest user message.
        ack_alone: acknowledge only when nothing of the history is kept after the summary.
        files_section: Cline's ``## Files`` block (``Read:``/``Modified:`` lists) ends the summary, so
            the file sections are left out of the body.
        clip_results: tool results reach the summarizer cut to this many characters (0: whole).
        clip_suffix: what follows a summary clipped to ``summary_max_chars``.
        alert: the wrapped note is packed as Letta's JSON ``system_alert``.
    """

    wrapper: str
    sections: Shape = ()
    style: str = "markdown"
    file_tags: bool = False
    merges: bool = False
    empty: str = ""
    prefix_sections: Shape = ()
    role: str = "user"
    prelude: str = ""
    postlude: str = ""
    ack: str = ""
    ack_in_loop: str = ""
    ack_alone: bool = False
    files_section: bool = False
    clip_results: int = 0
    clip_suffix: str = ""
    alert: bool = False


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
    "gemini": Voice(ap.GEMINI_SUMMARY_WRAPPER, (
        ("overall_goal", (G,)), ("active_constraints", (C,)), ("key_knowledge", (D, K, E, T)),
        ("artifact_trail", (M,)), ("file_system_state", (R,)), ("recent_actions", (X,)), ("task_state", (P, N))),
        style="xml", ack=ap.GEMINI_ACK),
    "opencode": Voice(ap.OPENCODE_SUMMARY_WRAPPER, (
        ("Goal", (G,)), ("Instructions", (C,)), ("Discoveries", (D, K, E, T)), ("Accomplished", (P, N)),
        ("Relevant files / directories", (M, R, X))), role="assistant", prelude=ap.OPENCODE_PRELUDE,
        postlude=ap.OPENCODE_CONTINUE),
    "cline": Voice(ap.CLINE_SUMMARY_WRAPPER, (
        ("Goal", (G,)), ("State", (P,)), ("Highlights", (C, D, K, E, X, T)), ("Next", (N,))), merges=True,
        files_section=True, clip_results=2000),
    "aider": Voice(ap.AIDER_SUMMARY_WRAPPER, (
        ("Goal", (G,)), ("Constraints", (C,)), ("Decisions", (D,)), ("Progress", (P,)), ("Files", (M, R)),
        ("Commands", (X, E)), ("Context", (K, T)), ("Next", (N,))), style="prose", ack=ap.AIDER_ACK, ack_alone=True),
    "goose": Voice(ap.GOOSE_SUMMARY_WRAPPER, (
        ("Goal", (G,)), ("Constraints & Preferences", (C,)), ("Progress", (P, M)), ("Key Decisions", (D,)),
        ("Next Steps", (N,)), ("Critical Context", (K, R, X, E, T))), ack=ap.GOOSE_CONVERSATION_CONTINUATION,
        ack_in_loop=ap.GOOSE_TOOL_LOOP_CONTINUATION),
    "letta": Voice(ap.LETTA_SUMMARY_WRAPPER, (
        ("High level goals", (G, C)), ("What happened", (P, D, X, N)), ("Important details", (M, R, T)),
        ("Errors and fixes", (E,)), ("Lookup hints", (K,))), clip_suffix=ap.LETTA_TRUNCATION_SUFFIX, alert=True),
}
def wrap(voice: Voice, summary: str, evicted: int = 0) -> str:
    """The summary message's content in `voice` (`evicted`: how many messages it replaced)."""
    text = voice.wrapper.format(summary=summary, evicted=evicted)
    return vs.alert(text) if voice.alert else text


def unwrap_voice(voice: Voice, content: str) -> str:
    """The summary inside a summary message written in `voice` (or ctxlab's wrapper)."""
    if voice.alert:
        content = vs.alert_message(content) or content
    match = _wrapper_pattern(voice.wrapper).match(content)
    return match.group(1).strip() if match else unwrap(content)


@lru_cache(maxsize=64)
def _wrapper_pattern(wrapper: str) -> re.Pattern[str]:
    head, _, tail = wrapper.partition("{summary}")
    literal = [re.escape(part).replace(re.escape("{evicted}"), r"\d+") for part in (head, tail)]
    return re.compile(f"{literal[0]}(.*){literal[1]}\\Z", re.DOTALL)


__all__ = ["Shape", "VOICES", "Voice", "unwrap_voice", "wrap"]
