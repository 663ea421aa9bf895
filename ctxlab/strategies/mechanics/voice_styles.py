"""How a voice lays its summary out (`shaped.render` picks one by `Voice.style`) and the JSON
wrapper Letta puts around it.

- ``xml``: Gemini CLI's ``<state_snapshot>`` with one child element per section
  (``getCompressionPrompt``, google-gemini/gemini-cli ``packages/core/src/prompts/snippets.ts`` @
  f47d6c6f);
- ``prose``: Aider's summary is free prose, "a new paragraph every time the topic changes"
  (``aider/prompts.py`` ``summarize`` @ 5dc9490b): one paragraph per section, no headers;
- the Letta ``system_alert``: ``letta/system.py`` ``package_summarize_message_no_counts`` @ 56ba9c25
  packs the note into a JSON object (``json.dumps(..., indent=2, ensure_ascii=False)``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

ROOT = "state_snapshot"
_TAG = re.compile(r"^\s*<(/?)([A-Za-z_][\w-]*)>\s*$")
ALERT_TYPE = "system_alert"


def xml_block(blocks: Sequence[tuple[str, Sequence[str]]]) -> str:
    """``<state_snapshot>`` holding one ``<tag>`` element of ``- line`` items per non-empty block."""
    inner = [f"<{tag}>\n" + "\n".join(f"- {line}" for line in lines) + f"\n</{tag}>" for tag, lines in blocks if lines]
    return "\n".join([f"<{ROOT}>", *inner, f"</{ROOT}>"]) if inner else ""


def prose(blocks: Sequence[Sequence[str]]) -> str:
    """One paragraph per non-empty block, its lines run together as sentences."""
    paragraphs = [" ".join(_sentence(line) for line in lines) for lines in blocks if lines]
    return "\n\n".join(paragraphs)


def _sentence(line: str) -> str:
    line = line.strip()
    return line if line.endswith((".", "!", "?", ":")) else line + "."


def xml_tag(line: str) -> tuple[bool, str] | None:
    """``(closing, name)`` when `line` is a lone XML tag (``<overall_goal>``, ``</task_state>``)."""
    match = _TAG.match(line)
    return (bool(match.group(1)), match.group(2)) if match else None


def alert(message: str) -> str:
    """Letta's packed summary message: the note as a ``system_alert`` JSON object."""
    return json.dumps({"type": ALERT_TYPE, "message": message}, indent=2, ensure_ascii=False)


def alert_message(content: str) -> str | None:
    """The note inside a Letta ``system_alert`` (None when `content` is not one)."""
    try:
        data = json.loads(content)
    except ValueError:
        return None
    if isinstance(data, dict) and data.get("type") == ALERT_TYPE and isinstance(data.get("message"), str):
        return data["message"]
    return None


__all__ = ["ALERT_TYPE", "ROOT", "alert", "alert_message", "prose", "xml_block", "xml_tag"]
