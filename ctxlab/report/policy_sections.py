"""The report's last two sections: which policy to run (the front of needed-context recall against
effective cost, per window, with the recommendation) and what sessions cost with prompt caching (the cheapest
policy per dataset under each price model, the front by dollars, one session call by call)."""

from __future__ import annotations

import pandas as pd

from ctxlab.analysis import costs as C
from ctxlab.analysis import plots as P
from ctxlab.analysis.limits import LIMIT_NOTE
from ctxlab.analysis.recommend import Policies
from ctxlab.analysis.verdicts import RunPolicies
from ctxlab.analysis.wording import RULE, lines
from ctxlab.report import htmlkit as H
from ctxlab.report.verdicts import HOW, details

FRONT = {"label": "policy", "counter": "counter", "needed_recall": "needed recall", "needed_low": "low",
         "needed_high": "high", "in_context_recall": "in context", "non_regex_recall": "non-regex",
         "instruction_survival": "instructions kept", "tokens_sent": "tokens sent / session",
         "effective_tokens": "+ refetch", "fact_recall": "regex fact recall", "orphan_rate": "orphaned calls",
         "overflow_rate": "calls over window", "rejected_rate": "rejected calls", "limit_recall": "hindsight limit",
         "headroom_closed": "headroom closed", "effective_usd": "$ / session + refetch"}
OTHER_LINES = ("best recall", "cheapest")  # in the table below each window's verdict
FRONT_KINDS = {"tokens_sent": "int", "effective_tokens": "int", "effective_usd": "float",
               **{c: "pct" for c in ("needed_recall", "needed_low", "needed_high", "in_context_recall",
                                     "non_regex_recall", "instruction_survival", "fact_recall", "orphan_rate",
                                     "overflow_rate", "rejected_rate", "limit_recall", "headroom_closed")}}


def policies_section(found: RunPolicies | None) -> list[str]:
    """5. Per dataset and window of a per-turn run: the front and the verdict (`ctxlab recommend`):
    what to run, the findings it carries (the stand-in gap) and its evidence."""
    out = ["<h3>5. Which policy</h3>"]
    if found is None:
        return [*out, H.para(f"No per-turn results: {HOW}", "muted")]
    out.append(H.para("Sessions replayed call by call, each call graded by what the agent's recorded next action "
                      "used. Needed recall: the specific strings (paths, identifiers, numbers, flags) of that action "
                      "which only earlier history held, still sent, pooled over the calls (95% interval over "
                      f"sessions); in context: with the line they stood on; non-regex: those ctxlab's fact regexes "
                      f"would not extract. Tokens sent: the sum over a session's calls, counted with "
                      f"{found.reference}; + refetch: plus the tokens of the smallest earlier message holding each "
                      "lost string. Regex fact recall is ctxlab's own extractors, kept for comparison. Orphaned, "
                      f"over-window or failed calls are requests a provider rejects. {RULE}"))
    out.append(H.para(LIMIT_NOTE))
    for policies in found.windows:
        out += _window(policies, found.model)
    return out


def _window(policies: Policies, model: str | None) -> list[str]:
    front = policies.front.sort_values("needed_recall", ascending=False, ignore_index=True)
    v = policies.verdict
    window = int(front["window"].iloc[0]) if len(front) else 0
    dataset = f"{v.dataset}, " if v is not None and v.dataset else ""
    out = [f"<h4>{H.esc(dataset)}window {window:,} tokens</h4>"]
    if v is not None:
        shown = [line for line in lines(v) if line.key not in OTHER_LINES]  # what to run and the findings
        out += [H.para(" ".join(f"{line.key}: {line.text}." for line in shown), "note"), *details(v),
                H.para(v.evidence)]
    if v is None or v.needs_compression:
        x, label = (("effective_usd", f"$ per session with prompt caching + refetch ({model})") if model
                    else ("effective_tokens", "tokens sent + refetch per session"))
        out.append(H.figure(P.png(P.policy_front(front, x=x, xlabel=label, chosen=v.run.label if v else None)),
                            "policy front"))
    columns = {k: h if k != "effective_usd" else f"$ / session + refetch ({model})" for k, h in FRONT.items()
               if k in front}
    return [*out, H.details(f"Every policy ({len(front)})", H.table(front, columns, FRONT_KINDS,
                                                                    left=("label", "counter"), scroll=True),
                            open_=v is None or v.needs_compression)]


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
                                           "tied": "others tied on cost", "baseline_cost_usd": "$ without compression",
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


def _longest_session(units: pd.DataFrame) -> tuple[int, str]:
    calls = units.groupby(["dataset", "seq"]).size().sort_values(ascending=False)
    dataset, seq = calls.index[0]
    return int(seq), str(dataset)


__all__ = ["costs_section", "policies_section"]
