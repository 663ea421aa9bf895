"""A setting's sessions replayed in forked processes, each keeping the sessions it owns prepared.

On a user's whole history a setting's replay is the tuner's cost (`ctxlab.tune.evaluate`), and so
is preparing each session the first time a setting reaches it (counts per message, what each
recorded action needed: about as much again). `Forked` starts `workers` processes by fork, so they
inherit the loaded `Sessions` without copying or pickling them, and gives every session to one of
them for good (the one with the fewest calls so far, taking the sessions in the order they are
first asked for: every prefix of a stratified order stays balanced). A worker prepares its own
sessions once and keeps them for every later setting; the main process never prepares them. A
setting's rows come back as Arrow tables, one part per worker; every reader sorts them by session.

Forking a process that holds threads (DuckDB's, Arrow's) can, rarely, crash a worker. A crashed
worker's part is replayed again by a worker forked anew (its sessions prepared again), and if that one
crashes too, by the main process: the rows are the same either way, and a warning names the crash.
"""

from __future__ import annotations

import multiprocessing
import sys
import warnings
from collections.abc import Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

import pyarrow as pa

from ctxlab.replay.plan import WorkSpec
from ctxlab.replay.rows import Rows
from ctxlab.replay.worker import build_state, replay_conversation
from ctxlab.tune.sessions import Sessions

_SESSIONS: Sessions | None = None  # a worker's sessions, inherited from the main process by fork
# Fork is what lets the workers inherit the sessions; where it is missing or unsafe (macOS, Windows)
# the evaluator replays in its own process instead.
CAN_FORK = sys.platform == "linux"


def replay_sessions(sessions: Sessions, spec: WorkSpec, indices: Sequence[int]) -> dict[str, pa.Table]:
    """The rows of `spec` (one setting) over the sessions at `indices`, their kept state reused."""
    state = build_state(spec)
    rows = Rows()
    prepared = sessions.prepared(spec.references[0], indices)
    for i in indices:
        item = sessions.items[i]
        replay_conversation(spec, state, rows, item.dataset, item.seq, item.conversation, prepared[i])
    return rows.to_arrow()


def _adopt(sessions: Sessions) -> None:
    global _SESSIONS
    _SESSIONS = sessions


def _replay_owned(spec: WorkSpec, indices: Sequence[int]) -> dict[str, pa.Table]:
    assert _SESSIONS is not None, "a forked worker starts with the sessions"
    return replay_sessions(_SESSIONS, spec, indices)


class Forked:
    """`workers` forked processes replaying a setting's sessions in parallel (see above).

    Args:
        sessions: the loaded sessions (inherited by the workers when they fork, on first use).
        workers: how many processes.
    """

    def __init__(self, sessions: Sessions, workers: int) -> None:
        self.sessions = sessions
        self.pools = [self._pool() for _ in range(workers)]
        self.owner: dict[int, int] = {}
        self.calls = [0] * workers

    def _pool(self) -> ProcessPoolExecutor:
        context = multiprocessing.get_context("fork")
        return ProcessPoolExecutor(1, mp_context=context, initializer=_adopt, initargs=(self.sessions,))

    def _owners(self, indices: Sequence[int]) -> list[list[int]]:
        for i in indices:
            if i not in self.owner:
                k = min(range(len(self.calls)), key=lambda w: (self.calls[w], w))
                self.owner[i] = k
                self.calls[k] += self.sessions.calls_of(i)
        return [[i for i in indices if self.owner[i] == k] for k in range(len(self.pools))]

    def replay(self, spec: WorkSpec, indices: Sequence[int]) -> dict[str, pa.Table]:
        """The rows of `spec` over `indices`, each session replayed by the worker that owns it."""
        futures: list[tuple[int, list[int], Future[dict[str, pa.Table]]]] = [
            (k, part, self.pools[k].submit(_replay_owned, spec, part))
            for k, part in enumerate(self._owners(indices)) if part]
        parts = [self._result(k, spec, part, future) for k, part, future in futures]
        names = dict.fromkeys(name for part in parts for name in part)
        return {name: pa.concat_tables([part[name] for part in parts if name in part]) for name in names}

    def _result(self, k: int, spec: WorkSpec, part: list[int],
                future: Future[dict[str, pa.Table]]) -> dict[str, pa.Table]:
        """Worker `k`'s rows of `part`; if it crashed, a new worker's, or else the main process's."""
        try:
            return future.result()
        except BrokenProcessPool as crash:
            self._replace(k, f"a tune worker crashed ({crash}); replaying its {len(part)} sessions in a new one")
        try:
            return self.pools[k].submit(_replay_owned, spec, part).result()
        except BrokenProcessPool as crash:
            self._replace(k, f"a tune worker crashed again ({crash}); replaying its {len(part)} sessions here")
            return replay_sessions(self.sessions, spec, part)

    def _replace(self, k: int, why: str) -> None:
        """Worker `k` crashed: say so, and start a new one in its place (its sessions unprepared)."""
        warnings.warn(why, RuntimeWarning, stacklevel=4)
        self.pools[k].shutdown(wait=True, cancel_futures=True)
        self.pools[k] = self._pool()

    def close(self) -> None:
        """Stop the workers (what they kept goes with them)."""
        for pool in self.pools:
            pool.shutdown(wait=True, cancel_futures=True)


__all__ = ["CAN_FORK", "Forked", "replay_sessions"]
