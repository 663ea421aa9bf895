"""`ReplayConfig`: the one settings object of a replay, and its defaults as named constants.

The CLI builds it from its options, `ctxlab.replay.replay(config)` runs it, and it is stored with
the run. This module imports nothing heavy, so the CLI's help texts can quote the defaults.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ctxlab.errors import CtxlabError

DEFAULT_WINDOWS = (2000, 4000, 8000, 16000)
DEFAULT_COUNTER = "o200k_base"
DEFAULT_REFERENCES = (DEFAULT_COUNTER,)
DEFAULT_ESTIMATORS = ("chars4", "chars2", "chars3", "ascii_cjk", "bytes4", "calibrated")  # the seeds' + calibrated
DEFAULT_WORKERS = 2
MODES = ("final", "per-turn")
ENGINES = ("local", "ray")
SEED = "seed"  # counter name meaning: each strategy's own `seed_counter`


@dataclass(frozen=True)
class ReplayConfig:
    """Everything a replay needs. Sequences may be given as lists or a single string; they are
    stored as tuples, de-duplicated where order-preserving de-duplication is meaningful.

    Attributes:
        sources: dataset sources (paths, ``sample:<name>``, ``sharegpt``, ``hf:<dataset>``).
        strategies: strategy specs (``name`` or ``name:key=value,...``); empty for every registered one.
        windows: context windows in tokens; each is the budget every strategy is given to fit in.
        counters: the counters strategies count with; ``seed`` = each strategy's own `seed_counter`.
        references: real tokenizers every result is also measured with (`fits_reference`).
        modes: ``final`` and/or ``per-turn`` (``both`` expands to the two).
        estimators: estimators whose error against every reference is recorded (empty: none).
        db: database file (None: env ``CTXLAB_DB`` or ``ctxlab.duckdb``).
        workers: worker processes (0 runs in this process).
        engine: ``local`` (process pool) or ``ray``.
        ray_address: join this Ray cluster instead of starting a local Ray.
        limit: at most this many conversations per source.
        name: a name for the run (not part of its identity).
        skip_invalid: record bad records in `skips` and go on, instead of stopping at the first.
        store_records: store each conversation's messages (the dashboard re-runs strategies on them).
        quality: compute fact recall and summary metrics (the costliest measures).
        summaries: with `quality`, also score every summary (ROUGE against what it replaced, its
            compression) and the agent's own recorded compactions against ctxlab's at the same cut;
            ``ctxlab recommend`` shows neither and leaves them out (at a user's scale they are a
            quarter of its time: a long session's summaries are scored against ever larger sources).
        chunk_messages: about this many messages per work chunk sent to a worker.
        price_models: litellm model names every per-turn call is priced by, with prompt caching
            (`ctxlab.cost`); the prompts are counted with the first reference tokenizer.
        grounded: measure every per-turn unit against the session's recorded next action
            (`ctxlab.metrics.grounded`: needed-context recall, refetch cost, instruction survival;
            refetch tokens counted with the first reference tokenizer).
    """

    sources: tuple[str, ...]
    strategies: tuple[str, ...] = ()
    windows: tuple[int, ...] = DEFAULT_WINDOWS
    counters: tuple[str, ...] = (DEFAULT_COUNTER,)
    references: tuple[str, ...] = DEFAULT_REFERENCES
    modes: tuple[str, ...] = ("final",)
    estimators: tuple[str, ...] = DEFAULT_ESTIMATORS
    db: str | None = None
    workers: int = DEFAULT_WORKERS
    engine: str = "local"
    ray_address: str | None = None
    limit: int | None = None
    name: str | None = None
    skip_invalid: bool = False
    store_records: bool = True
    quality: bool = True
    chunk_messages: int = 150
    price_models: tuple[str, ...] = ()
    grounded: bool = True
    summaries: bool = True

    def __post_init__(self) -> None:
        normalized = {"sources": _strings(self.sources), "strategies": _strings(self.strategies),
                      "windows": tuple(self.windows), "counters": _unique(self.counters),
                      "references": _unique(self.references), "modes": parse_modes(self.modes),
                      "estimators": _strings(self.estimators), "price_models": _unique(self.price_models)}
        for key, value in normalized.items():
            object.__setattr__(self, key, value)
        self._check()

    def _check(self) -> None:
        if not self.sources:
            raise CtxlabError("replay needs at least one source")
        if not self.windows or any(not isinstance(b, int) or b <= 0 for b in self.windows):
            raise CtxlabError(f"windows must be positive integers, not {list(self.windows)}")
        bad = [m for m in self.modes if m not in MODES]
        if bad or not self.modes:
            raise CtxlabError(f"unknown mode(s) {bad}; valid: final, per-turn, both")
        if self.engine not in ENGINES:
            raise CtxlabError(f"unknown engine {self.engine!r}; valid: {', '.join(ENGINES)}")
        if not self.counters:
            raise CtxlabError("replay needs at least one counter")
        if not self.references:
            raise CtxlabError("replay needs at least one reference tokenizer")
        if self.price_models and "per-turn" not in self.modes:
            # A final unit is one call with no call before it: caching has nothing to price against.
            raise CtxlabError("pricing needs per-turn calls (each priced against the call before it, with prompt "
                              "caching); add --mode per-turn or --mode both to --price-model")


def recommend_config(sources: Sequence[str], window: int, strategies: Sequence[str], *, reference: str = DEFAULT_COUNTER,
                     db: str | None = None, workers: int = DEFAULT_WORKERS, limit: int | None = None,
                     skip_invalid: bool = False, price_model: str | None = None, engine: str = "local") -> ReplayConfig:
    """The replay ``ctxlab recommend`` runs: every policy in `strategies` with its own agent's counter
    (``seed``), per turn at one `window`, measured with `reference`, graded, and priced by
    `price_model` when given (``ctxlab bench --history`` times exactly this)."""
    return ReplayConfig(tuple(sources), tuple(strategies), (window,), counters=(SEED,), references=(reference,),
                        modes=("per-turn",), estimators=(), db=db, workers=workers, engine=engine, limit=limit,
                        name=f"recommend-{window}", skip_invalid=skip_invalid,
                        price_models=(price_model,) if price_model else (), summaries=False)


def parse_modes(modes: str | Sequence[str]) -> tuple[str, ...]:
    """``"both"`` or a list of modes -> the ordered, de-duplicated modes."""
    out: list[str] = []
    for m in _strings(modes):
        out += list(MODES) if m == "both" else [m]
    return tuple(dict.fromkeys(out))


def _strings(value: str | Sequence[Any]) -> tuple[Any, ...]:
    return (value,) if isinstance(value, str) else tuple(value)


def _unique(value: str | Sequence[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(_strings(value)))


__all__ = ["DEFAULT_COUNTER", "DEFAULT_ESTIMATORS", "DEFAULT_REFERENCES", "DEFAULT_WINDOWS", "DEFAULT_WORKERS",
           "ENGINES", "MODES", "SEED", "ReplayConfig", "parse_modes", "recommend_config"]
