"""The replay driver: stream datasets in chunks to an engine and write the rows back in bulk.

Only this process writes the database, one batch per transaction and with the connection open
only while writing (see `ctxlab.store.connect`). A batch carries the `done` markers of its
conversations, so a killed run loses at most the batches in flight and a rerun of the same
command finishes exactly the missing conversations.
"""

from __future__ import annotations

import datetime
import importlib.metadata
import os
import platform
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

from ctxlab import caches, store
from ctxlab.cost import price_model
from ctxlab.errors import CtxlabError
from ctxlab.replay.config import ReplayConfig
from ctxlab.replay.engines import make_engine
from ctxlab.replay.plan import WorkSpec, chunks, grounded, resolve_entries, run_identity
from ctxlab.replay.progress import NullProgress, Progress
from ctxlab.replay.worker import ChunkResult, prepare
from ctxlab.tokens import get_counter

FLUSH_ROWS = 200_000
# DuckDB's memory while it ingests a batch: unbounded, a batch of a long session (40,000 units)
# took the main process up by 700 MiB as DuckDB held its rows decoded; capped here it spills instead
# (measured on 30 sessions: +280 MiB at 256MB, +170 MiB at 150MB; CPU within the noise).
WRITE_MEMORY = "256MB"
# A killed run loses at most this much work; env CTXLAB_FLUSH_SECONDS overrides it (tests).
FLUSH_SECONDS = float(os.environ.get("CTXLAB_FLUSH_SECONDS") or 5.0)
_VERSIONED = ("ctxlab", "duckdb", "pyarrow", "pandas", "tiktoken", "tokenizers", "ray", "litellm")


@dataclass(frozen=True)
class RunSummary:
    """What one invocation of a replay did (totals of the whole run are in the `runs` table)."""

    run_id: str
    name: str
    db: str
    status: str
    conversations: int
    resumed: int
    units: int
    errors: int
    skips: int
    wall_s: float
    notes: tuple[str, ...] = ()


class ReplayInterrupted(CtxlabError):
    """Ctrl-C: the finished conversations are stored; the same command resumes the run."""

    def __init__(self, summary: RunSummary):
        self.summary = summary
        super().__init__(f"interrupted: {summary.conversations} conversation(s) of run {summary.run_id} were "
                         "stored; run the same command again to resume")


@dataclass
class _Writer:
    """Buffers chunk results and writes them as one transaction per batch."""

    db: str
    run_id: str
    tables: dict[str, list[pa.Table]] = field(default_factory=dict)
    skip_rows: list[tuple[str, str, str, str]] = field(default_factory=list)
    rows: int = 0
    last: float = field(default_factory=time.monotonic)
    totals: dict[str, int] = field(default_factory=lambda: {"conversations": 0, "units": 0, "errors": 0, "skips": 0})
    notes: dict[str, None] = field(default_factory=dict)

    def add(self, result: ChunkResult) -> None:
        for name, table in result.tables.items():
            self.tables.setdefault(name, []).append(table)
            self.rows += table.num_rows
        for key in ("conversations", "units", "errors"):
            self.totals[key] += getattr(result, key)
        self.notes.update(dict.fromkeys(result.notes))
        if self.rows >= FLUSH_ROWS or time.monotonic() - self.last >= FLUSH_SECONDS:
            self.flush()

    def skip(self, dataset: str, where: str, reason: str) -> None:
        self.skip_rows.append((self.run_id, dataset, where, reason))

    def flush(self) -> None:
        if self.tables or self.skip_rows:
            with store.writing(self.db, memory_limit=WRITE_MEMORY) as con:
                written = store.write_batch(con, self.tables, self.skip_rows)
            self.totals["skips"] += written.get("skips", 0)
        self.tables, self.skip_rows, self.rows, self.last = {}, [], 0, time.monotonic()
        caches.trim()


def versions() -> dict[str, str]:
    """Python and the library versions that can change the numbers."""
    out = {"python": platform.python_version()}
    for name in _VERSIONED:
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return out


def _estimators(names: tuple[str, ...]) -> tuple[tuple[str, ...], list[str]]:
    """The estimators that load here; the others are left out with a note saying why."""
    ok, notes = [], []
    for name in names:
        try:
            get_counter(name)
            ok.append(name)
        except Exception as exc:  # an unavailable estimator narrows the table, it does not stop the run
            notes.append(f"estimator {name} left out: {exc}")
    return tuple(ok), notes


