"""`ctxlab tune`: search an agent preset's own knobs on the user's sessions at their window, and
print the front, the pick beside the agent's default, and the pick in the agent's own terms."""

from __future__ import annotations

import shlex
from typing import Annotated, Any

import typer

from ctxlab.cli.app import command
from ctxlab.cli.common import Db, Limit, Reference, SkipInvalid, Skips, console, df_table, print_skips
from ctxlab.cli.sessions import NEWEST, FromAgent, LogSources, Newest, sources_from
from ctxlab.replay.config import DEFAULT_COUNTER, DEFAULT_WORKERS

SHOWN = ("needed_recall", "ci", "in_context_recall", "non_regex_recall", "instruction_survival", "tokens_sent",
         "effective_tokens")
RATES = ("orphan_rate", "overflow_rate")


@command()
def tune(
    sources: LogSources = None,
    *,
    from_agent: FromAgent = None,
    newest: Newest = NEWEST,
    policy: Annotated[str, typer.Option(help="The agent preset whose knobs to search (ctxlab strategies "
                                             "--details; docs/tuning.md lists their knobs).", show_default=False)],
    window: Annotated[int, typer.Option(help="Your model's context window in tokens.", show_default=False)],
    price_model: Annotated[str | None, typer.Option(
        help="Bill every call by this litellm model with prompt caching; the cost is then dollars + refetch.",
        show_default=False)] = None,
    trials: Annotated[int | None, typer.Option(
        help="Settings the optimizer tries beyond two knobs [default: 40]; a grid searches two or fewer.",
        show_default=False)] = None,
    knob: Annotated[list[str] | None, typer.Option(
        help="Search only this knob (the agent's name; repeatable) [default: every searchable one].",
        show_default=False)] = None,
    seed: Annotated[int, typer.Option(help="The optimizer's seed.")] = 0,
    reference: Reference = DEFAULT_COUNTER,
    db: Db = None,
    limit: Limit = None,
    skip_invalid: SkipInvalid = False,
    halving: Annotated[bool | None, typer.Option(
        "--halving/--no-halving", help="Successive halving over sessions: every setting on a stratified sample "
                                       "first, a third kept per rung, the pick re-checked on every session "
                                       "[default: from 48 sessions on].", show_default=False)] = None,
    workers: Annotated[int, typer.Option(
        help="Replay each setting's sessions in this many forked processes, each keeping its sessions "
             "prepared (0 or 1 = in this process).")] = DEFAULT_WORKERS,
) -> None:
    """Tune your agent's own compaction settings on your sessions: every setting replayed turn by
    turn, scored by needed-context recall, instruction survival and effective cost; the front, the
    pick beside the agent's default, and the pick as a snippet to paste."""
    from ctxlab import store
    from ctxlab.tune import DEFAULT_TRIALS, Sessions
    from ctxlab.tune.run import tune as run

    sources = sources_from(sources, from_agent, newest)
    sessions = Sessions.load(sources, limit=limit, skip_invalid=skip_invalid)
    out = console()
    out.print(f"Tuning {policy} at a {window:,}-token window over {len(sessions):,} session(s) "
              f"({sessions.calls:,} calls) from {', '.join(sources)}: every setting replayed call by call "
              f"({reference} counts), cost = {_cost_words(price_model)}.", markup=False)
    firsts: list[int] = []

    def first_pick(result: Any, pending: int) -> None:
        if result.pick is None:
            return
        firsts.append(result.pick.row)
        out.print(f"First pick, on every session beside the default: {_setting(result, result.pick.row)}. "
                  f"{result.pick.evidence} Still checking {pending} other contender(s) on every session.",
                  markup=False, highlight=False)

    outcome = run(sessions, policy, window=window, price_model=price_model, reference=reference, knobs=knob,
                  trials=trials or DEFAULT_TRIALS, seed=seed, db=db or store.default_db(), halving=halving,
                  workers=workers, on_first_pick=first_pick)
    print_outcome(outcome, sources, db or store.default_db())
    final = outcome.result.pick.row if outcome.result.pick is not None else None
    if firsts and final is not None:
        same = "the same as" if final == firsts[0] else "not"
        out.print(f"\nThe pick, with every contender on every session, is {same} the first pick "
                  f"({_setting(outcome.result, firsts[0])}).", markup=False, highlight=False)
    print_skips(Skips((f"{s.dataset}: {s.where}", s.reason) for s in sessions.skips))


def _setting(result: Any, row: int) -> str:
    """A setting as `#row knob=value, ...` in the agent's terms."""
    from ctxlab.tune.evidence import written

    values = result.evaluations[row].setting.values
    knobs = ", ".join(f"{name}={written(value)}" for name, value in values.items())
    default = ", the agent's default" if row == result.default else ""
    return f"#{row} ({knobs}{default})"


def _cost_words(price_model: str | None) -> str:
    return (f"dollars with prompt caching ({price_model}) + refetch at its input price" if price_model
            else "tokens sent + refetch")


