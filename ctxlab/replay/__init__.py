"""Replay datasets through strategies x budgets (x turns), in parallel, into the DuckDB store.

    from ctxlab.replay import replay
    summary = replay(["sample:agent_sessions"], ["window_guard", "compaction"], [4000, 8000],
                     references=["o200k_base", "cl100k_base"], mode="both", db="lab.duckdb")

Rerunning the same replay resumes it (see `ctxlab.replay.plan` for what identifies a run).
"""

from __future__ import annotations

from collections.abc import Sequence

from ctxlab.replay.plan import DEFAULT_BUDGETS, DEFAULT_ESTIMATORS, ReplayConfig, parse_modes
from ctxlab.replay.progress import NullProgress, Progress, RichProgress
from ctxlab.replay.run import ReplayInterrupted, RunSummary, run


def replay(sources: str | Sequence[str], strategies: Sequence[str] | None = None,
           budgets: Sequence[int] = DEFAULT_BUDGETS, *, counter: str | Sequence[str] = "o200k_base",
           references: Sequence[str] = ("o200k_base",), mode: str | Sequence[str] = "final",
           db: str | None = None, workers: int = 2, engine: str = "local", limit: int | None = None,
           name: str | None = None, ray_address: str | None = None, skip_invalid: bool = False,
           estimators: Sequence[str] = DEFAULT_ESTIMATORS, store_records: bool = True, quality: bool = True,
           progress: Progress | None = None) -> RunSummary:
    """Replay conversations through strategies and store what each keeps.

    Args:
        sources: dataset sources (paths, ``sample:<name>``, ``sharegpt``, ``hf:<dataset>``).
        strategies: strategy specs (``name`` or ``name:key=value,...``); None for all registered.
        budgets: token budgets.
        counter: the counter(s) strategies count with; ``seed`` = each strategy's own `seed_counter`.
        references: real tokenizers every result is also measured with (`fits_reference`).
        mode: ``final``, ``per-turn``, ``both`` or a list of them.
        db: database file (default env ``CTXLAB_DB`` or ``ctxlab.duckdb``).
        workers: worker processes (0 runs in this process).
        engine: ``local`` (process pool) or ``ray``.
        limit: at most this many conversations per source.
        name: a name for the run (not part of its identity).
        ray_address: join this Ray cluster instead of starting a local Ray.
        skip_invalid: record bad records in `skips` and go on, instead of stopping at the first.
        estimators: estimators whose error against every reference is recorded (empty: none).
        store_records: store each conversation's messages (the dashboard re-runs strategies on them).
        quality: compute fact recall and summary metrics (the costliest measures).
        progress: receives progress (see `ctxlab.replay.progress`).

    Raises:
        ReplayInterrupted: on Ctrl-C, after storing what was finished.
        InvalidInputError: a bad record without `skip_invalid`.
    """
    config = ReplayConfig(
        sources=(sources,) if isinstance(sources, str) else tuple(sources),
        strategies=tuple(strategies or ()), budgets=tuple(int(b) for b in budgets),
        counters=(counter,) if isinstance(counter, str) else tuple(dict.fromkeys(counter)),
        references=tuple(dict.fromkeys(references)), modes=parse_modes(mode), estimators=tuple(estimators),
        db=db, workers=workers, engine=engine, ray_address=ray_address, limit=limit, name=name,
        skip_invalid=skip_invalid, store_records=store_records, quality=quality)
    return run(config, progress)


__all__ = ["DEFAULT_BUDGETS", "NullProgress", "Progress", "ReplayConfig", "ReplayInterrupted", "RichProgress",
           "RunSummary", "replay", "run"]
