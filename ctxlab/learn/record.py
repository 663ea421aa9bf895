"""The learn record written to the store (`ctxlab.store.learn`): sides of the split, model, tables."""

from __future__ import annotations

import datetime
import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from ctxlab.learn.outcome import LearnOutcome, session_name


def record(outcome: LearnOutcome, sources: Sequence[str], options: Mapping[str, Any]) -> dict[str, Any]:
    """The `learn_runs` row of an outcome."""
    text = outcome.model.to_json()
    return {"learn_id": outcome.learn_id, "name": f"learn {outcome.out}", "sources": list(sources),
            "options": dict(options), "train": [session_name(outcome.sessions, i) for i in outcome.split.train],
            "test": [session_name(outcome.sessions, i) for i in outcome.split.test], "model_path": outcome.out,
            "model_sha256": hashlib.sha256(text.encode()).hexdigest(), "model": json.loads(text),
            "fit": {"train": outcome.train_ranking._asdict(), "test": outcome.test_ranking._asdict()},
            "results": {"learned": outcome.learned, "policy": outcome.policy, "front": _rows(outcome.front),
                        "versus_recommended": _rows(outcome.versus), "versus_anchors": _rows(outcome.anchors)},
            "run_id": outcome.run_id, "created_at": datetime.datetime.now(), "wall_s": outcome.wall_s,
            "cpu_s": outcome.cpu_s}


def _rows(frame: pd.DataFrame) -> list[dict[str, Any]]:
    return json.loads(frame.to_json(orient="records")) if len(frame) else []


def save(db: str, outcome: LearnOutcome, sources: Sequence[str], options: Mapping[str, Any]) -> None:
    """Write the outcome's record to the store at `db`."""
    from ctxlab import store

    with store.writing(db) as con:
        store.save_learn(con, record(outcome, sources, options))


__all__ = ["record", "save"]
