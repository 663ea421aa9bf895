"""Where chunks run: in-process, a local process pool, or Ray tasks; all run `replay_chunk`.

Each engine keeps only a small window of chunks in flight, so a dataset streams through the
workers instead of being read into memory, and yields results in completion order.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading
import warnings
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Protocol

from ctxlab.errors import CtxlabError
from ctxlab.messages import Conversation
from ctxlab.replay.plan import WorkSpec
from ctxlab.replay.worker import ChunkResult, init_worker, replay_chunk

# A dataset name and numbered conversations of it.
Chunk = tuple[str, Sequence[tuple[int, Conversation]]]
_POLL_S = 0.25


class Engine(Protocol):
    def map(self, spec: WorkSpec, chunks: Iterable[Chunk]) -> Iterator[ChunkResult]: ...

    def close(self, terminate: bool = False) -> None: ...


class InlineEngine:
    """Runs chunks in this process (``workers=0``): for tests, debugging and tiny inputs."""

    def map(self, spec: WorkSpec, chunks: Iterable[Chunk]) -> Iterator[ChunkResult]:
        for dataset, items in chunks:
            yield replay_chunk(spec, dataset, items)

    def close(self, terminate: bool = False) -> None:
        pass


class LocalEngine:
    """A pool of `workers` processes.

    Forked where that is safe (Linux, no other Python thread running): the workers inherit the
    counters and strategies the main process prepared instead of each loading the tiktoken
    encodings again (about 2 s of CPU per encoding and process). Otherwise they are spawned and
    prepare their own.

    A worker that dies (killed for memory, or a crash in native code) breaks the pool: its chunks
    and the others in flight run again in a new pool, once; a chunk that kills a worker twice stops
    the run with an error that names it (a chunk is deterministic, so the retry gives the same rows).
    """

    def __init__(self, workers: int):
        self.workers, self.window = workers, 2 * workers + 1
        fork = sys.platform == "linux" and threading.active_count() == 1
        self.context = multiprocessing.get_context("fork" if fork else "spawn")
        self.pool = self._pool()

    def _pool(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(self.workers, mp_context=self.context, initializer=init_worker)

    def map(self, spec: WorkSpec, chunks: Iterable[Chunk]) -> Iterator[ChunkResult]:
        source = iter(chunks)
        pending: dict[Future[ChunkResult], Chunk] = {}
        retried: set[int] = set()  # id() of the chunks already run again after a crash
        while True:
            while len(pending) < self.window and (chunk := next(source, None)) is not None:
                pending[self.pool.submit(replay_chunk, spec, *chunk)] = chunk
            if not pending:
                return
            # A timed wait keeps the main thread responsive to Ctrl-C on every platform.
            done, _ = wait(pending, timeout=_POLL_S, return_when=FIRST_COMPLETED)
            broken = False
            for future in done:
                chunk = pending.pop(future)
                try:
                    result = future.result()
                except BrokenProcessPool:
                    if id(chunk) in retried:
                        raise CtxlabError(f"a replay worker died twice on {_describe(chunk)} (out of memory? "
                                          "see the system log, e.g. `dmesg`); try fewer --workers") from None
                    retried.add(id(chunk))
                    pending[Future()] = chunk  # run again below, with the others in flight
                    broken = True
                except Exception as exc:  # the worker's own exception (a strategy's is a row)
                    raise CtxlabError(f"a replay worker failed: {type(exc).__name__}: {exc}") from exc
                else:
                    retried.discard(id(chunk))  # its id may be reused by a later chunk
                    yield result
            if broken:
                pending = self._restart(spec, pending, retried)

    def _restart(self, spec: WorkSpec, pending: dict[Future[ChunkResult], Chunk],
                 retried: set[int]) -> dict[Future[ChunkResult], Chunk]:
        """A new pool after a worker died; every chunk in flight is submitted to it again."""
        warnings.warn("a replay worker died; its chunks run again in a new pool", RuntimeWarning, stacklevel=3)
        self.close(terminate=True)
        self.pool = self._pool()
        retried.update(id(chunk) for chunk in pending.values())
        return {self.pool.submit(replay_chunk, spec, *chunk): chunk for chunk in pending.values()}

    def close(self, terminate: bool = False) -> None:
        if terminate:
            # ProcessPoolExecutor cannot stop a running task; its processes (a private map, stable
            # since Python 3.8; Python 3.14 adds terminate_workers) are stopped directly.
            processes = list((getattr(self.pool, "_processes", None) or {}).values())
            self.pool.shutdown(wait=False, cancel_futures=True)
            for process in processes:
                process.terminate()
            for process in processes:
                process.join()
        else:
            self.pool.shutdown(wait=True)


def _describe(chunk: Chunk) -> str:
    dataset, items = chunk
    seqs = [seq for seq, _ in items]
    return f"{dataset} conversations {min(seqs)}-{max(seqs)}" if seqs else f"an empty chunk of {dataset}"


class RayEngine:
    """The same chunks as Ray tasks: a local Ray with `workers` CPUs, or a cluster at `address`.

    Ray is imported only here. Cluster nodes need ctxlab installed (the tasks import it).
    """

    def __init__(self, workers: int, address: str | None = None):
        os.environ.setdefault("RAY_AUTH_MODE", "disabled")  # else Ray writes a token under $HOME
        try:
            import ray
        except ImportError as exc:
            raise CtxlabError("--engine ray needs Ray: pip install 'ctxlab[ray]'") from exc
        self.ray = ray
        self.owned = not ray.is_initialized()
        if self.owned:
            _start_ray(ray, workers, address)
        self.window = 2 * max(workers, 1) + 1
        self.task = ray.remote(replay_chunk)
        self.pending: list[Any] = []

    def map(self, spec: WorkSpec, chunks: Iterable[Chunk]) -> Iterator[ChunkResult]:
        spec_ref = self.ray.put(spec)
        source, exhausted = iter(chunks), False
        while True:
            while not exhausted and len(self.pending) < self.window:
                chunk = next(source, None)
                if chunk is None:
                    exhausted = True
                    break
                self.pending.append(self.task.remote(spec_ref, *chunk))
            if not self.pending:
                return
            ready, self.pending = self.ray.wait(self.pending, num_returns=1, timeout=None)
            try:
                yield self.ray.get(ready[0])
            except self.ray.exceptions.RayTaskError as exc:
                raise CtxlabError(f"a replay task failed: {exc}") from exc

    def close(self, terminate: bool = False) -> None:
        if terminate:
            for ref in self.pending:
                self.ray.cancel(ref, force=True)
        self.pending = []
        if self.owned:
            self.ray.shutdown()


RAY_STARTS = 3  # a local Ray's start times out on a loaded machine now and then; trying again works


def _start_ray(ray: Any, workers: int, address: str | None) -> None:
    """Start (or join) Ray, trying again after a failed start.

    A local start waits 30 s for its node to register (fixed in Ray 2.60) and 30 s for the GCS port
    (`RAY_gcs_server_port_wait_time_s`, raised here to 120 s unless set): on two cores shared with
    other work either can run out, and a second start, with the processes of the first cleaned up,
    goes through.
    """
    os.environ.setdefault("RAY_gcs_server_port_wait_time_s", "120")
    for attempt in range(1, RAY_STARTS + 1):
        try:
            if address:
                ray.init(address=address, log_to_driver=False)
            else:
                ray.init(num_cpus=max(workers, 1), include_dashboard=False, log_to_driver=False)
            return
        except Exception as exc:  # Ray raises plain Exceptions for a timed-out start
            ray.shutdown()
            if attempt == RAY_STARTS:
                raise CtxlabError(f"Ray did not start after {RAY_STARTS} tries: {exc}") from exc


def make_engine(engine: str, workers: int, address: str | None = None) -> Engine:
    """The engine for a config: Ray, a local pool, or in-process when ``workers <= 0``."""
    if engine == "ray":
        return RayEngine(workers, address)
    return LocalEngine(workers) if workers > 0 else InlineEngine()
