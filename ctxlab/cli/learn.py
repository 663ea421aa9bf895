"""`ctxlab learn`: fit a keep-policy's need model on your earlier sessions and judge it on the later ones,
at equal tokens against recommended's curve, every anchor, your agent's own policy and the hindsight limit."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from ctxlab.cli.app import command
from ctxlab.cli.common import Db, Limit, SkipInvalid, console, df_table
from ctxlab.cli.sessions import NEWEST, FromAgent, LogSources, Newest, sources_from
from ctxlab.replay.config import DEFAULT_COUNTER

DEFAULT_RECOMMENDED = "recommended:trigger_events=60"  # recommended's default among its curve of settings

_SHOWN = {"policy": "policy", "tokens_sent": "tokens sent / session", "needed": "needed recall [95% CI]",
          "in_context": "in context [95% CI]", "non_regex": "non-regex [95% CI]", "overflow_rate": "over window",
          "limit_recall": "hindsight limit at its tokens", "headroom_closed": "headroom closed"}
_VERSUS = {"measure": "measure", "learned_shown": "learned", "recommended_shown": "recommended at learned's tokens",
           "difference": "learned - it (points)", "verdict": "verdict (pooled)", "sessions": "sessions W/T/L/out"}
_ANCHORS = {"anchor": "policy", "anchor_tokens": "its tokens / session", "anchor_shown": "its needed recall",
            "candidate_shown": "learned's curve at its tokens", "verdict": "verdict", "sessions": "sessions W/T/L/out",
            "in_context": "in context: verdict, learned - it, W/T/L", "non_regex": "non-regex: verdict, learned - it, W/T/L"}


@command()
def learn(
    sources: LogSources = None,
    *,
    from_agent: FromAgent = None,
    newest: Newest = NEWEST,
    out: Annotated[str, typer.Option(help="Where to write the fitted model (JSON).", show_default=False)],
    window: Annotated[list[int] | None, typer.Option(
        help="Context windows the learned policy is judged at (repeatable) [default: 32000 64000].",
        show_default=False)] = None,
    split: Annotated[str, typer.Option(help="time: fit on the earliest sessions, judge on the rest; none: fit on "
                                            "all, judge nothing.")] = "time",
    train_share: Annotated[float, typer.Option(help="The share of sessions (earliest first) fitted on.")] = 0.7,
    policy: Annotated[str | None, typer.Option(
        help="Your agent's own policy, compared at equal tokens [default: the preset of the judged logs' agent].",
        show_default=False)] = None,
    horizon: Annotated[int, typer.Option(help="Calls ahead whose needed strings label an old output.")] = 10,
    reference: Annotated[str, typer.Option(help="Real tokenizer that counts what is sent.")] = DEFAULT_COUNTER,
    db: Db = None,
    limit: Limit = None,
    skip_invalid: SkipInvalid = False,
) -> None:
    """Learn what your agent will need from your own sessions: fit a need model on the earlier
    sessions (by start time), write it, and judge `learned:model=OUT` on the later ones at equal
    tokens against recommended's curve of settings, every anchor, your agent's own policy and the
    hindsight limit (a bound that uses the future)."""
    from ctxlab import store
    from ctxlab.learn import learn as run

    chosen = sources_from(sources, from_agent, newest)
    with _Ticker() as tick:
        outcome = run(chosen, out, windows=tuple(window or (32_000, 64_000)), how=split, train_share=train_share,
                      policy=policy, horizon=horizon, reference=reference, db=db or store.default_db(),
                      skip_invalid=skip_invalid, limit=limit, tick=tick)
    show(outcome, db or store.default_db())


class _Ticker:
    """A rich progress bar per phase (reading examples, judging), on stderr."""

    def __enter__(self) -> Any:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        err = Console(stderr=True)
        self.bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                            console=err, transient=True, disable=not err.is_terminal)
        self.bar.__enter__()
        self.tasks: dict[str, Any] = {}
        return self

    def __call__(self, phase: str, total: int) -> None:
        if total >= 0:
            label = {"examples": "training examples (sessions)", "judging": "judging (later sessions)"}.get(phase, phase)
            self.tasks[phase] = self.bar.add_task(label, total=total)
        elif phase in self.tasks:
            self.bar.advance(self.tasks[phase])

    def __exit__(self, *exc: Any) -> None:
        self.bar.__exit__(*exc)


def show(outcome: Any, db: str) -> None:
    """Print what was fitted on what, the model's ranking, and the judgment per window."""
    from ctxlab.learn.fit import importances

    out = console()
    parts = outcome.split
    out.print(_sides(outcome), markup=False, highlight=False)
    train, test = outcome.train_ranking, outcome.test_ranking
    later = (f"; on the later sessions' {test.examples:,} outputs {_num(test.auc)} (recency {_num(test.recency_auc)})"
             if parts.test else "")
    out.print(f"\nFitted on {train.examples:,} old tool outputs at sampled calls ({100 * train.positive:.0f}% held a "
              f"string needed within {outcome.model.about.get('horizon_calls')} calls that the newest events did not): "
              f"ROC AUC {_num(train.auc)} on them (recency alone {_num(train.recency_auc)}){later}.", markup=False)
    top = ", ".join(f"{name} {coef:+.2f}" for name, coef in importances(outcome.model)[:6])
    out.print(f"Largest standardized coefficients: {top}.", markup=False)
    out.print(f"Wrote {outcome.out}: the policy is `learned:model={outcome.out}` "
              f"(no LLM; scores outputs from the history so far).", markup=False)
    if outcome.front.empty:
        why = "--split none judges nothing" if not parts.test else "the later sessions need no string"
        out.print(f"\nNot judged: {why}. Judge it with `ctxlab recommend SESSIONS --window N --strategy "
                  f"learned:model={outcome.out}`.", markup=False)
        return
    for window in sorted(outcome.front["window"].unique()):
        _window(outcome, int(window))
    out.print(f"\nStored in {db}: learn {outcome.learn_id}, judging run {outcome.run_id} (`ctxlab dashboard --db "
              f"{db}`); {outcome.wall_s:.0f} s wall, {outcome.cpu_s:.0f} s CPU in this process. The hindsight "
              "limit uses the future (horizon: the next call); it is a bound, never a policy.", markup=False)


