"""The hindsight limit: the most needed strings any policy could keep at a call for the tokens it sent.

A reference that knows the future, never a policy: it is never replayed, recommended or tuned, and
every figure of it says so. For the call before assistant message ``t``, sending ``T`` tokens
(reference tokenizer, request overhead included), it is the optimum of a separable relaxation:

- **mandatory**: the request's fixed overhead (tool definitions, reply priming) and the pinned
  messages the call sent whole (the system prompt, the newest user message: every strategy keeps
  them, `ctxlab.strategies.mechanics.context.pinned`); the needed strings they hold come free;
- **every other needed string** at the fewest tokens any text can spend on it: the tokens that lie
  wholly inside it wherever it occurs (`ctxlab.tokens.cover.inner_tokens`, a vocabulary bound that
  leaves the two edge tokens a neighbour may share), computed on the part of it no other needed
  string of the call can overlap (a string inside another one costs nothing), plus one message's
  overhead for the text carrying them all;
- the cheapest strings first within ``T`` less the mandatory part: the exact optimum of that
  relaxation, so no policy keeps more needed strings at ``T`` tokens (tested over every strategy).

Its horizon is the next call, the one needed recall grades (`HORIZON`). It is computed per unit at
the unit's own tokens and stored beside needed recall (``limit_kept``), so it pools as needed
recall does and "the limit at a policy's tokens" is the pooled ``limit_kept`` of its units.

What it says, and what not: a call's needed strings take a few dozen tokens (on the shared real
logs a plain text holding all of one call's takes 21 o200k tokens at the median, 840 at most), so
the limit is every needed string unless a policy sends next to nothing beyond the pinned messages
(`reading` names where it binds). A limit of 100% says the budget was not what the policy lost
strings to; its choice of what to send was. It does not say that any rule could reach it: the
limit knows the future. The *share of the headroom closed* (`headroom_closed`) measures a policy
from the strings every policy keeps by sending the newest messages (those a message new since the
previous call holds) to the limit.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from functools import lru_cache
from typing import NamedTuple

from ctxlab.messages import Message
from ctxlab.metrics.needed import SessionNeeds
from ctxlab.strategies.mechanics import newest_user, system_prefix
from ctxlab.tokens import TokenCounter, message_tokens
from ctxlab.tokens.cover import inner_tokens, vocabulary, vocabulary_of

HORIZON = "next call"
BINDS = 0.995  # a pooled limit under this is a budget that bound: a policy lost strings for want of tokens
_ROLES = ("system", "user", "assistant", "tool")


class _Call(NamedTuple):
    """What the limit of one call needs whatever the policy (built once per session and call):
    its pinned messages, per needed string the pinned ones holding it, and the strings by cost."""

    pinned: tuple[int, ...]
    held: tuple[tuple[str, frozenset[int]], ...]
    by_cost: tuple[tuple[int, str], ...]


def limit_kept(needs: SessionNeeds, t: int, sent: Sequence[Message], counter: TokenCounter, *,
               whole: Collection[Message] | None = None, sent_tokens: int | None = None) -> int:
    """The hindsight limit of the call before message `t` at the tokens `sent` costs under `counter`
    (the reference `needs` was built with), as a count of its needed strings. `whole` (`sent` as a
    set) and `sent_tokens` (`message_tokens` of `sent`) save recomputing them when at hand."""
    call = _call(needs, t, counter)
    if not call.held:
        return 0
    messages = needs.conversation.messages
    whole = set(sent) if whole is None else whole
    pinned = [j for j in call.pinned if messages[j] in whole]
    free = {s for s, holders in call.held if holders.intersection(pinned)} if pinned else set()
    # The fixed overhead is in every request alike: the messages' own tokens are what is shared out.
    body = message_tokens(counter, sent) if sent_tokens is None else sent_tokens
    room = body - sum(counter.count_message(messages[j]) for j in pinned) - _carrier(counter)
    taken = 0
    if room >= 0:
        for cost, s in call.by_cost:
            if s in free:
                continue
            if cost > room:
                break
            room -= cost
            taken += 1
    return len(free) + taken


def _call(needs: SessionNeeds, t: int, counter: TokenCounter) -> _Call:
    """The `_Call` of `t`, kept with the session's needs: every policy replayed asks for the same calls."""
    key = (t, counter.name)
    call = needs.limits.get(key)
    if call is None:
        needed = [n.text for n in needs.calls.get(t, ())]
        pinned = _pinned(needs.conversation.messages, t)
        held = tuple((s, frozenset(j for j in needs.holdings[s].indices if j in pinned)) for s in needed)
        costs = call_costs(tuple(needed), counter.name if vocabulary_of(counter) is not None else "")
        # Sorted as (cost, string) pairs: the costs come in the same order as sorting them alone.
        call = needs.limits[key] = _Call(tuple(pinned), held, tuple(sorted(zip(costs, needed, strict=True))))
    return call


