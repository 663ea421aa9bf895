"""The report's last two sections: which policy to run (the front of needed-context recall against
effective cost, per window, with the recommendation) and what sessions cost with prompt caching (the cheapest
policy per dataset under each price model, the front by dollars, one session call by call)."""

from __future__ import annotations

import pandas as pd

from ctxlab.analysis import costs as C
from ctxlab.analysis import plots as P
from ctxlab.analysis.recommend import LIMIT_NOTE, frontier, recommend
from ctxlab.analysis.standin import StandinGap
from ctxlab.cost import input_price
from ctxlab.report import htmlkit as H

FRONT = {"label": "policy", "counter": "counter", "needed_recall": "needed recall", "needed_low": "low",
         "needed_high": "high", "in_context_recall": "in context", "non_regex_recall": "non-regex",
         "instruction_survival": "instructions kept", "tokens_sent": "tokens sent / session",
         "effective_tokens": "+ refetch", "fact_recall": "regex fact recall", "orphan_rate": "orphaned calls",
         "overflow_rate": "calls over window", "limit_recall": "hindsight limit", "headroom_closed": "headroom closed",
         "effective_usd": "$ / session + refetch"}
FRONT_KINDS = {"tokens_sent": "int", "effective_tokens": "int", "effective_usd": "float",
               **{c: "pct" for c in ("needed_recall", "needed_low", "needed_high", "in_context_recall",
                                     "non_regex_recall", "instruction_survival", "fact_recall", "orphan_rate",
                                     "overflow_rate", "limit_recall", "headroom_closed")}}


def policies_section(results: pd.DataFrame, sessions: pd.DataFrame, reference: str = "o200k_base",
                     standin: StandinGap | None = None) -> list[str]:
    """5. Per window of a per-turn run: the front and the recommendation (`ctxlab recommend`), with
    how kind the offline stand-in of summaries was on recorded compactions (`standin`)."""
    out = ["<h3>5. Which policy</h3>"]
    turns = results[results["mode"] == "per-turn"]
    if turns.empty or reference not in set(turns["reference"]):
        return [*out, H.para("No per-turn results: `ctxlab recommend SOURCE --window N` replays sessions call by "
                             "call and compares every policy.", "muted")]
    out.append(H.para("Sessions replayed call by call, each call graded by what the agent's recorded next action "
                      "used. Needed recall: the specific strings (paths, identifiers, numbers, flags) of that action "
                      "which only earlier history held, still sent, pooled over the calls (95% interval over "
                      "sessions; intervals that overlap are a tie, and the cheapest of the tied is recommended); in "
                      "context: with the line they stood on; non-regex: those ctxlab's fact regexes would not "
                      f"extract. Tokens sent: the sum over a session's calls, counted with {reference}; + refetch: "
                      "plus the tokens of the smallest earlier message holding each lost string. Regex fact recall "
                      "is ctxlab's own extractors, kept for comparison. Orphaned or over-window calls are requests a "
                      "provider rejects. Definitions and caveats: docs/quality.md."))
    out.append(H.para(LIMIT_NOTE))
    if standin is not None:
        out.append(H.para(f"Summaries written offline (the stand-in): {standin.line()}.",
                          "warn" if standin.kinder else "note"))
    model = _first_model(sessions)
    for window in sorted(int(b) for b in turns["window"].unique()):
        costs = sessions[(sessions["window"] == window) & (sessions["price_model"] == model)] if model else None
        front = frontier(turns[turns["window"] == window], reference, costs,
                         input_price(model) if model else None)
        front = front.sort_values("needed_recall", ascending=False, ignore_index=True)
        choice = recommend(front)
        out.append(f"<h4>Window {window:,} tokens</h4>")
        if choice is not None:
            out.append(H.para(f"Recommended: {choice.label} ({choice.counter}). {choice.evidence}", "note"))
        x, label = (("effective_usd", f"$ per session with prompt caching + refetch ({model})") if model
                    else ("effective_tokens", "tokens sent + refetch per session"))
        out.append(H.figure(P.png(P.policy_front(front, x=x, xlabel=label, chosen=choice.label if choice else None)),
                            "policy front"))
        columns = {k: v if k != "effective_usd" else f"$ / session + refetch ({model})" for k, v in FRONT.items()
                   if k in front}
        out.append(H.table(front, columns, FRONT_KINDS, left=("label", "counter")))
    return out


def costs_section(sessions: pd.DataFrame, units: pd.DataFrame) -> list[str]:
    """6. The cheapest policy per dataset under each price model, and one session call by call."""
    out = ["<h3>6. What a session costs, with prompt caching</h3>"]
    if sessions.empty:
        return [*out, H.para("This run priced nothing: replay --mode per-turn --price-model MODEL.", "muted")]
    out += [H.para("Every call a policy sends, billed by the model's prices from litellm's map, with its prompt "
                   "cache: the part of a call equal to the previous call's prompt is a cache read; Anthropic bills "
                   "the rest as a cache write (1.25x input), OpenAI reads cached prefixes at a discount. A policy "
                   "that rewrites the front of its prompt pays writes again, so fewest tokens and cheapest session "
                   "can differ."),
            H.table(C.cheapest(sessions), {"dataset": "dataset", "price_model": "price model", "label": "cheapest",
                                           "counter": "counter", "window": "window", "cost_usd": "$ / session",
                                           "tied": "others as cheap", "baseline_cost_usd": "$ without compression",
                                           "saving": "saving"},
                    {"window": "int", "cost_usd": "float", "tied": "int", "baseline_cost_usd": "float",
                     "saving": "pct"},
                    left=("dataset", "price_model", "label", "counter"))]
    for model in sorted(sessions["price_model"].unique()):
        table = C.variant_costs(sessions[sessions["price_model"] == model]).sort_values(["window", "cost_usd"])
        out.append(H.details(f"{model}: mean per session, every policy", H.table(
            table.drop(columns=["price_model"]), kinds={"sessions": "int", "calls": "ms", "cost_usd": "float",
                                                       "cache_read_share": "pct", **dict.fromkeys(C.TOKENS, "int")},
            left=("label", "counter"), scroll=True)))
    if not units.empty:
        seq, dataset = _longest_session(units)
        model = units["price_model"].iloc[0]
        one = units[(units["seq"] == seq) & (units["dataset"] == dataset)]
        one = one[one["window"] == one["window"].max()]
        out += [H.para(f"One session ({one['conversation_id'].iloc[0]}, {dataset}) call by call under {model}, "
                       f"window {int(one['window'].iloc[0]):,}."),
                H.figure(P.png(P.session_cost(C.cumulative(one), price_model=model)), "session cost")]
    return out


def _first_model(sessions: pd.DataFrame) -> str | None:
    return sorted(sessions["price_model"].unique())[0] if not sessions.empty else None


def _longest_session(units: pd.DataFrame) -> tuple[int, str]:
    calls = units.groupby(["dataset", "seq"]).size().sort_values(ascending=False)
    dataset, seq = calls.index[0]
    return int(seq), str(dataset)


__all__ = ["costs_section", "policies_section"]
