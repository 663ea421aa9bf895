"""The fewest tokens a text holding a string can spend on it: a lower bound the hindsight limit uses.

A byte-level BPE tokenizer (tiktoken) cuts any text into tokens of its vocabulary. Wherever a
string ``s`` occurs in a text, the tokens touching its span cut it into pieces: the first piece is
a suffix of some token (the token may start before ``s``), the last a prefix of some token, and
every piece between them a whole token. So the number of tokens touching ``s`` is at least
`min_cover` of ``s``: the fewest pieces of those shapes that spell it, found by dynamic programming
over the vocabulary. Pre-tokenization, merge order and chunked counting only choose one such cut,
never a shorter one. At most two of those tokens (the first and the last) can reach outside ``s``
and be shared with a neighbour, so at least ``min_cover - 2`` tokens lie wholly inside ``s``
(`inner_tokens`): tokens no other string whose span does not overlap ``s`` can use.

Only strings of the specific-string alphabet (``A-Z a-z 0-9 _ . / : @ # = -``) are covered; the
vocabulary is read once per encoding, keeping the tokens' pieces made of that alphabet. A counter
without a readable vocabulary (an estimator, a Hugging Face tokenizer) gives no bound: 0 tokens.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple

from ctxlab.tokens.base import TokenCounter

ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./:@#=-"
_HEAD = re.compile(rb"^[A-Za-z0-9_./:@#=-]+")
_TAIL = re.compile(rb"[A-Za-z0-9_./:@#=-]+$")
_SPELLED = re.compile(r"[A-Za-z0-9_./:@#=-]+")


class Vocabulary(NamedTuple):
    """A tokenizer's tokens as far as the alphabet goes: whole tokens made of it, and every suffix
    and prefix of a token made of it (a token's own text included), with the longest of each."""

    whole: frozenset[str]
    suffixes: frozenset[str]
    prefixes: frozenset[str]
    longest: int


@lru_cache(maxsize=4)
def vocabulary(encoding: str) -> Vocabulary:
    """The alphabet pieces of tiktoken encoding `encoding`'s tokens (read once per process)."""
    from ctxlab.tokens.exact import load_tiktoken

    whole: set[str] = set()
    suffixes: set[str] = set()
    prefixes: set[str] = set()
    for token in load_tiktoken(encoding).token_byte_values():
        tail, head = _TAIL.search(token), _HEAD.match(token)
        if tail:
            text = tail.group().decode("ascii")
            suffixes.update(text[k:] for k in range(len(text)))
        if head:
            text = head.group().decode("ascii")
            prefixes.update(text[:k] for k in range(1, len(text) + 1))
            if len(text) == len(token):
                whole.add(text)
    longest = max(map(len, (*suffixes, *prefixes)), default=1)
    return Vocabulary(frozenset(whole), frozenset(suffixes), frozenset(prefixes), longest)


def vocabulary_of(counter: TokenCounter) -> Vocabulary | None:
    """The vocabulary of a tiktoken counter; None for any other counter (no bound)."""
    from ctxlab.tokens.exact import TiktokenCounter

    return vocabulary(counter.name) if isinstance(counter, TiktokenCounter) else None


def min_cover(text: str, vocab: Vocabulary) -> int:
    """The fewest tokens any tokenization of a text holding `text` touches it with (see the module
    docstring); 1 for an empty text or one outside the alphabet (no bound beyond that)."""
    n = len(text)
    if n == 0 or not _SPELLED.fullmatch(text):
        return 1
    reach, far = [n + 1] * (n + 1), vocab.longest
    for j in range(1, min(n, far) + 1):  # the first piece: a suffix of a token
        if text[:j] in vocab.suffixes:
            reach[j] = 1
    for i in range(1, n):
        if reach[i] > n:
            continue
        for j in range(i + 1, min(n, i + far) + 1):  # whole tokens after it
            if reach[i] + 1 < reach[j] and text[i:j] in vocab.whole:
                reach[j] = reach[i] + 1
    best = reach[n]
    for i in range(max(1, n - far), n):  # or a prefix of a token last
        if reach[i] + 1 < best and text[i:] in vocab.prefixes:
            best = reach[i] + 1
    return min(best, n)


def inner_tokens(text: str, vocab: Vocabulary | None) -> int:
    """Tokens that lie wholly inside `text` wherever it occurs: ``min_cover - 2``, at least 0 (0
    without a vocabulary)."""
    return 0 if vocab is None else max(0, min_cover(text, vocab) - 2)


__all__ = ["ALPHABET", "Vocabulary", "inner_tokens", "min_cover", "vocabulary", "vocabulary_of"]
