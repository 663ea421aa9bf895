"""`recommended`: ctxlab's own policy, built to keep the most facts for the tokens it sends.

Not an agent's: a composition of the policy model's mechanics, with the ``budget`` tail
(`ctxlab.strategies.mechanics.budget`) and trail digests (`ctxlab.strategies.mechanics.trail`).

- Trigger: the request (its own counter, tool definitions included) is over ``trigger_share``
  (0.8) of the window.
- Then, down to ``target_share`` (0.6) of the window, each step only as far as needed: (1) the oldest
  tool outputs but the newest ``mask_keep`` (2) are cleared to a note of their details (paths,
  identifiers, error codes, counts: about a quarter of their tokens, nearly all of their facts);
  (2) the oldest whole tool groups after the system prompt and the task (``head=input``) fold into
  one running extractive summary right after the task, the previous summary merged into it; (3) the
  largest outputs still kept are cut to head and tail with the cut middle's details in the marker.
  An exchange over the target alone is cut only as far as the trigger threshold needs.
- The summary (ctxlab's sections, with a Details section listing what the folded turns named) may
  use up to ``summary_max_tokens`` (4000), never more than the window leaves.

Why: on the bundled agent sessions most facts sit in tool outputs, and a summary of file names
loses them; a cleared output that keeps its details, and a summary that carries the details of what
it folds, keep them at a fraction of the tokens. The summary's size mattered most while tuning
(20 sessions at 8k, trigger 0.5, target 0.3: caps of 1000, 2000 and 3000 tokens kept 0.56, 0.72 and
0.80 of the facts for 63k, 66k and 68k tokens per session), so it may take more than its share.

The knob: ``trigger_share`` with ``target_share`` (how full the window gets before compacting, and how
full after) moves the tokens sent; `ctxlab.analysis.dominance.SETTINGS` are the settings compared
with the agent presets. Deterministic and offline by default; ``summarizer=llm`` summarizes with an
LLM in ctxlab's sections (the digests stay extractive).
"""

from __future__ import annotations

from ctxlab.strategies.policy import Policy, Source, preset

RECOMMENDED = preset("recommended", Policy, {
    "trigger": "share", "trigger_share": 0.8, "head": "input", "tail": "budget", "target_share": 0.6,
    "mask_keep": 2, "middle": "summarize", "voice": "ctxlab", "summary_max_tokens": 4000,
    "placement": "after_head", "passes": 2,
}, Source("ctxlab", "ctxlab/strategies/mechanics/budget.py, trail.py", "ctxlab's own design"),
    "ctxlab's recommendation: over 0.8 of the window, clear old tool outputs to their details, fold the "
    "oldest turns into a running extractive summary, cut the largest outputs last, down to 0.6", source_names=(
        ("trigger, trigger_share", "compact when the request (its own counter, tools included) is over 0.8 of the window"),
        ("tail, target_share", "compact down to 0.6 of the window"),
        ("head", "the system prompt and the task (up to the first user message) are never compacted"),
        ("mask_keep", "the newest tool outputs stay whole in step (1)"),
        ("middle", "summarize in ctxlab's sections, with Details (extractive; `summarizer=llm` for an LLM)"),
        ("passes", "compact again while still over the trigger"),
        ("summary_max_tokens", "the running summary's cap (bounded by what the window leaves)")))