def print_outcome(outcome: Any, sources: list[str], db: str) -> None:
    """The front, the pick with its evidence beside the agent's default, the snippets, and how to
    replay any front setting alone."""
    from ctxlab.tune import knobs_for, render_snippets
    from ctxlab.tune.run import front_frame

    result, evaluator = outcome.result, outcome.evaluator
    out = console()
    out.print(_searched(outcome), markup=False)
    for why in _held(outcome):
        out.print(f"Not searched at this window: {why}", markup=False)
    out.print()
    front = front_frame(outcome)
    out.print(df_table(_shown(front, outcome), f"The front: nothing else keeps as much of what the next action needed for "
                                      f"less ({_axis(evaluator)}); cheapest first; ties: zero inside the 95% "
                                      "interval of the difference on both axes (paired over sessions)",
                       _headers(front, outcome)))
    if result.pick is None:
        out.print("[yellow]no setting produced a needed-context recall to compare (no needed strings)[/yellow]")
        return
    pick = result.evaluations[result.pick.row]
    out.print(f"\n[bold]pick: #{result.pick.row}[/bold]  {result.pick.evidence}", highlight=False)
    if result.pick.row != result.default:
        beside = _frame_rows(outcome, [result.pick.row, result.default])
        out.print(df_table(_shown(beside, outcome), "The pick beside the agent's default", _headers(beside, outcome)))
    entry = knobs_for(result.preset)
    out.print(f"\n[bold]In {entry.agent}'s own terms[/bold] (the pick, #{result.pick.row}):")
    for snippet in render_snippets(result.preset, pick.setting.params, result.window):
        out.print(f"\n{snippet.title} (names from {snippet.source}):", markup=False, highlight=False)
        out.print(snippet.text, markup=False, highlight=False)
    _print_specs(outcome, front, sources)
    stored = f"; search {outcome.search_id}" if outcome.search_id else ""
    out.print(f"\nEvery setting is a run in {db} ({outcome.written} written now{stored}): `ctxlab dashboard --db "
              f"{db}` shows the searched front on its Tuning page.", markup=False)


def _searched(outcome: Any) -> str:
    result = outcome.result
    names = list(result.searched)
    how = {"grid": "a grid", "halving": "a grid halved over sessions (the sessions column says how many each "
                                        "setting rests on; the pick and the default rest on all)"}.get(
        result.method, "optuna's seeded TPE")
    return (f"Searched {' x '.join(names) or 'nothing'} with {how}: {len(result.evaluations)} settings (the "
            f"agent's default first), {outcome.replayed} replayed now, {outcome.reused} read back from the store, "
            f"in {outcome.seconds:.1f} s.")


def _held(outcome: Any) -> list[str]:
    """Why a searchable knob the search left out stays at the preset's value (its span is empty here)."""
    from ctxlab.tune.live import fixed

    result = outcome.result
    return [why for name, why in fixed(result.preset, result.window).items() if name not in result.searched]


def _axis(evaluator: Any) -> str:
    return (f"$ per session with prompt caching + refetch, {evaluator.price_model}" if evaluator.price_model
            else "tokens sent + refetch per session")


def _frame_rows(outcome: Any, rows: list[int]) -> Any:
    from ctxlab.tune.run import evaluations_frame

    return evaluations_frame(outcome).iloc[rows].reset_index(drop=True)


def _shown(frame: Any, outcome: Any) -> Any:
    """The rows as `ctxlab recommend` prints them, with the setting's number, role, knobs and ties
    (knob columns renamed ``knob_<i>``: a table row is read by attribute)."""
    from ctxlab.cli.fronts import percents

    shown = percents(frame)
    shown["number"] = frame["evaluation"].map("#{}".format)
    shown["role"] = ["pick" if p else "default" if d else "" for p, d in zip(frame["pick"], frame["default"],
                                                                             strict=True)]
    shown["tied"] = [_ties(ties) for ties in frame["ties"]]
    for i, name in enumerate(_knobs(outcome)):
        shown[f"knob_{i}"] = frame[name].astype(str)
    if "effective_usd" in frame:
        shown["effective_usd"] = frame["effective_usd"].map("${:,.4f}".format)
    return shown


def _ties(ties: Any, listed: int = 3) -> str:
    names = [f"#{t}" for t in ties]
    more = f" +{len(names) - listed}" if len(names) > listed else ""
    return ", ".join(names[:listed]) + more if names else "-"


def _knobs(outcome: Any) -> list[str]:
    return list(outcome.result.evaluations[0].setting.values) if outcome.result.evaluations else []


def _headers(frame: Any, outcome: Any) -> dict[str, str]:
    from ctxlab.cli.fronts import FRONT_HEADERS

    headers = {"number": "#", "role": "", **{f"knob_{i}": k for i, k in enumerate(_knobs(outcome))},
               "sessions": "sessions", **{k: FRONT_HEADERS[k] for k in SHOWN}}
    if "effective_usd" in frame:
        headers["effective_usd"] = f"$ / session + refetch ({outcome.evaluator.price_model})"
    return {**headers, **{k: FRONT_HEADERS[k] for k in RATES}, "tied": "tied with"}


def _print_specs(outcome: Any, front: Any, sources: list[str]) -> None:
    """Each front setting as a strategy spec, and the command that replays one alone."""
    evaluator = outcome.evaluator
    out = console()
    out.print("\nThe front's settings as strategy specs; any of them replayed alone gives the numbers above:",
              markup=False)
    for row in front.itertuples():
        out.print(f"  #{row.evaluation}  {row.label}", markup=False, highlight=False)
    price = f" --price-model {evaluator.price_model}" if evaluator.price_model else ""
    example = front["label"].iloc[0] if len(front) else outcome.result.preset
    out.print(f"  ctxlab recommend {' '.join(map(shlex.quote, sources))} --window {evaluator.window}{price} "
              f"--reference {evaluator.reference} --strategy {shlex.quote(example)}", markup=False, highlight=False)
