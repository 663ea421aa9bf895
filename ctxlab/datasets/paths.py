"""Reading a path: the one dispatch from a file or folder to its reader.

Agent logs (`ctxlab.datasets.logs`) are recognised by content among ordinary files and imported
whole; everything else goes to the plain readers of `ctxlab.datasets.readers`. A folder is listed
once (`plan_path`); reading it (`read_plan`) and fingerprinting it reuse that listing.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

from ctxlab.datasets.logs import files as logs
from ctxlab.datasets.logs.common import LogFormat
from ctxlab.datasets.logs.other_files import READERS as OTHER_LOG_READERS
from ctxlab.datasets.readers import Raw, folder_files, read_parquet
from ctxlab.errors import CtxlabError


class PathPlan(NamedTuple):
    """What reading a path reads: a folder's supported files and its read units (files, and
    OpenHands session folders read as one log each); a file is its own single unit."""

    files: list[Path]
    units: list[Path]


def plan_path(path: Path, display: str, fmt: LogFormat | None = None) -> PathPlan:
    """List what `path` holds, checking now that it can be read.

    Args:
        path: the file or folder.
        display: how locations name it (the path as the user wrote it).
        fmt: a log format to force (``<format>:<path>``); a folder then reads only its files.

    Raises:
        CtxlabError: an unsupported file type, or a folder with nothing to read.
    """
    if not path.is_dir():
        _check_file(path, display, fmt)
        return PathPlan([path], [path])
    files = folder_files(path)
    units = logs.folder_units(path, fmt, files)
    if not units:
        what = (f"{fmt.name} logs ({', '.join(fmt.suffixes)})" if fmt
                else ".jsonl, .json or .parquet files (or .traj, .eval, .md or .responses logs)")
        raise CtxlabError(f"{display}: no {what} in this folder")
    return PathPlan(files, units)


def read_plan(plan: PathPlan, path: Path, display: str, fmt: LogFormat | None = None) -> Iterator[Raw]:
    """Records of every unit of `plan`, in order; agent logs as one record each."""
    for unit in plan.units:
        shown = display if unit == path else str(Path(display) / unit.relative_to(path))
        if unit.is_dir():
            yield from logs.read_events_folder(unit, shown, fmt)
        else:
            yield from _read_file(unit, shown, fmt)


_LOG_READERS = {".jsonl": logs.read_jsonl_log, ".json": logs.read_json_log, ".traj": logs.read_json_log,
                **OTHER_LOG_READERS}


def _check_file(path: Path, display: str, fmt: LogFormat | None) -> None:
    suffix = path.suffix.lower()
    if fmt is not None and suffix not in fmt.suffixes:
        raise CtxlabError(f"{display}: {fmt.name} logs are {' or '.join(fmt.suffixes)} files, not {suffix!r}")
    if suffix != ".parquet" and suffix not in _LOG_READERS:
        raise CtxlabError(f"{display}: unsupported file type {path.suffix!r} (expected .jsonl, .json, .parquet, "
                          "an agent log (.traj, .eval, .md Aider history, .responses) or a folder of them)")


def _read_file(path: Path, display: str, fmt: LogFormat | None) -> Iterator[Raw]:
    if path.suffix.lower() == ".parquet":
        return read_parquet(path, display)
    return _LOG_READERS[path.suffix.lower()](path, display, fmt)
