"""`ctxlab agree`: next-action agreement of policies on a few sampled agent calls per session.

Each policy steps through a session exactly as the per-turn replay does (`replay_steps`: at the
call at assistant message ``t`` it has its previous output plus what happened since, never a
message from ``t`` on). At the sampled calls, what it sends goes to a model with the session's
tools, and the model's proposed call is scored against the one the agent made
(`ctxlab.metrics.agreement`). One row per run x policy x session x call lands in
`agreement_rows`; the model calls are cached, so running the same command again is free.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import Any, NamedTuple

from ctxlab import store
from ctxlab.errors import CtxlabError
from ctxlab.metrics.agreement import AGREEMENT_PROTOCOL, DEFAULT_PARAMS, agreement_endpoint
from ctxlab.replay.agreement_probes import build_policies, session_probes
from ctxlab.replay.agreement_rows import ask
from ctxlab.replay.config import DEFAULT_COUNTER
from ctxlab.replay.plan import Entry
from ctxlab.replay.progress import NullProgress, Progress
from ctxlab.replay.rows import Rows
from ctxlab.replay.run import dataset_names, versions
from ctxlab.summarize.cache import CallCache, DuckDBCache, open_cache
from ctxlab.summarize.client import Endpoint, Retry

DEFAULT_CALLS = 5
NO_MODEL = ("ctxlab agree needs a model: pass --model or set CTXLAB_AGREEMENT_MODEL to a litellm model "
            "(e.g. openai/gpt-4o-mini) and its provider's key (e.g. OPENAI_API_KEY); the grounded measures "
            "(ctxlab recommend) need none")


class AgreeInterrupted(CtxlabError):
    """Ctrl-C: the rows of the calls answered so far are stored; the same command finishes the run."""


class NoModelError(CtxlabError):
    """No model is configured for next-action agreement."""

    def __init__(self) -> None:
        super().__init__(NO_MODEL)


@dataclass(frozen=True)
class AgreeConfig:
    """What `agree` runs.

    Attributes:
        sources: sessions (paths, agent logs, ``sample:<name>``).
        strategies: policy specs; ``noop`` (everything sent) is added unless `baseline` is off.
        window: the context window, what every policy is given to fit at every call.
        model: a litellm model (else env ``CTXLAB_AGREEMENT_MODEL``, see `agreement_endpoint`).
        calls: agent calls sampled per session (every tool call when a session has fewer).
        seed: the sampling seed.
        reference: the real tokenizer that counts what each policy sends.
        jobs: model calls in flight at once.
        cache: the LLM call cache (None: the shared file, ``$CTXLAB_LLM_CACHE``).
    """

    sources: tuple[str, ...]
    strategies: tuple[str, ...]
    window: int
    model: str | None = None
    calls: int = DEFAULT_CALLS
    seed: int = 0
    baseline: bool = True
    reference: str = DEFAULT_COUNTER
    db: str | None = None
    limit: int | None = None
    skip_invalid: bool = False
    jobs: int = 4
    name: str | None = None
    retry: Retry = field(default_factory=Retry)
    cache: CallCache | str | None = field(default=None, compare=False)


class AgreeSummary(NamedTuple):
    """What one `agree` invocation did."""

    run_id: str
    name: str
    db: str
    status: str
    sessions: int
    rows: int
    errors: int
    model_calls: int
    wall_s: float
    notes: tuple[str, ...]


def agree(config: AgreeConfig, progress: Progress | None = None) -> AgreeSummary:
    """Score every policy's next-action agreement on sampled calls and store the rows.

    Raises:
        NoModelError: no model configured (before anything is read).
        UnknownNameError: an unknown strategy or counter.
    """
    from ctxlab.datasets import load_conversations
    from ctxlab.datasets.sources import resolve

    endpoint = agreement_endpoint(config.model)
    if not endpoint.model:
        raise NoModelError()
    progress = progress or NullProgress()
    started, since = time.perf_counter(), datetime.datetime.now()
    sources = [resolve(s) for s in config.sources]
    infos = [s.info() for s in sources]
    datasets = dataset_names(infos)
    policies = build_policies(config.strategies, config.baseline, config.reference)
    fingerprints = {d: i.fingerprint for d, i in zip(datasets, infos, strict=True)}
    run_id, stored = _identity(config, endpoint, [p.entry for p in policies], fingerprints)
    name = config.name or f"agree-{config.window}"
    cache = open_cache(config.cache)
    rows, notes, status = Rows(), [], "failed"
    try:
        for source, dataset in zip(sources, datasets, strict=True):
            progress.dataset(dataset, config.limit, 0)
            conversations = load_conversations(source, strict=not config.skip_invalid, limit=config.limit,
                                               on_skip=lambda where, reason: notes.append(f"skipped {where}: {reason}"))
            for seq, conv in enumerate(conversations):
                probes = list(session_probes(conv, policies, window=config.window, calls=config.calls,
                                             seed=config.seed, reference=config.reference))
                if not probes:
                    notes.append(f"{dataset} #{seq} ({conv.id}): no tool call to agree with")
                for row in ask(probes, endpoint, cache, config.retry, config.jobs):
                    rows.add_typed({"run_id": run_id, "dataset": dataset, "seq": seq}, row)
                progress.advance(dataset, 1, len(probes))
        status = "finished"
    except KeyboardInterrupt:
        status = "interrupted"
    finally:
        tables = rows.to_arrow()
        table = tables["agreement_rows"] if "agreement_rows" in tables else _empty()
        db = _save(config, run_id, name, stored, since, status, time.perf_counter() - started, table, notes, cache)
    summary = AgreeSummary(run_id, name, db, status, *_totals(table), time.perf_counter() - started, tuple(notes))
    if status == "interrupted":
        raise AgreeInterrupted(f"interrupted: run {run_id} stored {summary.rows} row(s); run the same command "
                               "again to finish it (answered calls come from the cache)")
    return summary


def _identity(config: AgreeConfig, endpoint: Endpoint, entries: Sequence[Entry],
              fingerprints: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The run id (a digest of what determines the numbers) and the config stored with the run."""
    from ctxlab.summarize.client import _public_url

    identity = {"sources": list(config.sources), "fingerprints": fingerprints,
                "entries": [e._asdict() for e in entries], "window": config.window, "reference": config.reference,
                "model": endpoint.model, "api_base": _public_url(endpoint.api_base), "calls": config.calls,
                "seed": config.seed, "params": dict(DEFAULT_PARAMS), "protocol": AGREEMENT_PROTOCOL,
                "limit": config.limit}
    digest = hashlib.sha256(json.dumps(identity, sort_keys=True, default=str).encode()).hexdigest()[:12]
    options = {f.name: getattr(config, f.name) for f in fields(config)
               if f.name not in ("cache", "retry", "sources", "strategies")}
    return digest, {**options, **identity, "strategies": [e.label for e in entries]}


