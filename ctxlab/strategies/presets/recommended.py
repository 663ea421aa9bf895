"""`recommended`: ctxlab's own policy, tuned to keep what the agent goes on to use for the tokens it sends.

Not an agent's: a composition of the policy model's mechanics, with the ``budget`` tail
(`ctxlab.strategies.mechanics.budget`) and referenced-line clearing (`ctxlab.strategies.mechanics.trail`,
`ctxlab.strategies.mechanics.refs`).

- Trigger: more than ``trigger_events`` (60) events (OpenHands' count: a tool call or a message
  each), or the request (its own counter, tool definitions included) over ``trigger_share`` (1.0)
  of the window.
- Then, down to ``target_share`` (0.9) of the window, each step only as far as needed: (1) the
  oldest tool outputs are cleared to the lines that later messages name (the lines holding a path,
  symbol, flag or number the agent, the user or a later output went back to, each whole), never
  the newest ``mask_keep`` (2) nor those in the newest groups within half the target; (2) the
  oldest whole tool groups after the system prompt and the task (``head=input``) fold into one
  running extractive summary right after the task, the previous summary merged into it, and over
  the event limit everything but the newest 0.6 of it folds too; (3) the largest outputs still
  kept are cut to head and tail with the cut middle's details in the marker. An exchange over the
  target alone is cut only as far as the trigger threshold needs.
- The summary (ctxlab's sections, with a Details section listing what the folded turns named) may
  use up to ``summary_max_tokens`` (4000), never more than the window leaves.

Why (docs/quality.md, "recommended"): tuned on half of the real sessions in ``../shared/reallogs``
(by file) and of the bundled agent sessions by the grounded measures (the strings the recorded next
action used), never by the fact regexes. Keeping whole recent messages and compacting every few
dozen events beat compacting only when full; a cleared output that keeps the lines the agent went
back to beat one that kept a list of every identifier it named (that kept the strings, not what
they were: the in-context variant).

The knob: ``trigger_events`` (how many events between compactions) moves the tokens sent;
`ctxlab.analysis.dominance.SETTINGS` are the settings compared with the agent presets.
Deterministic and offline by default; ``summarizer=llm`` summarizes with an LLM in ctxlab's
sections (the cleared outputs stay extractive). Reads only the messages it is handed: the lines it
keeps are chosen by what came after them in the history so far, never by the call being compressed.
"""

from __future__ import annotations

from ctxlab.strategies.policy import Policy, Source, preset

RECOMMENDED = preset("recommended", Policy, {
    "trigger": "share", "trigger_share": 1.0, "trigger_events": 60, "head": "input", "tail": "budget",
    "target_share": 0.9, "mask_keep": 2, "middle": "summarize", "voice": "ctxlab", "summary_max_tokens": 4000,
    "placement": "after_head", "passes": 2,
}, Source("ctxlab", "ctxlab/strategies/mechanics/budget.py, trail.py, refs.py", "ctxlab's own design"),
    "ctxlab's recommendation: every 60 events (or when full), clear old tool outputs to the lines later "
    "messages name, fold the oldest turns into a running extractive summary, cut the largest outputs last, "
    "down to 0.9 of the window", source_names=(
        ("trigger, trigger_events", "compact above 60 events (a tool call or a message each)"),
        ("trigger_share", "or when the request (its own counter, tools included) is over the window"),
        ("tail, target_share", "compact down to 0.9 of the window; over the event limit, keep its newest 0.6"),
        ("head", "the system prompt and the task (up to the first user message) are never compacted"),
        ("mask_keep", "the newest tool outputs stay whole in step (1)"),
        ("middle", "summarize in ctxlab's sections, with Details (extractive; `summarizer=llm` for an LLM)"),
        ("passes", "compact again while still over the trigger"),
        ("summary_max_tokens", "the running summary's cap (bounded by what the window leaves)")))
