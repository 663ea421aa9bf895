"""Judging a fitted model on the sessions it never saw: every policy replayed call by call over them.

The judged policies: `learned` with the model at `recommended`'s settings of ``trigger_events``
(`LEARNED_EVENTS`, its default first: its curve of settings), `recommended`'s curve of settings
(`CURVE`: `ctxlab.analysis.dominance.SETTINGS` and the settings either side of the default, 50
and 70 events), every anchor preset, and the agent's own policy. Learned's default sits between
two settings of the shared grid (40 and 80 events), where a long session's recall climbs steeply
and a straight line between them reads the curve low; the settings beside it make learned's
lead over the curve a fairer one (on the shared logs' time split 0.3-0.5 points smaller). One
per-turn replay at each window, each policy counting with its own agent's counter, measured with
the reference tokenizer: the replay worker's own per-unit code over the sessions' kept state
(`ctxlab.replay.worker.replay_conversation`), so every number is what ``ctxlab recommend`` would
print for the same sessions, the hindsight limit included. The rows are one run in the store,
whose id depends on the model's content, so a refit at the same path is judged again.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from typing import Any

from ctxlab.analysis.dominance import ANCHORS, SETTINGS
from ctxlab.replay.config import SEED, ReplayConfig
from ctxlab.replay.plan import WorkSpec, resolve_entries
from ctxlab.replay.rows import Rows
from ctxlab.replay.worker import build_state, replay_conversation
from ctxlab.tune.sessions import Sessions

LEARNED_EVENTS = (60, 20, 30, 40, 50, 70, 80, 120, 0)  # the default first; 0: only when the window is full
CURVE = (*SETTINGS, "recommended:trigger_events=50", "recommended:trigger_events=70")  # read by tokens, any order
# The agent preset an agent log's format stands for (the agent's own policy, `--policy`'s default).
AGENT_POLICIES = {"claude_code": "claude_code", "codex": "codex", "pi": "pi", "aider": "aider",
                  "gemini_cli": "gemini_cli", "openhands": "openhands", "opencode": "opencode", "cline": "cline",
                  "goose": "goose", "letta": "letta"}


def learned_specs(model: str) -> list[str]:
    """`learned` with `model` at each of `LEARNED_EVENTS` (the default setting written bare)."""
    base = f"learned:model={model}"
    return [base if events == 60 else f"{base},trigger_events={events}" for events in LEARNED_EVENTS]


def agent_policy(sessions: Sessions, indices: Sequence[int]) -> str | None:
    """The preset of the agent most of the judged sessions were logged by (None: no agent preset)."""
    formats = [str((sessions.items[i].conversation.meta or {}).get("format", "")) for i in indices]
    known = [AGENT_POLICIES[f] for f in formats if f in AGENT_POLICIES]
    return max(sorted(set(known)), key=known.count) if known else None


def judged(model: str, policy: str | None) -> list[str]:
    """Every spec replayed: learned's settings, recommended's, the anchors and the agent's own."""
    return list(dict.fromkeys([*learned_specs(model), *CURVE, *ANCHORS, *([policy] if policy else [])]))


def replay_sessions(sessions: Sessions, indices: Sequence[int], specs: Sequence[str], windows: Sequence[int],
                    reference: str, run_id: str, progress: Any = None) -> tuple[dict[str, Any], float]:
    """Replay `specs` per turn over the sessions at `indices`: the run's Arrow tables and seconds."""
    entries = resolve_entries(list(specs), [SEED])
    spec = WorkSpec(run_id, entries, tuple(windows), ("per-turn",), (reference,), (), store_records=False,
                    quality=False, grounded=True)
    state = build_state(spec)
    prepared = sessions.prepared(reference)
    rows = Rows()
    started = time.perf_counter()
    for i in indices:
        item = sessions.items[i]
        replay_conversation(spec, state, rows, item.dataset, item.seq, item.conversation, prepared[i])
        if progress is not None:
            progress()
    return rows.to_arrow(), time.perf_counter() - started


def run_config(sessions: Sessions, specs: Sequence[str], windows: Sequence[int], reference: str,
               db: str, learn: dict[str, Any]) -> dict[str, Any]:
    """The config stored with the judging run: a per-turn replay config, and ``learn`` saying which."""
    config = ReplayConfig(tuple(sessions.sources), tuple(specs), tuple(windows), counters=(SEED,),
                          references=(reference,), modes=("per-turn",), estimators=(), db=db, workers=0,
                          store_records=False, quality=False, skip_invalid=sessions.skip_invalid)
    return {**dataclasses.asdict(config), "fingerprints": sessions.fingerprints, "learn": learn}


def save_run(db: str, run_id: str, name: str, config: dict[str, Any], fingerprints: dict[str, Any],
             tables: dict[str, Any], seconds: float) -> None:
    """Write the judging run (replacing an unfinished one with the same id)."""
    from ctxlab import store
    from ctxlab.replay.run import versions

    with store.writing(db) as con:
        if store.run_status(con, run_id) == "finished":
            return
        if store.start_run(con, run_id, name=name, config=config, versions=versions(), fingerprints=fingerprints):
            store.clear_run_rows(con, run_id)
        store.write_batch(con, {table: [rows] for table, rows in tables.items()})
        store.finish_run(con, run_id, "finished", seconds)


__all__ = ["AGENT_POLICIES", "CURVE", "LEARNED_EVENTS", "agent_policy", "judged", "learned_specs", "replay_sessions",
           "run_config", "save_run"]