def dataset_names(infos: list[Any]) -> list[str]:
    """Each source's dataset name, made unique in order (``name``, ``name#2``...), as its rows store it."""
    names: list[str] = []
    for info in infos:
        name = info.name
        while name in names:
            name = f"{name}#{len(names) + 1}"
        names.append(name)
    return names


def replay(config: ReplayConfig, progress: Progress | None = None) -> RunSummary:
    """Replay conversations through strategies and store what each keeps.

    Args:
        config: what to replay and how (see `ReplayConfig`).
        progress: receives progress (see `ctxlab.replay.progress`).

    Raises:
        ReplayInterrupted: on Ctrl-C, after storing what was finished.
        InvalidInputError: a bad record without `config.skip_invalid`.
        UnknownNameError: an unknown strategy, parameter or counter (before any work).
    """
    from ctxlab.datasets import load_conversations
    from ctxlab.datasets.sources import resolve

    progress = progress or NullProgress()
    started, since = time.perf_counter(), datetime.datetime.now()
    sources = [resolve(s) for s in config.sources]  # each source is resolved (and listed) once
    infos = [s.info() for s in sources]
    datasets = dataset_names(infos)
    entries = resolve_entries(config.strategies, config.counters)
    for name in {*config.references, *(e.counter for e in entries)}:
        get_counter(name)  # an unknown or unloadable counter stops here, before any work
    for model in config.price_models:
        price_model(model)  # so does a model litellm cannot price
    estimators, notes = _estimators(config.estimators)
    fingerprints = {d: info.fingerprint for d, info in zip(datasets, infos, strict=False)}
    run_id, stored = run_identity(config, entries, fingerprints, estimators)
    name = config.name or f"replay-{run_id[:6]}"
    db = str(config.db or store.default_db())
    with store.writing(db) as con:
        if store.start_run(con, run_id, name=name, config=stored, versions=versions(),
                           fingerprints=fingerprints, notes=notes):
            progress.note(f"resuming run {run_id} ({name})")
        done = store.done_keys(con, run_id)
    spec = WorkSpec(run_id, entries, config.windows, config.modes, config.references, estimators,
                    config.store_records, config.quality, config.price_models, grounded(config),
                    config.summaries)
    notes += prepare(spec)
    writer = _Writer(db, run_id, notes=dict.fromkeys(notes))
    status, engine = "failed", make_engine(config.engine, config.workers, config.ray_address)
    try:
        work = _work(config, sources, writer, progress, load_conversations, datasets, done)
        for result in engine.map(spec, work):
            writer.add(result)
            progress.advance(result.dataset, result.conversations, result.units)
        status = "finished"
    except KeyboardInterrupt:
        status = "interrupted"
    finally:
        engine.close(terminate=status != "finished")
        writer.flush()
        wall = time.perf_counter() - started
        with store.writing(db) as con:
            _copy_llm_calls(con, since, writer.notes)
            store.finish_run(con, run_id, status, wall, writer.notes)
    t = writer.totals
    summary = RunSummary(run_id, name, db, status, t["conversations"], sum(map(len, done.values())),
                         t["units"], t["errors"], t["skips"], wall, tuple(writer.notes))
    if status == "interrupted":
        raise ReplayInterrupted(summary)
    return summary


def _copy_llm_calls(con: Any, since: datetime.datetime, notes: dict[str, None]) -> None:
    """Copy the run's LLM calls from the shared cache; a busy cache costs the copy, not the run."""
    try:
        copied = store.copy_llm_calls(con, store.default_llm_cache(), since)
    except Exception as exc:  # e.g. another process writing the cache right now
        notes[f"LLM calls not copied from the cache: {exc}"] = None
        return
    if copied:
        notes[f"copied {copied} LLM call(s) from the cache"] = None


def _work(config: ReplayConfig, sources: list[Any], writer: _Writer, progress: Progress, load: Callable[..., Any],
          datasets: list[str], done: dict[str, set[int]]) -> Iterator[tuple[str, list[tuple[int, Any]]]]:
    """Chunks of every source in turn, as one stream, so workers never wait at a dataset's end.

    Conversations an earlier invocation finished are skipped; skips are recorded even in strict
    mode, because a named dataset's known defects are skipped anyway.
    """
    for source, dataset in zip(sources, datasets, strict=True):
        finished = done.get(dataset, set())
        conversations = load(source, strict=not config.skip_invalid, limit=config.limit,
                             on_skip=lambda where, reason, d=dataset: writer.skip(d, where, reason))
        progress.dataset(dataset, config.limit, len(finished))
        todo = ((seq, conv) for seq, conv in enumerate(conversations) if seq not in finished)
        for items in chunks(todo, config.chunk_messages):
            yield dataset, items
