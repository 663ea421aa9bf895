"""`ctxlab bench --history`: a user's whole agent history, measured against tokenizing it once.

The workload is `ctxlab generate --kind history` (500 sessions, 100,000 provider calls, shaped like
the long real sessions; written once into the bench folder). Every figure is printed with its wall
time, its CPU time (this process and the workers it waited for), its peak resident memory (this
process plus its children, sampled) and as a ratio to the *baseline*: tokenizing the history's
distinct messages once with o200k_base, in the same run, in one process. The goals (issue 31):

- ``recommend``: every deterministic policy at one window over the whole history, as ``ctxlab
  recommend`` runs it (2 workers, graded, then the front): 15 minutes or less, 4 GB or less;
- ``tune``: a preset's knob search answers its first pick, re-checked on every session, within 2
  minutes (`ctxlab.tune.run.tune` with successive halving over sessions);
- ``live``: a knob change on the Tuning page answers within 2 s from its sample of sessions;
- ``final``: ``ctxlab replay --mode final`` of the history's first sessions through 5 policies at 4
  windows, 3x tokenize-once (their messages) or less.
"""

from __future__ import annotations

import math
import os
import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from ctxlab.bench import PeakRSS, baseline, cpu_seconds, deterministic_strategies, distinct_messages, tree_cpu_seconds
from ctxlab.errors import CtxlabError
from ctxlab.replay.config import DEFAULT_WINDOWS, recommend_config

if TYPE_CHECKING:
    from ctxlab.tune.live import LiveTuner
    from ctxlab.tune.tuner import SearchResult

SESSIONS, CALLS = 500, 100_000
WINDOW = 64_000  # the real-logs workload's window (docs/performance.md)
TUNE_PRESET = "pi"  # two knobs: a grid of 25 settings plus the default, the "26 settings"
FINAL_POLICIES = ("sliding_window", "compaction", "gssc", "window_guard", "key_message")  # the five seeds
FINAL_SESSIONS = 60
REFINE_STEPS = 3  # a full refinement is a setting evaluated on every session: the tune part times that
GOALS = {"recommend": ("wall", 15 * 60.0), "tune": ("wall", 120.0), "live": ("wall", 2.0),
         "final": ("ratio", 3.0)}
MEMORY_GOAL = 4 * 2**30


class Figure(NamedTuple):
    """One measured step: wall and CPU seconds, peak RSS in bytes, what it did."""

    label: str
    wall: float
    cpu: float
    rss: int
    detail: str = ""


def measured(label: str, step: Callable[[], str]) -> Figure:
    """Run `step` (it returns what it did, in words) and measure it."""
    with PeakRSS(0.2) as rss:
        wall, cpu = time.perf_counter(), cpu_seconds()
        detail = step()
        wall, cpu = time.perf_counter() - wall, cpu_seconds() - cpu
    return Figure(label, wall, cpu, rss.peak, detail)


def history_file(out: Path, sessions: int = SESSIONS, calls: int = CALLS) -> Path:
    """The generated history in `out` (written once, reused while its marker says the same size)."""
    from ctxlab.datasets import synth

    path = out / f"history-{sessions}-{calls}.jsonl"
    marker, wanted = path.with_suffix(".done"), f"{sessions} {calls}"
    if not (marker.exists() and marker.read_text() == wanted):
        with path.open("w", encoding="utf-8", newline="\n") as f:
            for record in synth.generate_history(sessions, calls):
                f.write(synth.dumps(record) + "\n")
        marker.write_text(wanted)
    return path


def line(figure: Figure, base: Figure, goal: tuple[str, float] | None = None) -> str:
    """A figure with its ratios to the baseline and, with a goal, whether it meets it."""
    text = (f"{figure.label}: {figure.wall:,.1f} s wall, {figure.cpu:,.1f} s CPU, peak RSS "
            f"{figure.rss / 2**30:.2f} GiB = {figure.wall / base.wall:.1f}x wall / {figure.cpu / base.cpu:.1f}x CPU "
            f"tokenize-once")
    if goal is not None:
        kind, bound = goal
        value = figure.wall / base.wall if kind == "ratio" else figure.wall
        wanted = f"{bound:g}x tokenize-once" if kind == "ratio" else f"{bound:g} s"
        verdict = "meets" if value <= bound and figure.rss <= MEMORY_GOAL else "misses"
        text += f"; {verdict} the goal ({wanted}, {MEMORY_GOAL / 2**30:.0f} GiB)"
    return text + (f"; {figure.detail}" if figure.detail else "")