def _pinned(messages: Sequence[Message], t: int) -> list[int]:
    """The pinned messages of ``messages[:t]``: the system prompt and the newest user message."""
    head = list(range(system_prefix(messages[:t])))
    user = newest_user(messages[:t])
    return head + ([user] if user is not None else [])


_CARRIERS: dict[str, int] = {}


def _carrier(counter: TokenCounter) -> int:
    """The fewest tokens a message costs with nothing in it (the text carrying the strings), per counter."""
    found = _CARRIERS.get(counter.name)
    if found is None:
        found = _CARRIERS[counter.name] = min(counter.count_message(Message(role, "")) for role in _ROLES)
    return found


@lru_cache(maxsize=50_000)
def call_costs(strings: tuple[str, ...], encoding: str) -> tuple[int, ...]:
    """Each needed string's lower-bound cost among the call's `strings` (module docstring); all 0
    without an `encoding` whose vocabulary bounds it."""
    if not encoding:
        return (0,) * len(strings)
    vocab = vocabulary(encoding)
    alone = [s for s in strings if not any(s != o and s in o for o in strings)]
    out = []
    for s in strings:
        if s not in alone:
            out.append(0)  # inside another needed string: free wherever that one is kept
            continue
        left = max((_overlap(o, s) for o in alone if o != s), default=0)
        right = max((_overlap(s, o) for o in alone if o != s), default=0)
        out.append(inner_tokens(s[left:len(s) - right], vocab) if left + right < len(s) else 0)
    return tuple(out)


def _overlap(a: str, b: str) -> int:
    """The longest proper suffix of `a` that is a prefix of `b` (shorter than both): how far `b`
    may share `a`'s text. Only the places in `a` holding `b`'s first character can start it, so
    those are tried, longest first (the call's strings are tried pairwise: this is most of a call)."""
    if not a or not b:
        return 0
    p = a.find(b[0], len(a) - min(len(a), len(b)) + 1)
    while p >= 0:
        if b.startswith(a[p:]):
            return len(a) - p
        p = a.find(b[0], p + 1)
    return 0


def headroom_closed(recall: float | None, limit: float | None, newest: float | None) -> float | None:
    """The share of the headroom a policy closes: ``(recall - newest) / (limit - newest)``, where
    `newest` is the share of needed strings a message new since the previous call holds (what every
    policy keeps by sending the newest messages); None when the limit leaves no headroom."""
    if recall is None or limit is None or newest is None or limit - newest <= 1e-12:
        return None
    return (recall - newest) / (limit - newest)


def reading(limits: Mapping[str, float]) -> str:
    """One sentence on what the limit says at one window, from each policy's pooled limit at its own
    tokens (`limits`, by name; NaN for runs stored before the limit): where it binds, else that
    the budget bound no policy."""
    known = {name: value for name, value in limits.items() if value == value}
    if not known:
        return ""
    binding = sorted((value, name) for name, value in known.items() if value < BINDS)
    if not binding:
        return ("At every policy's tokens the hindsight limit is every needed string: no policy here lost a needed "
                "string for want of tokens, only by what it chose to send.")
    named = ", ".join(f"{name} {100 * value:.1f}%" for value, name in binding)
    rest = ("; at every other policy's tokens it is every needed string" if len(binding) < len(known) else "")
    return (f"The hindsight limit binds (under {100 * BINDS:.1f}%) where a policy sends little beyond the pinned "
            f"messages: {named}{rest}.")


__all__ = ["BINDS", "HORIZON", "call_costs", "headroom_closed", "limit_kept", "reading"]
