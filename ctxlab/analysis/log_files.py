"""One row per file for ``ctxlab logs check``: what ctxlab imports from each log file, or why not.

Each file (an OpenHands event folder counts as one) is loaded on its own, never strictly, so one
refused log does not stop the others: a refused file is a row with the loader's one-line reason.
A file's numbers add up its sessions' fidelity reports (`ctxlab.metrics.fidelity`): provider
calls, usable deltas, repairs, and the entries its importer counted and left out (lines it skipped
as unusable among them, each named in `FileCheck.bad_lines`); its note adds the import's notes (a run with no usage, a subagent's session). A file is replayable when one of its
conversations has a user and an assistant message.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

from ctxlab.datasets import load_conversations
from ctxlab.datasets.logs import FORMATS, LogFormat, split_format
from ctxlab.datasets.paths import plan_path
from ctxlab.errors import CtxlabError
from ctxlab.messages import Conversation
from ctxlab.metrics.fidelity import Fidelity, fidelity

USABLE_SHARE = 0.9  # below it, a file's note says what set its deltas aside


class FileCheck(NamedTuple):
    """What one file gave: its sessions' fidelity reports, the records the loader refused
    (``(where, reason)``), whether a strategy can replay it, and a note when it gave nothing."""

    file: str
    reports: tuple[Fidelity, ...]
    refused: tuple[tuple[str, str], ...] = ()
    replayable: bool = False
    note: str = ""

    @property
    def formats(self) -> str:
        return ", ".join(dict.fromkeys(r.format for r in self.reports)) or "-"

    @property
    def sessions(self) -> int:
        return len(self.reports)

    def total(self, field: str) -> int:
        """The sum over sessions of ``provider_calls``, ``pairs`` or ``usable``."""
        return sum(getattr(r, field) for r in self.reports)

    @property
    def repairs(self) -> int:
        return sum(len(r.repairs) for r in self.reports)

    @property
    def left_out(self) -> int:
        """Entries the importers counted and left out (no place in a conversation)."""
        return sum(sum(r.skipped.values()) for r in self.reports)

    @property
    def bad_lines(self) -> tuple[str, ...]:
        """``file:line: reason`` of every line the import skipped as unusable (the rest imported)."""
        return tuple(line for r in self.reports for line in r.bad_lines)

    @property
    def usable_share(self) -> float | None:
        pairs = self.total("pairs")
        return self.total("usable") / pairs if pairs else None

    def reason(self) -> str:
        """One line: why the file was refused, or why few of its deltas are usable or what it lacks,
        then its import's notes (`Fidelity.notes`, each once)."""
        if self.refused:
            where, reason = self.refused[0]
            more = f" (and {len(self.refused) - 1} more refused)" if len(self.refused) > 1 else ""
            return f"{where}: {reason}{more}" if where else f"{reason}{more}"
        if not self.reports:
            return self.note or "no conversations"
        notes = dict.fromkeys(n for r in self.reports for n in r.notes)
        bad = f"{len(self.bad_lines)} unusable line(s) skipped" if self.bad_lines else ""
        return "; ".join(n for n in (bad, self._deltas(), *notes) if n)

    def _deltas(self) -> str:
        """Why few of the file's deltas are usable, or that it records no per-call usage ("" if neither)."""
        share = self.usable_share
        if share is not None and share < USABLE_SHARE:
            unusable = Counter[str]()
            for r in self.reports:
                unusable.update(r.unusable)
            (top, n), pairs = unusable.most_common(1)[0], self.total("pairs")
            return f"{pairs - self.total('usable')} of {pairs} deltas set aside, {n} for: {top}"
        return "" if self.total("provider_calls") else "no per-call usage recorded"


def check_files(sources: list[str], counter: str | None = None, worst: int = 5,
                limit: int | None = None) -> Iterator[FileCheck]:
    """A `FileCheck` per file of `sources` (paths, folders, ``<format>:<path>``, or any other
    source as one unit), in order; `limit` caps the conversations read in all."""
    left = limit
    for source in sources:
        for load, display in _units(source):
            if left is not None and left <= 0:
                return
            check = _check(load, display, counter, worst, left)
            left = None if left is None else left - check.sessions
            yield check


def unread_files(sources: list[str]) -> Counter[str]:
    """Per file suffix, how many files in the folders of `sources` ctxlab does not read (hidden
    files aside): the types no reader or importer takes."""
    unread = Counter[str]()
    for source in sources:
        fmt, path = _path(source)
        if path is None or not path.is_dir():
            continue
        read = set(plan_path(path, str(path), fmt).files)
        unread.update(p.suffix.lower() or p.name for p in path.rglob("*") if p.is_file() and p not in read
                      and not any(part.startswith(".") for part in p.relative_to(path).parts))
    return unread


def _check(load: str, display: str, counter: str | None, worst: int, limit: int | None) -> FileCheck:
    refused: list[tuple[str, str]] = []
    try:
        conversations = list(load_conversations(load, strict=False, limit=limit,
                                                on_skip=lambda where, reason: refused.append((where, reason))))
    except CtxlabError as exc:  # a file no reader takes
        return FileCheck(display, (), (("", str(exc).removeprefix(f"{load}: ")),))
    return FileCheck(display, tuple(fidelity(c, counter, worst) for c in conversations),
                     tuple((_line(where, load), reason) for where, reason in refused),
                     any(_replayable(c) for c in conversations), "" if conversations else _empty(load))


def _units(source: str) -> list[tuple[str, str]]:
    """(what to load, how to show it) for each file a source reads; a folder's files one by one."""
    fmt, path = _path(source)
    if path is None or not path.is_dir():
        return [(source, source)]
    display = split_format(source)[1]
    return [(f"{fmt.name}:{unit}" if fmt else str(unit), str(Path(display) / unit.relative_to(path)))
            for unit in plan_path(path, display, fmt).units]


def _path(source: str) -> tuple[LogFormat | None, Path | None]:
    fmt, rest = split_format(source)
    path = Path(rest).expanduser() if fmt else Path(source)
    return fmt, path if path.exists() else None


def _line(where: str, load: str) -> str:
    """``<file>:440`` -> ``line 440``; the file itself -> ``""`` (the row names the file)."""
    rest = where.removeprefix(split_format(load)[1]).lstrip(":")
    return f"line {rest}" if rest.isdigit() else rest


def _empty(load: str) -> str:
    """Why a file gave no conversation: it is part of another log, or it holds none."""
    path = Path(split_format(load)[1])
    parent = next((p for f in map(FORMATS.get, FORMATS) if f.part_of and (p := f.part_of(path))), None)
    return f"read with {parent.name}" if parent is not None else "no conversations"


def _replayable(conversation: Conversation) -> bool:
    roles = {m.role for m in conversation.messages}
    return {"user", "assistant"} <= roles
