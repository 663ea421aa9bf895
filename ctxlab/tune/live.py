"""The live tuner behind the dashboard's Tuning page and notebook 04: sliders in the agent's own
names, and the setting they make evaluated over the sessions in this process.

    live = LiveTuner(Sessions.load(["~/.pi/agent/sessions"]))
    knobs = sliders("pi", 64_000)                          # name, span, step, the agent's default
    point = live.point("pi", 64_000, {"compaction.keepRecentTokens": 12_000})
    point.scored.row["needed_recall"], point.snippets

A `LiveTuner` keeps one `ctxlab.tune.evaluate.Evaluator` per window and price model, so a setting
seen before answers from memory and a new one replays only the policy (what no setting changes is
kept per session); nothing is written while sliding. `search` runs `ctxlab.tune.run.tune` with the
same evaluators, reading settings a ``ctxlab tune`` stored (never writing, unless asked).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any, NamedTuple

from ctxlab.errors import CtxlabError
from ctxlab.replay.config import DEFAULT_COUNTER
from ctxlab.tune import agents
from ctxlab.tune.agents import knobs_for
from ctxlab.tune.evaluate import Evaluator, Scored, spec_text
from ctxlab.tune.halving import stratified_order
from ctxlab.tune.run import TuneOutcome, tune
from ctxlab.tune.sessions import Sessions
from ctxlab.tune.snippets import Snippet, render_snippets, written_values
from ctxlab.tune.space import Setting, dimensions, held, setting

LIVE_CALLS = 1_500  # a knob change answers from a stratified sample of about this many calls


class Slider(NamedTuple):
    """One knob as a slider: the agent's name, its range at the window (the searched span, widened
    to hold the agent's default), its step, the default's position, and what it means."""

    name: str
    low: float
    high: float
    step: float
    default: float
    kind: str
    unit: str
    note: str


class Point(NamedTuple):
    """A setting and its numbers: the strategy spec, the knobs as written, the scores, the snippets,
    and how many of the sessions the numbers rest on (a stratified sample first, then all)."""

    setting: Setting
    label: str
    scored: Scored
    snippets: tuple[Snippet, ...]
    sessions: int = 0
    total: int = 0

    @property
    def complete(self) -> bool:
        """Whether the numbers rest on every session."""
        return self.sessions >= self.total


def tunable() -> list[str]:
    """The presets a live tuner can replay: those in the knob table that are registered."""
    return agents.tunable()


def sliders(preset: str, window: int) -> list[Slider]:
    """The searchable knobs of `preset` at `window` tokens, each at the agent's default (a knob with
    nothing to search at this window stays at the preset's value: `fixed` says why).

    Raises:
        CtxlabError: the preset cannot be tuned at this window (no knob left), naming why.
    """
    entry = knobs_for(preset)
    defaults = written_values(preset, {}, window)
    out = []
    for dim in dimensions(entry, window):
        knob = dim.knob
        number = knob.number(defaults[knob.name], window) if defaults[knob.name] is not None else None
        default = float(dim.high if number is None else number)
        out.append(Slider(knob.name, min(dim.low, default), max(dim.high, default), float(knob.step or 1), default,
                          knob.kind, knob.unit, knob.note))
    return out


def fixed(preset: str, window: int) -> dict[str, str]:
    """The knobs of `preset` left at the preset's value at `window` tokens, each with the reason."""
    return held(knobs_for(preset), window)


def moved(preset: str, window: int, values: Mapping[str, float]) -> dict[str, float]:
    """The knobs in `values` that are away from the agent's default (the rest stay as the preset has them)."""
    defaults = {s.name: s.default for s in sliders(preset, window)}
    return {name: value for name, value in values.items() if name in defaults and value != defaults[name]}