def load_line() -> str:
    """The load average now (wall times on a shared machine grow with it; CPU times hardly do)."""
    return f"load average {', '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} cores"


def run_history(out_dir: str | Path = "bench", *, workers: int = 2, window: int = WINDOW, path: str | None = None,
                parts: Sequence[str] = ("recommend", "tune", "live", "final"), engine: str = "local",
                echo: Callable[[str], None] = print) -> Iterator[str]:
    """Measure `parts` on the history at `path` (generated in `out_dir` when not given), yielding
    one line per figure."""
    unknown = [p for p in parts if p not in GOALS]
    if unknown:
        raise CtxlabError(f"unknown bench part(s) {', '.join(unknown)}; valid: {', '.join(GOALS)}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    if path is None:
        echo(f"writing the history ({SESSIONS} sessions, {CALLS:,} calls) ...")
        path = str(history_file(out))
    echo("tokenizing its distinct messages once ...")
    base = tokenize_once([path])
    yield f"{line(base, base)} ({load_line()})"
    for part in parts:
        echo(f"{part} ...")
        if part == "recommend":
            figure = measured(f"recommend: every deterministic policy at {window:,} per turn, {workers} workers "
                              f"({engine})", lambda: _recommend(path, out, window, workers, engine))
        elif part == "tune":
            first, whole = _tune(path, window, workers)
            yield f"{line(first, base, GOALS[part])} ({load_line()})"
            yield f"{line(whole, base)} ({load_line()})"
            continue
        elif part == "live":
            figure, refined = _live(path, window)
            yield f"{line(figure, base, GOALS[part])} ({load_line()})"
            yield f"{line(refined, base)} ({load_line()})"
            continue
        else:
            sub = tokenize_once([path], FINAL_SESSIONS)
            yield f"  {line(sub, sub)}"
            figure = measured(f"final: ctxlab replay --mode final, {FINAL_SESSIONS} sessions x {len(FINAL_POLICIES)} "
                              f"policies x {len(DEFAULT_WINDOWS)} windows", lambda: _final(path, out, workers, engine))
            yield f"{line(figure, sub, GOALS[part])} ({load_line()})"
            continue
        yield f"{line(figure, base, GOALS[part])} ({load_line()})"


def tokenize_once(sources: Sequence[str], limit: int | None = None) -> Figure:
    """The baseline: the distinct messages of `sources` tokenized once by a fresh o200k_base
    counter in this process (reading them is not timed; the memory they hold is)."""
    with PeakRSS(0.2) as rss:
        messages = distinct_messages(sources, limit=limit)
        timing = baseline(messages)
    which = f"the first {limit} sessions" if limit else "the history"
    return Figure(f"baseline: tokenize {which}'s distinct messages once", timing.seconds, timing.cpu, rss.peak,
                  timing.detail)


def _fresh(db: Path) -> str:
    for stale in (db, db.with_suffix(".duckdb.wal")):
        stale.unlink(missing_ok=True)
    return str(db)


def _recommend(path: str, out: Path, window: int, workers: int, engine: str) -> str:
    """What ``ctxlab recommend`` does: the replay (with its progress bar), then the front and the verdict."""
    from ctxlab import store
    from ctxlab.analysis.recommend import stored_policies
    from ctxlab.replay import RichProgress, replay

    config = recommend_config([path], window, deterministic_strategies(), db=_fresh(out / "history-recommend.duckdb"),
                              workers=workers, engine=engine)
    with RichProgress() as progress:
        summary = replay(config, progress)
    with store.reading(summary.db) as con:
        verdict = stored_policies(con, summary.run_id, config.references[0]).verdict
    return (f"{summary.conversations:,} sessions, {summary.units:,} units, {summary.errors} errors; run: "
            f"{verdict.run.name if verdict else '-'}")


def _tune(path: str, window: int, workers: int) -> tuple[Figure, Figure]:
    """`TUNE_PRESET`'s search on the history: the time to its first pick (on every session beside the
    default, `ctxlab.tune.run.tune`'s `on_first_pick`; the whole search when no other contender is
    left to check) and to the end of the search. CPU counts the forked workers still running."""
    from ctxlab.tune import Sessions
    from ctxlab.tune.run import evaluations_frame, tune

    firsts: list[tuple[float, float, str]] = []
    with PeakRSS(0.2) as rss:
        wall, cpu = time.perf_counter(), tree_cpu_seconds()
        sessions = Sessions.load([path])
        loaded = time.perf_counter() - wall

        def first(result: SearchResult, pending: int) -> None:
            chosen = result.evaluations[result.pick.row].setting.values if result.pick else "none"
            firsts.append((time.perf_counter() - wall, tree_cpu_seconds() - cpu,
                           f"first pick {chosen} beside the default, {pending} other contenders still running"))

        outcome = tune(sessions, TUNE_PRESET, window=window, workers=workers, on_first_pick=first)
        wall, cpu = time.perf_counter() - wall, tree_cpu_seconds() - cpu
    pick = outcome.result.pick
    chosen = outcome.result.evaluations[pick.row].setting.values if pick else "none"
    rested = evaluations_frame(outcome)["sessions"].value_counts().sort_index(ascending=False)
    rungs = ", ".join(f"{count} on {int(n)}" for n, count in rested.items())
    detail = (f"{len(sessions):,} sessions, {sessions.calls:,} calls (read in {loaded:.1f} s); "
              f"{len(outcome.result.evaluations)} settings ({outcome.result.method}: {rungs} sessions), "
              f"pick {chosen}")
    label = f"tune: {TUNE_PRESET}'s knobs at {window:,}, {workers} forked workers"
    whole = Figure(f"{label}, the whole search", wall, cpu, rss.peak, detail)
    if not firsts:
        return whole._replace(label=f"{label}, first pick (no other contender left: the whole search)"), whole
    first_wall, first_cpu, said = firsts[0]
    return Figure(f"{label}, first pick re-checked on every session", first_wall, first_cpu, rss.peak, said), whole


def _live(path: str, window: int) -> tuple[Figure, Figure]:
    """The Tuning page on the history (`ctxlab.tune.live.LiveTuner`): the median knob change of
    `TUNE_PRESET` answered from the stratified sample, then that setting refined on more sessions as
    the page does in the background (its first steps, run here in the foreground to time them)."""
    from ctxlab.tune import Sessions
    from ctxlab.tune.live import LiveTuner
    from ctxlab.tune.speed import knob_values, time_live

    tuner = LiveTuner(Sessions.load([path]))
    calls = sum(tuner.sessions.calls_of(i) for i in tuner.order[:tuner.sample])
    with PeakRSS(0.2) as rss:
        wall, cpu = time.perf_counter(), time.process_time()
        tuner.default(TUNE_PRESET, window)
        cold = (time.perf_counter() - wall, time.process_time() - cpu)
        timing = time_live(tuner, TUNE_PRESET, window)
    change = Figure(f"live: a knob change of {TUNE_PRESET} at {window:,} (median), from a sample of "
                    f"{tuner.sample} of {len(tuner.order)} sessions ({calls:,} calls)", timing.median_s,
                    timing.cpu_median_s, rss.peak,
                    f"p90 {timing.p90_s:.2f} s wall / {timing.cpu_p90_s:.2f} s CPU over {timing.changes} changes; "
                    f"first answer (the sample's sessions prepared) {cold[0]:.1f} s wall / {cold[1]:.1f} s CPU")
    refined = measured(f"live refine: that setting extended in the background, first {REFINE_STEPS} steps "
                       f"(timed in the foreground)", lambda: _refine(tuner, window, knob_values(TUNE_PRESET, window)[-1]))
    return change, refined


def _refine(tuner: LiveTuner, window: int, values: dict[str, float]) -> str:
    """The first `REFINE_STEPS` steps of the page's background refinement, and what all of them take."""
    steps: list[float] = []
    last, reached = time.perf_counter(), tuner.sample
    for point in tuner.refine(TUNE_PRESET, window, values):
        steps.append(time.perf_counter() - last)
        last, reached = time.perf_counter(), point.sessions
        if len(steps) == REFINE_STEPS:
            break
    if not steps:
        return "nothing to refine"
    total = math.ceil((len(tuner.order) - tuner.sample) / max(tuner.sample, 1))
    return (f"{len(steps)} of its {total} steps (about {tuner.sample} sessions each, now on {reached}): "
            f"{statistics.mean(steps):.1f} s wall each, so every session after about "
            f"{statistics.mean(steps) * total:,.0f} s at this load")


def _final(path: str, out: Path, workers: int, engine: str) -> str:
    from ctxlab.replay import ReplayConfig, replay

    config = ReplayConfig((path,), FINAL_POLICIES, DEFAULT_WINDOWS, db=_fresh(out / "history-final.duckdb"),
                          workers=workers, engine=engine, limit=FINAL_SESSIONS, name="history-final")
    summary = replay(config)
    return f"{summary.conversations} sessions, {summary.units:,} units, {summary.errors} errors"


__all__ = ["CALLS", "FINAL_POLICIES", "SESSIONS", "WINDOW", "Figure", "history_file", "measured", "run_history",
           "tokenize_once"]
