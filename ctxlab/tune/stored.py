"""Evaluated settings in the store: each one a run, found again by its key; a search's record.

`StoreCache` is the store's `ctxlab.tune.tuner.EvaluationCache`: a setting whose run (`run_id_of`
its key) is finished in the database is read back with the queries `ctxlab recommend` uses and
scored as a fresh one would be, so a rerun does not replay it. Nothing is written while a search
(or a slider) runs: `save` writes the evaluator's pending runs afterwards, each as a run whose
config is the replay config of that one setting (with ``tune`` saying which preset and knob
values it is), and the search's record (`ctxlab.store.tune`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ctxlab.replay.config import SEED, ReplayConfig
from ctxlab.tune.evaluate import Evaluator, Pending, read_run, run_id_of, score
from ctxlab.tune.evidence import describe
from ctxlab.tune.measures import Evaluation, Sample
from ctxlab.tune.tuner import SearchResult


class StoreCache:
    """Stored evaluations by setting key (read-only; `save` writes).

    Args:
        db: the database file (absent: nothing is stored yet).
        evaluator: scores what is read back, and keeps it.
    """

    def __init__(self, db: str | Path, evaluator: Evaluator) -> None:
        self.db, self.evaluator = str(db), evaluator
        self.hits = 0

    def get(self, key: str) -> Mapping[str, Sequence[Sample]] | None:
        if key in self.evaluator.scored:
            return self.evaluator.scored[key].samples
        if not Path(self.db).exists():
            return None
        from ctxlab import store

        run_id = run_id_of(key)
        with store.reading(self.db) as con:
            if store.run_status(con, run_id) != "finished":
                return None
            results, costs = read_run(con, run_id, self.evaluator.price_model)
        scored = score(results, costs, self.evaluator.reference, self.evaluator.input_price, run_id)
        self.evaluator.adopt(key, scored)
        self.hits += 1
        return scored.samples

    def put(self, key: str, samples: Mapping[str, Sequence[Sample]]) -> None:
        """Nothing to do: the evaluator keeps the rows until `save`."""


def replay_config(evaluator: Evaluator, label: str, db: str) -> ReplayConfig:
    """The replay config of one setting: what ``ctxlab replay --mode per-turn`` would run for it.

    The one place the tuner builds a replay config (the window is its ``windows``)."""
    sessions = evaluator.sessions
    return ReplayConfig(tuple(sessions.sources), (label,), (evaluator.window,), counters=(SEED,),
                        references=(evaluator.reference,), modes=("per-turn",), estimators=(), db=db, workers=0,
                        limit=sessions.limit, skip_invalid=sessions.skip_invalid,
                        store_records=False, quality=False,
                        price_models=(evaluator.price_model,) if evaluator.price_model else (), grounded=True)


def run_config(evaluator: Evaluator, pending: Pending, db: str, key: str) -> dict[str, Any]:
    """The config stored with a setting's run: its replay config, entry, sessions and ``tune``."""
    tune: dict[str, Any] = {"key": key, "window": evaluator.window, "label": pending.label}
    if pending.setting is not None:
        tune |= {"preset": pending.setting.preset, "values": dict(pending.setting.values),
                 "params": dict(pending.setting.params)}
    else:
        tune |= {"preset": pending.entry.strategy}
    config = dataclasses.asdict(replay_config(evaluator, pending.label, db))
    return {**config, "entries": [pending.entry._asdict()], "fingerprints": evaluator.sessions.fingerprints,
            "strategies": [pending.label], "counters": [pending.entry.counter], "tune": tune}


def run_name(evaluator: Evaluator, pending: Pending) -> str:
    """``tune pi@64000: compaction.reserveTokens=16384, ...`` (the label for a setting without knobs)."""
    what = describe(Evaluation(pending.setting, {})) if pending.setting is not None else pending.label
    return f"tune {pending.entry.strategy}@{evaluator.window}: {what or 'defaults'}"


def save(db: str, evaluator: Evaluator, result: SearchResult | None = None, *, name: str = "",
         options: Mapping[str, Any] | None = None, wall_s: float = 0.0) -> tuple[int, str | None]:
    """Write the evaluator's pending runs and (given one) a search's record; returns the runs written
    and the search id."""
    from ctxlab import store
    from ctxlab.replay.run import versions

    written = 0
    with store.writing(db) as con:
        for key, pending in list(evaluator.pending.items()):
            if store.run_status(con, pending.run_id) != "finished":
                if store.start_run(con, pending.run_id, name=run_name(evaluator, pending),
                                   config=run_config(evaluator, pending, db, key), versions=versions(),
                                   fingerprints=evaluator.sessions.fingerprints):
                    store.clear_run_rows(con, pending.run_id)  # a run left unfinished: write it whole
                store.write_batch(con, {table: [rows] for table, rows in pending.tables.items()})
                store.finish_run(con, pending.run_id, "finished", pending.seconds)
                written += 1
            del evaluator.pending[key]
        search_id = None
        if result is not None:
            search, rows = search_record(evaluator, result, name=name, options=options or {}, wall_s=wall_s)
            store.save_search(con, search, rows)
            search_id = search["search_id"]
    return written, search_id


def search_record(evaluator: Evaluator, result: SearchResult, *, name: str, options: Mapping[str, Any],
                  wall_s: float) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A search's `tune_searches` row and its `tune_evaluations` rows."""
    identity = {"scope": evaluator.scope, "preset": result.preset, "window": result.window, "method": result.method,
                **options}
    search_id = "s" + hashlib.sha256(json.dumps(identity, sort_keys=True, default=str).encode()).hexdigest()[:11]
    on_front = {p.row: p.ties for p in result.front}
    pick = result.pick.row if result.pick is not None else None
    rows = []
    for i, e in enumerate(result.evaluations):
        # A setting a halving search stopped early rests on a sample of the sessions: no run is stored
        # for it (its measures say how many sessions they pool).
        full = e.setting.key in evaluator.scored
        scored = evaluator.scored[e.setting.key] if full else evaluator.partial[e.setting.key]
        rows.append({"evaluation": i, "setting_key": e.setting.key, "run_id": scored.run_id if full else None,
                     "label": scored.row.get("label"), "knob_values": _plain(e.setting.values),
                     "params": _plain(e.setting.params),
                     "measures": {k: m._asdict() for k, m in e.measures.items()}, "front": _plain(scored.row),
                     "on_front": i in on_front, "ties": list(on_front.get(i, ())), "is_default": i == result.default,
                     "picked": i == pick, "cached": e.cached})
    search = {"search_id": search_id, "name": name or f"tune {result.preset}@{result.window}", "preset": result.preset,
              "window": result.window, "scope": json.loads(evaluator.scope), "sources": list(evaluator.sessions.sources),
              "method": result.method, "goal": result.goal._asdict(), "knobs": options.get("knobs"),
              "trials": options.get("trials"), "seed": options.get("seed"), "pick_row": pick,
              "evidence": result.pick.evidence if result.pick is not None else None, "created_at": _now(),
              "wall_s": wall_s}
    return search, rows


def _plain(values: Mapping[str, Any]) -> dict[str, Any]:
    """JSON-ready values: numpy scalars as Python numbers, NaN as None, tuples as lists."""
    out = {}
    for k, v in values.items():
        if hasattr(v, "item"):
            v = v.item()
        if isinstance(v, float) and v != v:
            v = None
        out[k] = list(v) if isinstance(v, tuple) else v
    return out


def _now() -> Any:
    import datetime

    return datetime.datetime.now()


__all__ = ["StoreCache", "replay_config", "run_config", "run_name", "save", "search_record"]
