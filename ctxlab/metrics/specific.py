"""Specific strings: the one definition of what in an agent's action could only come from its
context (a path, an identifier, a number, a flag), used by the grounded measures.

A *specific string* is a maximal run of the characters ``A-Z a-z 0-9 _ . / : @ # = -``, with
trailing ``.``, ``:`` and ``=`` removed (sentence punctuation, ``key=``), that

- is at least `MIN_LENGTH` (5) characters long and has a letter or a digit, and
- has a digit, or one of ``/ . _ : -``, or an inner capital (a lower-case letter or digit followed
  by a capital, as in ``camelCase``).

So ``src/app.py``, ``ReviewContextBuilder``, ``max_retries``, ``--dry-run``, ``8080/tcp`` and
``2026-11-23`` are specific; ``README``, ``continue``, ``1.23`` (too short) and ``=====`` are not.
Plain prose words, numbers under five characters and CJK text never are. Its kind is the first of
`KINDS` that fits (`kind_of`).
"""

from __future__ import annotations

import re

from ctxlab.metrics.facts import looks_like_path

MIN_LENGTH = 5
KINDS = ("number", "path", "identifier", "other")
_RUN = re.compile(r"[A-Za-z0-9_./:@#=-]+")
_SEPARATOR = re.compile(r"[/._:-]")
_INNER_CAPITAL = re.compile(r"[a-z0-9][A-Z]")
_ALNUM = re.compile(r"[A-Za-z0-9]")
_DIGIT = re.compile(r"\d")
# Numbers, versions, dates, times, sizes with a short unit, and hex digests (commit ids).
_NUMBER = re.compile(r"[vV]?\d[\d.,:_/+-]*[A-Za-z%]{0,3}|(?=[0-9a-f]*\d)[0-9a-f]{7,64}")
_IDENTIFIER = re.compile(r"[:@]?[A-Za-z_$][\w$]*(?:(?:\.|::?|#)[A-Za-z_$][\w$]*)*(?:\(\))?")


def is_specific(run: str) -> bool:
    """Whether a run (already stripped of trailing ``.:=``) is a specific string."""
    return (len(run) >= MIN_LENGTH and _ALNUM.search(run) is not None
            and (_DIGIT.search(run) is not None or _SEPARATOR.search(run) is not None
                 or _INNER_CAPITAL.search(run) is not None))


def specific_strings(text: str) -> list[str]:
    """The specific strings of `text`, deduplicated in order of first appearance."""
    out: dict[str, None] = {}
    for match in _RUN.finditer(text):
        run = match.group().rstrip(".:=")
        if is_specific(run):
            out.setdefault(run, None)
    return list(out)


def kind_of(string: str) -> str:
    """``number`` (numbers, versions, dates, hex digests), ``path`` (a ``/`` or a file name with a
    known extension, URLs included), ``identifier`` (camelCase, snake_case, dotted names, ``:atoms`` and ``@attributes``) or
    ``other`` (flags, ``key=value``, ``user@host``, hyphenated words)."""
    if _NUMBER.fullmatch(string):
        return "number"
    if "/" in string or looks_like_path(string):
        return "path"
    if _IDENTIFIER.fullmatch(string):
        return "identifier"
    return "other"


__all__ = ["KINDS", "MIN_LENGTH", "is_specific", "kind_of", "specific_strings"]
