"""What `ctxlab learn` found (`LearnOutcome`) and how it names a session, shared by the run, its
record in the store and the command that prints it."""

from __future__ import annotations

from typing import NamedTuple

import pandas as pd

from ctxlab.learn.fit import Ranking
from ctxlab.learn.split import Split
from ctxlab.strategies.mechanics.need_model import NeedModel
from ctxlab.tune.sessions import Sessions


class LearnOutcome(NamedTuple):
    """What `learn` fitted and found (tables empty with no split)."""

    model: NeedModel
    out: str
    split: Split
    sessions: Sessions
    needed: tuple[int, ...]
    train_ranking: Ranking
    test_ranking: Ranking
    front: pd.DataFrame
    versus: pd.DataFrame
    anchors: pd.DataFrame
    learned: str
    policy: str | None
    learn_id: str
    run_id: str | None
    wall_s: float
    cpu_s: float


def session_name(sessions: Sessions, i: int) -> str:
    """A session as a reader finds it: its log file (or dataset) and its id."""
    item = sessions.items[i]
    source = (item.conversation.meta or {}).get("source") or item.dataset
    return f"{source} ({item.conversation.id})"


__all__ = ["LearnOutcome", "session_name"]