class LiveTuner:
    """Settings evaluated over one set of sessions, kept per window and price model (thread-safe).

    With more calls than `sample_calls`, a knob change answers from the first sessions of a
    stratified order (`ctxlab.tune.halving.stratified_order`) holding about that many calls;
    `refine` then extends the same setting to every session, a few sessions at a time (what it
    replayed is reused), for the page to run in the background.
    """

    def __init__(self, sessions: Sessions, reference: str = DEFAULT_COUNTER,
                 sample_calls: int | None = LIVE_CALLS) -> None:
        self.sessions, self.reference, self.sample_calls = sessions, reference, sample_calls
        self._evaluators: dict[tuple[int, str | None], Evaluator] = {}
        self._lock = threading.Lock()
        # Knob changes being answered: the background refinement waits while there is one.
        self._asking, self._answered = 0, threading.Condition()
        self.order = stratified_order(sessions)
        self.refining: Refinement | None = None
        calls = [sessions.calls_of(i) for i in self.order]
        self.sample = len(calls) if sample_calls is None else next(
            (m for m in range(1, len(calls) + 1) if sum(calls[:m]) >= sample_calls), len(calls))

    def evaluator(self, window: int, price_model: str | None) -> Evaluator:
        """The evaluator of `window` and `price_model` (made on first use, then kept)."""
        with self._lock:
            key = (window, price_model)
            if key not in self._evaluators:
                evaluator = Evaluator(self.sessions, window=window, reference=self.reference, price_model=price_model)
                evaluator.order = list(self.order)
                self._evaluators[key] = evaluator
            return self._evaluators[key]

    def point(self, preset: str, window: int, values: Mapping[str, float], price_model: str | None = None,
              sessions: int | None = None) -> Point:
        """The setting where the knobs in `values` sit at their numbers, evaluated on the first
        `sessions` of the order (default: the sample; a setting already evaluated on more keeps those).

        Raises:
            CtxlabError: a setting the agent's source forbids (OpenHands' keep_first < max_size // 2 - 1).
        """
        evaluator = self.evaluator(window, price_model)
        candidate, label = self._candidate(preset, window, values, evaluator)
        with self._answering():
            wanted = max(sessions or self.sample, evaluator.reached(candidate.key))
            scored = evaluator.evaluate(label, candidate.key, candidate, wanted)
            evaluator.pending.clear()  # the page never writes: stored settings come from `ctxlab tune`
        return Point(candidate, label, scored, render_snippets(preset, candidate.params, window),
                     min(wanted, len(self.order)), len(self.order))

    @staticmethod
    def _candidate(preset: str, window: int, values: Mapping[str, float], evaluator: Evaluator) -> tuple[Setting, str]:
        candidate = setting(preset, window, moved(preset, window, values), evaluator.scope)
        broken = knobs_for(preset).violations(candidate.values)
        if broken:
            raise CtxlabError(f"{preset} does not accept this setting: {'; '.join(broken)}")
        return candidate, spec_text(preset, candidate.params)

    @contextmanager
    def _answering(self) -> Iterator[None]:
        with self._answered:
            self._asking += 1
        try:
            yield
        finally:
            with self._answered:
                self._asking -= 1
                self._answered.notify_all()

    def refine(self, preset: str, window: int, values: Mapping[str, float], price_model: str | None = None,
               stop: threading.Event | None = None) -> Iterator[Point]:
        """The setting evaluated on ever more sessions, up to all: a point every `sample` sessions
        more. It replays one session at a time and pauses while a knob change is being answered, so
        that change waits for one session's replay at most (and the scoring of a step, if one is
        under way), never for a whole step; `stop` ends it between two sessions."""
        evaluator = self.evaluator(window, price_model)
        candidate, label = self._candidate(preset, window, values, evaluator)
        n = max(self.sample, evaluator.reached(candidate.key))
        while n < len(self.order):
            step = min(len(self.order), n + max(self.sample, 1))
            while n < step:
                with self._answered:
                    self._answered.wait_for(lambda: self._asking == 0)
                if stop is not None and stop.is_set():
                    return
                n = evaluator.advance(label, candidate.key, step)
            yield self.point(preset, window, values, price_model, n)

    def refine_in_background(self, preset: str, window: int, values: Mapping[str, float],
                             price_model: str | None = None) -> Refinement:
        """`refine` in a background thread (one at a time: a new setting stops the previous one after
        its current session); the same setting again returns the running refinement."""
        with self._lock:
            key = (preset, window, tuple(sorted(moved(preset, window, values).items())), price_model)
            running = self.refining
            if running is not None and running.key == key and (running.alive or running.error is None):
                return running
            if running is not None:
                running.cancelled.set()
            refining = self.refining = Refinement(key, self.sample, len(self.order))
            refining.start(lambda: self.refine(preset, window, values, price_model, refining.cancelled))
            return self.refining

    def default(self, preset: str, window: int, price_model: str | None = None) -> Point:
        """The agent's own default setting, evaluated."""
        return self.point(preset, window, {}, price_model)

    def search(self, preset: str, window: int, price_model: str | None = None, *, db: str | None = None,
               write: bool = False, **options: Any) -> TuneOutcome:
        """`ctxlab.tune.run.tune` over these sessions with the kept evaluator: settings stored in `db`
        are read back; nothing is written unless `write`."""
        evaluator = self.evaluator(window, price_model)
        outcome = tune(self.sessions, preset, window=window, price_model=price_model, reference=self.reference,
                       db=db, evaluator=evaluator, write=write, **options)
        if not write:
            evaluator.pending.clear()
        return outcome


