"""Reading files and folders that may hold agent logs: sniff the first values, then import or pass on.

A file is decoded once: the plain readers yield raw values with their locations, the first few
decide the format, and a log's values go to its importer while any other file's values go on as
ordinary records. A line that does not decode goes to the importer in its place as `Unreadable`,
which skips it and says so (`ctxlab.datasets.logs.broken`); two kinds a writer leaves behind are
handled here, each noted in ``meta.repairs``: a line holding complete entries written back to back
with no newline between them is split into them (`ctxlab.datasets.readers.split_values`), and a
cut-off last line of a JSONL log (a session killed mid-write) is dropped, keeping any complete
entries it starts with.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
from pathlib import Path

from ctxlab.datasets.logs import FORMATS, detect
from ctxlab.datasets.logs.common import Line, LogError, LogFormat, LogSource, Unreadable
from ctxlab.datasets.readers import Raw, folder_files, read_json, read_jsonl

HEAD_LINES = 8  # Claude Code files may open with a few snapshot or summary lines


def read_jsonl_log(path: Path, display: str, fmt: LogFormat | None = None) -> Iterator[Raw]:
    """Records of a JSONL file: one record for an agent log (none for a file that is part of
    another log, e.g. Claude Code's compaction agent beside its session), else one per line."""
    raws = read_jsonl(path, display)
    head = list(itertools.islice(raws, HEAD_LINES))
    fmt = fmt or detect([r.record for r in head if r.error is None], "jsonl")
    if fmt is None:
        yield from itertools.chain(head, raws)
    elif fmt.part_of is None or fmt.part_of(path) is None:  # else the parent log's import reads it
        yield from import_logs(fmt, itertools.chain(head, raws), path, display, cut_off_ok=True)


def read_json_log(path: Path, display: str, fmt: LogFormat | None = None) -> Iterator[Raw]:
    """Records of a JSON file (or ``.traj``): one record for a SWE-agent trajectory or an OpenHands
    event list, else the file's records."""
    raws = read_json(path, display)
    first = next(raws, None)
    if first is None:
        return
    fmt = fmt or detect([first.record] if first.error is None else [], "json")
    if fmt is None:
        yield first
        yield from raws
    else:
        yield from import_logs(fmt, itertools.chain([first], raws), path, display)


def read_events_folder(folder: Path, display: str, fmt: LogFormat | None = None) -> Iterator[Raw]:
    """An OpenHands session folder (``<session>/events/<n>.json``) as one record.

    Unless the format is forced, a folder whose first event file is not an OpenHands event is read
    as ordinary files.
    """
    openhands = FORMATS.get("openhands")
    raws = itertools.chain.from_iterable(read_json(f, f"{display}/{f.relative_to(folder).as_posix()}")
                                         for f in event_files(folder))
    first = next(raws, None)
    if first is not None and (fmt is openhands or (
            first.error is None and detect([first.record], "json") is openhands)):
        session = folder.parent if folder.name == "events" and not (folder / "events").is_dir() else folder
        yield import_log(openhands, itertools.chain([first], raws), session, display)
        return
    for file in folder_files(folder):
        yield from read_json_log(file, f"{display}/{file.relative_to(folder).as_posix()}")


def import_log(fmt: LogFormat, raws: Iterable[Raw], path: Path, display: str, *, cut_off_ok: bool = False) -> Raw:
    """One log's raw values -> one `Raw`: the record, or the located reason it cannot be read."""
    source = LogSource(path, display, [])
    try:
        record = fmt.convert(_lines(raws, path, source, cut_off_ok), source)
    except LogError as exc:
        return Raw(exc.where, path.stem, error=exc.reason)
    return Raw(display, path.stem, record)


def import_logs(fmt: LogFormat, raws: Iterable[Raw], path: Path, display: str, *,
                cut_off_ok: bool = False) -> Iterator[Raw]:
    """One log's raw values -> its records: one (`import_log`), or one per conversation of a log
    that holds several (`LogFormat.convert_all`), each conversation that cannot be read as its
    located reason."""
    if fmt.convert_all is None:
        yield import_log(fmt, raws, path, display, cut_off_ok=cut_off_ok)
        return
    source = LogSource(path, display, [])
    try:
        for n, item in enumerate(fmt.convert_all(_lines(raws, path, source, cut_off_ok), source), 1):
            yield (Raw(item.where, f"{path.stem}:{n}", error=item.reason) if isinstance(item, LogError)
                   else Raw(display, f"{path.stem}:{n}", item))
    except LogError as exc:
        yield Raw(exc.where, path.stem, error=exc.reason)


def _lines(raws: Iterable[Raw], path: Path, source: LogSource, cut_off_ok: bool) -> Iterator[Line]:
    """Decoded lines. A line that does not decode is passed on in its place as `Unreadable` (the
    importer skips it, `ctxlab.datasets.logs.broken`), after any complete entries it starts with,
    except the cut-off end of a JSONL file (no newline after it: the agent was killed mid-write),
    which is dropped with a note. Entries written back to back on one line are split; all keep the
    line's location."""
    bad: Raw | None = None
    for raw in raws:
        if bad is not None:
            yield from _bad(bad)
            bad = None
        if raw.error is None:
            yield Line(raw.where, raw.record)
        elif len(raw.parts) > 1 and not raw.rest:
            source.notes.append(f"{raw.where}: {len(raw.parts)} entries written back to back with no newline "
                                "between them; split into separate entries")
            yield from (Line(raw.where, part) for part in raw.parts)
        else:
            bad = raw
    if bad is None:
        return
    if not (cut_off_ok and not _ends_with_newline(path)):
        yield from _bad(bad)
        return
    kept = f" after the {len(bad.parts)} complete entries it starts with" if bad.parts else ""
    source.notes.append(f"{bad.where}: dropped the cut-off last line{kept} ({bad.error})")
    yield from (Line(bad.where, part) for part in bad.parts)


def _bad(raw: Raw) -> Iterator[Line]:
    """A line that does not decode: the complete entries it starts with, then the rest as `Unreadable`."""
    yield from (Line(raw.where, part) for part in raw.parts)
    yield Line(raw.where, Unreadable(raw.error or "unreadable"))


def _ends_with_newline(path: Path) -> bool:
    with path.open("rb") as f:
        f.seek(0, 2)
        if f.tell() == 0:
            return True
        f.seek(-1, 2)
        return f.read(1) == b"\n"


def folder_units(folder: Path, fmt: LogFormat | None = None, files: list[Path] | None = None) -> list[Path]:
    """What a folder read reads, sorted by relative path: its files, except that an OpenHands session
    folder (one holding ``events/<n>.json``) is one unit. A forced format keeps only its own files.

    `files` is the folder's `folder_files` listing, when the caller already has it.
    """
    files = folder_files(folder) if files is None else files
    sessions = set() if fmt is not None and fmt.name != "openhands" else \
        {f.parent.parent for f in files if _is_event_file(f)}
    if folder in sessions or (folder.name == "events" and folder.parent in sessions):
        return [folder]
    files = [f for f in files if not any(s in f.parents for s in sessions)
             and (fmt is None or f.suffix.lower() in fmt.suffixes)]
    return sorted([*files, *sessions], key=lambda p: p.relative_to(folder).as_posix())


def event_files(folder: Path) -> list[Path]:
    """The ``<n>.json`` event files of a session folder (or of its ``events`` folder), by event id."""
    events = folder / "events" if (folder / "events").is_dir() else folder
    return sorted((f for f in events.glob("*.json") if _is_event_file(f)), key=lambda f: int(f.stem))


def _is_event_file(path: Path) -> bool:
    return path.suffix == ".json" and path.stem.isdigit() and path.parent.name == "events"
