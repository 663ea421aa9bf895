"""`ctxlab bench`: replay speed as ratios measured in one run on this machine.

- baseline: tokenize every distinct message of the bundled data once (fresh o200k_base counter,
  plain loop, one process); the goals are a final replay within 1.2x and a per-turn one within 2x;
- floor: the same replay with only the `noop` strategy, the engine's own cost (loading, counting
  the history, measuring every unit, writing the rows) with a strategy that does nothing;
- peer: the per-turn sliding-window workload with langchain-core's `trim_messages` against
  ctxlab's `sliding_window` (same encoding, same per-message overhead); goal: ctxlab 10x faster;
- scale (``--scale``): sharegpt and a generated mixed set replayed in final mode; wall time,
  conversations per second and peak memory of the main process plus its workers;
- live tuner: a knob change of every deterministic policy re-evaluated over real agent logs (Claude
  Code sessions plus a pi-sized session, at 64k) and over the bundled agent sessions (at 8k), per
  policy the median and p90 wall time (goal: a median of 2 s or less) and the ratio to tokenizing
  those sessions once (`ctxlab.tune.speed`).

Each replay is reported twice: complete (fact recall, summary ROUGE, estimator rows, grounded
measures) and core (compression and token fit only), so the cost of the engine and of the metrics
can be told apart. The per-turn core replay is also run with the grounded measures alone
(`ctxlab.metrics.grounded`; goal: within 1.3x of the core replay).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from ctxlab.messages import Conversation, Message
from ctxlab.replay.config import DEFAULT_ESTIMATORS, DEFAULT_WINDOWS
from ctxlab.strategies import default_strategies, get_strategy

if TYPE_CHECKING:
    from ctxlab.tune.speed import Timing as KnobTiming

DEMO_SOURCES = ("sample:agent_sessions", "sample:chats")
DEMO_PER_TURN_WINDOWS = (2000, 8000)
# One Anthropic and one OpenAI model, so the demo shows both ways prompt caching is billed.
DEMO_PRICE_MODELS = ("claude-sonnet-4-5", "gpt-5")
LIVE_PRICE_MODEL = DEMO_PRICE_MODELS[0]
REFERENCE = "o200k_base"


class Timing(NamedTuple):
    label: str
    seconds: float
    detail: str = ""
    cpu: float = 0.0  # CPU seconds of this process and the workers it waited for


def cpu_seconds() -> float:
    """User + system CPU time of this process and its finished children (the pool workers): what a
    replay costs whatever else the machine is doing, where wall time grows with the load."""
    import resource

    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def tree_cpu_seconds() -> float:
    """`cpu_seconds` plus the CPU time of the children still running (forked workers the caller
    has not waited for yet): the CPU of the whole process tree so far."""
    import psutil

    running = psutil.Process().children(recursive=True)
    return cpu_seconds() + sum(_cpu_of(p) for p in running)


def _cpu_of(process: Any) -> float:
    try:
        times = process.cpu_times()
    except Exception:  # it exited between listing and reading: its time is in cpu_seconds once waited for
        return 0.0
    return float(times.user + times.system)


def demo_references() -> list[str]:
    """o200k_base and cl100k_base. claude_legacy is left out: its Hugging Face tokenizer counts
    the bundled data about 4x slower than tiktoken (measured: 18 s against 4.4 s), which would
    dominate the demo; replay with ``--reference claude_legacy`` to include it."""
    return ["o200k_base", "cl100k_base"]


def deterministic_strategies() -> list[str]:
    """Every registered strategy that needs no LLM."""
    return default_strategies(offline=True)


def distinct_messages(sources: Sequence[str], limit: int | None = None) -> list[Message]:
    """The distinct messages of `sources` (at most `limit` conversations of each), in order."""
    from ctxlab.datasets import load_conversations

    seen: dict[Message, None] = {}
    for source in sources:
        for conv in load_conversations(source, limit=limit):
            seen.update(dict.fromkeys(conv.messages))
    return list(seen)


def baseline(messages: Sequence[Message]) -> Timing:
    """Tokenize each message once with a fresh reference counter (its load is not timed)."""
    from ctxlab.tokens.exact import TiktokenCounter

    counter = TiktokenCounter(REFERENCE)
    started, cpu = time.perf_counter(), time.process_time()
    total = sum(counter.count_message(m) for m in messages)
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    chars = sum(len(m.text) for m in messages)
    return Timing("baseline", wall, f"{len(messages):,} distinct messages, {chars / 1e6:.1f} M chars, {total:,} tokens",
                  cpu)


def timed_replay(label: str, out_dir: Path, sources: Sequence[str], mode: str, *, workers: int,
                 full: bool, limit: int | None = None, strategies: Sequence[str] | None = None,
                 price_models: Sequence[str] = (), grounded: bool | None = None) -> Timing:
    """Wall time of one replay into a fresh database (pool start, loading and writing included),
    through every deterministic strategy unless `strategies` are named; grounded measures with the
    other quality measures unless `grounded` says otherwise."""
    from ctxlab.replay import ReplayConfig, replay

    db = out_dir / f"{label}.duckdb"
    for path in (db, db.with_suffix(".duckdb.wal")):
        path.unlink(missing_ok=True)
    started, cpu = time.perf_counter(), cpu_seconds()
    config = ReplayConfig(tuple(sources), tuple(strategies or deterministic_strategies()), DEFAULT_WINDOWS,
                          references=(REFERENCE,), modes=(mode,), estimators=DEFAULT_ESTIMATORS if full else (),
                          db=str(db), workers=workers, limit=limit, name=label, quality=full,
                          price_models=tuple(price_models), grounded=full if grounded is None else grounded)
    summary = replay(config)
    wall, cpu = time.perf_counter() - started, cpu_seconds() - cpu
    return Timing(label, wall, f"{summary.conversations:,} conversations, {summary.units:,} units, "
                               f"{summary.errors} errors; slowest strategy: {slowest_strategy(db, summary.run_id)}", cpu)


def slowest_strategy(db: Path, run_id: str) -> str:
    from ctxlab import store
    from ctxlab.store.schema import first_row

    with store.reading(db) as con:
        row = first_row(con.execute(
            "SELECT label, sum(latency_ms) / 1000, 100 * sum(latency_ms) / sum(sum(latency_ms)) OVER () "
            "FROM result_rows WHERE run_id = ? GROUP BY label ORDER BY 2 DESC LIMIT 1", [run_id]))
    return f"{row[0]} ({row[1]:.1f} s CPU, {row[2]:.0f}% of strategy time)" if row else "-"


def per_turn_workload(sources: Sequence[str], limit: int | None = None) -> list[tuple[Conversation, list[int]]]:
    from ctxlab.datasets import load_conversations
    from ctxlab.replay.plan import turn_indices

    return [(c, turn_indices(c)) for s in sources for c in load_conversations(s, limit=limit)]


def peer(workload: list[tuple[Conversation, list[int]]], windows: Sequence[int] = DEFAULT_WINDOWS) -> tuple[Timing, Timing]:
    """langchain-core `trim_messages` vs ctxlab `sliding_window` on the same per-turn trims."""
    from langchain_core.messages import trim_messages

    from ctxlab.tokens import get_counter
    from ctxlab.tokens.exact import load_tiktoken

    converted = [(_to_langchain(c.messages), turns) for c, turns in workload]
    count = _langchain_counter(load_tiktoken(REFERENCE))
    started = time.perf_counter()
    for msgs, turns in converted:
        for t in turns:
            for window in windows:
                trim_messages(msgs[:t], max_tokens=window, token_counter=count, strategy="last",
                              include_system=True, start_on="human")
    lc = Timing("langchain trim_messages", time.perf_counter() - started)
    strategy, counter = get_strategy("sliding_window"), get_counter(REFERENCE)
    started = time.perf_counter()
    for conv, turns in workload:
        for t in turns:
            for window in windows:
                strategy.compress(conv.messages[:t], window, counter=counter, tools=conv.tools)
    return lc, Timing("ctxlab sliding_window", time.perf_counter() - started)


def _langchain_counter(encoding: Any) -> Callable[[list[Any]], int]:
    """The OpenAI cookbook count ctxlab's exact counters use: 3 per message + role + content,
    3 + name + arguments per tool call, 3 to prime the reply; uncached, as langchain calls it."""
    roles = {"human": "user", "ai": "assistant", "system": "system", "tool": "tool"}

    def count(messages: list[Any]) -> int:
        total = 3
        for m in messages:
            total += 3 + len(encoding.encode_ordinary(roles.get(m.type, m.type)))
            total += len(encoding.encode_ordinary(m.content)) if isinstance(m.content, str) and m.content else 0
            for call in getattr(m, "tool_calls", None) or ():
                total += 3 + len(encoding.encode_ordinary(call["name"]))
                total += len(encoding.encode_ordinary(json.dumps(call["args"])))
        return total

    return count


def _to_langchain(messages: Sequence[Message]) -> list[Any]:
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

    out: list[Any] = []
    for m in messages:
        if m.role == "system":
            out.append(SystemMessage(m.text))
        elif m.role == "user":
            out.append(HumanMessage(m.text))
        elif m.role == "tool":
            out.append(ToolMessage(m.text, tool_call_id=m.tool_call_id))
        else:
            calls = [{"name": c.name, "args": _args(c.arguments), "id": c.id} for c in m.tool_calls]
            out.append(AIMessage(m.text, tool_calls=calls))
    return out


def _args(arguments: str) -> dict[str, Any]:
    try:
        value = json.loads(arguments or "{}")
    except json.JSONDecodeError:
        return {"arguments": arguments}
    return value if isinstance(value, dict) else {"value": value}


class PeakRSS:
    """The peak resident memory of this process plus its children (the workers), sampled by a forked
    sampler process: a sampling *thread* would make the replay's pool spawn its workers instead of
    forking them (forking is only safe while no other thread runs), which is not what is measured."""

    def __init__(self, interval: float = 0.5):
        import multiprocessing

        self.interval, self.peak = interval, 0
        self._ctx = multiprocessing.get_context("fork")
        self._stop = self._ctx.Event()
        self._here, there = self._ctx.Pipe(duplex=False)
        self._sampler = self._ctx.Process(target=_sample, args=(os.getpid(), interval, self._stop, there), daemon=True)

    def __enter__(self) -> PeakRSS:
        self._sampler.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self.peak = self._here.recv() if self._here.poll(10 * self.interval + 5) else 0
        self._sampler.join()


def _sample(parent: int, interval: float, stop: Any, out: Any) -> None:
    """The sampler: the summed RSS of `parent` and its descendants but this one, until `stop`."""
    import psutil

    root, me, peak = psutil.Process(parent), os.getpid(), 0
    while True:
        try:
            procs = [root, *(p for p in root.children(recursive=True) if p.pid != me)]
            peak = max(peak, sum(p.memory_info().rss for p in procs if p.is_running()))
        except Exception:  # a worker exiting between listing and reading: skip that sample
            pass
        if stop.wait(interval):
            break
    out.send(peak)


def generate_file(path: Path, n: int) -> Path:
    """Write `n` generated mixed conversations to `path` (streamed; reused when already there)."""
    from ctxlab.datasets import synth

    marker = path.with_suffix(".done")
    if marker.exists() and marker.read_text() == str(n):
        return path
    with path.open("w", encoding="utf-8") as f:
        for record in synth.generate_mixed(n):
            f.write(synth.dumps(record) + "\n")
    marker.write_text(str(n))
    return path


def run_bench(out_dir: str | Path = "bench", *, workers: int = 2, scale: bool = False, scale_n: int = 100_000,
              echo: Callable[[str], None] = print, live_logs: Sequence[str] = (), only_live: bool = False,
              ) -> Iterator[str]:
    """Run the benchmarks, yielding result lines as they are measured."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    if only_live:
        yield from live_tuner(live_logs, echo)
        return
    echo("measuring baseline ...")
    base = baseline(distinct_messages(DEMO_SOURCES))
    yield f"baseline: {base.seconds:.2f} s to tokenize once ({base.detail})"
    for mode, goal in (("final", 1.2), ("per-turn", 2.0)):
        echo(f"replaying {mode}-floor (noop only) ...")
        floor = timed_replay(f"{mode}-floor", out, DEMO_SOURCES, mode, workers=workers, full=False,
                             strategies=["noop"])
        yield (f"{mode}-floor replay (noop only, the engine's own cost): {floor.seconds:.2f} s = "
               f"{floor.seconds / base.seconds:.1f}x baseline")
        for full in (False, True):
            label = f"{mode}-{'complete' if full else 'core'}"
            echo(f"replaying {label} ...")
            t = timed_replay(label, out, DEMO_SOURCES, mode, workers=workers, full=full)
            verdict = "meets" if t.seconds <= goal * base.seconds else "misses"
            yield (f"{label} replay: {t.seconds:.2f} s = {t.seconds / base.seconds:.1f}x baseline "
                   f"({verdict} the {goal}x goal); {t.detail}")
            if mode == "per-turn" and not full:
                yield _priced(t, out, workers)
                yield _grounded(t, out, workers)
    echo("peer: langchain trim_messages vs sliding_window ...")
    lc, cx = peer(per_turn_workload(DEMO_SOURCES))
    yield (f"peer: {lc.label} {lc.seconds:.2f} s, {cx.label} {cx.seconds:.2f} s: ctxlab "
           f"{lc.seconds / cx.seconds:.1f}x faster ({'meets' if lc.seconds >= 10 * cx.seconds else 'misses'} the 10x goal)")
    yield from live_tuner(live_logs, echo)
    if scale:
        yield from _scale(out, workers, scale_n, echo)


