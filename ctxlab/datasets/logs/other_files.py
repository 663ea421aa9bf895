"""Agent logs that are not JSON or JSONL files: inspect_ai ``.eval`` zips, Aider markdown chat
histories and gemini-cli ``.responses`` recordings. Each reader yields the records of one file,
like `ctxlab.datasets.logs.files.read_json_log`; `ctxlab.datasets.paths` chooses them by suffix."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ctxlab.datasets.logs import aider, gemini_responses, inspect_log
from ctxlab.datasets.logs.common import LogFormat
from ctxlab.datasets.logs.files import import_logs, read_jsonl_log
from ctxlab.datasets.readers import Raw, markdown_log


def read_eval_log(path: Path, display: str, fmt: LogFormat | None = None) -> Iterator[Raw]:
    """An inspect ``.eval`` file: one record per sample."""
    yield from import_logs(fmt or inspect_log.FORMAT, inspect_log.read_eval(path, display), path, display)


def read_markdown_log(path: Path, display: str, fmt: LogFormat | None = None) -> Iterator[Raw]:
    """An Aider chat history: one record per session; any other markdown file is an error."""
    if fmt is None and not markdown_log(path):
        yield Raw(display, path.stem, error="not an Aider chat history (no '# aider chat started at' line near "
                                            "the start); ctxlab reads no other markdown")
        return
    yield from import_logs(fmt or aider.FORMAT, _text_lines(path, display), path, display)


def read_responses_log(path: Path, display: str, fmt: LogFormat | None = None) -> Iterator[Raw]:
    """A gemini-cli ``.responses`` recording: always a one-line refusal (responses only)."""
    yield from read_jsonl_log(path, display, fmt or gemini_responses.FORMAT)


def _text_lines(path: Path, display: str) -> Iterator[Raw]:
    """The file's lines without their line ends; a line that is not UTF-8 is a located error."""
    with path.open("rb") as f:
        for number, data in enumerate(f, 1):
            where = f"{display}:{number}"
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError as exc:
                yield Raw(where, f"{path.stem}:{number}", error=f"invalid UTF-8 (byte 0x{data[exc.start]:02x} at "
                                                                 f"column {exc.start + 1})")
                continue
            yield Raw(where, f"{path.stem}:{number}", text.rstrip("\r\n").removeprefix("\ufeff"))


READERS = {".eval": read_eval_log, ".md": read_markdown_log, ".responses": read_responses_log}
