"""File readers: JSONL, JSON and Parquet files decoded into raw records with locations.

`ctxlab.datasets.paths` chooses the reader of a file or folder (and recognises agent logs).

A reader never raises on a bad record: it yields a `Raw` carrying the reason, and the loader
decides whether that stops the load (strict) or is reported and skipped. Validation of the record
itself belongs to `Conversation.from_record`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from ctxlab.datasets.jsonstream import iter_json_records
from ctxlab.errors import CtxlabError

SUFFIXES = (".jsonl", ".json", ".parquet", ".traj", ".eval", ".responses", ".md")
AIDER_HISTORY = ".aider.chat.history.md"  # Aider's default history file: hidden, but a log
_MARKDOWN_HEAD = 16384  # a markdown file is read only when its start says it is a log (an Aider history)
# Columns that hold nested data; in Parquet they are either nested types or JSON strings.
NESTED_COLUMNS = ("messages", "conversations", "conversation", "tools", "meta")
_BATCH_ROWS = 512
_BOM = b"\xef\xbb\xbf"


class Raw(NamedTuple):
    """One record as read from its source, before validation.

    Attributes:
        where: ``<file>:<line>`` (for Parquet and Hugging Face datasets, the 1-based row).
        default_id: ``<file stem>:<line>``, the conversation id of a record that has none.
        record: the decoded value (None when `error` is set).
        error: why the record could not be decoded.
        parts: the complete JSON values a bad JSONL line starts with (two entries written back to
            back with no newline between them, a crashed writer...); agent-log importers recover
            them, ordinary records stay an error.
        rest: what follows `parts` on that line and does not decode ("" when `parts` is all of it).
    """

    where: str
    default_id: str
    record: Any = None
    error: str | None = None
    parts: tuple[Any, ...] = ()
    rest: str = ""


def folder_files(folder: Path) -> list[Path]:
    """The supported files under `folder`, sorted by relative path; hidden files and folders skipped
    (but for Aider's own history name, ``.aider.chat.history.md``), markdown files that are not a log
    too."""
    files = [p for p in folder.rglob("*")
             if p.is_file() and p.suffix.lower() in SUFFIXES
             and not any(part.startswith(".") for part in p.relative_to(folder).parts[:-1])
             and (not p.name.startswith(".") or p.name == AIDER_HISTORY)
             and (p.suffix.lower() != ".md" or markdown_log(p))]
    return sorted(files, key=lambda p: p.relative_to(folder).as_posix())


def markdown_log(path: Path) -> bool:
    """Whether a markdown file is an agent log: an Aider chat history, by its first lines."""
    from ctxlab.datasets.logs.aider import is_history  # deferred: the log importers read files with this module

    with path.open("rb") as f:
        return is_history(f.read(_MARKDOWN_HEAD).decode("utf-8", errors="replace"))


def read_jsonl(path: Path, display: str) -> Iterator[Raw]:
    """One record per line; blank lines are not records. Each line is decoded on its own, so an
    invalid byte or a broken line is reported with its line number and the rest still loads."""
    stem = path.stem
    with path.open("rb") as f:
        for number, data in enumerate(f, 1):
            if number == 1 and data.startswith(_BOM):
                data = data[len(_BOM):]
            where, default_id = f"{display}:{number}", f"{stem}:{number}"
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError as exc:
                yield Raw(where, default_id, error=f"invalid UTF-8 (byte 0x{data[exc.start]:02x} "
                                                   f"at column {exc.start + 1})")
                continue
            if not text.strip():
                continue
            try:
                yield Raw(where, default_id, json.loads(text))
            except json.JSONDecodeError as exc:
                parts, rest = split_values(text)
                yield Raw(where, default_id, error=f"malformed JSON: {exc.msg} (column {exc.colno})",
                          parts=tuple(parts), rest=rest)


def split_values(text: str) -> tuple[list[Any], str]:
    """The JSON values written back to back at the start of `text` (`json.JSONDecoder.raw_decode`),
    and the rest of the text that does not decode (stripped; "" when the values are all of it)."""
    decoder, position = json.JSONDecoder(), 0
    values: list[Any] = []
    while True:
        rest = text[position:].lstrip()
        if not rest:
            return values, ""
        try:
            value, end = decoder.raw_decode(rest)
        except json.JSONDecodeError:
            return values, rest.rstrip()
        values.append(value)
        position = len(text) - len(rest) + end


def read_json(path: Path, display: str) -> Iterator[Raw]:
    """A single record, several, or an array of records; each located at the line it starts on."""
    stem = path.stem
    with path.open("rb") as f:
        for item in iter_json_records(f):
            yield Raw(f"{display}:{item.line}", f"{stem}:{item.line}", item.value, item.error)


def read_parquet(path: Path, display: str) -> Iterator[Raw]:
    """Rows of a Parquet file, one record batch at a time.

    Nested columns may be nested types (their null fields are dropped: Arrow gives every struct
    the union of all keys) or JSON strings (decoded per row).
    """
    import pyarrow.parquet as pq

    try:
        parquet = pq.ParquetFile(path)
    except Exception as exc:  # pyarrow raises ArrowInvalid, OSError and others alike
        raise CtxlabError(f"{display}: not a readable Parquet file ({exc})") from exc
    json_columns = {f.name for f in parquet.schema_arrow
                    if f.name in NESTED_COLUMNS and str(f.type) in ("string", "large_string", "string_view")}
    row = 0
    for batch in parquet.iter_batches(batch_size=_BATCH_ROWS):
        for values in batch.to_pylist():
            row += 1
            yield _parquet_row(values, json_columns, f"{display}:{row}", f"{path.stem}:{row}")


def _parquet_row(values: dict[str, Any], json_columns: set[str], where: str, default_id: str) -> Raw:
    record = drop_nulls({k: v for k, v in values.items() if k not in json_columns})
    for column in json_columns:
        text = values.get(column)
        if text is None:
            continue
        try:
            record[column] = json.loads(text)
        except json.JSONDecodeError as exc:
            return Raw(where, default_id, error=f"column {column!r} is malformed JSON: {exc.msg}")
    return Raw(where, default_id, record)


def drop_nulls(value: Any) -> Any:
    """Remove None-valued keys from mappings, recursively (lists keep their elements)."""
    if isinstance(value, Mapping):
        return {k: drop_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [drop_nulls(v) for v in value]
    return value