def live_tuner(logs: Sequence[str], echo: Callable[[str], None] = print,
               policies: Sequence[str] | None = None) -> Iterator[str]:
    """Per workload, every deterministic policy's knob changes (`ctxlab.tune.speed`), against
    tokenizing the workload's distinct messages once; wall and CPU seconds both, with the machine's
    load average (wall time on a shared machine grows with it, CPU time does not)."""
    from ctxlab.tune import Sessions
    from ctxlab.tune.speed import live, prepare

    if not logs:
        yield "live tuner on real logs: skipped (no logs given: ctxlab bench --live-logs PATH ...)"
    for name, sources, window in live_workloads(logs):
        echo(f"live tuner over {name} ...")
        sessions = Sessions.load(sources)
        base = baseline(list(dict.fromkeys(m for item in sessions.items for m in item.conversation.messages)))
        ready = prepare(sessions, REFERENCE)
        yield (f"live tuner over {name} ({', '.join(sources)}): {len(sessions)} sessions, {sessions.calls:,} calls, "
               f"window {window:,}, priced by {LIVE_PRICE_MODEL}; tokenize once {base.seconds:.2f} s wall / "
               f"{base.cpu:.2f} s CPU ({base.detail}); built once before the first setting (counts, what each action "
               f"needed): {ready:.2f} s")
        timings = list(live(sessions, policies or deterministic_strategies(), window, reference=REFERENCE,
                            price_model=LIVE_PRICE_MODEL, echo=echo))
        yield from (live_line(t, base) for t in timings)
        yield live_summary(timings)


