"""What one chain of calls sends, call after call, worked out once for every measure of a call.

In a per-turn replay the grounded measures, the regex fact recall and the hindsight limit all look
at what a call sends: as a set, as the messages added and removed since the previous call, and as
tokens under the reference. Each used to work these out for itself; a `Sent` updated once per call
hands the same answers to all of them.
"""

from __future__ import annotations

from collections.abc import Sequence

from ctxlab.messages import Message
from ctxlab.tokens import TokenCounter, message_tokens


class Sent:
    """The latest call of a chain: its messages as a set (`now`), the messages `added` and
    `removed` against the call before, and their tokens per counter (`tokens`, counted on demand).

    Most calls of a chain send the previous call's messages and a few new ones after them (until
    the policy compacts or drops something): such a call is worked out from the new messages only,
    its set by adding them to the previous one and its tokens by adding theirs.
    """

    def __init__(self) -> None:
        self.messages: Sequence[Message] = ()
        self.now: set[Message] = set()
        self.added: set[Message] = set()
        self.removed: set[Message] = set()
        self._tokens: dict[str, int] = {}
        self._grown: tuple[dict[str, int], Sequence[Message]] | None = None  # previous tokens, new messages

    def update(self, messages: Sequence[Message]) -> None:
        """Move to the next call of the chain, which sends `messages`."""
        n = len(self.messages)
        if n and len(messages) >= n and messages[:n] == self.messages:  # identity first, in C
            new = messages[n:]
            self.added = set(new) - self.now
            self.removed = set()
            self.now = self.now | self.added  # a copy: the set handed out for the call before stays as it was
            self._grown = (self._tokens, new)
        else:
            now = set(messages)
            self.added, self.removed, self.now = now - self.now, self.now - now, now
            self._grown = None
        self.messages, self._tokens = messages, {}

    def tokens(self, counter: TokenCounter) -> int:
        """The messages' tokens under `counter`, request overhead excluded."""
        found = self._tokens.get(counter.name)
        if found is None:
            grown = self._grown
            before = grown[0].get(counter.name) if grown is not None else None
            found = self._tokens[counter.name] = (message_tokens(counter, self.messages)
                                                  if grown is None or before is None
                                                  else before + message_tokens(counter, grown[1]))
        return found


def changes(previous: set[Message], sent: Sequence[Message],
            chain: Sent | None) -> tuple[set[Message], set[Message], set[Message]]:
    """`sent` as a set, and the messages removed and added against `previous`: worked out here, or
    taken from the `chain` (already updated to `sent`) when the caller has one."""
    if chain is not None:
        return chain.now, chain.removed, chain.added
    now = set(sent)
    return now, previous - now, now - previous


__all__ = ["Sent", "changes"]
