"""Evaluating one setting over the sessions, through the replay's own per-unit code and rows.

A setting is a strategy spec (`spec_text`: the preset with its overrides, as ``--strategy``
takes it). `Evaluator.evaluate` replays it call by call over every session with
`ctxlab.replay.worker.replay_conversation` (the code a ``ctxlab replay --mode per-turn`` worker
runs, given each session's kept `Session`), which writes the run's rows; those rows go into an
in-memory store with the store's own schema and views, and are read back with the queries
`ctxlab recommend` reads a run with (`ctxlab.analysis.frames.results`, `ctxlab.store.session_costs`).
`score` then turns them into the samples the search compares (`MEASURES`, one per session) and the
row `ctxlab.analysis.recommend.frontier` gives the setting, which is what is printed. A setting's
numbers are therefore those of a replay of that spec alone, by construction; the rows are kept
(`pending`) for the store, written after the search (`ctxlab.tune.stored`).
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import pandas as pd
import pyarrow as pa

from ctxlab.analysis.sessions import RECALLS, session_rows
from ctxlab.cost import input_price
from ctxlab.errors import CtxlabError
from ctxlab.registry import parse_spec
from ctxlab.replay.config import DEFAULT_COUNTER, SEED
from ctxlab.replay.plan import Entry, WorkSpec, resolve_entries
from ctxlab.strategies import get_strategy
from ctxlab.tune.forked import CAN_FORK, Forked, replay_sessions
from ctxlab.tune.measures import Sample
from ctxlab.tune.sessions import Sessions
from ctxlab.tune.space import Setting, setting_key

# The tables a setting's measures are read from (the rest of its rows only go to the store).
_MEASURED = ("result_rows", "result_refs", "result_grounded", "result_costs")
# Measure name -> (value column, weight column or None for 1) of a session row
# (`ctxlab.analysis.sessions.session_rows`: the recalls and the rejected calls are defined there).
MEASURES = {
    **{name: RECALLS[name] for name in ("needed_recall", "in_context_recall", "non_regex_recall",
                                        "instruction_survival")},
    "tokens_sent": ("tokens_sent", None),
    "effective_tokens": ("effective_tokens", None),
    "effective_usd": ("effective_usd", None),
    "orphan_rate": ("orphaned", "calls"),
    "overflow_rate": ("overflowed", "calls"),
    "rejected": ("rejected", "calls"),
}


class Scored(NamedTuple):
    """A setting's samples per measure (one per session), its `frontier` row, its run and timing."""

    samples: dict[str, tuple[Sample, ...]]
    row: dict[str, Any]
    run_id: str
    seconds: float = 0.0


class Pending(NamedTuple):
    """An evaluated setting's rows, not yet in the store (``setting`` when the search named it)."""

    run_id: str
    label: str
    entry: Entry
    tables: dict[str, pa.Table]
    seconds: float
    setting: Setting | None = None


def spec_text(preset: str, params: Mapping[str, Any]) -> str:
    """The setting as a strategy spec ``--strategy`` accepts: ``preset:key=value,...``.

    Raises:
        CtxlabError: a value the spec syntax cannot carry (a comma in a text), or a text that does
            not rebuild the same strategy.
    """
    if not params:
        return preset
    parts = []
    for key, value in params.items():
        text = json.dumps(value) if not isinstance(value, str) or _reads_as_other(value) else value
        if "," in text:
            raise CtxlabError(f"{preset}: {key}={value!r} cannot be written in a strategy spec")
        parts.append(f"{key}={text}")
    text = f"{preset}:{','.join(parts)}"
    if get_strategy(text).spec != get_strategy(preset, **params).spec or parse_spec(text)[0] != preset:
        raise CtxlabError(f"{text!r} does not rebuild {preset} with {dict(params)}")
    return text


def _reads_as_other(value: str) -> bool:
    try:
        return json.loads(value) != value
    except json.JSONDecodeError:
        return False


def run_id_of(key: str) -> str:
    """The store run id of a setting key (a digest: the same setting on the same sessions is one run)."""
    return "t" + hashlib.sha256(f"tune|{key}".encode()).hexdigest()[:11]


