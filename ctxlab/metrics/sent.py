"""What one chain of calls sends, call after call, worked out once for every measure of a call.

In a per-turn replay the grounded measures, the regex fact recall and the hindsight limit all look
at what a call sends: as a set, as the messages added and removed since the previous call, and as
tokens under the reference. Each used to work these out for itself; a `Sent` updated once per call
hands the same answers to all of them.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from functools import partial
from typing import Any, TypeVar

from ctxlab.messages import Message
from ctxlab.tokens import TokenCounter, message_tokens


class Sent:
    """The latest call of a chain: its messages as a set (`now`), the messages `added` and
    `removed` against the call before, their tokens per counter (`tokens`) and any measure folded
    over them in order (`fold`), worked out on demand.

    Most calls of a chain send the previous call's messages and a few new ones after them (until
    the policy compacts or drops something): such a call is worked out from the new messages only,
    its set by adding them to the previous one, its tokens and folds by carrying the previous
    call's on over the new messages.
    """

    def __init__(self) -> None:
        self.messages: Sequence[Message] = ()
        self.now: set[Message] = set()
        self.added: set[Message] = set()
        self.removed: set[Message] = set()
        self._known: dict[Hashable, Any] = {}
        self._grown: tuple[dict[Hashable, Any], Sequence[Message]] | None = None  # previous call's, new messages

    def update(self, messages: Sequence[Message]) -> None:
        """Move to the next call of the chain, which sends `messages`."""
        n = len(self.messages)
        if n and len(messages) >= n and messages[:n] == self.messages:  # identity first, in C
            new = messages[n:]
            self.added = set(new) - self.now
            self.removed = set()
            self.now = self.now | self.added  # a copy: the set handed out for the call before stays as it was
            self._grown = (self._known, new)
        else:
            now = set(messages)
            self.added, self.removed, self.now = now - self.now, self.now - now, now
            self._grown = None
        self.messages, self._known = messages, {}

    def tokens(self, counter: TokenCounter) -> int:
        """The messages' tokens under `counter`, request overhead excluded."""
        return self._carried(counter.name, lambda messages: message_tokens(counter, messages),
                             lambda before, new: before + message_tokens(counter, new))

    def fold(self, step: Callable[[T | None, Sequence[Message]], T]) -> T:
        """``step(None, messages)``: a measure folded over the messages in order, where
        ``step(state, more)`` goes on from the state after the messages before `more` (and must
        leave `state` as it was: the previous call's is kept)."""
        return self._carried(step, partial(step, None), step)

    def _carried(self, key: Hashable, whole: Callable[[Sequence[Message]], Any],
                 more: Callable[[Any, Sequence[Message]], Any]) -> Any:
        found = self._known.get(key, _NONE)
        if found is _NONE:
            grown = self._grown
            before = grown[0].get(key, _NONE) if grown is not None else _NONE
            found = self._known[key] = (whole(self.messages) if grown is None or before is _NONE
                                        else more(before, grown[1]))
        return found


_NONE = object()
T = TypeVar("T")


def changes(previous: set[Message], sent: Sequence[Message],
            chain: Sent | None) -> tuple[set[Message], set[Message], set[Message]]:
    """`sent` as a set, and the messages removed and added against `previous`: worked out here, or
    taken from the `chain` (already updated to `sent`) when the caller has one."""
    if chain is not None:
        return chain.now, chain.removed, chain.added
    now = set(sent)
    return now, previous - now, now - previous


__all__ = ["Sent", "changes"]
