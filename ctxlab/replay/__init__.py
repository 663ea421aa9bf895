"""Replay datasets through strategies x windows (x turns), in parallel, into the DuckDB store.

    from ctxlab.replay import ReplayConfig, replay
    summary = replay(ReplayConfig(["sample:agent_sessions"], ["window_guard", "compaction"], [4000, 8000],
                                  references=["o200k_base", "cl100k_base"], modes="both", db="lab.duckdb"))

Rerunning the same replay resumes it (see `ctxlab.replay.plan` for what identifies a run). Names
resolve lazily, so the CLI can read `ctxlab.replay.config` defaults without loading the engine.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ctxlab.registry import lazy_exports

_EXPORTS = {
    "DEFAULT_ESTIMATORS": "ctxlab.replay.config", "DEFAULT_WINDOWS": "ctxlab.replay.config",
    "ReplayConfig": "ctxlab.replay.config", "NullProgress": "ctxlab.replay.progress",
    "Progress": "ctxlab.replay.progress", "RichProgress": "ctxlab.replay.progress",
    "ReplayInterrupted": "ctxlab.replay.run", "RunSummary": "ctxlab.replay.run", "replay": "ctxlab.replay.run",
    "AgreeConfig": "ctxlab.replay.agreement", "AgreeSummary": "ctxlab.replay.agreement",
    "agree": "ctxlab.replay.agreement",
    "sample_calls": "ctxlab.replay.agreement_probes",
}
__all__ = ["DEFAULT_ESTIMATORS", "DEFAULT_WINDOWS", "AgreeConfig", "AgreeSummary", "NullProgress", "Progress",
           "ReplayConfig", "ReplayInterrupted", "RichProgress", "RunSummary", "agree", "replay", "sample_calls"]


__getattr__ = lazy_exports("ctxlab.replay", _EXPORTS, globals())


if TYPE_CHECKING:
    from ctxlab.replay.agreement import AgreeConfig, AgreeSummary, agree
    from ctxlab.replay.agreement_probes import sample_calls
    from ctxlab.replay.config import DEFAULT_ESTIMATORS, DEFAULT_WINDOWS, ReplayConfig
    from ctxlab.replay.progress import NullProgress, Progress, RichProgress
    from ctxlab.replay.run import ReplayInterrupted, RunSummary, replay