def live_line(t: KnobTiming, base: Timing) -> str:
    """One policy's knob changes: median and p90, wall and CPU, and as ratios to tokenizing once."""
    from ctxlab.tune.speed import GOAL_S

    ratio = f"{t.median_s / base.seconds:.1f}x" if base.seconds else "-"
    cpu_ratio = f"{t.cpu_median_s / base.cpu:.1f}x" if base.cpu else "-"
    return (f"  {t.policy}: median {t.median_s:.2f} s wall / {t.cpu_median_s:.2f} s CPU, p90 {t.p90_s:.2f} s / "
            f"{t.cpu_p90_s:.2f} s over {t.changes} changes; median = {ratio} / {cpu_ratio} tokenize-once; "
            f"{'meets' if t.meets_cpu else 'misses'} the {GOAL_S:g} s goal on CPU"
            f"{'' if t.meets == t.meets_cpu else ', ' + ('meets' if t.meets else 'misses') + ' it on wall'}")


def live_summary(timings: Sequence[KnobTiming]) -> str:
    """How many policies meet the goal on CPU and on wall time, and the load the wall times ran under."""
    import os

    from ctxlab.tune.speed import GOAL_S

    slow = [t.policy for t in timings if not t.meets_cpu]
    wall = sum(t.meets for t in timings)
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    return (f"  {len(timings) - len(slow)} of {len(timings)} policies meet the {GOAL_S:g} s median on CPU"
            + (f" (missed: {', '.join(slow)})" if slow else "")
            + f", {wall} on wall time (load average now {load} on {os.cpu_count()} cores)")