def _sides(outcome: Any) -> str:
    from ctxlab.learn.outcome import session_name

    sessions, parts = outcome.sessions, outcome.split
    lines = [f"Read {len(sessions.items):,} session(s) from {', '.join(sessions.sources)}."]
    how = "by start time (undated sessions judged, never fitted on)" if parts.test else "all of them (no split)"
    lines.append(f"Fitted on {len(parts.train)} session(s), {how}:")
    lines += [f"  {session_name(sessions, i)}" for i in parts.train]
    if parts.test:
        lines.append(f"Judged on the {len(parts.test)} later session(s):")
        lines += [f"  {session_name(sessions, i)}" for i in parts.test]
    return "\n".join(lines)


def _window(outcome: Any, window: int) -> None:
    from ctxlab.metrics.limit import reading

    out = console()
    front = outcome.front[outcome.front["window"] == window]
    names = {outcome.learned: "learned", DEFAULT_RECOMMENDED: "recommended (its default)",
             **({outcome.policy: f"{outcome.policy} (your agent's)"} if outcome.policy else {})}
    rows = front[front["label"].isin(list(names))].copy()
    rows["policy"] = rows["label"].map(names)
    for key, low, high, name in (("needed_recall", "needed_low", "needed_high", "needed"),
                                 ("in_context_recall", "in_context_recall_low", "in_context_recall_high", "in_context"),
                                 ("non_regex_recall", "non_regex_recall_low", "non_regex_recall_high", "non_regex")):
        rows[name] = [_ci(v, lo, hi) for v, lo, hi in zip(rows[key], rows[low], rows[high], strict=True)]
    for key in ("overflow_rate", "limit_recall", "headroom_closed"):
        rows[key] = rows[key].map(_pct)
    out.print()
    out.print(df_table(rows, f"At a {window:,}-token window, on the later sessions (95% CI over sessions; the "
                             "hindsight limit uses the future: the most needed strings any policy could send at "
                             "those tokens, horizon the next call)", _SHOWN))
    out.print(reading(dict(zip(front["label"], front["limit_recall"], strict=True))), markup=False)
    versus = outcome.versus[outcome.versus["window"] == window].copy()
    versus["learned_shown"] = [_ci(v, lo, hi) for v, lo, hi in
                               zip(versus["learned"], versus["learned_low"], versus["learned_high"], strict=True)]
    versus["recommended_shown"] = [_ci(v, lo, hi) for v, lo, hi in zip(
        versus["recommended"], versus["recommended_low"], versus["recommended_high"], strict=True)]
    versus["sessions"] = [f"{w}/{t}/{lo}/{o}" for w, t, lo, o in
                          zip(versus["won"], versus["tied"], versus["lost"], versus["out"], strict=True)]
    versus["difference"] = versus["difference"].map(lambda d: "-" if d != d else f"{d:+.1f}")
    out.print(df_table(versus, "learned against recommended's curve of settings read at learned's tokens sent",
                       _VERSUS))
    _anchors(outcome, window)
    _verdict(outcome, window, front)


def _anchors(outcome: Any, window: int) -> None:
    from ctxlab.cli.recommend import _tally, _verdict

    table = outcome.anchors[outcome.anchors["window"] == window]
    if table.empty:
        return
    needed = table[table["measure"] == "needed_recall"].reset_index(drop=True)
    shown = needed.assign(
        anchor_shown=[_ci(v, lo, hi) for v, lo, hi in zip(needed["anchor_recall"], needed["anchor_low"],
                                                         needed["anchor_high"], strict=True)],
        candidate_shown=needed["candidate_recall"].map(_pct), sessions=_tally(needed),
        **{y.removesuffix("_recall"): _verdict(table[table["measure"] == y].reset_index(drop=True))
           for y in ("in_context_recall", "non_regex_recall")})
    console().print(df_table(shown, "learned's curve of settings at each policy's tokens sent (needed recall; "
                                    "sessions won / tied / lost / out of range)", _ANCHORS))


def _verdict(outcome: Any, window: int, front: Any) -> None:
    from ctxlab.learn.verdicts import accepted

    learned = front[front["label"] == outcome.learned]
    over = {window: float(learned["overflow_rate"].iloc[0])} if len(learned) else {}
    ok = accepted(outcome.versus, over).get(window)
    console().print(f"The issue's check at {window:,}: fewer than 5% of learned's calls over the window, +1 point or "
                    f"more over recommended's curve at its tokens on needed and in-context recall, no more sessions "
                    f"lost than won: {'met' if ok else 'not met'}.", markup=False)


def _ci(value: float, low: float, high: float) -> str:
    if value is None or value != value:
        return "-"
    bounds = f" [{100 * low:.1f}-{100 * high:.1f}]" if low == low and high == high else ""
    return f"{100 * value:.1f}%{bounds}"


def _pct(value: Any) -> str:
    return "-" if value is None or value != value else f"{100 * value:.1f}%"


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"
