"""Which of a session's needed strings a text holds, fast: the grader's search in summaries.

A needed string is a specific string (`ctxlab.metrics.specific`): at least `MIN_LENGTH` characters,
all of them run characters (``A-Z a-z 0-9 _ . / : @ # = -``). Any occurrence of one in a text
therefore lies inside one maximal run of run characters of that text. `StringFinder.held_in`
splits a text into its distinct runs and looks each up once: a run's strings are found by the
`MIN_LENGTH`-character prefix of every needed string, at every offset of the run, and kept
(consecutive summaries of a session repeat most of their runs). The result is exactly
``{s for s in strings if s in text}``, without scanning the whole text once per string (a pi
summary of 20k tokens against a few thousand needed strings took tens of milliseconds that way).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable

from ctxlab import caches
from ctxlab.metrics.specific import MIN_LENGTH
from ctxlab.tokens.chunks import SPLIT_CHARS, line_chunks

_RUN = re.compile(r"[A-Za-z0-9_./:@#=-]+")
_RUN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./:@#=-")
_RUN_ENTRIES = 200_000
_CHUNK_ENTRIES = 20_000


class StringFinder:
    """Finds which of `strings` occur in a text (see the module docstring).

    Strings that are not made of run characters only, or shorter than `MIN_LENGTH` (none are,
    for needed strings), are searched plainly.
    """

    def __init__(self, strings: Iterable[str]) -> None:
        self.by_prefix: dict[str, list[str]] = defaultdict(list)
        self.plain: list[str] = []
        for s in dict.fromkeys(strings):
            if len(s) >= MIN_LENGTH and _RUN_CHARS.issuperset(s):
                self.by_prefix[s[:MIN_LENGTH]].append(s)
            else:
                self.plain.append(s)
        self.by_prefix = dict(self.by_prefix)
        self._runs: dict[str, frozenset[str]] = {}
        self._chunks: dict[str, frozenset[str]] = {}

    def held_in(self, text: str, unfolded: str | None = None) -> frozenset[str]:
        """The strings that occur in `text`; `unfolded` is `text` before its whitespace runs were
        collapsed, when it was (the same runs, and line breaks to cut it at)."""
        found: set[str] = {s for s in self.plain if s in text}
        text = text if unfolded is None else unfolded
        if len(text) < SPLIT_CHARS:
            return frozenset(found.union(self._in_runs(text)))
        # No run crosses a line break, so a long text holds what its line chunks hold; a summary or
        # a structured prompt is made mostly of chunks an earlier one of the session held.
        for chunk in line_chunks(text):
            held = caches.kept(self._chunks, chunk, _CHUNK_ENTRIES, self._in_runs)
            found |= held
        return frozenset(found)

    def _in_runs(self, text: str) -> frozenset[str]:
        found: set[str] = set()
        for run in set(_RUN.findall(text)):
            if len(run) >= MIN_LENGTH:
                held = caches.kept(self._runs, run, _RUN_ENTRIES, self._strings_of_run)
                found |= held
        return frozenset(found)

    def _strings_of_run(self, run: str) -> frozenset[str]:
        get = self.by_prefix.get
        return frozenset(s for j in range(len(run) - MIN_LENGTH + 1) for s in get(run[j:j + MIN_LENGTH], ())
                         if run.startswith(s, j))


__all__ = ["StringFinder"]