def live_workloads(logs: Sequence[str]) -> list[tuple[str, tuple[str, ...], int]]:
    """(name, sources, window) of the live tuner's workloads: the real logs given, then the bundled
    agent sessions."""
    real = [("real agent logs", tuple(logs), 64_000)] if logs else []
    return [*real, ("bundled agent sessions", ("sample:agent_sessions",), 8_000)]


def _priced(plain: Timing, out: Path, workers: int) -> str:
    """The same per-turn replay priced by the demo's two models with prompt caching; goal: within
    1.3x of the replay without pricing."""
    t = timed_replay("per-turn-core-priced", out, DEMO_SOURCES, "per-turn", workers=workers, full=False,
                     price_models=DEMO_PRICE_MODELS)
    ratio = t.seconds / plain.seconds
    return (f"per-turn-core replay priced by {' and '.join(DEMO_PRICE_MODELS)}: {t.seconds:.2f} s = {ratio:.2f}x the "
            f"unpriced replay ({'meets' if ratio <= 1.3 else 'misses'} the 1.3x goal)")


def _grounded(plain: Timing, out: Path, workers: int, sources: Sequence[str] = DEMO_SOURCES, **options: Any) -> str:
    """The same per-turn core replay with the grounded measures of every unit; goal: within 1.3x,
    judged on CPU time (wall time on a shared machine moves with the others' load)."""
    t = timed_replay("per-turn-core-grounded", out, sources, "per-turn", workers=workers, full=False, grounded=True,
                     **options)
    ratio, cpu = t.seconds / plain.seconds, t.cpu / plain.cpu if plain.cpu else float("nan")
    return (f"per-turn-core replay with the grounded measures (needed-context recall, refetch, instructions): "
            f"{t.seconds:.2f} s = {ratio:.2f}x the core replay's wall time, {t.cpu:.1f} s CPU = {cpu:.2f}x its CPU "
            f"({'meets' if cpu <= 1.3 else 'misses'} the 1.3x goal)")


def _scale(out: Path, workers: int, n: int, echo: Callable[[str], None]) -> Iterator[str]:
    echo(f"generating {n:,} mixed conversations ...")
    generated = generate_file(out / f"mixed-{n}.jsonl", n)
    for label, source in (("sharegpt", "sharegpt"), (f"generated-{n}", str(generated))):
        echo(f"scale replay of {label} ...")
        with PeakRSS() as rss:
            t = timed_replay(f"scale-{label}", out, [source], "final", workers=workers, full=False)
        conversations = int(t.detail.split(" ")[0].replace(",", ""))
        yield (f"scale {label}: {t.seconds:.0f} s wall, {conversations / t.seconds:.1f} conversations/s, "
               f"peak RSS {rss.peak / 2**20:,.0f} MiB (main + workers); {t.detail}")
