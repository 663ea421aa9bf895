"""Claude Code's prompt queue (``queue-operation`` entries): which queued message reached the model
mid-turn with no entry of its own.

A message the user types while the model works, and a background task's ``<task-notification>``,
are logged by ``enqueue`` with their text. ``remove`` means the message was absorbed into the turn in
progress: sent with the next request, with no user entry of its own unless an attachment (a
``queued_command``, in newer versions) or a user entry with that text logs it later. ``dequeue``
ends in an ordinary user entry, ``popAll`` takes the queue back to the input: nothing is added for
them. Since Claude Code 2.0.76 ``remove`` and ``dequeue`` carry no text (the fields are listed in
claude-code-viewer's ``QueueOperationEntrySchema``), so which queued message they mean is read from
what the log delivers later (`PromptQueue.take`). Third-party log readers document the same
semantics; there is no official source.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any


class PromptQueue:
    """The messages queued and not yet taken, and the prompts still to come as entries of their own
    (a user entry, typed or a task notification sent as a turn, or a ``queued_command`` attachment)."""

    def __init__(self, entries: list[tuple[str, Mapping[str, Any]]]):
        self.ahead = Counter(text for _, e in entries if (text := delivered(e)))
        self.waiting: list[str] = []

    def seen(self, item: Mapping[str, Any]) -> None:
        """An entry was read: a prompt it delivers is no longer ahead."""
        text = delivered(item)
        if text:
            self.ahead[text] -= 1

    def operation(self, operation: Any, text: str | None) -> str | None:
        """Apply one queue operation; the message to add as a user message, when a ``remove``
        absorbed one that no later entry delivers (None otherwise)."""
        if operation == "enqueue" and text and text.strip():
            self.waiting.append(text)
        elif operation in ("dequeue", "remove") and self.waiting:
            text = self.take(text, delivered=operation == "dequeue")
        elif operation == "popAll":
            self.waiting.clear()
        if operation != "remove" or not text or not text.strip() or self.ahead[text] > 0:
            return None
        return text

    def take(self, text: str | None, delivered: bool) -> str:
        """The queued message a ``dequeue``/``remove`` takes: the one it names; else, for a
        ``remove`` (absorbed mid-turn) the oldest that does not come later as an entry of its own,
        for a ``dequeue`` (sent as the next turn) the oldest that does; else the oldest. Real 2.1.39
        sessions enqueue a background task's notification, then deliver it, sometimes much later
        (6 and 40 minutes in the shared sessions fa812bfe and 4d5611e5), as an ordinary user entry
        with the same text; a message the user types meanwhile is queued behind it and absorbed
        first, so the oldest message is not the one a ``remove`` took."""
        if text:
            if text in self.waiting:
                self.waiting.remove(text)
            return text
        pick = next((t for t in self.waiting if (self.ahead[t] > 0) == delivered), self.waiting[0])
        self.waiting.remove(pick)
        return pick


def queued_command(item: Mapping[str, Any]) -> str | None:
    """The prompt of a ``queued_command`` attachment entry (None for anything else)."""
    attached = item.get("attachment") if item.get("type") == "attachment" else None
    prompt = attached.get("prompt") if isinstance(attached, Mapping) and attached.get("type") == "queued_command" \
        else None
    return prompt if isinstance(prompt, str) and prompt.strip() else None


def delivered(item: Mapping[str, Any]) -> str | None:
    """The prompt an entry delivers as an entry of its own: a user entry written as a plain string
    (how a typed prompt or a task notification sent as a turn is logged), or a ``queued_command``
    attachment."""
    message = item.get("message") if item.get("type") == "user" else None
    content = message.get("content") if isinstance(message, Mapping) else None
    return content if isinstance(content, str) and content.strip() else queued_command(item)