def _save(config: AgreeConfig, run_id: str, name: str, stored: dict[str, Any], since: datetime.datetime,
          status: str, wall: float, table: Any, notes: list[str], cache: CallCache) -> str:
    """Write the run and its rows; copy the calls it made from the cache file into the run's store."""
    db = str(config.db or store.default_db())
    with store.writing(db) as con:
        store.save_agreement_run(con, run_id, name=name, config=stored, versions=versions(), started_at=since,
                                 status=status, wall_s=wall, rows=table, notes=notes)
        if isinstance(cache, DuckDBCache) and cache.path is not None:
            try:
                store.copy_llm_calls(con, cache.path, since)
            except Exception as exc:  # a busy cache costs the copy, not the run
                notes.append(f"LLM calls not copied from the cache: {exc}")
    return db


def _totals(table: Any) -> tuple[int, int, int, int]:
    """(sessions, rows, errors, model calls made rather than read from the cache)."""
    data = table.select(["dataset", "seq", "error", "cached", "model"]).to_pylist()
    sessions = len({(r["dataset"], r["seq"]) for r in data})
    made = sum(1 for r in data if r["cached"] is False)
    return sessions, len(data), sum(1 for r in data if r["error"] is not None), made


def _empty() -> Any:
    from ctxlab.store.schema import AGREEMENT_ROWS, arrow_schema

    return arrow_schema(AGREEMENT_ROWS).empty_table()
