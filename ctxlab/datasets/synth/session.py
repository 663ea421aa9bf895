"""Recorder for one synthetic agent session: messages, fact candidates, summary notes.

Every message with fact markers must come with a *note* (an English line for the
reference summary); the facts rendered in the message are attached to that note,
which is what lets the reference summary quote every selected fact.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field

from .util import call_id, message_chars, render

SECTIONS = ("goal", "constraints", "progress", "decisions", "next")


@dataclass
class Note:
    """One line of the reference summary and the facts it stands for."""

    section: str
    text: str
    facts: list[str] = field(default_factory=list)


# What a message's facts are filed under: a new (section, text) line, an existing line, or nothing.
NoteArg = Note | tuple[str, str] | None


@dataclass
class Call:
    """A tool call to make and the output the tool answers with."""

    name: str
    args: dict
    output: str


class Session:
    """Append-only builder of an OpenAI-format conversation with fact bookkeeping."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.messages: list[dict] = []
        self.candidates: list[tuple[str, str, int]] = []
        self.notes: list[Note] = []
        self.chars = 0
        self._seen: set[str] = set()

    def __len__(self) -> int:
        return len(self.messages)

    def _append(self, message: dict) -> int:
        self.messages.append(message)
        self.chars += message_chars(message)
        return len(self.messages) - 1

    def _record(self, facts: list[tuple[str, str]], index: int, note: NoteArg) -> None:
        if facts and note is None:
            raise ValueError(f"message {index} has facts {facts} but no summary note")
        # A fact belongs to the summary line of its first mention only; later
        # mentions neither move it nor get it quoted twice.
        new = list(dict.fromkeys(fact for fact, _ in facts if fact not in self._seen))
        for fact, kind in facts:
            self.candidates.append((fact, kind, index))
            self._seen.add(fact)
        if isinstance(note, Note):
            note.facts.extend(new)
        elif note is not None:
            self.add_note(note[0], note[1], new)

    def add_note(self, section: str, text: str, facts: list[str] | None = None) -> Note:
        """Add a reference-summary line in ``section`` (one of ``SECTIONS``)."""
        if section not in SECTIONS:
            raise ValueError(f"unknown summary section {section!r}")
        note = Note(section, text, list(facts or ()))
        self.notes.append(note)
        return note

    def say(self, role: str, pieces: list[tuple[str, dict]], note: NoteArg = None,
            sep: str = " ", **extra: str) -> int:
        """Append a text message rendered from ``(template, slots)`` pieces.

        Args:
            role: ``system``, ``user`` or ``assistant``.
            pieces: Templates rendered separately and joined with ``sep``.
            note: ``(section, english_text)`` for a new summary line, or an
                existing ``Note`` to attach the facts to; required when the
                pieces contain fact markers.
            sep: Separator between rendered pieces.
            **extra: Additional message keys (e.g. ``name``).

        Returns:
            The index of the new message.
        """
        texts, facts = [], []
        for template, slots in pieces:
            text, found = render(template, slots)
            texts.append(text)
            facts.extend(found)
        index = self._append({"role": role, "content": sep.join(texts), **extra})
        self._record(facts, index, note)
        return index

    def call(self, narration: tuple[str, dict] | None, calls: list[Call],
             note: NoteArg = None) -> int:
        """Append an assistant message calling ``calls`` in parallel, then one tool answer per call.

        Returns:
            The index of the assistant message.
        """
        text, facts = render(*narration) if narration else (None, [])
        ids = [call_id(self.rng) for _ in calls]
        index = self._append({
            "role": "assistant",
            "content": text,
            "tool_calls": [{"id": cid, "type": "function",
                            "function": {"name": c.name, "arguments": _dumps(c.args)}} for cid, c in zip(ids, calls, strict=False)],
        })
        self._record(facts, index, note)
        for cid, c in zip(ids, calls, strict=False):
            self._append({"role": "tool", "tool_call_id": cid, "name": c.name, "content": c.output})
        return index


def _dumps(args: dict) -> str:
    # ensure_ascii=False keeps CJK and code readable, as real clients send it.
    return json.dumps(args, ensure_ascii=False)
