"""Lines of a log that an importer cannot use: each one skipped on its own, the chain mended around it.

A line in the middle of a JSONL log may not decode (cut off mid-write, garbage bytes) or may hold an
entry with a field of the wrong type (a Claude Code ``message`` that is a string, a ``content`` that
is a number, a pi ``message.content`` that is an object). Such a line is skipped, not the whole log:
the importer reads every other entry, counts the line in ``meta.skipped`` (`BAD_LINE`), names it as
``file:line`` with its reason in ``meta.repairs`` and ``meta.bad_lines`` (with ``at``, the position
in ``messages`` where what it held would have been: provider deltas around it are set aside), and
refuses the file only when nothing usable is left.

Formats that link entries (Claude Code ``uuid``/``parentUuid``, pi ``id``/``parentId``) lose a link
with the line. Both write an entry's parent as the entry they appended just before it on the same
branch (Claude Code: the previous message of the chain; about 89% of the lines of the real 2.1.39
sessions point at the line right before them, most of the rest are tool results pointing at the
call they answer; pi: the current leaf). So an entry that hung off a skipped line is re-attached to the skipped
line's own parent when the line still shows it (a wrong-typed field: the rest of the entry is
readable), which is exactly the chain the agent would have written without that entry; otherwise
(the line does not decode) to the nearest entry before the skipped line on the same branch (`Chain.lane`),
the skipped line's parent in a chain written in order. An entry whose parent is not in the file at all,
after a line that does not decode, is taken to have hung off that line.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, NamedTuple

from ctxlab.datasets.logs.builder import LogBuilder
from ctxlab.datasets.logs.common import Line, not_an_object

Check = Callable[[Mapping[str, Any]], "str | None"]  # why an entry cannot be used (None: it can)


class Chain(NamedTuple):
    """How a format links entries: the keys of an entry's id and its parent's id, and which branch
    an entry is on (entries of one lane chain among themselves: Claude Code's main conversation and
    its inline sidechains)."""

    id: str
    parent: str
    lane: Callable[[Mapping[str, Any]], Any] = lambda entry: None


class Bad(NamedTuple):
    """A line the importer skips.

    Attributes:
        where: ``file:line``.
        reason: why it cannot be used.
        own: its entry id, when the line shows one.
        parent: its parent's id, when the line shows it (`parent_known`; None is then a root).
        parent_known: whether the line's parent could be read.
        lane: its branch, when the line shows it.
        note: what was re-attached around it (text added to its repair line).
        target: the parent its children were given in its own lane (None: a root, or unknown).
    """

    where: str
    reason: str
    own: str | None = None
    parent: str | None = None
    parent_known: bool = False
    lane: Any = None
    note: str = ""
    target: str | None = None


def sort_lines(lines: Iterable[Line], check: Check | None = None, chain: Chain | None = None) -> list[Line | Bad]:
    """Each line as it is, or as a `Bad` when it did not decode, is not an object or fails `check`;
    with a `chain`, the entries that hung off a bad line are re-attached (see the module docstring)."""
    items = [_sort(line, check, chain) for line in lines]
    return _relink(items, chain) if chain is not None and any(isinstance(i, Bad) for i in items) else items


def usable(items: Iterable[Line | Bad], b: LogBuilder) -> Iterator[Line]:
    """The lines to read, in order; each bad one is recorded in `b` where it stands, so read them as
    they come for ``at`` to be the position of what the line held."""
    for item in items:
        if isinstance(item, Bad):
            b.bad_line(item.where, item.reason, item.note)
        else:
            yield item


def _sort(line: Line, check: Check | None, chain: Chain | None) -> Line | Bad:
    reason = not_an_object(line.value)
    if reason is None and check is not None:
        reason = check(line.value)
    if reason is None:
        return line
    if chain is None or not isinstance(line.value, Mapping):
        return Bad(line.where, reason)
    value = line.value
    own, parent = value.get(chain.id), value.get(chain.parent)
    known = chain.parent in value and (parent is None or isinstance(parent, str))
    return Bad(line.where, reason, own if isinstance(own, str) else None, parent if known else None, known,
               chain.lane(value))


def _relink(items: list[Line | Bad], chain: Chain) -> list[Line | Bad]:
    """`items` with the children of bad lines re-attached and each bad line's note saying so."""
    links = _Links(items, chain)
    out = [links.child(n, item) if isinstance(item, Line) else item for n, item in enumerate(items)]
    return [links.noted(n, item) if isinstance(item, Bad) else item for n, item in enumerate(out)]


class _Links:
    """The chain around the bad lines of one file: which entries exist, the last entry of each lane
    before each bad line, and the children re-attached so far (per bad line)."""

    def __init__(self, items: list[Line | Bad], chain: Chain):
        self.items, self.chain = items, chain
        self.ids = {v for i in items if isinstance(i, Line) and isinstance(v := i.value.get(chain.id), str)}
        self.bad_ids = {i.own: n for n, i in enumerate(items) if isinstance(i, Bad) and i.own}
        self.before: dict[int, dict[Any, Line]] = {}
        last: dict[Any, Line] = {}
        for n, item in enumerate(items):
            if isinstance(item, Bad):
                self.before[n] = dict(last)
            elif isinstance(item.value.get(chain.id), str):
                last[chain.lane(item.value)] = item
        self.moved: dict[int, list[tuple[str, str | None]]] = {}

    def child(self, n: int, line: Line) -> Line:
        """The entry at `n`, re-attached when it hung off a bad line."""
        parent = line.value.get(self.chain.parent)
        if not isinstance(parent, str) or parent in self.ids:
            return line
        bad = self.bad_ids[parent] if parent in self.bad_ids else self._undecoded_before(n)
        if bad is None:
            return line
        target = self.target(bad, self.chain.lane(line.value))
        self.moved.setdefault(bad, []).append((line.where, target))
        return Line(line.where, {**line.value, self.chain.parent: target})

    def noted(self, n: int, bad: Bad) -> Bad:
        """Bad line `n` with what was re-attached around it, and the parent it gives in its own lane."""
        return bad._replace(note=_note(bad, self.moved.get(n, [])), target=self.target(n, bad.lane))

    def _undecoded_before(self, n: int) -> int | None:
        """The nearest bad line before `n` that shows no id of its own (the parent an orphan lost)."""
        return next((k for k in range(n - 1, -1, -1) if isinstance(b := self.items[k], Bad) and not b.own), None)

    def target(self, n: int, lane: Any, depth: int = 0) -> str | None:
        """The parent a child of bad line `n` (in `lane`) gets: the line's own parent, itself resolved
        when it is bad too, else the nearest entry before the line in that lane."""
        bad = self.items[n]
        assert isinstance(bad, Bad)
        if bad.parent_known:
            if bad.parent in self.bad_ids and depth < len(self.bad_ids):
                return self.target(self.bad_ids[bad.parent], lane, depth + 1)
            return bad.parent
        nearest = self.before[n].get(lane)
        return nearest.value.get(self.chain.id) if nearest is not None else None


def _note(bad: Bad, children: list[tuple[str, str | None]]) -> str:
    """What the repair line of a bad line adds: which entries were re-attached, and to what."""
    parts = []
    for target in dict.fromkeys(t for _, t in children):
        lines = [where.rsplit(":", 1)[-1] for where, t in children if t == target]
        how = "its own parent" if bad.parent_known else "the entry before it on its branch"
        parts.append(f"re-attached what hung off it (line{'s' if len(lines) > 1 else ''} {', '.join(lines)}) to "
                     + (f"{how}, {target}" if target else f"nothing: {how} is none, so now a root"))
    return "".join(f"; {p}" for p in parts)