class Refinement:
    """A setting being extended to every session in a background thread: how far it got."""

    def __init__(self, key: Any, sessions: int, total: int) -> None:
        self.key, self.sessions, self.total = key, sessions, total
        self.cancelled = threading.Event()
        self.error: Exception | None = None
        self._thread: threading.Thread | None = None

    def start(self, steps: Any) -> None:
        def run() -> None:
            try:
                for point in steps():
                    self.sessions = point.sessions
                    if self.cancelled.is_set():
                        return
            except Exception as exc:  # shown by the page; the sampled numbers stay valid
                self.error = exc

        self._thread = threading.Thread(target=run, name="ctxlab-refine", daemon=True)
        self._thread.start()

    @property
    def alive(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    @property
    def done(self) -> bool:
        """Whether every session is in (or the refinement stopped)."""
        return not self.alive


def beside(default: Point, current: Point) -> Any:
    """The agent's default and the current setting as two rows of their `frontier` columns."""
    import pandas as pd

    rows = [{"setting": "the agent's default", **default.scored.row}]
    if current.setting.key != default.setting.key:
        rows.append({"setting": "current", **current.scored.row})
    return pd.DataFrame(rows)


def stored_points(evaluations: Any) -> Any:
    """A stored search's settings (`ctxlab.store.tune_evaluations`) as chart points: each setting's
    `frontier` columns, with ``on_front``, ``evaluation`` and its spec as ``label``."""
    import pandas as pd

    if evaluations is None or len(evaluations) == 0:
        return pd.DataFrame()
    rows = [{**front, "evaluation": e, "on_front": bool(on), "label": label}
            for front, e, on, label in zip(evaluations["front"], evaluations["evaluation"], evaluations["on_front"],
                                           evaluations["label"], strict=True)]
    return pd.DataFrame(rows)


def matching_search(searches: Any, preset: str, window: int, scope: str) -> str | None:
    """The newest stored search of `preset` at `window` over the same sessions, reference and price
    model (`scope`), or None."""
    import json

    wanted = json.loads(scope)
    for row in searches.itertuples():
        stored = json.loads(row.scope) if isinstance(row.scope, str) else row.scope
        if row.preset == preset and int(row.window) == window and stored == wanted:
            return str(row.search_id)
    return None


__all__ = ["LIVE_CALLS", "LiveTuner", "Refinement", "Point", "Slider", "beside", "fixed", "matching_search", "moved", "sliders", "stored_points", "tunable"]