def work_spec(run_id: str, entry: Entry, window: int, reference: str, price_model: str | None) -> WorkSpec:
    """What the replay worker needs for one setting: per turn, at `window`, graded and priced, no
    estimator rows and no regex fact recall or summary scores (the tuner's measures need neither)."""
    return WorkSpec(run_id, (entry,), (window,), ("per-turn",), (reference,), (), store_records=False, quality=False,
                    price_models=(price_model,) if price_model else (), grounded=True)


class Evaluator:
    """Evaluates settings over sessions at one window; the objective `ctxlab.tune.search` calls.

    Thread-safe (the dashboard's sessions share one): evaluations run one at a time.

    Args:
        sessions: the sessions.
        window: the context window (tokens).
        reference: the tokenizer that counts what is sent (and refetch tokens).
        price_model: a litellm model to bill each call by with prompt caching (the cost is then
            dollars plus refetch at its uncached input price; else tokens sent plus refetch).
        workers: replay a setting's sessions in this many forked processes (`ctxlab.tune.forked`,
            started on the first replay; `close` stops them); 1, or a platform without a safe fork,
            replays in this process.
    """

    def __init__(self, sessions: Sessions, *, window: int, reference: str = DEFAULT_COUNTER,
                 price_model: str | None = None, workers: int = 1) -> None:
        self.sessions, self.window, self.reference, self.price_model = sessions, window, reference, price_model
        self.scope = sessions.scope(reference, price_model)
        self.input_price = input_price(price_model) if price_model else None
        self.scored: dict[str, Scored] = {}
        self.partial: dict[str, Scored] = {}  # a setting's latest partial evaluation (on part of `order`)
        self.pending: dict[str, Pending] = {}
        self.order: list[int] = list(range(len(sessions.items)))  # the sessions a partial evaluation takes first
        self._parts: dict[str, tuple[int, list[dict[str, pa.Table]]]] = {}  # key -> sessions replayed, their rows
        self._lock = threading.RLock()
        self._con: Any = None
        self.workers = workers
        self._forked: Forked | None = None

    @property
    def cost(self) -> str:
        """The measure a setting's cost is judged by."""
        return "effective_usd" if self.price_model else "effective_tokens"

    def __call__(self, setting: Setting) -> dict[str, tuple[Sample, ...]]:
        return self.evaluate(spec_text(setting.preset, setting.params), setting.key, setting).samples

    def key(self, label: str) -> str:
        """The key of a strategy spec at this window and scope (`ctxlab.tune.space.setting_key`)."""
        name, params = parse_spec(label)
        return setting_key(name, self.window, params, self.scope)

    def evaluate(self, label: str, key: str | None = None, candidate: Setting | None = None,
                 sessions: int | None = None) -> Scored:
        """Replay the strategy spec `label` over the sessions (or return it, already evaluated);
        `candidate` is the knob setting it stands for, recorded with its run. With `sessions`, only
        over the first that many of `order` (a partial evaluation: scored, not kept for the store);
        the sessions a setting was replayed on are reused when it is evaluated on more."""
        key = key or self.key(label)
        with self._lock:
            if key in self.scored:
                return self.scored[key]
            n = len(self.order) if sessions is None else min(sessions, len(self.order))
            started = time.perf_counter()
            entry = resolve_entries([label], [SEED])[0]
            tables = self._extend(key, entry, n)
            results, costs = self._read(run_id_of(key), tables)
            seconds = time.perf_counter() - started
            scored = score(results, costs, self.reference, self.input_price, run_id_of(key), seconds)
            if n < len(self.order):
                self.partial[key] = scored
                return scored
            self.scored[key] = scored
            self.pending[key] = Pending(run_id_of(key), label, entry, tables, seconds, candidate)
            self._parts.pop(key, None)
            self.partial.pop(key, None)
            return scored

    def reached(self, key: str) -> int:
        """How many sessions of `order` the setting `key` was evaluated on so far."""
        return len(self.order) if key in self.scored else self._parts.get(key, (0, []))[0]

    def advance(self, label: str, key: str, n: int) -> int:
        """Replay the setting on one more of the first `n` sessions of `order`, without scoring it,
        and return how many it is on now. The live tuner's background refinement goes one session
        per call, so an evaluation asked meanwhile waits for one session's replay at most."""
        with self._lock:
            done = self.reached(key)
            if done >= min(n, len(self.order)):
                return done
            self._replayed(key, resolve_entries([label], [SEED])[0], done + 1)
            return done + 1

    def _extend(self, key: str, entry: Entry, n: int) -> dict[str, pa.Table]:
        """The rows of the setting over the first `n` sessions of `order`, replaying only those it
        was not replayed on yet."""
        parts = self._replayed(key, entry, n)
        names = dict.fromkeys(name for part in parts for name in part)
        return {name: pa.concat_tables([part[name] for part in parts if name in part]) for name in names}

    def _replayed(self, key: str, entry: Entry, n: int) -> list[dict[str, pa.Table]]:
        """The setting's rows per replayed part, after replaying it on those of the first `n`
        sessions of `order` it was not replayed on yet."""
        done, parts = self._parts.get(key, (0, []))
        if n > done:
            parts = [*parts, self._replay(run_id_of(key), entry, self.order[done:n])]
            self._parts[key] = (n, parts)
        return parts

    def _replay(self, run_id: str, entry: Entry, indices: Sequence[int]) -> dict[str, pa.Table]:
        spec = work_spec(run_id, entry, self.window, self.reference, self.price_model)
        if self.workers <= 1 or not CAN_FORK:
            return replay_sessions(self.sessions, spec, indices)
        if self._forked is None:
            self._forked = Forked(self.sessions, self.workers)
        return self._forked.replay(spec, indices)

    def close(self) -> None:
        """Stop the forked workers, if any (a later replay starts them again)."""
        with self._lock:
            if self._forked is not None:
                self._forked.close()
                self._forked = None

    def _read(self, run_id: str, tables: Mapping[str, pa.Table]) -> tuple[pd.DataFrame, pd.DataFrame | None]:
        """The rows read back as `ctxlab recommend` reads a run (an in-memory store, emptied after)."""
        from ctxlab import store

        if self._con is None:
            self._con = store.connect(":memory:")
        con = self._con
        store.write_batch(con, {name: [tables[name]] for name in _MEASURED if name in tables})
        try:
            return read_run(con, run_id, self.price_model)
        finally:
            for name in _MEASURED:
                con.execute(f"DELETE FROM {name} WHERE run_id = ?", [run_id])

    def adopt(self, key: str, scored: Scored) -> None:
        """Take a setting scored elsewhere (read back from the store)."""
        with self._lock:
            self.scored.setdefault(key, scored)


