"""Reading a path: the one dispatch from a file or folder to its reader.

Agent logs (`ctxlab.datasets.logs`) are recognised by content among ordinary files and imported
whole; everything else goes to the plain readers of `ctxlab.datasets.readers`.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ctxlab.datasets.logs import files as logs
from ctxlab.datasets.logs.common import LogFormat
from ctxlab.datasets.readers import Raw, read_parquet
from ctxlab.errors import CtxlabError


def read_path(path: Path, display: str, fmt: LogFormat | None = None) -> Iterator[Raw]:
    """Records of a file, or of every supported file under a folder (recursively, sorted).

    Agent logs are recognised by content and imported as one record each; an OpenHands session
    folder inside a folder is one log.

    Args:
        path: the file or folder.
        display: how locations name it (the path as the user wrote it).
        fmt: a log format to force (``<format>:<path>``); a folder then reads only its files.
    """
    if path.is_dir():
        units = logs.folder_units(path, fmt)
        if not units:
            what = (f"{fmt.name} logs ({', '.join(fmt.suffixes)})" if fmt
                    else ".jsonl, .json or .parquet files (or .traj logs)")
            raise CtxlabError(f"{display}: no {what} in this folder")
        return _read_units(units, path, display, fmt)
    readers = {".jsonl": logs.read_jsonl_log, ".json": logs.read_json_log, ".traj": logs.read_json_log}
    suffix = path.suffix.lower()
    if fmt is not None and suffix not in fmt.suffixes:
        raise CtxlabError(f"{display}: {fmt.name} logs are {' or '.join(fmt.suffixes)} files, not {suffix!r}")
    if suffix == ".parquet":
        return read_parquet(path, display)
    if suffix not in readers:
        raise CtxlabError(f"{display}: unsupported file type {path.suffix!r} "
                          "(expected .jsonl, .json, .traj, .parquet or a folder of them)")
    return readers[suffix](path, display, fmt)


def _read_units(units: list[Path], folder: Path, display: str, fmt: LogFormat | None) -> Iterator[Raw]:
    for unit in units:
        shown = display if unit == folder else str(Path(display) / unit.relative_to(folder))
        yield from logs.read_events_folder(unit, shown, fmt) if unit.is_dir() else read_path(unit, shown, fmt)
