"""Commands over datasets and token counters: estimate, calibrate, validate, counters, strategies,
generate. They parse, call the library, and print with rich; no logic worth repeating lives here."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from ctxlab.cli.app import command
from ctxlab.cli.common import (
    Limit,
    SkipInvalid,
    Skips,
    Sources,
    console,
    load_sources,
    numeric_table,
    print_skips,
    progress,
)
from ctxlab.errors import CtxlabError
from ctxlab.tokens import ESTIMATORS, get_counter

COUNTER_NOTES = {
    "chars4": "seed 000 (Go): (runes + 3) / 4 per message",
    "chars2": "seed 001 (Python): len // 2 per block, +4 per message",
    "chars3": "seed 003 (TypeScript): ceil(UTF-16 length / 3), tool calls as JSON",
    "ascii_cjk": "seed 004 (Electron): ascii / 4 + non-ascii, +10 per message, +50 per tool call",
    "o200k_base": "tiktoken o200k_base (gpt-4o family) + OpenAI chat overhead",
    "cl100k_base": "tiktoken cl100k_base (gpt-4, gpt-3.5) + OpenAI chat overhead",
    "claude_legacy": "legacy Claude tokenizer shipped by litellm + OpenAI chat overhead",
    "calibrated": "character-class model fitted by ctxlab against o200k_base",
    "calibrated:<ref|path>": "the calibrated model for another reference or a calibration file",
    "hf:<tokenizer.json>": "any Hugging Face tokenizer file + OpenAI chat overhead",
    "pi_chars4": "pi-mono estimateTokens: ceil(UTF-16 chars / 4) per message, calls as JSON",
    "codex_bytes4": "Codex approx_token_count: ceil(UTF-8 bytes / 4)",
    "langchain_approx": "LangChain count_tokens_approximately: ceil(chars / 4) + 3 per message",
    "langchain_approx_claude": "LangChain's Anthropic setting: ceil(chars / 3.3) + 3 per message",
    "inspect_o200k": "inspect_ai count_text_tokens: o200k_base x 1.1 per message, tools as JSON",
    "gemini_chars4": "Gemini CLI estimateTokenCountSync: ASCII / 4 + other x 1.5, responses as JSON / 4",
    "cline_json3": "Cline estimateTokens: ceil(JSON.stringify(message) / 3), at least 1",
    "opencode_chars4": "opencode Token.estimate: round(chars / 4) of the text",
}


@command()
def estimate(
    sources: Sources,
    reference: Annotated[list[str], typer.Option(help="Reference tokenizer(s).")] = ["o200k_base"],  # noqa: B006
    counter: Annotated[list[str] | None, typer.Option(
        help="Estimator(s) to measure.", show_default=", ".join([*ESTIMATORS, "calibrated"]))] = None,
    by: Annotated[str, typer.Option(help="Break the error down by: counter, kind or language.")] = "kind",
    limit: Limit = None,
    skip_invalid: SkipInvalid = False,
) -> None:
    """How wrong each token estimator is against a real tokenizer, overall and by content kind."""
    import pandas as pd

    from ctxlab.metrics.estimator import conversation_rows, message_rows

    if by not in ("counter", "kind", "language"):
        raise CtxlabError(f"--by must be counter, kind or language, not {by!r}")
    counters = [get_counter(name) for name in counter or [*ESTIMATORS, "calibrated"]]  # bad names fail now
    references = [get_counter(name) for name in reference]
    rows, requests, skips, conversations = [], [], Skips(), 0
    for conversation in progress(load_sources(sources, skip_invalid, skips, limit), "Counting tokens"):
        rows += message_rows(conversation, counters, references)
        requests += conversation_rows(conversation, counters, references)
        conversations += 1
    if not rows:
        raise CtxlabError("no conversations to measure")
    df, whole = pd.DataFrame(rows), pd.DataFrame(requests)
    for ref in dict.fromkeys(df["reference"]):
        _print_estimates(df[df["reference"] == ref], whole[whole["reference"] == ref], ref, by, conversations,
                         sources)
    print_skips(skips)


@command()
def calibrate(
    sources: Sources,
    out: Annotated[Path, typer.Option(help="Where to write the calibration JSON.", show_default=False)],
    reference: Annotated[str, typer.Option(help="Tokenizer to fit against, or provider:<model> (provider:* for "
                                                "every model) to fit on the token counts agent logs recorded.")
                         ] = "o200k_base",
    holdout: Annotated[list[str] | None, typer.Option(help="Held-out source(s) to report error on.")] = None,
    limit: Limit = None,
    skip_invalid: SkipInvalid = False,
) -> None:
    """Fit the calibrated estimator against a reference tokenizer (or a provider's billed counts)
    and compare it with the seeds."""
    from ctxlab.datasets import describe_source
    from ctxlab.metrics.provider import is_provider

    skips = Skips()
    train = list(progress(load_sources(sources, skip_invalid, skips, limit), "Reading training data"))
    held = list(progress(load_sources(holdout, skip_invalid, skips, limit), "Reading held-out data")) if holdout else []
    names = ", ".join(f"{s} ({describe_source(s).fingerprint})" for s in sources)
    if is_provider(reference):
        _calibrate_provider(train, held, reference, out, names)
    else:
        _calibrate_tokenizer(train, held, reference, out, names)
    print_skips(skips)


def _calibrate_tokenizer(train: list, held: list, reference: str, out: Path, names: str) -> None:
    from ctxlab.tokens.calibrated import CalibratedCounter, fit_calibration

    fitted_on = f"{names}: {len(train)} conversations, {sum(len(c.messages) for c in train)} messages"
    calibration = _fit_and_save(lambda: fit_calibration(train, reference, fitted_on=fitted_on),
                                f"Fitting against {reference}...", out, fitted_on, "messages")
    estimators = [CalibratedCounter(calibration, "calibrated (new)"), *(get_counter(n) for n in ESTIMATORS)]
    columns = {"train MAPE": _mapes(train, estimators, reference)}
    if held:
        columns["held-out MAPE"] = _mapes(held, estimators, reference)
    _print_mapes(f"Per-message error against {reference}", estimators, columns)


def _calibrate_provider(train: list, held: list, reference: str, out: Path, names: str) -> None:
    """Robust fit on the deltas, k-fold held-out error by time, outliers, and the seeds beside it."""
    from ctxlab.metrics.calibration import FOLDS, compare, fit_provider_calibration, observations
    from ctxlab.tokens.calibrated import OUTLIER_ERROR, CalibratedCounter

    data = observations(train, reference)
    fitted_on = f"{names}: {len(train)} conversations, {len(data.actual)} provider deltas"
    calibration = _fit_and_save(lambda: fit_provider_calibration(data, reference, fitted_on=fitted_on),
                                f"Fitting against {reference} (and {FOLDS} held-out folds)...", out, fitted_on,
                                "provider deltas")
    seeds = [*ESTIMATORS, "o200k_base", "calibrated"]  # the reference tokenizers' own error is worth seeing
    comparison = compare(data, calibration, seeds)
    heldout = calibration.heldout_mape
    estimators = [CalibratedCounter(calibration, "calibrated (new)"), *(get_counter(n) for n in seeds)]
    columns = {"train MAPE": comparison.train,
               f"held-out MAPE ({FOLDS}-fold by time)": {**comparison.train, "calibrated (new)": heldout}}
    if held:
        columns["--holdout MAPE"] = _mapes(held, estimators, reference)
    _print_mapes(f"Per-delta error against {reference} ({comparison.n} deltas; the seeds are not fitted, so "
                 "every delta is held out for them)", estimators, {k: {n: v for n, v in c.items() if v is not None}
                                                                   for k, c in columns.items()})
    best, best_mape = comparison.best_seed(seeds)
    if heldout is None or heldout >= best_mape:
        shown = "not measured (too few deltas)" if heldout is None else f"{heldout:.1f}%"
        console().print(f"[yellow]warning:[/] held-out MAPE {shown} is not better than the best seed estimator "
                        f"({best}, {best_mape:.1f}%): do not trust this calibration over {best}")
    _print_outliers(calibration.outliers, OUTLIER_ERROR, out)


def _fit_and_save(fit: Callable[[], Any], status: str, out: Path, fitted_on: str, unit: str) -> Any:
    """Run `fit` under a status line, write the calibration, say where, and warn on too little data."""
    with console().status(status):
        calibration = fit()
    calibration.save(out)
    console().print(f"Wrote [bold]{out}[/] (fitted on {escape(fitted_on)}).")
    _warn_few(calibration.n_train, unit)
    return calibration


def _warn_few(n_units: int, unit: str) -> None:
    from ctxlab.tokens.calibrated import FEATURES

    weights = len(FEATURES) + 2  # the character classes, per-message and per-tool-call terms
    if n_units < 5 * weights:
        console().print(f"[yellow]warning:[/] {n_units} {unit} for {weights} weights: too few for a trustworthy fit, "
                        "so a low train MAPE means little; fit on more data and check the held-out error")


def _print_mapes(title: str, estimators: list, columns: dict[str, dict[str, float]]) -> None:
    table = numeric_table(escape(title), "estimator", *columns)
    for est in estimators:
        table.add_row(est.name, *(_pct(column[est.name]) if est.name in column else "-" for column in columns.values()))
    console().print(table)


def _print_outliers(outliers: tuple, threshold: float, out: Path) -> None:
    """The deltas the fit could not explain: where the log and the model of its messages disagree."""
    if not outliers:
        return
    console().print(f"\n{len(outliers)} delta(s) the fit treated as outliers (off by more than {threshold:.0%}; "
                    f"all listed in {escape(str(out))}):")
    for o in outliers[:10]:
        console().print(f"  {o.span}: estimate {o.estimate:,.0f}, actual {o.actual:,.0f}", markup=False)
    if len(outliers) > 10:
        console().print(f"  ... and {len(outliers) - 10} more")


@command()
def validate(
    sources: Sources,
    counter: Annotated[str, typer.Option(help="Counter for the token totals.")] = "o200k_base",
    limit: Limit = None,
    skip_invalid: SkipInvalid = False,
) -> None:
    """Check that sources load; count conversations, messages, tool calls and tokens."""
    tokens_of = get_counter(counter)
    table = numeric_table(f"Validation (tokens counted with {tokens_of.name})", "source", "conversations",
                          "messages", "tool calls", "tokens", "skipped")
    table.columns[0].overflow = "fold"
    all_skips = Skips()
    for source in sources:
        skips, totals = Skips(), [0, 0, 0, 0]
        for conv in progress(load_sources([source], skip_invalid, skips, limit), f"Reading {source}"):
            totals = [totals[0] + 1, totals[1] + len(conv.messages),
                      totals[2] + sum(len(m.tool_calls) for m in conv.messages),
                      totals[3] + tokens_of.count_messages(conv.messages, conv.tools)]
        table.add_row(source, *(f"{t:,}" for t in totals), f"[red]{len(skips)}[/]" if skips else "0")
        all_skips += skips
    console().print(table)
    print_skips(all_skips, show_all=True)


@command()
def counters() -> None:
    """List the token counters: exact tokenizers and estimators."""
    from ctxlab.tokens import EXACT, list_counters

    table = Table("name", "type", "what it counts", title="Token counters", title_justify="left")
    for name in [*list_counters(), "calibrated:<ref|path>", "hf:<tokenizer.json>"]:
        exact = name in EXACT or name.startswith("hf:")
        table.add_row(name, "[green]exact[/]" if exact else "[yellow]estimate[/]", COUNTER_NOTES.get(name, ""))
    console().print(table)


@command()
def strategies(
    details: Annotated[bool, typer.Option("--details", help="Only the parameters a preset changes, its source and its knobs.")
                       ] = False,
) -> None:
    """List the registered compression strategies with their parameters and defaults."""
    from ctxlab.strategies import get_strategy, list_strategies, strategy_params

    table = Table("name", "what it does, [dim]parameters (defaults)[/]", title="Strategies", title_justify="left")
    table.columns[1].overflow = "fold"
    for name in list_strategies():
        strategy = get_strategy(name)
        params = strategy_params(name)
        base = type(strategy).__mro__[1]
        if details and getattr(strategy, "source", None) is not None and dataclasses.is_dataclass(base):
            inherited = {f.name: f.default for f in dataclasses.fields(base)}
            params = {k: v for k, v in params.items() if inherited.get(k, object()) != v}
        shown = ", ".join(f"{k}={v!r}" for k, v in params.items()) or "(no parameters)"
        doc = (getattr(strategy, "about", "") or (type(strategy).__doc__ or "").strip()).splitlines()
        seed = getattr(strategy, "seed_counter", None)
        source = getattr(strategy, "source", None) if details else None
        tuning = strategy.tuning if details else None
        knobs = ", ".join(f"{k.name}={'unset' if k.default is None else k.default!r}" for k in tuning.knobs) \
            if tuning else ""
        table.add_row(f"[bold]{name}[/]" + (f"\n[dim]counter {seed}[/]" if seed else ""),
                      f"{escape(doc[0]) if doc else ''}\n[dim]{escape(shown)}[/]"
                      + (f"\n[cyan]source:[/] {escape(str(source))}" if source else "")
                      + (f"\n[cyan]knobs ({escape(tuning.agent)}):[/] {escape(knobs)}" if tuning else ""))
    console().print(table)


@command()
def generate(
    out: Annotated[Path, typer.Option(help="Output .jsonl file.", show_default=False)],
    kind: Annotated[str, typer.Option(help="agent, chat, mixed, or history (a user's whole agent history: long "
                                           "sessions shaped like real logs, with recorded usage and compactions).")
                    ] = "mixed",
    n: Annotated[int, typer.Option("--n", help="Number of conversations (sessions for --kind history).")] = 100,
    calls: Annotated[int, typer.Option(help="--kind history: provider calls over all sessions.")] = 100_000,
    seed: Annotated[int | None, typer.Option(help="Dataset seed.", show_default="the bundled samples' seed")] = None,
) -> None:
    """Write synthetic conversations (deterministic for a seed) to a JSONL file.

    ``ctxlab generate --kind history --n 500 --calls 100000 --out history.jsonl`` writes the user-scale
    history ``ctxlab bench --history`` measures on.
    """
    try:
        from ctxlab.datasets import synth
    except ImportError as exc:
        raise CtxlabError(f"the synthetic generator is not available ({exc})") from exc
    makers = {"agent": synth.generate_agent_sessions, "chat": synth.generate_chats, "mixed": synth.generate_mixed}
    if kind == "history":
        if calls < 3 * n:
            raise CtxlabError(f"--calls must be at least 3 per session ({3 * n:,} for {n:,} sessions), not {calls:,}")
        records = synth.generate_history(n, calls) if seed is None else synth.generate_history(n, calls, seed=seed)
    elif kind in makers:
        records = makers[kind](n) if seed is None else makers[kind](n, seed=seed)
    else:
        raise CtxlabError(f"--kind must be agent, chat, mixed or history, not {kind!r}")
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", encoding="utf-8", newline="\n") as f:
        for record in progress(records, f"Writing {out.name}", total=n):
            f.write(synth.dumps(record) + "\n")  # the bundled samples' exact format
    console().print(f"Wrote {n:,} {kind} conversations to [bold]{out}[/].")


def _mapes(conversations: list, estimators: list, reference: str) -> dict[str, float]:
    """MAPE of each estimator against the reference: per message, or per delta for a provider
    (empty when held-out data has no usable delta)."""
    import pandas as pd

    from ctxlab.metrics.estimator import error_table
    from ctxlab.metrics.provider import rows_against

    rows = rows_against(conversations, estimators, reference)
    return error_table(pd.DataFrame(rows)).set_index("counter")["mape_pct"].to_dict() if rows else {}


def _pct(value: float, signed: float | None = None) -> str:
    """A percentage colored by size; with `signed`, an arrow for the direction of the mean error."""
    color = "green" if value < 10 else "yellow" if value < 25 else "red"
    arrow = "" if signed is None else " ▲" if signed > 0 else " ▼"
    return f"[{color}]{value:.1f}%{arrow}[/]"


def _print_estimates(messages, requests, reference: str, by: str, conversations: int, sources: list[str]) -> None:
    """The overall table, the breakdown by kind or language, and the worst undercounts; `messages`
    are per-message rows, `requests` whole-conversation rows."""
    from ctxlab.metrics.estimator import KINDS, LANGUAGES, error_table

    overall = error_table(messages, "counter").set_index("counter")
    whole = error_table(requests, "counter").set_index("counter")
    n_messages = len(messages.drop_duplicates(["conversation_id", "message_id"]))
    console().print(f"\n[bold]Token estimators vs {reference}[/]  {', '.join(sources)} · "
                  f"{conversations:,} conversations · {n_messages:,} messages")
    table = numeric_table("Error per message", "estimator", "mean error", "MAPE", "p95 |error|", "undercounts",
                          "request MAPE")
    table.caption_justify, table.caption = "left", (
        "mean error > 0: overcounts. undercounts: share of messages counted low (they overflow real windows). "
        "request: whole conversations with tool definitions.")
    for name, row in overall.iterrows():
        request = _pct(whole.loc[name, "mape_pct"]) if name in whole.index else "-"
        table.add_row(name, f"{row.mean_signed_error_pct:+.1f}%", _pct(row.mape_pct),
                      f"{row.p95_abs_error_pct:.1f}%", f"{row.underestimate_share:.0%}", request)
    console().print(table)
    if by == "counter":
        return
    column, order = ("content_kind", KINDS) if by == "kind" else ("language", LANGUAGES)
    detail = error_table(messages, ["counter", column]).set_index(["counter", column])
    present = [k for k in order if k in set(messages[column])]
    counts = messages.drop_duplicates(["conversation_id", "message_id"])[column].value_counts()
    matrix = numeric_table(f"MAPE by {'content kind' if by == 'kind' else 'language'}",
                          "estimator", *(f"{k}\n[dim]n={counts.get(k, 0):,}[/]" for k in present))
    matrix.caption, matrix.caption_justify = "▲ overcounts on average, ▼ undercounts", "left"
    for name in overall.index:
        cells = [detail.loc[(name, k)] if (name, k) in detail.index else None for k in present]
        matrix.add_row(name, *("-" if c is None else _pct(c.mape_pct, c.mean_signed_error_pct) for c in cells))
    console().print()
    console().print(matrix)
    _print_undercounts(detail)


def _print_undercounts(detail) -> None:
    """One line per estimator that undercounts some kind by 15% or more on average."""
    lines = []
    for name in dict.fromkeys(detail.index.get_level_values(0)):
        worst = detail.loc[name]["mean_signed_error_pct"].sort_values()
        bad = [f"{kind} by {-err:.0f}%" for kind, err in worst.items() if err <= -15]
        if bad:
            lines.append(f"  [red]{name}[/] undercounts {', '.join(bad)}")
    if lines:
        console().print("\nUndercounts that overflow a real context window:")
        console().print("\n".join(lines))
