"""The messages that travel with a summary, in its voice: a prelude before it, an acknowledgement
and a postlude after it (`voices.Voice`), and a summary clipped to a number of characters.

- opencode: the compaction request ``What did we do so far?`` (a user message), the summary as the
  model's answer, then ``Continue if you have next steps...`` (compaction.ts @ fd78ec63);
- Gemini CLI: the model answers the snapshot with ``Got it. Thanks for the additional context!``;
- Aider: ``Ok.`` after a history that ends with the summary (history.py ``summarize``);
- goose: the continuation text after the summary, another one when the summary was written in the
  middle of a tool loop (``compact_messages``);
- Letta clips a summary to ``clip_chars`` and marks the cut (``summarize_via_sliding_window``).

The added messages are marked ``marker`` (invented, standing for no input message); their ids
derive from the summary's.
"""

from __future__ import annotations

from dataclasses import replace

from ctxlab.messages import Message
from ctxlab.strategies.mechanics.voices import Voice


def notes(summary: Message, voice: Voice, *, alone: bool, in_loop: bool) -> list[Message]:
    """`summary` with its voice's prelude, acknowledgement and postlude around it.

    Args:
        summary: the summary message.
        voice: its voice.
        alone: nothing of the history is kept after the summary (Aider acknowledges only then).
        in_loop: a tool loop follows the newest user message (goose's other continuation text).
    """
    ack = (voice.ack_in_loop or voice.ack) if in_loop else voice.ack
    if voice.ack_alone and not alone:
        ack = ""
    made = [(voice.prelude, "user", "prelude"), (None, voice.role, ""), (ack, "assistant", "ack"),
            (voice.postlude, "user", "postlude")]
    out = []
    for text, role, suffix in made:
        if text is None:
            out.append(summary if summary.role == role else replace(summary, role=role))
        elif text:
            out.append(Message(role, text, id=f"{summary.id}:{suffix}", mark="marker"))
    return out


def clip_chars(text: str, max_chars: int, suffix: str) -> str:
    """Letta: the first `max_chars` characters and `suffix` when longer (0: no limit)."""
    return text[:max_chars] + suffix if max_chars and len(text) > max_chars else text


__all__ = ["clip_chars", "notes"]