def read_run(con: Any, run_id: str, price_model: str | None) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    """A run's per-turn results and (with a price model) its session costs under that model."""
    from ctxlab import store
    from ctxlab.analysis import frames

    results = frames.results(con, run_id, mode="per-turn")
    if price_model is None:
        return results, None
    costs = store.session_costs(con, run_id)
    return results, costs[costs["price_model"] == price_model]


def score(results: pd.DataFrame, costs: pd.DataFrame | None, reference: str, input_price: float | None,
          run_id: str = "", seconds: float = 0.0) -> Scored:
    """The samples and the `frontier` row of one setting's rows (one strategy variant)."""
    from ctxlab.analysis.recommend import frontier

    frame = session_rows(results, reference, costs, input_price)
    front = frontier(results, reference, costs, input_price, sessions=frame)
    if len(front) != 1:
        raise CtxlabError(f"run {run_id}: expected one policy's rows, found {len(front)}")
    samples = {name: tuple(Sample(float(v), float(w) if weight else 1.0)
                           for v, w in zip(frame[value], frame[weight] if weight else frame[value], strict=True))
               for name, (value, weight) in MEASURES.items() if value in frame}
    return Scored(samples, front.iloc[0].to_dict(), run_id, seconds)


__all__ = ["MEASURES", "Evaluator", "Pending", "Scored", "read_run", "run_id_of", "score", "spec_text", "work_spec"]
