"""`ctxlab learn` as a function: fit a need model on a user's earlier sessions, judge it on the later ones.

    outcome = learn(["~/.claude/projects/my-repo"], out="my.json", windows=(32_000, 64_000))
    outcome.versus      # learned against recommended's curve at its tokens (needed, in context, non-regex)

Steps: read the sessions as a replay does; split them by start time (`split`); collect training
examples on the earlier ones (`examples`); fit and write the model (`fit`, JSON); replay `learned`
with it, `recommended`'s settings, the anchors and the agent's own policy over the later ones
(`judge`), and read the tables (`verdicts`); store the judging run and the learn record.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from ctxlab.errors import CtxlabError
from ctxlab.learn import examples as ex
from ctxlab.learn.fit import fit_model, ranking
from ctxlab.learn.judge import CURVE, agent_policy, judged, learned_specs, replay_sessions, run_config, save_run
from ctxlab.learn.outcome import LearnOutcome, session_name
from ctxlab.learn.split import Split, split_sessions
from ctxlab.learn.verdicts import versus_anchors, versus_recommended
from ctxlab.replay.config import DEFAULT_COUNTER
from ctxlab.strategies.mechanics.need_model import NeedModel
from ctxlab.tune.sessions import Sessions

WINDOWS = (32_000, 64_000)
Tick = Callable[[str, int], None]  # (phase, total) starts a phase; (phase, -1) advances it by one


def learn(sources: Sequence[str], out: str, *, windows: Sequence[int] = WINDOWS, how: str = "time",
          train_share: float = 0.7, policy: str | None = None, horizon: int = ex.HORIZON,
          reference: str = DEFAULT_COUNTER, db: str | None = None, skip_invalid: bool = False,
          limit: int | None = None, tick: Tick | None = None) -> LearnOutcome:
    """Fit on the earlier sessions of `sources`, write the model to `out`, judge it on the later ones.

    Raises:
        CtxlabError: no sessions, no needed strings, a bad split or share, nothing to learn from.
    """
    started, cpu = time.perf_counter(), time.process_time()
    tick = tick or (lambda phase, total: None)
    sessions = Sessions.load(sources, limit=limit, skip_invalid=skip_invalid)
    if not sessions.items:
        raise CtxlabError(f"no sessions in {', '.join(sources)}: nothing to learn from")
    parts = split_sessions([i.conversation for i in sessions.items], how, train_share)
    train, needed = _examples(sessions, parts.train, reference, horizon, tick)
    if not any(needed):
        side = "session" if how == "none" else f"training session (the earliest {len(parts.train)} by start time)"
        raise CtxlabError(f"no {side} of {', '.join(sources)} has a needed string (an action using a string from "
                          "earlier history): nothing to learn from")
    model = fit_model(train, _about(sessions, parts, horizon, train_share, how))
    Path(out).write_text(model.to_json(), encoding="utf-8")
    test, test_needed = _examples(sessions, parts.test, reference, horizon, tick) if parts.test else (ex.Examples.empty(), [])
    policy = policy or agent_policy(sessions, parts.test or parts.train)
    learn_id = _learn_id(sessions, model, parts, windows, policy, reference)
    front, versus, anchors, run_id, label = pd.DataFrame(), pd.DataFrame(), pd.DataFrame(), None, ""
    if parts.test and any(test_needed):
        front, versus, anchors, run_id, label = _judge(sessions, parts, out, windows, policy, reference, db, learn_id,
                                                       tick)
    outcome = LearnOutcome(model, out, parts, sessions, tuple(needed), ranking(model, train), ranking(model, test),
                           front, versus, anchors, label, policy, learn_id, run_id, time.perf_counter() - started,
                           time.process_time() - cpu)
    if db:
        from ctxlab.learn.record import save

        save(db, outcome, sources, {"windows": list(windows), "split": how, "train_share": train_share,
                                    "policy": policy, "horizon": horizon, "reference": reference})
    return outcome


def _examples(sessions: Sessions, indices: Sequence[int], reference: str, horizon: int,
              tick: Tick) -> tuple[ex.Examples, list[int]]:
    counter = sessions.counters[reference]
    found, needed = ex.Examples.empty(), []
    tick("examples", len(indices))
    for i in indices:
        rows, count = ex.session_examples(sessions.items[i].conversation, counter, i, horizon=horizon)
        found.extend(rows)
        needed.append(count)
        tick("examples", -1)
    return found, needed


def _judge(sessions: Sessions, parts: Split, out: str, windows: Sequence[int], policy: str | None, reference: str,
           db: str | None, learn_id: str, tick: Tick) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, str, str]:
    from ctxlab.analysis.dominance import ANCHORS
    from ctxlab.analysis.recommend import frontier
    from ctxlab.analysis.sessions import unit_rows

    path = os.path.abspath(out)
    specs, run_id = judged(path, policy), "l" + learn_id[1:]
    tick("judging", len(parts.test))
    tables, seconds = replay_sessions(sessions, parts.test, specs, windows, reference, run_id,
                                      lambda: tick("judging", -1))
    target = db or ":memory:"
    if db:
        save_run(db, run_id, f"learn {Path(out).name}: judged on {len(parts.test)} later session(s)",
                 run_config(sessions, specs, windows, reference, db, {"learn_id": learn_id}), sessions.fingerprints,
                 tables, seconds)
    results = _results(target, run_id, tables)
    front, rows = frontier(results, reference), unit_rows(results, reference)
    label = learned_specs(path)[0]
    anchors = [*ANCHORS, *([policy] if policy and policy not in ANCHORS else [])]
    return (front, versus_recommended(front, rows, label, CURVE), versus_anchors(front, rows, learned_specs(path), anchors),
            run_id, label)


def _results(db: str, run_id: str, tables: dict[str, Any]) -> pd.DataFrame:
    """The judging run's per-turn results, read back as `ctxlab recommend` reads a run."""
    from ctxlab import store
    from ctxlab.analysis import frames

    if db != ":memory:":
        with store.reading(db) as con:
            return frames.results(con, run_id, mode="per-turn")
    con = store.connect(":memory:")
    store.write_batch(con, {name: [table] for name, table in tables.items()})
    return frames.results(con, run_id, mode="per-turn")


def _about(sessions: Sessions, parts: Split, horizon: int, share: float, how: str) -> dict[str, Any]:
    """What the model file records about its fit (shown by docs and `ctxlab learn`, never executed)."""
    from ctxlab.replay.run import versions

    return {"label": "holds a needed string of the next calls that the newest events do not hold",
            "horizon_calls": horizon, "recent_events": ex.RECENT_EVENTS, "unit": "tool output",
            "split": how, "train_share": share if how == "time" else None,
            "trained_on": [session_name(sessions, i) for i in parts.train], "ctxlab": versions().get("ctxlab", "")}


def _learn_id(sessions: Sessions, model: NeedModel, parts: Split, windows: Sequence[int], policy: str | None,
              reference: str) -> str:
    # What is judged is part of the id, so a ctxlab that judges more settings does not find an older run.
    identity = {"scope": sessions.scope(reference, None), "model": model.to_json(), "test": list(parts.test),
                "windows": list(windows), "policy": policy, "judged": judged("", policy)}
    return "L" + hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:11]


__all__ = ["WINDOWS", "LearnOutcome", "Tick", "learn"]
