"""inspect_ai eval logs (UKGovernmentBEIS/inspect_ai) -> one conversation per sample and epoch.

Source: UKGovernmentBEIS/inspect_ai @ 499e6152 (Aug 2026): ``src/inspect_ai/log/_log.py``
(``EvalLog``: ``version``, ``status``, ``eval`` (``EvalSpec``: task, eval_id, model, packages),
``stats.model_usage``, ``samples``; ``EvalSample``: id, epoch, messages, events, model_usage,
attachments, ``events_data``), ``log/_recorders/eval.py`` (a ``.eval`` file is a zip of
``header.json``, or ``_journal/start.json`` while the eval runs, and ``samples/<id>_epoch_<n>.json``),
``log/_condense.py`` (``attachment://`` references) and ``event/_pool.py`` (``input_refs``).

Log versions: 2 (each model event carries its whole ``input``); 3 (inspect_ai 0.3.18x, March
2026: ``input_refs`` into the sample's ``message_pool``); later logs went back to version 2 with
the pool in ``events_data.messages`` (commit 15d0294d). All three are read.

The log's ``stats.model_usage`` is checked against the model events of all its samples; a
disagreement is a line in the last sample's ``meta.repairs`` (``meta.log_usage_check``).
"""

from __future__ import annotations

import json
import re
import zipfile
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from ctxlab.datasets.logs.common import Line, LogError, LogFormat, LogSource, entry
from ctxlab.datasets.logs.inspect_messages import obj
from ctxlab.datasets.logs.inspect_sample import sample_record
from ctxlab.datasets.logs.inspect_usage import agrees
from ctxlab.datasets.readers import Raw

NAME = "inspect"
_HEADERS = ("header.json", "_journal/start.json")
_SAMPLE = re.compile(r"samples/(.+)_epoch_(\d+)\.json$")


def detect(values: list[Any]) -> bool:
    """An eval log document: ``version`` and an ``eval`` spec naming its task."""
    first = values[0] if values else None
    spec = first.get("eval") if isinstance(first, Mapping) else None
    return isinstance(first.get("version"), int) and isinstance(spec, Mapping) and "task" in spec \
        if isinstance(first, Mapping) else False


def read_eval(path: Path, display: str) -> Iterator[Raw]:
    """The decoded members of a ``.eval`` zip: the header first, then each sample in id order."""
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        yield Raw(display, path.stem, error=f"not a readable .eval file (a zip archive): {exc}")
        return
    with archive:
        names = archive.namelist()
        header = next((n for n in _HEADERS if n in names), None)
        if header is None:
            yield Raw(display, path.stem, error="a .eval zip without header.json or _journal/start.json")
            return
        samples = sorted((n for n in names if _SAMPLE.match(n)), key=_sample_order)
        for name in (header, *samples):
            yield _member(archive, name, f"{display}:{name}", path.stem)


def _member(archive: zipfile.ZipFile, name: str, where: str, stem: str) -> Raw:
    try:
        return Raw(where, f"{stem}:{name}", json.loads(archive.read(name)))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        return Raw(where, f"{stem}:{name}", error=f"malformed JSON ({exc})")
    except (zipfile.BadZipFile, OSError, KeyError) as exc:
        return Raw(where, f"{stem}:{name}", error=f"cannot read the member ({exc})")


def _sample_order(name: str) -> tuple[int, Any, int]:
    found = _SAMPLE.match(name)
    sample, epoch = (found.group(1), int(found.group(2))) if found else (name, 0)
    return (0, int(sample), epoch) if sample.isdigit() else (1, sample, epoch)


def convert_all(lines: Iterable[Line], source: LogSource) -> Iterator[dict[str, Any] | LogError]:
    """Each sample of the log as a conversation record, or the located reason it cannot be read."""
    items = iter(lines)
    first = next(items, None)
    if first is None:
        raise LogError("an empty inspect log", source.display)
    log = entry(first)
    inline: list[Any] = log["samples"] if isinstance(log.get("samples"), list) else []
    samples = [(f"{first.where}: samples[{i}]", s) for i, s in enumerate(inline)]
    found, held = 0, None
    sums: dict[str, dict[str, int]] = {}
    for where, sample in [*samples, *((line.where, line.value) for line in items)]:
        found += 1
        try:
            record = sample_record(entry(Line(where, sample)), log, where, source)
        except LogError as exc:
            yield exc
            continue
        _add_usage(sums, record["meta"].get("usage_check"))
        if held is not None:
            yield held
        held = record
    if held is None and not found:
        raise LogError(f"an inspect log with no samples (status {log.get('status')!r}; written without samples?)",
                       first.where)
    if held is not None:
        _log_check(held, log, sums)
        yield held


def _add_usage(sums: dict[str, dict[str, int]], check: Any) -> None:
    for model, counts in ((check or {}).get("model_events") or {}).items():
        total = sums.setdefault(model, {})
        for key, value in counts.items():
            total[key] = total.get(key, 0) + value


def _log_check(record: dict[str, Any], log: Mapping[str, Any], sums: dict[str, dict[str, int]]) -> None:
    """The log's ``stats.model_usage`` beside the sum of every sample's model events."""
    recorded = obj(log, "stats").get("model_usage")
    if not isinstance(recorded, Mapping) or not recorded:
        return
    agree = agrees(recorded, sums)
    record["meta"]["log_usage_check"] = {"recorded": dict(recorded), "model_events": sums, "agree": agree}
    if not agree:
        record["meta"].setdefault("repairs", []).append(
            f"log usage check: the model events of all samples {sums} differ from the log's stats.model_usage "
            f"{dict(recorded)} (samples missing from the file, or calls inspect did not log)")


def convert(lines: Iterable[Line], source: LogSource) -> dict[str, Any]:
    """A log holding exactly one sample, as one record (`convert_all` reads any number)."""
    records = list(convert_all(lines, source))
    problem = next((r for r in records if isinstance(r, LogError)), None)
    if problem is not None:
        raise problem
    if len(records) != 1:
        raise LogError(f"the log holds {len(records)} samples, not one", source.display)
    return records[0]  # type: ignore[return-value]


FORMAT = LogFormat(NAME, "json", (".json", ".eval"), detect, convert, convert_all=convert_all)
